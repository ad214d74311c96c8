"""The tour as a presenter gives it: the clicker's keys and the on-screen buttons move through
live slides, the address bar names each slide (a link opens it, the back button returns), a
control changed on a slide repaints it in place, the player covers no text, and a deck made
from the pages' views travels whole in its link to a fresh browser, and becomes one file: a PDF
of 16:9 pages or a ZIP of 1920 x 1080 PNGs."""

from __future__ import annotations

import io
import re
import struct
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from locales import message
from tests import browser_support
from tests.conftest import ARTIFACTS, new_page
from ui.pages import HOME, PAGES
from ui.tour import TOUR, encode_deck

pytestmark = pytest.mark.browser

TITLES = {p.url_path: p for p in (HOME, *PAGES)}

# Every text box of the slide and the player's box (an empty list: the player covers nothing).
PLAYER_COVERS_JS = r"""() => {
  const bar = document.querySelector('.pe-tour').getBoundingClientRect();
  const covered = [];
  const boxes = [...document.querySelectorAll(
      '[data-testid="stMain"] h1, [data-testid="stMain"] h4, [data-testid="stMain"] p, ' +
      '[data-testid="stMain"] .js-plotly-plot text, [data-testid="stMain"] label')];
  for (const e of boxes) {
    const r = e.getBoundingClientRect();
    if (r.width < 1 || r.height < 1 || !e.textContent.trim()) continue;
    if (Math.min(r.right, bar.right) - Math.max(r.left, bar.left) > 1
        && Math.min(r.bottom, bar.bottom) - Math.max(r.top, bar.top) > 1) {
      covered.push(e.textContent.trim().slice(0, 40));
    }
  }
  return covered;
}"""


def pdf_pages(pdf: bytes) -> list:
    """Each page's image of a slide PDF (export.slides.slides_pdf: one RGB PNG a page, its
    IDAT data kept as the PDF's Flate stream with PNG predictors), as a PIL image: the stream
    put back in a PNG of its own."""
    from PIL import Image

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data)))

    pages = []
    for found in re.finditer(rb"obj\n<<\n(.*?)>>\nstream\n", pdf, re.S):
        head = found.group(1)
        if b"/Subtype /Image" not in head or b"/DeviceRGB" not in head:
            continue  # (an alpha channel's soft mask)
        width, height, length = (int(re.search(rb"/" + name + rb" (\d+)", head)[1])
                                 for name in (b"Width", b"Height", b"Length"))
        png = (b"\x89PNG\r\n\x1a\n"
               + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
               + chunk(b"IDAT", pdf[found.end():found.end() + length]) + chunk(b"IEND", b""))
        pages.append(Image.open(io.BytesIO(png)).convert("RGB"))
    return pages


def background_and_bright(page) -> tuple[int, float]:
    """A page's background (its most common grey, 0-255) and its share of bright pixels
    (> 200: text on a dark page)."""
    histogram = page.convert("L").histogram()
    return (max(range(256), key=histogram.__getitem__),
            sum(histogram[201:]) / sum(histogram))


def query(seen) -> dict[str, str]:
    return dict(re.findall(r"[?&]([^=&]+)=([^&]*)", seen.page.url))


def counter(seen) -> str:
    return seen.page.locator(".pe-tour-count").inner_text()


def line(seen) -> str:
    return seen.page.locator('[data-testid="stMain"] h4').first.inner_text()


# s for the address bar to change after a move: generous, for a loaded machine. A move waits on
# that event, not on a fixed pause: a run that started later than the pause was read as done.
NEW_ADDRESS_S = 120


def moved(seen, act: Callable[[], object]) -> None:
    """`act()` moves the talk (a key, a click, the back button): once the server has ended a run
    after it (its script_finished message) and the address bar shows the new address, the app
    is waited for to be idle."""
    before = seen.page.url
    runs = browser_support.RunsEnded(seen.page)
    try:
        with runs.ended():
            act()
    finally:
        runs.close()
    try:
        seen.page.wait_for_function("url => location.href !== url", arg=before,
                                    timeout=NEW_ADDRESS_S * 1000)
    except PlaywrightTimeout:
        raise AssertionError(f"the address stayed {before} {NEW_ADDRESS_S} s after the move: "
                             f"the move did nothing") from None
    seen.wait_idle(timeout=120_000)


