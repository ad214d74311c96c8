"""st.plotly_chart against the Plotly.react element (ui/plotly_react.py), side by side, against
the floor app, in one run.

`st.plotly_chart` remounts a chart whose figure changed (a new element, `Plotly.newPlot` on a new
DOM node); the element keeps its div and calls `Plotly.react`. For each page, at its default and
at its maximum settings, this measures the same way as bench_browser.py (a control changed as a
person does it, until every chart shows the new data and the script has finished) with the app
started twice: PE_PLOTLY_REACT=0 (st.plotly_chart) and =1 (the element). The floor app (one
slider, one st.plotly_chart scatter) runs first and last; ratios are to the mean of both.

The chart alone is measured too: the floor app with a 64 x 128 heatmap in place of its scatter,
drawn both ways ("heatmap-64x128 app").

Run: `make bench-plotly-react` (or `python benchmarks/bench_plotly_react.py [--pages
heatmap-64x128 heatmap ...] [--changes 12] [--rounds 2]`). Results:
benchmarks/results/plotly_react.json and .md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_browser  # noqa: E402
from bench_browser import FLOOR_RUNS, Result, Scenario  # noqa: E402

from tests import browser_support  # noqa: E402
from ui.pages import PAGES  # noqa: E402
from ui.plotly_react import ENV_SWITCH  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
WAYS = {"plotly_chart": "0", "react": "1"}


# The chart alone: the floor app with a 64 x 128 heatmap (the heatmap page's table at 64
# positions, d_model 128) instead of its scatter, drawn as show_chart draws it, so the
# difference between the two ways is not hidden under a page's own work. Written next to the
# results when the benchmark runs (static/ beside it gets plotly.js, as for app.py).
HEATMAP_APP = """
import sys
sys.path.insert(0, {root!r})
import numpy as np
import plotly.graph_objects as go
import streamlit as st
from ui import plotly_react

st.title("Floor with a 64 x 128 heatmap")
with st.sidebar:
    frequency = st.slider("frequency", 1, 50, 5, key="frequency")
position = np.arange(64)[:, None]
rate = 1.0 / (10000 ** (np.arange(0, 128, 2) / 128))
table = np.empty((64, 128))
table[:, 0::2] = np.sin(position * rate * frequency)
table[:, 1::2] = np.cos(position * rate * frequency)
fig = go.Figure(go.Heatmap(z=table, colorscale="RdBu", zmid=0))
config = {{"displaylogo": False}}
if plotly_react.enabled():
    plotly_react.plotly_react_chart(fig, key="chart", config=config)
else:
    st.plotly_chart(fig, key="chart", config=config)
"""
HEATMAP_APP_NAME = "heatmap-64x128"
DEFAULT_PAGES = (HEATMAP_APP_NAME, "heatmap", "wavelengths")


def heatmap_app() -> str:
    folder = RESULTS / "plotly_react_app.tmp"
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "heatmap_app.py"
    script.write_text(HEATMAP_APP.format(root=str(ROOT)), encoding="utf-8")
    return str(script)


def scenarios(pages: list[str], rounds: int) -> list[tuple[Scenario, str | None]]:
    """(scenario, PE_PLOTLY_REACT) in the order they run: the floor, then the 64 x 128 heatmap
    app and each page's default and maximum settings, drawn both ways one after the other (the
    order swapped every round, so neither way always follows the other), then the floor
    again."""
    out: list[tuple[Scenario, str | None]] = [
        (Scenario(FLOOR_RUNS[0], "benchmarks/floor_app.py", "/"), None)]
    alone = heatmap_app() if HEATMAP_APP_NAME in pages else None
    for round_ in range(rounds):
        ways = list(WAYS.items()) if round_ % 2 == 0 else list(WAYS.items())[::-1]
        if alone:
            out += [(Scenario(f"{HEATMAP_APP_NAME} app {way}", alone, "/"), switch)
                    for way, switch in ways]
        for page in PAGES:
            if page.url_path not in pages:
                continue
            control = bench_browser.bench_control(page.url_path)
            settings = [("default", {})]
            query = bench_browser.max_query(page.url_path)
            if query:
                settings.append(("max", query))
            for label, query in settings:
                for way, switch in ways:
                    out.append((Scenario(f"{page.url_path} ({label}) {way}", "app.py",
                                         f"/{page.url_path}", control, query), switch))
    out.append((Scenario(FLOOR_RUNS[1], "benchmarks/floor_app.py", "/"), None))
    return out


def merge_rounds(results: list[Result]) -> list[Result]:
    """One row per scenario: the median of its rounds' figures."""
    merged: dict[str, list[Result]] = {}
    for result in results:
        merged.setdefault(result.scenario, []).append(result)
    out = []
    for runs in merged.values():
        values = {field: statistics.median(getattr(r, field) for r in runs)
                  for field in ("cold_start_s", "latency_median_s", "latency_p95_s",
                                "bytes_per_rerun", "rss_mb")}
        out.append(replace(runs[0], **values, changes=sum(r.changes for r in runs)))
    return out


