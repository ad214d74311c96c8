"""What one figure image costs: peak unique memory (USS) of the process tree that draws it (Python
and the Chromium it drives) and seconds, per kind of the Export menu, before and after the images'
own Chromium (export/chromium.py).

- before: plotly's ``fig.to_image`` (kaleido 1.x): a Chromium started for each image, the PNG
  returned as one base64 string;
- after: ``export.files.figure_image``: one Chromium kept while images are drawn, a tab per
  image, a PNG rasterised and deflated a strip at a time.

The figure is the heatmap page's at its largest (/heatmap?d_model=4096&positions=8192), styled as
the Export menu styles it. Each (way, kind) runs in a fresh Python process that draws it twice in
a row: the first includes starting Chromium, the second (after) reuses it. The tree's USS is
sampled every 50 ms; "cost" is its peak minus the process's USS before the first image. USS counts
the pages no other process shares, so Chromium's own code counts in full only when no other
Chromium runs on the machine: the numbers vary by ~50 MB with what else runs.

Run: `python benchmarks/export_cost.py` (~3 minutes). Results: benchmarks/results/export_cost.json
and .md, and the <!-- bench:export-cost --> block of docs/robustness.md; export.files.IMAGE_COST
is rounded up from the "after" column.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RESULTS = ROOT / "benchmarks" / "results"
DOC_MARKER = "bench:export-cost"  # its block in docs/robustness.md
KINDS = {"png4": ("png", 4), "png2": ("png", 2), "svg": ("svg", 1)}  # the Export menu's images
WAYS = ("before", "after")
REPEAT = 2


def tree_uss_mb(pid: int) -> tuple[float, int, float]:
    """The unique memory of process `pid` and all its descendants (MB), how many they are, and
    the unique memory of `pid` alone (MB)."""
    import psutil

    root = psutil.Process(pid)
    total, count, own = 0, 0, 0
    for process in [root, *root.children(recursive=True)]:
        try:
            uss = process.memory_full_info().uss
        except psutil.Error:  # gone meanwhile
            continue
        total += uss
        count += 1
        own = uss if process.pid == pid else own
    return total / 2**20, count, own / 2**20


class TreeSampler:
    """The peak of `tree_uss_mb(pid)` (with what the process itself held then), and the most
    processes, sampled in a thread."""

    def __init__(self, pid: int, every_s: float = 0.05) -> None:
        self.pid, self.every_s = pid, every_s
        self.peak_mb, self.own_at_peak_mb, self.own_peak_mb = 0.0, 0.0, 0.0
        self.most_processes, self.running = 0, True
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while self.running:
            uss, count, own = tree_uss_mb(self.pid)
            if uss > self.peak_mb:
                self.peak_mb, self.own_at_peak_mb = uss, own
            self.own_peak_mb = max(self.own_peak_mb, own)
            self.most_processes = max(self.most_processes, count)
            time.sleep(self.every_s)

    def stop(self) -> float:
        self.running = False
        self.thread.join()
        return self.peak_mb


def largest_heatmap():
    """The heatmap page's figure at d_model 4096, 8192 positions, as the Export menu draws it."""
    import core
    from figures.common import export_style
    from figures.contrast import ensure_contrast
    from figures.heatmap import make_pe_heatmap_figure
    from locales import message

    overview = core.sinusoid_overview(8192, 4096)
    title = message("heatmap.chart_title", "en", layout="interleaved")
    return export_style(ensure_contrast(make_pe_heatmap_figure(overview, title=title)))


def child(way: str, kind: str) -> dict:
    """In a fresh process: the figure drawn REPEAT times one way; the tree's peak and times."""
    fig = largest_heatmap()
    fmt, scale = KINDS[kind]
    if way == "before":
        import plotly.io as pio

        from export.files import find_browser

        os.environ.setdefault("BROWSER_PATH", find_browser() or "")

        def draw() -> bytes:
            return pio.to_image(fig, format=fmt, width=1920, height=1080, scale=scale)
    else:
        from export.files import close_browser_when_idle, figure_image

        def draw() -> bytes:
            return figure_image(fig, fmt, scale=scale)
    import kaleido  # noqa: F401  (imported by both ways: not part of an image's cost)

    base = tree_uss_mb(os.getpid())[0]
    sampler = TreeSampler(os.getpid())
    seconds, sizes = [], []
    for _ in range(REPEAT):
        start = time.monotonic()
        sizes.append(len(draw()))
        seconds.append(round(time.monotonic() - start, 1))
    if way == "after":
        close_browser_when_idle()
    time.sleep(0.5)
    peak = sampler.stop()
    after = tree_uss_mb(os.getpid())[0]
    return {"way": way, "kind": kind, "base_mb": round(base), "peak_mb": round(peak),
            "cost_mb": round(peak - base), "left_mb": round(after - base), "seconds": seconds,
            "file_mb": round(sizes[0] / 2**20, 1), "processes": sampler.most_processes}


def summary(rows: list[dict]) -> str:
    lines = ["One image of the heatmap at d_model 4096 x 8192 positions, drawn twice in a row in a "
             "fresh process: peak unique memory (USS) of the process tree above the process "
             "before it (MB), seconds of the first and the second, the file; most processes.", "",
             "| image | before: kaleido per image | after: one Chromium, strips |",
             "|---|---|---|"]
    for kind in KINDS:
        cells = []
        for way in WAYS:
            row = next((r for r in rows if r["way"] == way and r["kind"] == kind), None)
            cells.append("not run" if row is None else
                         f"+{row['cost_mb']} MB, {row['seconds'][0]:.1f} s then "
                         f"{row['seconds'][1]:.1f} s, {row['file_mb']} MB file, "
                         f"{row['processes']} processes")
        label = {"png4": "PNG 7680 x 4320", "png2": "PNG 3840 x 2160", "svg": "SVG"}[kind]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--child", nargs=2, metavar=("WAY", "KIND"), help=argparse.SUPPRESS)
    parser.add_argument("--ways", nargs="*", default=list(WAYS), choices=WAYS)
    parser.add_argument("--kinds", nargs="*", default=list(KINDS), choices=list(KINDS))
    parser.add_argument("--no-save", action="store_true", help="print only")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(*args.child)), flush=True)
        return
    # The server's allocator settings (Makefile, Dockerfile), read when Python starts.
    env = {"MALLOC_ARENA_MAX": "2", "MALLOC_MMAP_THRESHOLD_": "131072", **os.environ}
    rows = []
    for kind in args.kinds:
        for way in args.ways:
            done = subprocess.run([sys.executable, __file__, "--child", way, kind], cwd=ROOT,
                                  env=env, capture_output=True, text=True, timeout=300)
            if done.returncode != 0:
                print(f"{way} {kind} failed:", done.stderr[-1500:])
                continue
            rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
            print(rows[-1], flush=True)
    table = summary(rows)
    if not args.no_save:
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / "export_cost.json").write_text(json.dumps(rows, indent=2))
        (RESULTS / "export_cost.md").write_text(table)
        from benchmarks.bench_browser import RESULT_DOCS, update_docs

        RESULT_DOCS.setdefault(DOC_MARKER, "docs/robustness.md")
        update_docs(DOC_MARKER, table)
    print(table)


if __name__ == "__main__":
    main()