def press(seen, key: str) -> None:
    moved(seen, lambda: seen.page.keyboard.press(key))


def expect_slide(seen, number: int, count: int = len(TOUR)) -> None:
    """Slide `number` of the tour is shown: its number in the address bar and the counter, its
    view, and its takeaway as its title (the page's own title is left off a slide)."""
    slide = TOUR[number - 1]
    assert query(seen)["slide"] == str(number)
    assert counter(seen) == f"{number} / {count}"
    takeaway = message(slide.takeaway, "en")
    assert line(seen) == takeaway or "$" in takeaway  # (a formula is drawn, not its LaTeX)
    assert not seen.page.locator('[data-testid="stMain"] h1').first.is_visible()
    assert query(seen).get("view") == slide.settings.get("view")
    assert seen.exceptions() == []


def test_the_clickers_keys_walk_the_tour_and_the_address_bar_names_each_slide(browser,
                                                                               app_url):
    seen = new_page(browser, app_url)
    seen.page.set_viewport_size({"width": 1280, "height": 720})  # a projector's smaller size
    try:
        seen.open("/tour", charts=1, timeout=120_000)
        assert query(seen)["present"] == "true"  # the tour is a slide show from its link
        expect_slide(seen, 1)
        covered = {}
        for number in range(2, len(TOUR) + 1):  # every slide, by the key a clicker sends
            press(seen, "PageDown" if number % 2 else "ArrowRight")
            expect_slide(seen, number)
            if found := seen.page.evaluate(PLAYER_COVERS_JS):
                covered[number] = found
        assert covered == {}
        assert seen.page.locator('.pe-tour [data-step="next"]').is_disabled()  # the last
        press(seen, "Home")
        expect_slide(seen, 1)
        press(seen, " ")  # Space
        expect_slide(seen, 2)
        press(seen, "End")
        expect_slide(seen, len(TOUR))
        press(seen, "PageUp")
        expect_slide(seen, len(TOUR) - 1)
        press(seen, "ArrowLeft")
        expect_slide(seen, len(TOUR) - 2)
        moved(seen, seen.page.go_back)  # the browser's back button: the slide before
        expect_slide(seen, len(TOUR) - 1)
        # A link opens mid-talk, with the slide's own settings; a bad one says so.
        offset = next(i for i, s in enumerate(TOUR, 1) if s.settings.get("view") == "offset")
        seen.open(f"/tour?slide={offset}", charts=1, timeout=120_000)
        expect_slide(seen, offset)
        seen.open("/tour?slide=99", charts=1, timeout=120_000)
        expect_slide(seen, 1)
        assert "slide=99" in seen.page.locator('[data-testid="stAlert"]').inner_text()
    finally:
        seen.close()


def test_a_control_on_a_slide_repaints_it_in_place(browser, app_url):
    seen = new_page(browser, app_url)
    try:
        heatmap = next(i for i, s in enumerate(TOUR, 1) if s.page == "heatmap")
        seen.open(f"/tour?slide={heatmap}", charts=1, timeout=120_000)
        before = seen.page.evaluate(browser_support.CHART_SIGNATURE_JS)
        # The view's controls, folded on a slide under "Controls": unfolded, then the slider.
        seen.page.locator('[data-testid="stExpander"] summary').filter(
            has_text=message("controls.view_controls", "en")).first.click()
        slider = seen.page.locator(".st-key-positions input[type=range]").first
        slider.focus()
        moved(seen, lambda: seen.page.keyboard.press("ArrowRight"))  # the slider's, not the tour's
        assert seen.page.evaluate(browser_support.CHART_SIGNATURE_JS) != before  # redrawn
        expect_slide(seen, heatmap)
        assert int(query(seen)["positions"]) > 128  # the slider's next stop, in the link
        moved(seen, seen.page.locator('.pe-tour [data-step="next"]').click)  # on-screen button
        expect_slide(seen, heatmap + 1)
        assert "positions" not in query(seen)  # the next slide has its own settings
    finally:
        seen.close()


