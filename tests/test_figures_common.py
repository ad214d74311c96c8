"""figures.common: the subplot grid (the layout `make_subplots` makes, built once per shape),
spanning lines and bands (plotly's add_vline & co. without their cost), live states' budget,
typed arrays (the one encoder and decoder), the slides' style."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from plotly.subplots import make_subplots

from figures.common import (
    add_span,
    array_of,
    base_layout,
    grid_axes,
    grid_layout,
    grid_refs,
    typed_array,
    with_arrays,
)


@pytest.mark.parametrize(("rows", "cols", "titles", "shared"), [
    (1, 1, 1, False), (1, 4, 4, False), (2, 8, 12, False), (8, 8, 64, False), (2, 3, 0, False),
    (2, 3, 5, True), (1, 2, 2, True)])
def test_grid_layout_is_make_subplots_layout(rows, cols, titles, shared):
    """Each panel's axes (domains, anchors, shared y axes) and titles as plotly's make_subplots
    has them, with the given titles' texts, for full and partly filled grids."""
    texts = [f"<b>head {i + 1}</b>" if i == 2 else f"head {i + 1}" for i in range(titles)]
    expected = make_subplots(rows=rows, cols=cols, subplot_titles=texts or None,
                             horizontal_spacing=0.02, vertical_spacing=0.3 / rows,
                             shared_yaxes=shared)
    layout = grid_layout(rows, cols, titles=texts or None, horizontal_spacing=0.02,
                         vertical_spacing=0.3 / rows, shared_yaxes=shared)
    assert layout == expected.layout.to_plotly_json()


def test_grid_layout_copies_are_independent():
    """The grid is made once per shape: a figure's changes to its copy reach no other figure."""
    first = grid_layout(2, 2, titles=["a", "b", "c", "d"], horizontal_spacing=0.1,
                        vertical_spacing=0.1)
    first["xaxis"]["showgrid"] = False
    first["annotations"][0]["font"] = {"size": 10}
    second = grid_layout(2, 2, titles=["e", "f", "g", "h"], horizontal_spacing=0.1,
                         vertical_spacing=0.1)
    assert "showgrid" not in second["xaxis"] and second["annotations"][0]["font"] == {"size": 16}
    assert [a["text"] for a in second["annotations"]] == ["e", "f", "g", "h"]
    assert [grid_axes(i) for i in (0, 1, 11)] == [("xaxis", "yaxis"), ("xaxis2", "yaxis2"),
                                                  ("xaxis12", "yaxis12")]


def test_grid_refs_name_the_axes_make_subplots_gives_a_panels_trace():
    fig = make_subplots(rows=3, cols=4)
    for index in range(12):
        row, col = divmod(index, 4)
        fig.add_trace(go.Scatter(x=[0], y=[0]), row=row + 1, col=col + 1)
        trace = fig.data[-1]
        assert grid_refs(index) == {"xaxis": trace.xaxis, "yaxis": trace.yaxis}


