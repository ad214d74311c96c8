"""Load and soak: 20 concurrent sessions click through every page for 2 minutes.

Loopback only, bounded in sessions and time; stops by itself. Each session is a separate browser
context (its own Streamlit session) that opens every page in turn and changes the control the
benchmark changes a few times. Reported: errors (exception boxes, timeouts), interaction latency
p50/p95,
and the server's RSS after warm-up and at the end (budget: growth <= 10%; <= 700 MB with 20
sessions). Results are merged into benchmarks/results/load.json and load.md.

Run: `make bench-load` (or `python benchmarks/load_test.py --sessions 20 --seconds 120`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_browser import bench_control, update_docs  # noqa: E402
from tests import browser_support  # noqa: E402
from ui.pages import PAGES  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
# 20 browser contexts and the server share this machine's cores: a page can take a minute to paint
# under that load. A wait this long that still fails is an error; a slow answer is a latency.
WAIT_MS = 120_000
# Memory is compared between the middle and the end of the run: by the middle every session has
# visited pages and the caches (shared, bounded) have filled; growth after that would be a leak.


def rss_mb(pid: int) -> float:
    process = psutil.Process(pid)
    return (process.memory_info().rss
            + sum(c.memory_info().rss for c in process.children(recursive=True))) / 2**20


async def change_control(page, url_path: str, step: int) -> None:
    key, kind = bench_control(url_path)
    if kind == "number" and await page.locator(f".st-key-{key} input[type=range]").count():
        kind = "slider"  # a swept number is a slider (ui.controls.PageControls.stops / slider)
    kind, selector, arg = browser_support.control_change(key, kind, step, down=step % 2 == 0)
    if kind == "click":
        await page.locator(selector).nth(arg).click()
    else:
        await page.locator(selector).first.focus()
        await page.keyboard.press(arg)


async def session(browser, url: str, index: int, deadline: float, stats: dict,
                  *, once: bool = False) -> None:
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    step = 0
    try:
        while time.monotonic() < deadline:
            if once and step:
                break
            for info in PAGES[index % len(PAGES):] + PAGES[: index % len(PAGES)]:
                if time.monotonic() >= deadline:
                    break
                try:
                    await page.goto(f"{url}/{info.url_path}", timeout=WAIT_MS)
                    await page.wait_for_selector(browser_support.IDLE_SELECTOR, timeout=WAIT_MS)
                    await page.wait_for_selector(".js-plotly-plot .main-svg", timeout=WAIT_MS)
                    for _ in range(3):
                        if time.monotonic() >= deadline:
                            break
                        before = await page.evaluate(browser_support.CHART_SIGNATURE_JS)
                        start = time.perf_counter()
                        await change_control(page, info.url_path, step)
                        step += 1
                        await page.wait_for_function(
                            f"""(b) => document.querySelector('{browser_support.IDLE_SELECTOR}')
                                && ({browser_support.CHART_SIGNATURE_JS})() !== b""",
                            arg=before, timeout=WAIT_MS)
                        stats["latencies"].append(time.perf_counter() - start)
                    boxes = await page.locator('[data-testid="stException"]').count()
                    if boxes:
                        stats["errors"].append(f"exception box on /{info.url_path}")
                except Exception as error:  # a timeout or a crash is an error to report
                    stats["errors"].append(f"/{info.url_path}: {type(error).__name__}: "
                                           f"{str(error).splitlines()[0][:160]}")
    finally:
        await context.close()


async def sample_memory(pid: int, deadline: float, samples: list[tuple[float, float]]) -> None:
    start = time.monotonic()
    while time.monotonic() < deadline:
        samples.append((time.monotonic() - start, rss_mb(pid)))
        await asyncio.sleep(2)


async def run(sessions: int, seconds: float) -> dict:
    from playwright.async_api import async_playwright

    executable = browser_support.find_chromium()
    if executable is None:
        sys.exit(browser_support.NO_CHROMIUM)
    RESULTS.mkdir(parents=True, exist_ok=True)
    server, url = browser_support.start_streamlit("app.py", RESULTS / "load-server.log.tmp")
    stats: dict = {"latencies": [], "errors": []}
    samples: list[tuple[float, float]] = []
    try:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path=executable, args=browser_support.CHROMIUM_ARGS)
            # Warm-up: one session visits every page once (imports, the model, first caches),
            # so that what follows measures sessions, not a cold server.
            await session(browser, url, 0, time.monotonic() + 600, {"latencies": [], "errors": []},
                          once=True)
            deadline = time.monotonic() + seconds
            await asyncio.gather(
                sample_memory(server.pid, deadline, samples),
                *(session(browser, url, i, deadline, stats) for i in range(sessions)),
            )
            await browser.close()
    finally:
        browser_support.stop(server)
    middle = samples[-1][0] / 2
    after_warm_up = next((rss for t, rss in samples if t >= middle), samples[0][1])
    final = samples[-1][1]
    return {
        **latency_summary(stats, sessions, seconds),
        "rss_after_warm_up_mb": after_warm_up,
        "rss_final_mb": final,
        "rss_peak_mb": max(rss for _, rss in samples),
        "rss_growth": final / after_warm_up - 1,
    }


def latency_summary(stats: dict, sessions: int, seconds: float) -> dict:
    """The part of a load run's results every load benchmark reports: how many sessions, for how
    long, how many interactions, errors, and the median and 95th percentile latency."""
    latencies = sorted(stats["latencies"])
    return {
        "sessions": sessions,
        "seconds": seconds,
        "interactions": len(latencies),
        "errors": stats["errors"],
        "latency_p50_s": statistics.median(latencies) if latencies else None,
        "latency_p95_s": latencies[round(0.95 * (len(latencies) - 1))] if latencies else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=120)
    args = parser.parse_args()
    if not 1 <= args.sessions <= 50 or not 1 <= args.seconds <= 900:
        sys.exit("bounded: 1..50 sessions, 1..900 seconds")
    result = asyncio.run(run(args.sessions, args.seconds))
    (RESULTS / "load.json").write_text(json.dumps(result, indent=2))
    table = (
        f"{result['sessions']} concurrent sessions for {result['seconds']:.0f} s: "
        f"{result['interactions']} interactions, {len(result['errors'])} errors; "
        f"latency p50 {result['latency_p50_s'] or float('nan'):.2f} s, "
        f"p95 {result['latency_p95_s'] or float('nan'):.2f} s; "
        f"server RSS {result['rss_after_warm_up_mb']:.0f} MB half-way (after warm-up), "
        f"{result['rss_final_mb']:.0f} MB at the end ({result['rss_growth']:+.1%}), "
        f"peak {result['rss_peak_mb']:.0f} MB.\n"
    )
    (RESULTS / "load.md").write_text(table)
    update_docs("bench:load", table)
    print(table)
    for error in result["errors"][:20]:
        print("  error:", error)


if __name__ == "__main__":
    main()
