"""What one slide of a slide file costs, measured: seconds from pressing "PDF" to the file, per
slide, for decks of the same slide repeated, against the built-in tour's slides at their
defaults (cost 1). The table `ui.tour.slide_cost` counts from (the declared `work` of the pages'
parameters) is checked against it: each row prints its measured cost beside the declared one.

Served as a host serves the app (serve.py), one deck after another, nothing else running.

Run: `python benchmarks/slide_cost.py` (~5 minutes). Results: benchmarks/results/slide_cost.json
and the <!-- bench:slide-cost --> block of docs/robustness.md.
"""

from __future__ import annotations

import json
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_browser import update_docs  # noqa: E402
from tests import browser_support  # noqa: E402
from tests.raw_session import LONG_SENTENCE, ask_for_pdf, pdf_pages, run_async  # noqa: E402
from ui.tour import TOUR, Slide, encode_deck, slide_cost  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
ARTIFACTS = ROOT / "test-artifacts"  # the server's log
REPEAT = 3  # slides of each kind in its deck: the first Chromium start shared by the others
# A 2,000-character sentence: the text box's limit (core.limits.MAX_TEXT_LENGTH), cut at 512
# tokens by the model.
LONGEST = (LONG_SENTENCE + " ") * 6
MINILM = {"embedding": "minilm", "encoding": "learned"}
ROWS: dict[str, Slide] = {
    "heatmap, largest": Slide("heatmap", {"d_model": "4096", "positions": "8192"}),
    "word-position, MiniLM 2-D": Slide("word-position", MINILM),
    "word-position, MiniLM 3-D": Slide("word-position", {**MINILM, "projection": "3-D"}),
    "word-position, MiniLM 3-D, 62 words": Slide(
        "word-position", {**MINILM, "projection": "3-D", "sentence": LONG_SENTENCE}),
    "word-position, MiniLM 3-D, 2,000 characters": Slide(
        "word-position", {**MINILM, "projection": "3-D", "sentence": LONGEST[:2000]}),
    "word-position, random 4096 3-D, 2,000 characters": Slide(
        "word-position", {"embedding": "random", "encoding": "sinusoidal", "d_model": "4096",
                          "projection": "3-D", "sentence": LONGEST[:2000]}),
    "order, 2,000 characters": Slide("order", {"text": LONGEST[:2000]}),
}


def seconds_per_slide(url: str, slides: tuple[Slide, ...], code: str) -> float:
    start = time.monotonic()
    pdf, said = run_async(ask_for_pdf(url, slides, code))
    if pdf is None or pdf_pages(pdf) != len(slides):
        raise RuntimeError(f"the file did not come: {said[-3:]}")
    return (time.monotonic() - start) / len(slides)


def main() -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    process, url = browser_support.start_streamlit("serve.py", ARTIFACTS / "slide-cost.log")
    try:
        seconds_per_slide(url, TOUR, "")  # warm: the model read, Chromium's files cached
        unit = seconds_per_slide(url, TOUR, "")  # the built-in tour (code "")
        rows = []
        for name, slide in ROWS.items():
            deck = (slide,) * REPEAT
            seconds = seconds_per_slide(url, deck, encode_deck(deck))
            rows.append({"slide": name, "seconds": round(seconds, 2),
                         "measured": round(seconds / unit, 2),
                         "declared": round(slide_cost(slide), 2)})
            print(f"{name:52s} {seconds:6.2f} s  measured {seconds / unit:5.2f}  "
                  f"declared {slide_cost(slide):5.2f}", flush=True)
    finally:
        browser_support.stop(process)
    result = {"machine": platform.platform(), "unit_seconds": round(unit, 2), "rows": rows,
              "date": time.strftime("%Y-%m-%d")}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "slide_cost.json").write_text(json.dumps(result, indent=1) + "\n")
    table = [f"Seconds per slide of a PDF on serve.py ({result['date']}, {result['machine']}); "
             f"cost 1 = a built-in tour slide, {unit:.2f} s.", "",
             "| slide | seconds | measured cost | declared cost |", "|---|---|---|---|"]
    table += [f"| {r['slide']} | {r['seconds']} | {r['measured']} | {r['declared']} |"
              for r in rows]
    update_docs("bench:slide-cost", "\n".join(table) + "\n")


if __name__ == "__main__":
    main()
