"""Live controls, derived from the page registry (`live=True` on a parameter in ui/pages.py):
every page and view opened in AppTest at its defaults, each chart's live states
(figures.common.add_live_states, `layout.meta.live`) read from the figure the page draws.

- A state's name is a live parameter of its page; every live parameter has states on some view;
  a live slider on screen moves a chart of its view (ALiBi's head view at 256 positions had
  none: a drag moved nothing).
- Each state draws the server's figure: the page run again at the state's value draws what the
  state applied to the default's figure shows (`tests/live_states.py`, as ui/chart/live.js
  applies it), chart by chart, for the state farthest from the value drawn.

The figure tests (tests/test_figures_*.py) check every state of a figure at other sizes; the
browser's drag (tests/test_browser_live_controls.py) takes its sliders from the same registry.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import plotly.graph_objects as go
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from tests.apptest import APP
from tests.live_states import assert_state_draws, live_states
from ui import pages as registry
from ui.pages import PageInfo
from ui.params import IntParam

ROOT = Path(__file__).resolve().parent.parent
PAGES = {page.slug: page for page in (registry.HOME, *registry.PAGES)}


@functools.cache
def drawn(script: str, query: tuple[tuple[str, str], ...]) -> tuple[dict[str, go.Figure],
                                                                   frozenset[str]]:
    """The figures page `script` draws at URL query `query`, by chart key, and the keys of the
    sliders it shows (the figures caught where AppTest's charts go: st.plotly_chart)."""
    figures: dict[str, go.Figure] = {}
    plotly_chart = st.plotly_chart

    def caught(figure, *args, **kwargs):
        if isinstance(figure, go.Figure):
            figures[kwargs["key"]] = figure
        return plotly_chart(figure, *args, **kwargs)

    st.plotly_chart = caught
    try:
        at = AppTest.from_file(APP, default_timeout=120)
        for name, value in query:
            at.query_params[name] = value
        at.run()  # the home page (st.navigation registers the pages)
        if script != registry.HOME.script:
            figures.clear()
            at.switch_page(script)
            at.run()
    finally:
        st.plotly_chart = plotly_chart
    assert not at.exception, [e.value for e in at.exception]
    sliders = frozenset(s.key for kind in ("slider", "select_slider") for s in at.get(kind))
    return figures, sliders


def carried(figure: go.Figure) -> set[str]:
    """The names of the controls whose live states `figure` carries."""
    meta = figure.layout.meta
    return set(meta.get("live", {})) if isinstance(meta, dict) else set()


def view_query(view: str | None) -> tuple[tuple[str, str], ...]:
    return (("view", view),) if view else ()


@pytest.mark.parametrize("page", PAGES.values(), ids=PAGES)
def test_live_states_are_the_pages_live_parameters(page: PageInfo):
    live = {p.name for p in page.live}
    found: set[str] = set()
    for view in page.views:
        figures, sliders = drawn(page.script, view_query(view))
        names = set().union(*map(carried, figures.values()))
        assert names <= live, (f"{page.slug} view {view}: states for {sorted(names - live)}, "
                               f"which ui/pages.py does not declare live=True")
        found |= names
        shown = {p.name for p in page.live if isinstance(p, IntParam)} & sliders
        assert shown <= names, (f"{page.slug} view {view}: live slider(s) on screen move no "
                                f"chart (no figure carries their states): {sorted(shown - names)}")
    assert found == live, f"{page.slug}: declared live, no states on any view: {live - found}"


def farthest(states: dict, default: object) -> str:
    """The state's value farthest from the value drawn (the last of texts)."""
    try:
        return max(states["values"], key=lambda text: abs(float(text) - float(default)))
    except ValueError:
        return states["values"][-1]


@pytest.mark.parametrize("page", [page for page in PAGES.values() if page.live],
                         ids=[slug for slug, page in PAGES.items() if page.live])
def test_each_live_state_draws_the_servers_figure_at_its_value(page: PageInfo):
    params = {p.name: p for p in page.params}
    checked = set()
    for view in page.views:
        figures, _ = drawn(page.script, view_query(view))
        for name in sorted(set().union(*map(carried, figures.values()))):
            keys = [key for key, figure in figures.items() if name in carried(figure)]
            text = farthest(live_states(figures[keys[0]], name), params[name].default)
            there, _ = drawn(page.script, (*view_query(view), (name, text)))
            for key in keys:
                assert_state_draws(figures[key], name, text, there[key])
                checked.add((view, key, name))
    assert checked, f"{page.slug}: no live state drawn"


def test_the_user_guide_lists_every_live_slider():
    """docs/user-guide.md's "Live sliders" paragraph names each live slider by its page and URL
    parameter (`/similarity`: `anchor`, ...): the registry's, none left out, none more."""
    guide = (ROOT / "docs" / "user-guide.md").read_text(encoding="utf-8")
    paragraph = re.search(r"\*\*Live sliders\.\*\*(.*?)\n\n", guide, re.S)
    assert paragraph, "docs/user-guide.md has no **Live sliders.** paragraph"
    listed = {(page, name) for page, names in re.findall(r"`/([\w-]+)`:\s+((?:`\w+`(?:,\s+)?)+)",
                                                          paragraph.group(1))
              for name in re.findall(r"`(\w+)`", names)}
    declared = {(page.slug, p.name) for page in registry.PAGES for p in page.live
                if isinstance(p, IntParam)}
    assert listed == declared, (f"listed, not declared live: {sorted(listed - declared)}; "
                                f"declared live, not listed: {sorted(declared - listed)}")
