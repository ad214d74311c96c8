"""Load through nginx: 2 replicas behind the proxy (deploy/), the load test's sessions against it.

The same sessions as benchmarks/load_test.py (each a browser context that opens every page and
changes its control), sent through nginx to two `streamlit run app.py` replicas
(deploy/serve_replicas.py). Each replica is warmed first on its own address (a cold server's
first concurrent visits race on imports; see tests/test_replicas.py). Reported: errors,
interaction latency p50/p95, the sessions each replica served (nginx's access log) and each
replica's RSS. Results in benchmarks/results/load_proxied.json and .md, and docs/replicas.md.

On a 2-core machine the two replicas, nginx and every browser share the same two cores, so this
run cannot show a throughput gain: it shows that sessions are spread, that none fails through the
proxy, and what each replica holds in memory.

Run: `make bench-load` (after load_test.py), or
`python benchmarks/load_proxied.py --sessions 10 --seconds 60`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.load_test import latency_summary, rss_mb, session  # noqa: E402
from deploy import serve_replicas  # noqa: E402
from tests import browser_support  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
AFFINITY = re.compile(r"affinity=(\S+) upstream=(.*?) upstream_status=")


async def sample_memory(pids: list[int], deadline: float, samples: list[list[float]]) -> None:
    while time.monotonic() < deadline:
        samples.append([rss_mb(pid) for pid in pids])
        await asyncio.sleep(2)


def sessions_per_replica(access_log: Path) -> dict[str, int]:
    """Distinct affinity cookies each replica answered (the last address nginx tried)."""
    seen: dict[str, set[str]] = defaultdict(set)
    for match in map(AFFINITY.search, access_log.read_text().splitlines()):
        if match:
            seen[match.group(2).split(",")[-1].strip()].add(match.group(1))
    return {address: len(cookies) for address, cookies in sorted(seen.items())}


async def run(sessions: int, seconds: float, replicas: int) -> dict:
    from playwright.async_api import async_playwright

    executable = browser_support.find_chromium()
    if executable is None:
        sys.exit(browser_support.NO_CHROMIUM)
    RESULTS.mkdir(parents=True, exist_ok=True)
    try:
        running = serve_replicas.start(
            replicas, workdir=Path(tempfile.mkdtemp(prefix="pe-load-proxied-")))
    except RuntimeError as error:
        sys.exit(str(error))
    stats: dict = {"latencies": [], "errors": []}
    samples: list[list[float]] = []
    try:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path=executable, args=browser_support.CHROMIUM_ARGS)
            # Warm-up on each replica's own address, not through nginx: every replica is warm.
            await asyncio.gather(*(
                session(browser, f"http://{address}", 0, time.monotonic() + 600,
                        {"latencies": [], "errors": []}, once=True)
                for address in running.addresses))
            after_warm_up = [rss_mb(server.pid) for server in running.servers]
            running.access_log.write_text("")  # count only the measured sessions
            deadline = time.monotonic() + seconds
            await asyncio.gather(
                sample_memory([server.pid for server in running.servers], deadline, samples),
                *(session(browser, running.url, i, deadline, stats) for i in range(sessions)),
            )
            await browser.close()
        spread = sessions_per_replica(running.access_log)
    finally:
        running.stop()
    return {
        "replicas": replicas,
        **latency_summary(stats, sessions, seconds),
        "sessions_per_replica": spread,
        "rss_after_warm_up_mb": after_warm_up,
        "rss_final_mb": samples[-1] if samples else None,
        "rss_peak_mb": [max(s[i] for s in samples) for i in range(replicas)] if samples else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--replicas", type=int, default=2)
    args = parser.parse_args()
    if not 1 <= args.sessions <= 50 or not 1 <= args.seconds <= 900 \
            or not 1 <= args.replicas <= 8:
        sys.exit("bounded: 1..50 sessions, 1..900 seconds, 1..8 replicas")
    result = asyncio.run(run(args.sessions, args.seconds, args.replicas))
    (RESULTS / "load_proxied.json").write_text(json.dumps(result, indent=2))
    memory = "; ".join(
        f"replica {i + 1}: {warm:.0f} MB after warm-up, {final:.0f} MB at the end, peak {peak:.0f}"
        for i, (warm, final, peak) in enumerate(zip(
            result["rss_after_warm_up_mb"], result["rss_final_mb"] or [], result["rss_peak_mb"]
            or [], strict=False)))
    table = (
        f"{result['sessions']} sessions for {result['seconds']:.0f} s through nginx to "
        f"{result['replicas']} replicas: {result['interactions']} interactions, "
        f"{len(result['errors'])} errors; latency p50 "
        f"{result['latency_p50_s'] or float('nan'):.2f} s, "
        f"p95 {result['latency_p95_s'] or float('nan'):.2f} s; sessions per replica "
        f"{list(result['sessions_per_replica'].values())}; {memory}. (One machine: the replicas "
        f"share its cores with nginx and the browsers, so this shows spread, errors and memory, "
        f"not throughput.)\n"
    )
    (RESULTS / "load_proxied.md").write_text(table)
    docs = ROOT / "docs" / "replicas.md"  # the last result, beside what it means
    head, rest = docs.read_text(encoding="utf-8").split("<!-- bench:load-proxied -->\n", 1)
    _, tail = rest.split("<!-- /bench:load-proxied -->", 1)
    docs.write_text(f"{head}<!-- bench:load-proxied -->\n{table}<!-- /bench:load-proxied -->{tail}",
                    encoding="utf-8")
    print(table)
    for error in result["errors"][:20]:
        print("  error:", error)


if __name__ == "__main__":
    main()
