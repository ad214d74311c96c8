"""Slide files (the tour or a deck as a PDF or a ZIP) on the public entry, serve.py, while other
visitors use it: the process tree (the server and its Chromium) stays within its 700 MB of
unique memory, a visitor's page is not held up behind a file (nor behind one waiting for
memory), and files asked for at once are queued and all arrive.

The visitors are sessions over a raw websocket (tests/raw_session.py): a browser of their own
would be memory of this machine, not of the server's tree, and is not needed to press a button.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import numpy as np
import psutil
import pytest

from benchmarks.export_cost import TreeSampler
from locales import message
from server.memory_budget import BUDGET_VARIABLE, MEMORY_WAIT_S
from tests import browser_support
from tests.conftest import ARTIFACTS, find_chromium
from tests.raw_session import (
    HEAVY_DECK,
    LONG_SENTENCE,
    Bystander,
    RawSession,
    ask_for_pdf,
    first_slide_query,
    pdf_pages,
    run_async,
    timed_open,
)
from ui.tour import TOUR, Slide, encode_deck

pytestmark = [pytest.mark.browser, pytest.mark.long]

TREE_BUDGET_MB = 700
VISITOR_S = 20  # a visitor's page run during an export, at most (issue budget, 2 cores)


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, int]]:
    """serve.py on a free port, of its own (its memory is measured): (url, pid)."""
    find_chromium()  # the file's Chromium is Debian's, as the tests'
    ARTIFACTS.mkdir(exist_ok=True)
    process, url = browser_support.start_streamlit("serve.py", ARTIFACTS / "slide-files.log")
    try:
        yield url, process.pid
    finally:
        browser_support.stop(process)


def test_a_heavy_decks_pdf_stays_in_the_budget_and_holds_nobody_up(server):
    """Ten slides at their pages' largest sizes as a PDF, while another visitor opens the
    heatmap at new large settings over and over: the PDF arrives (one page per slide), the
    tree never passes 700 MB of unique memory (each slide computed with no Chromium running,
    then photographed alone on a page of its own) and the visitor's every page run ends within
    20 s (the file takes the heavy work's turn slide by slide, not for the whole deck)."""
    url, pid = server
    code = encode_deck(HEAVY_DECK)
    timed_open(url, "", "")  # the server up and its first page run, as a host's warm-up
    sampler = TreeSampler(pid, every_s=0.2)
    sizes = (f"d_model={4096 - 2 * i}&positions={8192 - i}" for i in range(1000))
    with Bystander(url, "heatmap", sizes) as bystander:
        pdf, said = run_async(ask_for_pdf(url, HEAVY_DECK, code))
    peak = sampler.stop()
    assert pdf is not None, said
    assert pdf.startswith(b"%PDF-") and pdf_pages(pdf) == len(HEAVY_DECK)
    assert peak <= TREE_BUDGET_MB, (peak, sampler.own_at_peak_mb)
    assert bystander.seconds and max(bystander.seconds) <= VISITOR_S, bystander.seconds
    # what the file ran is gone with it: no Chromium left, no session of its own kept
    assert not [p for p in psutil.Process(pid).children(recursive=True) if "chrom" in p.name()]


# The second file asked for at once: two small slides, so that the queue is shown at the cost of
# one tour, not two (two tours, 30 slides, proved the same in twice the time).
SMALL_DECK = (Slide("heatmap", {"d_model": "64", "positions": "50"}),
              Slide("alibi", {"num_heads": "8", "positions": "64"}))


def test_files_asked_for_at_once_are_queued_and_all_arrive(server):
    """Two visitors press "PDF" at the same moment, one on the tour, one on a deck of two small
    slides, while a third opens the home page: both files arrive, one page per slide (the
    second waited its turn, told how many were ahead, instead of failing with "server is
    busy"), and the third's page ended within 20 s."""
    url, _ = server
    decks = [(TOUR, ""), (SMALL_DECK, encode_deck(SMALL_DECK))]

    async def both() -> list:
        both_shown = asyncio.Barrier(len(decks))  # each presses once both menus are shown
        return await asyncio.gather(*(ask_for_pdf(url, slides, code, both_shown)
                                      for slides, code in decks))

    home = (f"lang={lang}" for lang in ["en", "zh"] * 100)
    with Bystander(url, "", home, every_s=5) as bystander:
        results = run_async(both())
    for (slides, _), (pdf, said) in zip(decks, results, strict=True):
        assert pdf is not None, said[-5:]
        assert pdf_pages(pdf) == len(slides)
    said = [text for _, texts in results for text in texts]
    assert any("other slide files (1 ahead)" in text for text in said), said
    assert bystander.seconds and max(bystander.seconds) <= VISITOR_S, bystander.seconds


# Thirty 3-D MiniLM slides of a long sentence: each once cost 1 (only sizes counted), now what
# its scene and its model take (ui.tour.slide_cost).
THREE_D_MINILM = Slide("word-position", {"embedding": "minilm", "encoding": "learned",
                                         "projection": "3-D", "sentence": LONG_SENTENCE})


@pytest.mark.parametrize("slides", [HEAVY_DECK * 3, (THREE_D_MINILM,) * 30],
                         ids=["largest-sizes", "3d-minilm"])
def test_a_deck_too_costly_to_draw_is_refused_saying_so(server, slides):
    """Thirty slides at the largest sizes, or thirty 3-D scenes of the model's vectors, would
    hold the server's one slide file for minutes: the menu says what they cost and what a file
    may, its buttons disabled."""
    url, _ = server
    code = encode_deck(slides)

    async def visit() -> RawSession:
        async with RawSession(url, "tour", first_slide_query(slides, code)) as visitor:
            return await visitor.open()

    visitor = run_async(visit())
    assert any("too large to draw as one file" in text for text in visitor.texts)
    assert not visitor.exceptions


def test_a_3d_slide_is_photographed_with_its_scene_drawn(server):
    """A 3-D chart is drawn with WebGL: the slide file's Chromium had none ("error creating
    static canvas/context", the PDF failed), then drew a blank scene (a static WebGL image
    comes after plotly.js says it is drawn). Its photograph now shows the scene's points."""
    import io
    import zipfile

    from PIL import Image

    url, _ = server
    three_d = (HEAVY_DECK[2],)  # word-position, 3-D, d_model 4096, 62 words
    code = encode_deck(three_d)

    async def zip_of_it() -> bytes:
        async with RawSession(url, "tour", first_slide_query(three_d, code)) as visitor:
            await visitor.open()
            await visitor.press("tour_file_zip")
            while "tour_file_save" not in visitor.files:
                await visitor.run_ends(timeout=300)
                assert not any("could not be drawn" in t for t in visitor.texts), visitor.texts
            return await asyncio.to_thread(visitor.fetch, "tour_file_save")

    with zipfile.ZipFile(io.BytesIO(run_async(zip_of_it()))) as archive:
        image = Image.open(io.BytesIO(archive.read("pe-deck-01.png"))).convert("RGB")
    chart = np.asarray(image.crop((200, 250, 1720, 950)), dtype=int)  # under the title and line
    coloured = int(((chart.max(axis=2) - chart.min(axis=2)) > 60).sum())
    assert coloured > 2000, coloured  # the sums' orange and the words' blue, not a white page


@pytest.fixture(scope="module")
def crowded_server() -> Iterator[str]:
    """serve.py told its tree may hold 100 MB (PE_TREE_BUDGET_MB): more than the server holds
    already, so every export waits for memory that never falls, as on a host whose idle memory
    ordinary use has raised."""
    find_chromium()
    ARTIFACTS.mkdir(exist_ok=True)
    process, url = browser_support.start_streamlit(
        "serve.py", ARTIFACTS / "slide-files-crowded.log", env={BUDGET_VARIABLE: "100"})
    try:
        yield url
    finally:
        browser_support.stop(process)


def test_an_export_waiting_for_memory_holds_no_visitors_page_up(crowded_server):
    """Visitors first: a slide file waiting for the server's memory waits in the exports' own
    queue and says so; meanwhile another visitor's new heatmap (a cache miss, in the visitors'
    lane) runs to its end, and the file is still waiting after it: the file's menu, read as it
    arrives, says "waiting" after the visitor's page ended, and no "refused" before (had the
    file held the lane, the visitor's page would have run only after the file was refused)."""
    url = crowded_server
    slides = (Slide("heatmap", {"d_model": "64", "positions": "50"}),)
    code = encode_deck(slides)
    waiting = message("export_queue.waiting_memory", "en", what="PDF", held=0, allowed=0,
                      seconds=0).split("(")[0]
    refused = message("export_queue.failed_memory", "en", what="PDF", allowed=0, waited=0,
                      retry=0).split(":")[1].split(" 0 ")[0]  # "... memory stayed above"

    async def scenario() -> tuple[str, list[str]]:
        async with RawSession(url, "tour", first_slide_query(slides, code)) as exporter:
            await exporter.open()
            await exporter.press("tour_file_pdf")
            said = await exporter.until_text(waiting)
            reading = asyncio.create_task(exporter.until_text(refused, timeout=MEMORY_WAIT_S * 2))
            await asyncio.to_thread(timed_open, url, "heatmap", "d_model=126&positions=333")
            ended = time.monotonic()
            while not reading.done() and exporter.arrived[-1] <= ended:
                await asyncio.sleep(0.05)  # the menu's next word, whichever it is
            reading.cancel()
            return said, [text for text, at in zip(exporter.texts, exporter.arrived, strict=True)
                          if at > ended]

    said, after = run_async(scenario())
    assert "at most" in said and " s more" in said, said  # the wait is stated
    assert after and waiting in after[0], (
        f"the visitor's page ended only after the file was refused, behind its wait: {after}")
