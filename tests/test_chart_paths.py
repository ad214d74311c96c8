"""The two ways a chart reaches the browser draw the same figure.

`ui.charts.show_chart` sends a figure through `ui.plotly_react` (an element that keeps its div
and redraws with Plotly.react: the app in a browser) or through `st.plotly_chart` (AppTest, which
has no browser, and a server without static serving). AppTest's tests read the second; this
checks, page by page at defaults, that the first sends the very same figure JSON, so what the
AppTests pin is what a browser draws."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.apptest import APP, open_page, plotly_figures
from ui import plotly_react

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
