"""The tour page run as a browser opens it (AppTest): its address says the talk's language on
every slide, whatever the browser's own, so a link copied mid-talk opens in that language."""

from __future__ import annotations

import pytest

from tests.apptest import open_page
from ui.pages import TOUR_PAGE


@pytest.mark.parametrize("query", [
    {"slide": "2", "lang": "en", "present": "true"},  # the browser's own language (en here)
    {"slide": "2", "present": "true"},  # no language named: the switch's, written
])
def test_the_tours_address_keeps_its_language_and_presentation_mode(query):
    at = open_page(TOUR_PAGE.script, query)
    assert not at.exception
    assert at.query_params.get("lang") in (["en"], "en")
    assert at.query_params.get("present") in (["true"], "true")
    assert at.query_params.get("slide") in (["2"], "2")


def test_another_pages_address_leaves_out_the_browsers_language():
    at = open_page("app_pages/heatmap.py", {"lang": "en"})
    assert not at.exception
    assert "lang" not in at.query_params  # a link opens in its visitor's language
