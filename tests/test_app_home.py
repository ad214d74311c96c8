"""The home page: it opens on why sines and cosines (three live pictures), then the formula and a
picture of the table; in presentation mode it is a title slide (no list of pages)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from locales import message
from tests.apptest import decode, open_page, plotly_figures
from ui.pages import PAGES, TOUR_PAGE

HOME = "app_pages/home.py"


def test_home_opens_on_why_sines_and_cosines():
    at = open_page(HOME)
    assert not at.exception
    code, nearby, shift, picture = plotly_figures(at)
    titles = [f["layout"]["title"]["text"] for f in (code, nearby, shift)]
    assert titles == [message(f"fig.why.{k}_title", "en") for k in ("code", "nearby", "shift")]
    assert at.header[0].value == message("home.why_heading", "en")
    # each picture's live number, from the formula (tests/test_why_sinusoid.py pins them)
    captions = " ".join(c.value for c in at.caption)
    assert "6.3, 63, 628, 6,283" in captions and "1.47 apart" in captions
    assert "length 5.66" in captions
    z = decode(picture["data"][0]["z"])
    assert z.shape == (100, 128)
    # The paper's formula, entry by entry (not core's vectorised code).
    for pos, dim in ((0, 0), (0, 1), (7, 0), (44, 2), (99, 127), (63, 64)):
        angle = pos / 10000 ** (2 * (dim // 2) / 128)
        expected = math.sin(angle) if dim % 2 == 0 else math.cos(angle)
        assert np.isclose(z[pos, dim], expected, atol=1e-6), (pos, dim)
    # the way into the tour, then every page, listed below
    assert [link.proto.page for link in at.get("page_link")] == [
        TOUR_PAGE.url_path] + [page.url_path for page in PAGES]


def test_home_in_presentation_mode_is_a_title_slide():
    at = open_page(HOME, {"present": "true"})
    assert not at.exception
    assert len(plotly_figures(at)) == 4  # on a slide of the tour the three "why" pictures alone
    # the title slide: the way into the tour only, not the list of pages
    assert [link.proto.page for link in at.get("page_link")] == [TOUR_PAGE.url_path]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_title_slide_says_why_sines_and_cosines(lang):
    """In presentation mode the explanations are hidden but the one-line takeaway stays; outside
    it, the full explanation says it instead."""
    slide = open_page("app_pages/home.py", {"present": "1", "lang": lang})
    shown = " ".join(m.value for m in slide.markdown)
    assert message("home.takeaway", lang) in shown
    page = open_page("app_pages/home.py", {"lang": lang})
    assert message("home.takeaway", lang) not in " ".join(m.value for m in page.markdown)


def test_the_shift_caption_quotes_the_largest_error_its_chart_states():
    """The caption's error is the largest of those the shift chart states, one for each k its
    slider reaches (the same computation, the same set), and it names that set: the chart said
    "≤ 4e-15" for its k while the caption said 6e-15 over every k of the table."""
    at = open_page(HOME)
    shift = plotly_figures(at)[2]
    steps = shift["layout"]["sliders"][0]["steps"]
    stated = [step["args"][0]["text"][1][0].rpartition("≤ ")[2] for step in steps]

    def value(text: str) -> float:  # 4×10⁻¹⁵ as a float
        mantissa, _, power = text.partition("×10")
        exponent = power.translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789"))
        return float(mantissa or 1) * 10 ** int(exponent or 0) if text != "0" else 0.0

    largest = max(stated, key=value)
    caption = next(c.value for c in at.caption if "largest error" in c.value)
    assert f"the largest error is {largest}," in caption
    assert f"($k$ = 0 to {len(steps) - 1})" in caption
