"""The sections of the pages that have them (`view` in the URL) through Streamlit's AppTest: a link
opens one section and only its charts, switching draws each section's charts, a bad view is
explained."""

from __future__ import annotations

import pytest

from locales import message
from tests.apptest import SECTIONS, notices, open_page, plotly_figures

ROPE = "app_pages/rope.py"
ALIBI = "app_pages/alibi.py"


DEFAULT_SECTION = {ROPE: ("rotation", ["rotation_chart"]), ALIBI: ("slopes", ["slopes_chart"])}


def chart_keys(at) -> list[str]:
    return [chart.key for chart in at.get("plotly_chart")]


@pytest.mark.parametrize(
    "page, view, keys",
    [(page, view, keys) for page, views in SECTIONS.items() for view, keys in views.items()],
)
def test_a_link_with_view_opens_that_section_and_only_its_charts(page, view, keys):
    at = open_page(page, {"view": view})
    assert not at.exception, [e.value for e in at.exception]
    assert notices(at) == []
    assert at.radio(key="view").value == view
    assert chart_keys(at) == keys
    assert len(plotly_figures(at)) == len(keys)
    assert len(at.latex) >= 1  # the page's formula stays above the switch


@pytest.mark.parametrize("page", list(SECTIONS))
def test_switching_sections_draws_each_sections_charts(page):
    at = open_page(page)
    view, keys = DEFAULT_SECTION[page]
    assert at.radio(key="view").value == view and chart_keys(at) == keys  # a link without view
    # Each option shows its label (the value stays the URL's: set_value below takes values).
    assert at.radio(key="view").options == [message(f"options.{v}", "en") for v in SECTIONS[page]]
    for view, keys in SECTIONS[page].items():
        at.radio(key="view").set_value(view).run()
        assert not at.exception, view
        assert chart_keys(at) == keys, view


@pytest.mark.parametrize("page", list(SECTIONS))
def test_a_bad_view_gives_a_notice_and_the_default_section(page):
    at = open_page(page, {"view": "everything"})
    assert not at.exception
    assert notices(at) == [
        f"URL parameter view=everything is not allowed: view must be one of "
        f"{', '.join(SECTIONS[page])}. Using the default, {DEFAULT_SECTION[page][0]}."
    ]
    view, keys = DEFAULT_SECTION[page]
    assert at.radio(key="view").value == view and chart_keys(at) == keys