def test_live_values_are_every_value_when_they_fit_else_spaced_with_ends_and_the_drawn_one():
    from figures.common import MAX_LIVE_NUMBERS, live_values

    assert live_values(1, 12, drawn=5, per_state=10) == list(range(1, 13))
    spaced = live_values(0, 4095, drawn=1234, per_state=10)
    assert spaced[0] == 0 and spaced[-1] == 4095 and 1234 in spaced
    assert 101 <= len(spaced) <= 102 and spaced == sorted(set(spaced))
    heavy = live_values(0, 4095, drawn=7, per_state=MAX_LIVE_NUMBERS // 20)
    assert len(heavy) <= 21 and {0, 7, 4095} <= set(heavy)
    assert live_values(0, 100, drawn=3, per_state=MAX_LIVE_NUMBERS) == []


@pytest.mark.parametrize("dark", [False, True])
def test_presentation_style_keeps_a_shapes_line_visible(dark):
    """A shape that names only its line's colour (add_vline) is drawn with plotly's own line
    (width 2, opaque) on a slide, not the clean template's invisible default."""
    from figures.common import presentation_style

    fig = go.Figure(go.Scatter(x=[0, 1], y=[0, 1]))
    fig.add_vline(x=0.5, line={"dash": "dot", "color": "#c0392b"})
    styled = presentation_style(fig, dark=dark)
    defaults = styled.layout.template.layout.shapedefaults
    assert defaults.line.width is None and defaults.opacity is None
    assert styled.layout.shapes[0].line.color is not None


@pytest.mark.parametrize("array", [
    np.arange(6, dtype=np.float64).reshape(2, 3) / 3, np.linspace(0, 1, 5, dtype=np.float32),
    np.array([1.0, np.nan, -np.inf]), np.arange(300), np.arange(12, dtype=np.int16).reshape(3, 4)])
def test_typed_arrays_are_written_as_plotly_writes_them_and_read_back(array):
    """The one encoder writes what plotly.py's figure JSON holds for the array (int64 narrowed,
    a shape for more than one dimension); the one decoder gives the array back, bit for bit."""
    spec = typed_array(array)
    written = pio.to_json(go.Figure(go.Scatter(customdata=array)).to_dict(), validate=False)
    assert pio.json.from_json_plotly(written)["data"][0]["customdata"] == spec
    assert ("shape" in spec) == (array.ndim > 1)
    np.testing.assert_array_equal(array_of(spec), array)


def test_a_figures_arrays_are_decoded_wherever_they_are():
    spec = typed_array(np.float32([0.5, 2.0]))
    tree = {"data": [{"z": spec, "x": [1, 2], "name": "a"}], "layout": {"meta": [spec, 3]}}
    decoded = with_arrays(tree)
    np.testing.assert_array_equal(decoded["data"][0]["z"], np.float32([0.5, 2.0]))
    assert decoded["data"][0]["x"] == [1, 2] and decoded["data"][0]["name"] == "a"
    np.testing.assert_array_equal(decoded["layout"]["meta"][0], [0.5, 2.0])
    np.testing.assert_array_equal(array_of([1, 2]), [1, 2])  # a list, as it is


SPANS = [  # each use the figures make of plotly's spanning shapes, with and without a label
    ("vline", {"x": 3}, {"line": {"dash": "dash", "color": "#d62728"}}),
    ("vrect", {"x0": 2, "x1": 5}, {"fillcolor": "#d62728", "opacity": 0.07, "line_width": 0}),
    ("vrect", {"x0": 2, "x1": 5}, {"fillcolor": "grey", "opacity": 0.15, "line_width": 0,
                                   "annotation_text": "no row", "annotation_position": "top left"}),
    ("vrect", {"x0": 2.5, "x1": 9}, {"fillcolor": "rgba(214,39,40,0.08)", "line_width": 0,
                                     "annotation_text": "no row",
                                     "annotation_position": "bottom right"}),
    ("hline", {"y": 1.5}, {"line": {"dash": "dot"}, "annotation_text": "|PE[p+1] − PE[p]|",
                           "annotation_position": "top left"}),
    ("hline", {"y": 0.25}, {"line": {"dash": "dot", "color": "#1f77b4", "width": 1.5}}),
    ("hrect", {"y0": -0.5, "y1": 0.5}, {"line": {"color": "black", "width": 2},
                                        "fillcolor": "rgba(0,0,0,0)"}),
]


@pytest.mark.parametrize(("kind", "where", "style"), SPANS)
@pytest.mark.parametrize("panels", [1, 3])
def test_a_span_is_plotlys_own_line_or_band(kind, where, style, panels):
    """`add_span` gives the shapes and labels plotly's add_vline, add_vrect, add_hline and
    add_hrect give, on a single plot and on each panel of a grid."""
    def figure():
        fig = make_subplots(rows=1, cols=panels) if panels > 1 else go.Figure()
        for col in range(1, panels + 1):
            fig.add_trace(go.Scatter(x=[0, 10], y=[0, 2]),
                          **({"row": 1, "col": col} if panels > 1 else {}))
        return fig

    theirs, ours = figure(), figure()
    for panel in range(panels):
        getattr(theirs, f"add_{kind}")(**where, **style,
                                       **({"row": 1, "col": panel + 1} if panels > 1 else {}))
        add_span(ours, kind, *where.values(), panel=panel, **style)
    for part in ("shapes", "annotations"):
        assert ours.layout[part] == theirs.layout[part], part


def test_base_layout_is_update_layouts():
    theirs = go.Figure().update_layout(title={"text": "t", "x": 0.0, "xanchor": "left"},
                                       height=300, margin={"l": 70, "r": 20, "t": 60, "b": 60})
    assert base_layout(go.Figure(), "t", height=300).layout == theirs.layout
