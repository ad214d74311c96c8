"""What an unfriendly visitor's moves cost the public demo: `streamlit run serve.py` as a hosting
platform runs it (none of the Makefile's or the Dockerfile's MALLOC_* settings), the unique
memory (USS) of its whole process tree (the server and the Chromium it drives) sampled every
0.2 s, and another visitor's pages timed meanwhile.

Scenarios, one after another on one server warmed up by every page at its defaults:

- crowd: 20 sessions that never read their replies, each asking for 15 maximum-size heatmaps,
  then gone: the tree's peak, and what the idle server keeps 60 s after (sessions are kept 30 s);
- png after the crowd: the Export menu's PNG 7680 x 4320 of the largest heatmap;
- frame: one 190 MB websocket frame, with no session;
- heavy deck: a PDF of ten slides at their pages' largest sizes, another visitor opening the
  heatmap at new large settings every 3 s;
- two tours: two visitors asking for the tour's PDF at once, another opening the home page;
- costly deck: thirty slides at the largest sizes (refused, saying why).

Run: `python benchmarks/hostile_load.py` (~6 minutes; part of `make bench-load`). Results:
benchmarks/results/hostile_load.json and the <!-- bench:hostile --> block of docs/robustness.md.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import websockets  # noqa: E402  (Streamlit's server stack installs it)
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402

from benchmarks.bench_browser import RESULT_DOCS, update_docs  # noqa: E402
from benchmarks.export_cost import TreeSampler, tree_uss_mb  # noqa: E402
from benchmarks.load_memory import one_export  # noqa: E402
from tests import browser_support  # noqa: E402
from tests.raw_session import (  # noqa: E402
    HEAVY_DECK,
    Bystander,
    RawSession,
    ask_for_pdf,
    first_slide_query,
    pdf_pages,
    run_async,
    timed_open,
)
from ui.pages import PAGES  # noqa: E402
from ui.tour import TOUR, encode_deck  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
DOC_MARKER = "bench:hostile"
RESULT_DOCS.setdefault(DOC_MARKER, "docs/robustness.md")
BUDGET_MB = 700


def measured(pid: int, scenario) -> dict:
    """`scenario()` run with the tree sampled: its outcome, peak, the server's share then, time."""
    before = tree_uss_mb(pid)[0]
    sampler = TreeSampler(pid, every_s=0.2)
    start = time.monotonic()
    outcome = scenario()
    seconds = time.monotonic() - start
    peak = sampler.stop()
    return {"before_mb": round(before), "peak_mb": round(peak),
            "server_at_peak_mb": round(sampler.own_at_peak_mb), "seconds": round(seconds, 1),
            "outcome": outcome}


def crowd(url: str, sessions: int = 20, reruns: int = 15) -> dict:
    async def rude(i: int):
        socket = await websockets.connect(url.replace("http", "ws", 1) + "/_stcore/stream",
                                          subprotocols=["streamlit"], origin=url, max_size=None)
        socket.transport.pause_reading()  # never reads its replies
        for k in range(reruns):
            message = BackMsg()
            message.rerun_script.page_name = "heatmap"
            message.rerun_script.query_string = (f"d_model={4096 - 2 * i}"
                                                 f"&positions={8192 - reruns * i - k}")
            await socket.send(message.SerializeToString())
            await asyncio.sleep(1.0)
        return socket

    async def run() -> None:
        sockets = await asyncio.gather(*[rude(i) for i in range(sessions)])
        await asyncio.sleep(10)
        for socket in sockets:
            socket.transport.abort()

    run_async(run())
    return {"sessions": sessions, "reruns": reruns}


def frame(url: str, size: int = 190 * 2**20) -> str:
    async def send() -> str:
        async with websockets.connect(url.replace("http", "ws", 1) + "/_stcore/stream",
                                      subprotocols=["streamlit"], origin=url) as socket:
            try:
                await socket.send(b"\x00" * size)
                await asyncio.wait_for(socket.recv(), 60)
            except websockets.ConnectionClosed as closed:
                return f"closed ({closed.rcvd.code if closed.rcvd else 'no code'})"
            return "kept open"

    return run_async(send())


def heavy_deck(url: str) -> dict:
    sizes = (f"d_model={4096 - 2 * i}&positions={8192 - i}" for i in range(1000))
    with Bystander(url, "heatmap", sizes) as bystander:
        pdf, said = run_async(ask_for_pdf(url, HEAVY_DECK, encode_deck(HEAVY_DECK)))
    return {"pages": pdf_pages(pdf) if pdf else None, "said": said[-1:] if not pdf else [],
            "visitor_s": [round(s, 1) for s in bystander.seconds]}