def test_a_deck_made_from_views_opens_the_same_in_a_fresh_browser(browser, app_url):
    seen = new_page(browser, app_url)
    try:
        seen.open("/heatmap?positions=64", charts=1, timeout=120_000)
        add = seen.page.get_by_role("button", name="Add this view to my deck")
        add.click()
        seen.wait_idle()
        seen.page.locator('[data-testid="stSidebarNav"] a',
                          has_text="Distance and dot product").click()
        seen.wait_idle(timeout=120_000)
        browser_support.radio_option(seen.page, "view", "offset").first.click()
        seen.wait_idle(timeout=120_000)
        add.click()
        seen.wait_idle()
        moved(seen, seen.page.get_by_text("Open my deck (2)").click)
        assert counter(seen) == "1 / 2"
        assert line(seen) == message("takeaway.heatmap", "en")
        assert query(seen)["positions"] == "64"
        seen.page.locator('[data-testid="stExpandSidebarButton"]').click()
        note = seen.page.get_by_label("Note on the slide").first
        note.fill("Start *here*: the whole table")
        note.press("Enter")
        seen.wait_idle()
        moved(seen, lambda: seen.page.eval_on_selector(".st-key-deck_down_0 button",
                                                       "b => b.click()"))
        # the deck's own link, without the address bar's language: the deck says its own
        link = re.sub(r"&lang=[^&]*", "", seen.page.url)
        assert len(link) < 400
    finally:
        seen.close()
    # A fresh browser whose own language is Chinese: the deck plays as it was made, each slide
    # with its own settings only (the heatmap's 64 positions were carried to the similarity
    # page, whose slide then said "anchor 1000 is past the last position (63)"), in English.
    fresh = new_page(browser, app_url, fresh=True, locale="zh-CN")
    try:
        fresh.open(link.replace(app_url, ""), charts=1, timeout=120_000)
        assert counter(fresh) == "1 / 2"
        assert line(fresh) == message("takeaway.similarity.offset", "en")
        assert query(fresh)["view"] == "offset" and "positions" not in query(fresh)
        assert fresh.page.locator('[data-testid="stMain"] [data-testid="stAlert"]').count() == 0
        press(fresh, "ArrowRight")
        assert counter(fresh) == "2 / 2"
        assert query(fresh)["positions"] == "64"
        assert line(fresh) == "Start *here*: the whole table"  # the note, as typed
        assert fresh.exceptions() == []
        fresh.open(link.replace(app_url, "") + "&lang=zh", charts=1, timeout=120_000)
        assert line(fresh) == message("takeaway.similarity.offset", "zh")  # the address wins
    finally:
        fresh.close()


def test_the_player_is_in_a_thumbs_reach_on_a_phone_in_chinese(browser, app_url):
    seen = new_page(browser, app_url)
    seen.page.set_viewport_size({"width": 390, "height": 844})
    try:
        seen.open("/tour?slide=2&lang=zh", charts=1, timeout=120_000)
        assert line(seen) == message(TOUR[1].takeaway, "zh")
        buttons = seen.page.locator(".pe-tour button")
        for index in range(buttons.count()):
            box = buttons.nth(index).bounding_box()
            assert box["width"] >= 44 and box["height"] >= 44
            assert box["y"] + box["height"] <= 844 and box["y"] > 844 / 2  # the lower half
            assert box["x"] >= 0 and box["x"] + box["width"] <= 390
        assert seen.page.locator('.pe-tour [data-step="next"]').get_attribute("title") == \
            message("tour.next", "zh")
        moved(seen, buttons.filter(has_text="›").click)
        assert counter(seen) == f"3 / {len(TOUR)}" and query(seen)["lang"] == "zh"
    finally:
        seen.close()


def test_a_link_copied_mid_talk_opens_in_the_talks_language(browser, app_url):
    """A talk given in Chinese in a Chinese browser: every move keeps `lang` (and `present`)
    in the address, although Chinese is that browser's default; the address copied from it
    opens in Chinese in an English browser."""
    seen = new_page(browser, app_url, fresh=True, locale="zh-CN")
    try:
        seen.open("/tour?slide=1&lang=zh", charts=1, timeout=120_000)
        for number, key in ((2, "ArrowRight"), (3, "PageDown"), (2, "ArrowLeft")):
            press(seen, key)
            assert counter(seen) == f"{number} / {len(TOUR)}"
            assert query(seen)["lang"] == "zh" and query(seen)["present"] == "true"
        link = seen.page.url
    finally:
        seen.close()
    english = new_page(browser, app_url, fresh=True, locale="en-US")
    try:
        english.open(link.replace(app_url, ""), charts=1, timeout=120_000)
        assert line(english) == message(TOUR[1].takeaway, "zh")
        assert query(english)["lang"] == "zh"
    finally:
        english.close()


