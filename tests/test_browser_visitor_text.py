"""Text a visitor typed, in Chromium: every text field of every page that has one, and a deck's
slide with a note, hold links, an autolink, HTML, a Material icon and a formula
(tests/visitor_text.py derives the fields from the page registry and builds the codes with the
project's encoders), and the page shows no link, icon or formula the app does not show at its
defaults. One load with the defaults (what the app draws itself), one with the text, per page;
every field of a page in the same load. tests/test_visitor_text.py proves the same of every
view with AppTest; here, what Streamlit's markdown and plotly make of the escaped text.
Screenshots: test-artifacts/visitor-text-*.png.
"""

from __future__ import annotations

from collections import Counter
from urllib.parse import urlencode, urlsplit

import pytest

from tests import browser_support
from tests.visitor_text import (
    HOSTILE,
    HOSTILE_TEXT,
    SHOWN,
    TEXT_PAGES,
    deck_query,
    hostile_json,
    hostile_settings,
    pieces,
    typed,
)
from ui.rope_codes import MAX_NAME
from ui.tour import Slide, encode_deck

pytestmark = pytest.mark.browser

# What a page shows that text can make: links (plotly's in SVG too; not a heading's own anchor,
# "#42-tokens", which Streamlit names after the heading), the icons and the Streamlit logo
# Streamlit's markdown makes of :material/name: and :streamlit: (an `icon=` of the app's is
# another element, never made of text), formulas; and what a person reads.
MADE_OF_TEXT_JS = """() => ({
    links: [...document.querySelectorAll('a')].filter(a => !(a.closest('h1, h2, h3, h4, h5, h6')
            && (a.getAttribute('href') || '').startsWith('#'))).map(a => [
        a.getAttribute('href') || a.getAttribute('xlink:href') || '', a.textContent]),
    icons: [...document.querySelectorAll('span[role=img], img[alt="Streamlit logo"]')].map(
        icon => icon.getAttribute('aria-label') || icon.getAttribute('alt')),
    formulas: [...document.querySelectorAll('.katex annotation')].map(tex => tex.textContent),
    text: document.body.innerText + ' ' + [...document.querySelectorAll('.js-plotly-plot svg')]
        .map(svg => svg.textContent).join(' '),
})"""


# Pages whose fields are shown on a page that draws no chart: an uploaded table's file and
# tensor are said in the notice that asks for the file again (a link cannot carry the table).
NO_CHART = {"learned-vs-sinusoidal"}


def made_of_text(seen, path: str) -> dict:
    page = urlsplit(path).path.strip("/")
    seen.open(path, charts=0 if page in NO_CHART else 1, timeout=120_000)
    browser_support.wait_charts_drawn(seen.page)
    assert seen.exceptions() == []
    return seen.page.evaluate(MADE_OF_TEXT_JS)


def assert_only_the_apps_own(shown: dict, own: dict) -> None:
    """No link, icon or formula on the page with visitor text is made of the text: each link is
    one the app shows at its defaults, or the same control's into the app (its address carries
    the settings: a deck's presenter view); each icon is one of the app's; no formula is
    HOSTILE's."""
    own_hrefs = {href for href, _ in own["links"]}
    own_labels = {label for _, label in own["links"]}
    made = [[href, label] for href, label in shown["links"] if href not in own_hrefs
            and not (label in own_labels and not urlsplit(href).netloc)]
    assert made == [], made
    assert Counter(shown["icons"]) - Counter(own["icons"]) == Counter()
    assert (Counter(shown["formulas"]) - Counter(own["formulas"]))["x"] == 0


PAGES = {page.url_path: page for page in TEXT_PAGES}


@pytest.mark.parametrize("page", list(PAGES))
def test_text_fields_show_as_typed_and_make_nothing(browser_page, page):
    own = made_of_text(browser_page, f"/{page}?{urlencode(SHOWN.get(page, {}))}")
    shown = made_of_text(browser_page, f"/{page}?{urlencode(hostile_settings(PAGES[page]))}")
    assert_only_the_apps_own(shown, own)
    text = typed(shown["text"])
    # as typed: whole where the page quotes it (a notice naming a refused value quotes its
    # first word); the order page shows it only as MiniLM's tokens
    if page != "order":
        assert HOSTILE[0] in text
    if page == "word-position":
        assert HOSTILE_TEXT in text  # the sentence's caption
    if page == "rope":  # the pinned configs' names and the pasted one's, in legends and
        for name in pieces(MAX_NAME):  # captions and the table's header
            assert text.count(name) >= 3, name
        browser_page.screenshot("visitor-text-rope")
        # a pasted config.json whose field holds the text: the notice quotes it
        browser_page.page.locator(".st-key-pasted_config textarea").fill(hostile_json())
        browser_page.page.locator(".st-key-pasted_config textarea").press("Control+Enter")
        browser_page.wait_idle(timeout=120_000)
        pasted = browser_page.page.evaluate(MADE_OF_TEXT_JS)
        assert_only_the_apps_own(pasted, own)
        assert HOSTILE_TEXT in typed(pasted["text"])


def test_a_deck_slide_shows_its_note_as_typed_and_makes_nothing(browser_page):
    """The first slide of a deck of every page with text fields, each slide's fields holding
    the text, its note too (the player's own address: no reload to the slide's)."""
    query = deck_query(1)
    slides = [Slide(page.url_path, SHOWN.get(page.url_path, {})) for page in TEXT_PAGES]
    own = made_of_text(browser_page, "/tour?" + urlencode(  # the same deck without the text
        {"slide": "1", "deck": encode_deck(slides), **slides[0].settings, "present": "true"}))
    shown = made_of_text(browser_page, "/tour?" + urlencode(query))
    assert_only_the_apps_own(shown, own)
    note = browser_page.page.locator("[data-testid=stMain] h4").first
    assert typed(note.text_content()) == HOSTILE_TEXT
    browser_page.screenshot("visitor-text-deck")