def two_tours(url: str) -> dict:
    async def both() -> list:
        start = asyncio.Event()
        asking = [asyncio.create_task(ask_for_pdf(url, TOUR, "", start)) for _ in range(2)]
        await asyncio.sleep(3)
        start.set()
        return await asyncio.gather(*asking)

    home = (f"lang={lang}" for lang in ["en", "zh"] * 100)
    with Bystander(url, "", home, every_s=5) as bystander:
        results = run_async(both())
    return {"pages": [pdf_pages(pdf) if pdf else None for pdf, _ in results],
            "visitor_s": [round(s, 1) for s in bystander.seconds]}


def costly_deck(url: str) -> str:
    slides = HEAVY_DECK * 3
    code = encode_deck(slides)

    async def visit() -> RawSession:
        async with RawSession(url, "tour", first_slide_query(slides, code)) as visitor:
            return await visitor.open()

    texts = run_async(visit()).texts
    return next((text for text in texts if "too large to draw" in text), "not refused")


def settled(pid: int, seconds: float) -> float:
    time.sleep(seconds)
    return round(tree_uss_mb(pid)[0])


def run() -> dict:
    RESULTS.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    os.environ.clear()
    os.environ.update(env)  # the server inherits it: as a hosting platform starts it
    server, url = browser_support.start_streamlit("serve.py", RESULTS / "hostile-server.log.tmp")
    pid = server.pid
    out: dict = {}
    try:
        for page in ("", *(p.url_path for p in PAGES)):
            timed_open(url, page, "")
        out["warm_mb"] = settled(pid, 5)
        out["crowd"] = measured(pid, lambda: crowd(url))
        out["crowd"]["kept_60s_mb"] = settled(pid, 60)
        out["png"] = measured(pid, lambda: run_async(one_export(url, "png4", [])) is not None)
        out["frame"] = measured(pid, lambda: frame(url))
        out["heavy deck"] = measured(pid, lambda: heavy_deck(url))
        out["heavy deck"]["after_30s_mb"] = settled(pid, 30)
        out["two tours"] = measured(pid, lambda: two_tours(url))
        out["costly deck"] = measured(pid, lambda: costly_deck(url))
        out["idle_mb"] = settled(pid, 30)
    finally:
        browser_support.stop(server)
    return out


def summary(out: dict) -> str:
    def row(name: str, cell: dict, what: str) -> str:
        verdict = "within" if cell["peak_mb"] <= BUDGET_MB else "OVER"
        return (f"| {name} | {cell['before_mb']} / {cell['peak_mb']} ({verdict}) | "
                f"{cell['seconds']} s | {what} |")

    crowd_cell, deck, tours = out["crowd"], out["heavy deck"], out["two tours"]
    lines = [
        f"`streamlit run serve.py` without the MALLOC_* settings, warmed up by every page: "
        f"{out['warm_mb']} MB of tree USS; budget {BUDGET_MB} MB.",
        "",
        "| scenario | tree USS before / peak (MB) | time | what the visitor got |",
        "|---|---|---|---|",
        row("20 sessions x 15 max heatmaps, never reading", crowd_cell,
            f"idle 60 s after they left: {crowd_cell['kept_60s_mb']} MB"),
        row("PNG 7680 x 4320 after the crowd", out["png"],
            "drawn" if out["png"]["outcome"] else "refused: try again in a minute"),
        row("one 190 MB websocket frame", out["frame"], f"connection {out['frame']['outcome']}"),
        row("PDF of 10 slides at the largest sizes + a visitor", deck,
            f"{deck['outcome']['pages']} pages; visitor's pages "
            f"{max(deck['outcome']['visitor_s'] or [0])} s at most; idle 30 s after: "
            f"{deck['after_30s_mb']} MB"),
        row("2 tour PDFs at once + a visitor", tours,
            f"pages {tours['outcome']['pages']}; visitor's pages "
            f"{max(tours['outcome']['visitor_s'] or [0])} s at most"),
        row("PDF of 30 slides at the largest sizes", out["costly deck"],
            "refused with its cost" if "too large" in out["costly deck"]["outcome"]
            else out["costly deck"]["outcome"]),
        "",
        f"Idle at the end: {out['idle_mb']} MB.",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    out = run()
    (RESULTS / "hostile_load.json").write_text(json.dumps(out, indent=2) + "\n")
    text = summary(out)
    print(text)
    update_docs(DOC_MARKER, text)


if __name__ == "__main__":
    main()
