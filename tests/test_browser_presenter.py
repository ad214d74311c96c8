"""The presenter's window as a speaker uses it (reveal.js's speaker view, PowerPoint's presenter
view): no sidebar and no page controls; the slide shown and the next one as small previews with
their charts drawn; the notes in words (formulas typeset, no raw notation); a large clock and
the time elapsed. It keeps in step with the audience's window (tests/test_browser_slide_layout.py
tests the keys both ways), its previews with it."""

from __future__ import annotations

import re

import pytest

from tests import browser_support
from tests.conftest import ARTIFACTS
from ui.tour import TOUR

pytestmark = pytest.mark.browser

# The notes as a person reads them: typeset formulas (KaTeX) left out, they are drawn, not text.
NOTES_TEXT_JS = """() => {
  const notes = document.querySelector('.st-key-pe-presenter-notes').cloneNode(true);
  notes.querySelectorAll('.katex, .katex-display').forEach(e => e.remove());
  return notes.innerText;
}"""

# What a slide's preview frame shows: its slide number and its charts drawn (on screen, sized).
FRAME_JS = """() => ({
  slide: new URLSearchParams(location.search).get('slide'),
  charts: [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')]
    .filter(gd => gd.getBoundingClientRect().width > 100 && gd.querySelector('.main-svg'))
    .length,
  idle: !!document.querySelector('[data-testid="stApp"][data-test-script-state="notRunning"]'),
})"""


def _frames(presenter) -> dict[str, dict]:
    """The current and the next slide's previews, each as FRAME_JS sees it."""
    found = {}
    for key in ("presenter_current", "presenter_next"):
        handle = presenter.locator(f".st-key-{key} iframe").element_handle(timeout=30_000)
        found[key] = handle.content_frame().evaluate(FRAME_JS)
    return found


def _wait_previews(presenter, number: int) -> dict[str, dict]:
    """The previews showing slides `number` and `number` + 1 with their charts drawn."""
    wanted = {"presenter_current": str(number), "presenter_next": str(number + 1)}
    seen: dict[str, dict] = {}
    for _ in range(240):
        try:
            seen = _frames(presenter)
        except Exception:  # a frame between two documents
            seen = {}
        if seen and all(seen[key]["slide"] == slide and seen[key]["charts"] > 0
                        and seen[key]["idle"] for key, slide in wanted.items()):
            return seen
        presenter.wait_for_timeout(500)
    raise AssertionError(f"previews of slides {wanted}: {seen}")


def test_the_presenter_window_is_a_speakers_screen(browser, app_url):
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    try:
        audience, presenter = context.new_page(), context.new_page()
        similarity = next(i for i, s in enumerate(TOUR, 1) if s.page == "similarity")
        audience.goto(f"{app_url}/tour?slide={similarity}")
        presenter.goto(f"{app_url}/tour?slide={similarity}&presenter=1")
        for page in (audience, presenter):
            page.wait_for_selector(".pe-tour-count", timeout=60_000)
            page.wait_for_selector(browser_support.IDLE_SELECTOR, timeout=120_000)
        # No sidebar (its page list, sliders, the presentation switch) and no way to open it.
        for chrome in ('[data-testid="stSidebar"]', '[data-testid="stExpandSidebarButton"]',
                       '[data-testid="stSidebarNav"]'):
            assert not presenter.locator(chrome).first.is_visible(), chrome
        # No page controls: none of the slide's sliders, choices or switches is on screen.
        for control in ('[role="slider"]', '[role="radiogroup"]', '[data-testid="stToggle"]',
                        '[data-testid="stExpander"]', '[data-testid="stNumberInput"]'):
            shown = presenter.locator(f'[data-testid="stMain"] {control}')
            assert all(not shown.nth(i).is_visible() for i in range(shown.count())), control
        # The slide shown and the next one, each a preview with its charts drawn.
        frames = _wait_previews(presenter, similarity)
        # Laid out as the audience's window is (1600 x 1000 here: it told its size).
        presenter.wait_for_function(
            "() => [...document.querySelectorAll('.pe-preview iframe')].every("
            "f => f.style.width === '1600px' && f.style.height === '1000px')", timeout=30_000)
        current = presenter.locator(".st-key-presenter_current .pe-preview").bounding_box()
        upcoming = presenter.locator(".st-key-presenter_next .pe-preview").bounding_box()
        assert current["width"] > upcoming["width"] > 300  # the slide shown the larger
        assert current["width"] / current["height"] == pytest.approx(1.6, rel=0.02)
        # A large clock and the time elapsed.
        clock = presenter.locator(".pe-clock")
        assert clock.inner_text().startswith("Elapsed")
        for part in (".pe-elapsed", ".pe-now"):
            size = float(clock.locator(part).evaluate("e => getComputedStyle(e).fontSize")[:-2])
            assert size >= 36, (part, size)
        # The notes in words: no raw notation outside the typeset formulas.
        notes = presenter.evaluate(NOTES_TEXT_JS)
        assert "Notes" in notes and len(notes) > 100
        raw = re.findall(r"\|PE|\w_\{?\w|\b\d(?:\.\d+)?e[-+]\d", notes)
        assert raw == [], (raw, notes[:400])
        shot(audience, presenter, "tour-presenter-beside-audience")
        # The audience moves on: the presenter's window and its previews follow.
        audience.bring_to_front()
        audience.keyboard.press("ArrowRight")
        presenter.wait_for_function(
            "n => document.querySelector('.pe-tour-count')?.textContent.startsWith(n + ' ')",
            arg=similarity + 1, timeout=60_000)
        frames = _wait_previews(presenter, similarity + 1)
        assert frames["presenter_current"]["slide"] == str(similarity + 1)
        # The previews are pictures: the audience's window did not move again on their account.
        audience.wait_for_timeout(1500)
        assert f"slide={similarity + 1}" in audience.url
        assert f"slide={similarity + 1}" in presenter.url
    finally:
        context.close()


def shot(audience, presenter, name: str) -> None:
    """The two windows side by side, as they stand on a lectern: the presenter's, then the
    audience's (test-artifacts/`name`.png)."""
    from PIL import Image

    ARTIFACTS.mkdir(exist_ok=True)
    browser_support.wait_charts_drawn(audience)
    parts = []
    for index, page in enumerate((presenter, audience)):
        path = ARTIFACTS / f"{name}-{index}.png"
        page.screenshot(path=str(path))
        parts.append(Image.open(path).convert("RGB"))
    height = max(part.height for part in parts)
    sheet = Image.new("RGB", (sum(part.width for part in parts) + 24, height), (128, 128, 128))
    sheet.paste(parts[0], (0, 0))
    sheet.paste(parts[1], (parts[0].width + 24, 0))
    sheet.save(ARTIFACTS / f"{name}.png")
