"""Whether the public demo's idle memory comes back after its visitors leave: `streamlit run
serve.py` as a hosting platform runs it (none of the MALLOC_* settings), the unique memory (USS)
and the anonymous resident memory (RssAnon) of its process tree read while idle, before a crowd
and after it has gone.

Scenarios, each on a fresh server warmed up by every page at its defaults, then idle `--idle`:

- quiet: 200 sessions at once, each running the home page, silent 60 s, then closing cleanly;
- crowds: 20 sessions that never read their replies, each asking for 15 maximum-size heatmaps,
  then gone (benchmarks/hostile_load.py's crowd); then the same crowd again.

Each reading is taken `--idle` seconds (90) after the last client left: past the 30 s a departed
session is kept (`server.disconnectedSessionTTL`). `--before WORKTREE` measures an older checkout
first (`git worktree add /tmp/old <commit>`) and puts both in one table. With `--probe FOLDER`,
the server runs server/memory_probe.py (glibc's heap, Python's arenas, objects by type,
Streamlit's sessions; tracemalloc unless PE_MEMORY_PROBE_FRAMES=0) and each reading also writes a
report there; `--compare A B` prints tracemalloc's largest differences between two of them.

Run: `python benchmarks/idle_memory.py` (~12 minutes, twice that with --before). Results:
benchmarks/results/idle_memory.json and the <!-- bench:idle --> block of docs/robustness.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_browser import RESULT_DOCS, update_docs  # noqa: E402
from benchmarks.export_cost import tree_uss_mb  # noqa: E402
from benchmarks.hostile_load import crowd  # noqa: E402
from tests import browser_support  # noqa: E402
from tests.raw_session import RawSession, run_async, timed_open  # noqa: E402
from ui.pages import PAGES  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
DOC_MARKER = "bench:idle"
RESULT_DOCS.setdefault(DOC_MARKER, "docs/robustness.md")


def tree_anon_mb(pid: int) -> float:
    """The anonymous resident memory (RssAnon, MB) of process `pid` and its descendants: what
    the processes themselves allocated. Their unique memory (USS) also counts the library pages
    no other process maps at that moment, which rises and falls by tens of MB as other servers
    of the same checkout start and stop on the machine."""
    import psutil

    root = psutil.Process(pid)
    total = 0
    for process in [root, *root.children(recursive=True)]:
        try:
            with open(f"/proc/{process.pid}/status") as status:
                total += next(int(line.split()[1]) for line in status
                              if line.startswith("RssAnon:"))
        except (OSError, StopIteration):  # gone meanwhile
            continue
    return total / 1024


def quiet_sessions(url: str, sessions: int, quiet_s: float) -> dict:
    """`sessions` visitors at once, each running the home page, then silent `quiet_s` seconds,
    then closing their socket cleanly."""

    async def one() -> int:
        for _ in range(5):  # a handshake timed out among hundreds at once: a browser retries
            try:
                session = await RawSession(url, "").__aenter__()
                break
            except TimeoutError:
                await asyncio.sleep(1)
        else:
            raise TimeoutError("no websocket after 5 tries")
        try:
            await session.open(timeout=600)
            await asyncio.sleep(quiet_s)
            return len(session.exceptions)
        finally:
            await session.__aexit__(None, None, None)

    async def run() -> list[int]:
        return await asyncio.gather(*[one() for _ in range(sessions)])

    return {"sessions": sessions, "quiet_s": quiet_s, "errors": sum(run_async(run()))}


def probe(folder: Path | None, label: str, timeout: float = 120) -> dict | None:
    """Ask the server's probe for a report (server/memory_probe.py) and wait for it."""
    if folder is None:
        return None
    answer = folder / f"{label}.json"
    answer.unlink(missing_ok=True)
    (folder / f"ask-{label}").touch()
    deadline = time.monotonic() + timeout
    while not answer.exists():  # written last, whole
        if time.monotonic() > deadline:
            raise TimeoutError(f"no {label} report from the probe in {timeout} s")
        time.sleep(0.5)
    return json.loads(answer.read_text())


def idle_reading(pid: int, folder: Path | None, label: str, after_s: float) -> dict:
    time.sleep(after_s)
    reading = {"tree_mb": round(tree_uss_mb(pid)[0]), "anon_mb": round(tree_anon_mb(pid))}
    report = probe(folder, label)
    if report:
        reading["probe"] = {key: report[key] for key in (
            "rss_mb", "glibc", "pymalloc", "traced_mb", "gc_objects", "gc_frozen", "streamlit")}
    print(label, json.dumps(reading), flush=True)
    return reading


def compare(folder: Path, before: str, after: str, top: int = 25) -> None:
    import tracemalloc

    old = tracemalloc.Snapshot.load(str(folder / f"{before}.tracemalloc"))
    new = tracemalloc.Snapshot.load(str(folder / f"{after}.tracemalloc"))
    for key in ("filename", "traceback"):
        print(f"--- {before} -> {after}, by {key}")
        for stat in new.compare_to(old, key)[:top]:
            print(f"{stat.size_diff / 2**20:+8.2f} MB {stat.count_diff:+8d} blocks  "
                  + ("\n      ".join(stat.traceback.format()[-8:]) if key == "traceback"
                     else str(stat.traceback[0])))