def test_a_deck_becomes_a_pdf_of_16_9_pages_and_a_zip_of_its_slides(browser, app_url):
    deck = encode_deck((TOUR[1], TOUR[5]))  # the heatmap, the similarity by offset
    seen = new_page(browser, app_url, accept_downloads=True)
    try:
        seen.open(f"/tour?deck={deck}", charts=1, timeout=120_000)
        seen.page.locator('[data-testid="stExpandSidebarButton"]').click()
        files = {}
        for kind in ("pdf", "zip"):
            seen.page.locator(f".st-key-tour_file_{kind} button").first.click()
            save = seen.page.locator(".st-key-tour_file_save button")
            seen.page.wait_for_function(
                "kind => [...document.querySelectorAll('.st-key-tour_file_save button')]"
                ".some(b => b.textContent.includes('.' + kind))", arg=kind, timeout=180_000)
            with seen.page.expect_download() as download:
                save.click()
            files[kind] = Path(download.value.path()).read_bytes()
        assert seen.exceptions() == []
    finally:
        seen.close()
    pdf = files["pdf"]
    assert pdf.startswith(b"%PDF-")
    assert len(re.findall(rb"/Type\s*/Page\b", pdf)) == 2  # one page per slide
    boxes = re.findall(rb"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]", pdf)
    assert boxes and all(float(w) / float(h) == pytest.approx(16 / 9) for w, h in boxes)
    assert 50_000 < len(pdf) < 8 * 2**20
    pages = pdf_pages(pdf)
    assert [page.size for page in pages] == [(1920, 1080)] * 2
    assert all(background_and_bright(page)[0] > 240 for page in pages)  # shown light: light
    with zipfile.ZipFile(io.BytesIO(files["zip"])) as archive:
        names = archive.namelist()
        assert names == ["pe-deck-01.png", "pe-deck-02.png"]
        for name in names:
            png = archive.read(name)
            width, height = struct.unpack(">II", png[16:24])  # the IHDR chunk
            assert (width, height) == (1920, 1080)
            assert len(set(png[100:4000])) > 50  # drawn, not a blank page


def test_a_deck_shown_dark_becomes_a_dark_pdf(browser, app_url):
    """A deck shown in the dark theme: its file menu offers the dark theme first, and the PDF's
    pages are dark (Streamlit's dark background, light text and charts drawn for it)."""
    deck = encode_deck((TOUR[1], TOUR[5]))  # the heatmap, the similarity by offset
    seen = new_page(browser, app_url, fresh=True, accept_downloads=True, color_scheme="dark")
    try:
        seen.open(f"/tour?deck={deck}", charts=1, timeout=120_000)
        seen.page.locator('[data-testid="stExpandSidebarButton"]').click()
        theme = seen.page.locator(".st-key-tour_file_theme")
        assert theme.locator("input:checked").count() == 1
        assert theme.locator("label:has(input:checked)").inner_text().strip() == "Dark"
        seen.page.locator(".st-key-tour_file_pdf button").first.click()
        save = seen.page.locator(".st-key-tour_file_save button")
        save.wait_for(timeout=180_000)
        with seen.page.expect_download() as download:
            save.click()
        pdf = Path(download.value.path()).read_bytes()
        assert seen.exceptions() == []
    finally:
        seen.close()
    pages = pdf_pages(pdf)
    assert [page.size for page in pages] == [(1920, 1080)] * 2
    for number, page in enumerate(pages, start=1):
        page.save(ARTIFACTS / f"tour-pdf-dark-page-{number}.png")
        background, bright = background_and_bright(page)
        assert background < 40, background  # a dark page
        assert bright > 0.002, bright  # with its title and charts' text drawn light on it
