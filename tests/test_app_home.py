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