def warm_up(url: str) -> None:
    """Every page once at its defaults (imports, the model, the caches' first entries): the
    warm start each idle reading is compared with."""
    for page in ("", *(p.url_path for p in PAGES)):
        timed_open(url, page, "")


def served(root: Path, probe_folder: Path | None, steps) -> dict:
    """A fresh serve.py of checkout `root`, warmed up by every page, then `steps(url, pid)`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    env.pop("PE_MEMORY_PROBE", None)
    if probe_folder:
        env["PE_MEMORY_PROBE"] = str(probe_folder)
    os.environ.clear()
    os.environ.update(env)  # the server inherits it: as a hosting platform starts it
    server, url = browser_support.start_streamlit("serve.py", RESULTS / "idle-server.log.tmp",
                                                  cwd=root)
    try:
        warm_up(url)
        return steps(url, server.pid)
    finally:
        browser_support.stop(server)


def run(root: Path, args: argparse.Namespace) -> dict:
    """Each scenario on a fresh server of checkout `root`."""
    RESULTS.mkdir(parents=True, exist_ok=True)

    def quiet(url: str, pid: int) -> dict:
        out = {"warm": idle_reading(pid, args.probe, "warm", args.idle)}
        out["quiet"] = quiet_sessions(url, args.sessions, args.quiet)
        out["quiet"]["idle"] = idle_reading(pid, args.probe, "quiet", args.idle)
        return out

    def crowds(url: str, pid: int) -> dict:
        out = {"warm": idle_reading(pid, args.probe, "warm-crowd", args.idle)}
        for turn in range(1, args.crowds + 1):
            out[f"crowd{turn}"] = crowd(url)
            out[f"crowd{turn}"]["idle"] = idle_reading(pid, args.probe, f"crowd{turn}", args.idle)
        return out

    out: dict = {"root": str(root)}
    if args.sessions:
        out["quiet"] = served(root, args.probe, quiet)
    if args.crowds:
        out["crowds"] = served(root, args.probe, crowds)
    return out


def rows(out: dict) -> list[tuple[str, dict, dict]]:
    """(what, its idle reading, the reading before it) of every reading in `out`."""
    found = []
    if "quiet" in out:
        warm, cell = out["quiet"]["warm"], out["quiet"]["quiet"]
        found += [("warm (every page once), then 90 s idle", warm, warm),
                  (f"{cell['sessions']} quiet sessions at once (home page, silent "
                   f"{cell['quiet_s']:g} s, closed)", cell["idle"], warm)]
    if "crowds" in out:
        before = out["crowds"]["warm"]
        for name, cell in out["crowds"].items():
            if name.startswith("crowd"):
                found.append(("20 sessions x 15 max heatmaps, never reading (another fresh "
                              "server, warmed up alike)" if name == "crowd1"
                              else f"the same crowd again ({name[5:]})", cell["idle"], before))
                before = cell["idle"]
    return found


def summary(after: dict, before: dict | None = None, before_name: str = "before") -> str:
    def cell(reading: dict, previous: dict) -> str:
        if reading is previous:
            return f"{reading['tree_mb']}"
        return (f"{reading['tree_mb']} ({reading['tree_mb'] - previous['tree_mb']:+d}) "
                f"[{reading['anon_mb'] - previous['anon_mb']:+d}]")

    columns = ([(before_name, before)] if before else []) + [("after", after)]
    lines = [f"Fresh `streamlit run serve.py` servers without the MALLOC_* settings; the idle "
             f"tree read {IDLE_S} s after the last client left (sessions are kept 30 s). USS in "
             "MB (its change since the reading before) [the change of its anonymous resident "
             "memory, RssAnon: USS without the library pages whose sharing with other processes "
             "comes and goes].", "",
             "| idle after | " + " | ".join(name for name, _ in columns) + " |",
             "|---|" + "---|" * len(columns)]
    table = [rows(out) for _, out in columns]
    for index, (what, *_rest) in enumerate(table[-1]):
        lines.append(f"| {what} | " + " | ".join(
            cell(found[index][1], found[index][2]) for found in table) + " |")
    return "\n".join(lines) + "\n"


IDLE_S = 90


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=200, help="quiet sessions (0: none)")
    parser.add_argument("--quiet", type=float, default=60.0, help="seconds each stays silent")
    parser.add_argument("--crowds", type=int, default=2, help="crowds, one after another")
    parser.add_argument("--idle", type=float, default=IDLE_S,
                        help="seconds after the last client left that the tree is read")
    parser.add_argument("--probe", type=Path, help="a folder for the server's memory reports")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to serve")
    parser.add_argument("--before", type=Path,
                        help="a checkout of the code before (a git worktree) measured first")
    parser.add_argument("--before-name", default="before", help="its column's heading")
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"),
                        help="only compare two reports of --probe's folder")
    args = parser.parse_args()
    if args.compare:
        compare(args.probe, *args.compare)
        return
    before = run(args.before, args) if args.before else None
    after = run(args.root, args)
    text = summary(after, before, args.before_name)
    print(text)
    if not args.probe and args.idle == IDLE_S:
        (RESULTS / "idle_memory.json").write_text(
            json.dumps({"before": before, "after": after}, indent=2) + "\n")
        update_docs(DOC_MARKER, text)


if __name__ == "__main__":
    main()
