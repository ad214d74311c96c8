"""The two ways a chart reaches the browser draw the same figure.

`ui.charts.show_chart` sends a figure through `ui.plotly_react` (an element that keeps its div
and redraws with Plotly.react: the app in a browser) or through `st.plotly_chart` (AppTest, which
has no browser, and a server without static serving). AppTest's tests read the second; this
checks, page by page at defaults, that the first sends the very same figure JSON, so what the
AppTests pin is what a browser draws; and that the element's own serialisation
(`plotly_react.figure_json`, from plotly.py's private dicts: tests/test_plotly_internals.py)
writes plotly.py's JSON to the byte, on every figure of every page and view, at the defaults and
with every whole-number setting at its maximum."""

from __future__ import annotations

import json

import plotly.graph_objects as go
import plotly.io as pio
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from tests.apptest import APP, open_page, plotly_figures
from ui import pages as registry
from ui import plotly_react
from ui.pages import PageInfo
from ui.params import IntParam

PAGES = ["app_pages/heatmap.py", "app_pages/similarity.py", "app_pages/alibi.py",
         "app_pages/learned_vs_sinusoidal.py", "app_pages/vit_grid.py", "app_pages/rope.py"]


@pytest.mark.parametrize("script", PAGES)
def test_the_element_sends_the_figure_st_plotly_chart_sends(script, monkeypatch):
    plain = {json.dumps(figure, sort_keys=True) for figure in plotly_figures(open_page(script))}
    sent = []
    monkeypatch.setattr(plotly_react, "enabled", lambda: True)
    monkeypatch.setattr(plotly_react, "_element",
                        lambda: lambda **kwargs: sent.append(kwargs))
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()  # the home page (st.navigation registers the pages)
    home = len(sent)
    at.switch_page(script)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert plotly_figures(at) == []  # every chart went through the element
    del sent[:home]
    specs = []
    for call in sent:
        settings, spec = call["data"].split(b"\n", 1)
        assert json.loads(settings)["height"] > 0
        specs.append(json.dumps(json.loads(spec), sort_keys=True))
    # AppTest's tree also holds the home page's charts of the first run: the page's are the
    # element's, each sent as st.plotly_chart sent it.
    assert specs and set(specs) <= plain, sorted(set(specs) - plain)[:1]
    assert len(plain - set(specs)) <= home


def test_figure_json_is_plotly_pys_json_to_the_byte():
    """The element's own serialisation (no deep copy of the figure) against plotly.py's, on a
    figure with what the app's figures hold: typed and listed arrays, NaN, texts to escape,
    a slider's steps (arrays in lists stay lists), live states, frames and a trace uid."""
    import numpy as np
    import plotly.graph_objects as go
    import plotly.io as pio

    x = np.arange(6)
    fig = go.Figure(
        [go.Scatter(x=x, y=np.array([1.0, np.nan, 2.0, np.inf, 3.0, 4.0]), uid="a",
                    text=["<b>a/b</b>"] * 6, marker={"color": np.linspace(0, 1, 6)},
                    customdata=np.arange(12).reshape(6, 2)),
         go.Heatmap(z=np.arange(6, dtype=np.float32).reshape(2, 3), x=[0.5, 1.5, 2.5])],
        frames=[go.Frame(data=[go.Scatter(y=np.ones(6))], name="f")],
    )
    fig.update_layout(
        sliders=[{"steps": [{"method": "restyle", "args": [{"y": [np.zeros(6)]}, [0]]}]}],
        xaxis={"range": np.array([0.0, 5.0])},
        meta={"live": {"k": {"values": ["1"], "updates": [[{"y": [[1, 2.5, None]]}, {}, [0]]]}}},
        title_text="</script>",
    )
    assert plotly_react.figure_json(fig) == pio.to_json(fig.to_dict(), validate=False)


# --- figure_json against plotly.py on every page and view ---------------------------------------
def maximum_settings(page: PageInfo) -> dict[str, str]:
    """Every whole-number parameter of the page at its maximum (the largest multiple it takes).
    None is capped: no page and view opens in more than ~4 s at its maximum (vit-grid's encoding,
    similarity's matrix at 4096 positions x 1024), and the 70 cases took 47 s on three workers of
    a busy 2-core machine (2026-11-29)."""
    return {p.name: str(p.validate(p.maximum - p.maximum % p.multiple_of))
            for p in page.params if isinstance(p, IntParam)}


FIGURE_CASES = [
    pytest.param(page.script, {**settings, **({"view": view} if view else {})},
                 id="-".join(part for part in (page.slug, view, name) if part))
    for page in (registry.HOME, *registry.PAGES) for view in page.views
    for name, settings in (("default", {}), ("max", maximum_settings(page)))
]


@pytest.mark.parametrize(("script", "query"), FIGURE_CASES)
def test_figure_json_is_plotly_pys_json_on_every_page_and_view(script, query, monkeypatch):
    """Each figure a page draws, as `show_chart` hands it over, written by `figure_json` and by
    plotly.py (`pio.to_json(fig.to_dict())`, what st.plotly_chart sends): the same bytes. The
    figures are caught at st.plotly_chart, where AppTest's charts go (no browser)."""
    written: list[tuple[str, str]] = []
    plotly_chart = st.plotly_chart

    def both_ways(figure, *args, **kwargs):
        if isinstance(figure, go.Figure):
            written.append((plotly_react.figure_json(figure),
                            pio.to_json(figure.to_dict(), validate=False)))
        return plotly_chart(figure, *args, **kwargs)

    monkeypatch.setattr(st, "plotly_chart", both_ways)
    at = AppTest.from_file(APP, default_timeout=120)
    for name, value in query.items():
        at.query_params[name] = value
    at.run()  # the home page (st.navigation registers the pages)
    if script != registry.HOME.script:
        del written[:]
        at.switch_page(script)
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert written, f"{script} drew no figure with {query}"
    for index, (ours, plotlys) in enumerate(written):
        if ours != plotlys:
            where = next((i for i, (a, b) in enumerate(zip(ours, plotlys, strict=False))
                          if a != b), min(len(ours), len(plotlys)))
            raise AssertionError(f"figure {index}: figure_json differs from plotly.py's JSON at "
                                 f"character {where}: {ours[where - 60:where + 60]!r} against "
                                 f"{plotlys[where - 60:where + 60]!r}")