def markdown(results: list[Result], machine: str, rounds: int) -> str:
    floor = bench_browser.floor_reference(results)
    lines = [
        f"Measured {time.strftime('%Y-%m-%d')} on {machine}: st.plotly_chart "
        f"({ENV_SWITCH}=0) and the Plotly.react element ({ENV_SWITCH}=1), {rounds} round(s) "
        "(medians), ratios to the floor app measured first and last in the same run.",
        "",
        "| scenario | cold start s (x floor) | repaint median s (x floor) | repaint p95 s "
        "| KB per rerun | server RSS MB |",
        "|---|---|---|---|---|---|",
    ]
    ordered = [r for r in results if r.scenario in FLOOR_RUNS] + [floor] + [
        r for r in results if r.scenario not in FLOOR_RUNS]
    for r in ordered:
        lines.append(
            f"| {r.scenario} | {r.cold_start_s:.2f} ({r.cold_start_s / floor.cold_start_s:.2f}x) "
            f"| {r.latency_median_s:.3f} ({r.latency_median_s / floor.latency_median_s:.2f}x) "
            f"| {r.latency_p95_s:.3f} | {r.bytes_per_rerun / 1024:.0f} | {r.rss_mb:.0f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--changes", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--pages", nargs="*", default=list(DEFAULT_PAGES),
                        help=f"url paths, and {HEATMAP_APP_NAME} for the chart alone "
                             f"(default: {' '.join(DEFAULT_PAGES)})")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    executable = browser_support.find_chromium()
    if executable is None:
        sys.exit(browser_support.NO_CHROMIUM)
    memory_gib = psutil.virtual_memory().total / 2**30
    machine = (f"{platform.machine()}, {psutil.cpu_count()} cores, {memory_gib:.0f} GiB, "
               f"Python {platform.python_version()}")
    results = []
    saved = os.environ.get(ENV_SWITCH)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, args=browser_support.CHROMIUM_ARGS
        )
        try:
            for scenario, switch in scenarios(args.pages, args.rounds):
                if switch is None:
                    os.environ.pop(ENV_SWITCH, None)
                else:
                    os.environ[ENV_SWITCH] = switch  # the server started next inherits it
                try:
                    result = bench_browser.measure(browser, scenario, args.changes)
                except Exception as error:  # one broken scenario must not lose the others
                    print(f"{scenario.name:40} FAILED: {type(error).__name__}: "
                          f"{str(error).splitlines()[0][:200]}", flush=True)
                    continue
                results.append(result)
                print(f"{result.scenario:40} cold {result.cold_start_s:6.2f}s  "
                      f"median {result.latency_median_s:6.3f}s  "
                      f"p95 {result.latency_p95_s:6.3f}s  "
                      f"{result.bytes_per_rerun / 1024:8.0f} KB/rerun", flush=True)
        finally:
            browser.close()
            if saved is None:
                os.environ.pop(ENV_SWITCH, None)
            else:
                os.environ[ENV_SWITCH] = saved
    merged = merge_rounds(results)
    table = markdown(merged, machine, args.rounds)
    print(table)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "plotly_react.json").write_text(json.dumps(
        {"machine": machine, "rounds": args.rounds,
         "results": [asdict(r) for r in results]}, indent=2))
    (RESULTS / "plotly_react.md").write_text(table)


if __name__ == "__main__":
    main()
