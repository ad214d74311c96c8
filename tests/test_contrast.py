"""Non-text contrast (WCAG 2.2, 1.4.11): every line, marker, reference line and annotation of every
page's figures reaches 3:1 on the theme it is drawn for (figures.contrast)."""

from __future__ import annotations

import copy

import numpy as np
import plotly.graph_objects as go
import pytest
from hypothesis import given
from hypothesis import strategies as st
from plotly.colors import sample_colorscale

from figures.contrast import (
    BACKGROUNDS,
    DECORATIVE_ALPHA,
    TARGET_CONTRAST,
    contrast_ratio,
    ensure_contrast,
    parse_colour,
    readable,
    with_contrast,
)
from tests.apptest import decode, open_page, plotly_figures
from tests.test_themes import views


def test_contrast_ratio_matches_wcags_examples():
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast_ratio("#ffffff", "#ffffff") == pytest.approx(1.0)
    assert contrast_ratio("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)  # WebAIM
    assert contrast_ratio("#0000ff", "#ffffff") == pytest.approx(8.59, abs=0.01)  # WebAIM


@given(st.tuples(*[st.integers(0, 255)] * 3), st.sampled_from(sorted(BACKGROUNDS)))
def test_any_colour_is_brought_to_three_to_one_on_one_background(rgb, theme):
    colour = "#" + "".join(f"{c:02x}" for c in rgb)
    adjusted = with_contrast(colour, BACKGROUNDS[theme])
    assert contrast_ratio(adjusted, BACKGROUNDS[theme]) >= 3.0 - 1e-9
    if contrast_ratio(colour, BACKGROUNDS[theme]) >= TARGET_CONTRAST:
        assert adjusted == colour  # nothing changes that already reads (with the margin)


@given(st.tuples(*[st.integers(0, 255)] * 3))
def test_any_colour_is_brought_to_three_to_one_on_both_themes(rgb):
    colour = "#" + "".join(f"{c:02x}" for c in rgb)
    adjusted = readable(colour, list(BACKGROUNDS.values()))
    for background in BACKGROUNDS.values():
        assert contrast_ratio(adjusted, background) >= 3.0 - 1e-9


def _shown_colours(figure: go.Figure):
    """(where, colour) of every colour drawn on the background: lines, markers, text,
    annotations, reference lines, and the colours a marker colour scale can give."""
    for index, trace in enumerate(figure.data):
        if trace.type in ("heatmap", "contour", "surface", "image"):
            continue
        for part in ("line", "marker", "textfont"):
            holder = getattr(trace, part, None)
            value = getattr(holder, "color", None) if holder is not None else None
            if isinstance(value, dict):  # a typed array {dtype, bdata}
                value = decode(value)
            if isinstance(value, str):
                yield f"data[{index}].{part}", value
            elif value is not None and len(value) and isinstance(value[0], str):
                yield from ((f"data[{index}].{part}[]", v) for v in value)
            elif part == "marker" and value is not None and len(decode(value)):
                scale = (figure.layout[holder.coloraxis].colorscale if holder.coloraxis
                         else holder.colorscale)
                scale = [list(stop) for stop in scale]  # plotly's sampler misreads tuples
                for colour in sample_colorscale(scale, list(np.linspace(0, 1, 9))):
                    yield f"data[{index}].marker scale", colour
    for index, annotation in enumerate(figure.layout.annotations or ()):
        box = parse_colour(annotation.bgcolor) if annotation.bgcolor else None
        if box is not None and box[3] > DECORATIVE_ALPHA:
            continue  # on its own box
        if annotation.font is not None and annotation.font.color:
            yield f"annotations[{index}]", annotation.font.color
    for index, shape in enumerate(figure.layout.shapes or ()):
        if shape.line is not None and shape.line.color and not shape.fillcolor:
            yield f"shapes[{index}]", shape.line.color


def _opaque(colour: str) -> str | None:
    parsed = parse_colour(colour)
    if parsed is None or parsed[3] <= DECORATIVE_ALPHA:
        return None
    return "#" + "".join(f"{round(c):02x}" for c in parsed[:3])


@pytest.mark.parametrize(("page", "query"), list(views()))
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_figure_reads_on_both_themes(page, query, theme):
    at = open_page(page.script, query)
    assert not at.exception
    low = []
    for spec in plotly_figures(at):
        figure = ensure_contrast(go.Figure(copy.deepcopy(spec)))  # as ui.charts draws it
        for where, colour in _shown_colours(figure):
            opaque = _opaque(colour)
            if opaque and contrast_ratio(opaque, BACKGROUNDS[theme]) < 3.0:
                low.append((figure.layout.title.text, where, colour))
    assert low == []


def test_alibi_steep_head_and_viridis_dark_end_are_lifted_on_the_dark_theme():
    """The issue's examples: head 1's navy line and viridis's dark end on near-black."""
    figure = go.Figure([
        go.Scatter(y=[0, 1], line={"color": "#0d0887"}),  # Plasma's dark end (ALiBi head 1)
        go.Scatter(y=[0, 1], mode="markers", marker={"color": [0, 1], "colorscale": "Viridis"}),
    ])
    assert contrast_ratio("#0d0887", BACKGROUNDS["dark"]) < 3
    ensure_contrast(figure)
    for background in BACKGROUNDS.values():
        assert contrast_ratio(figure.data[0].line.color, background) >= 3
    for point in (0.0, 0.5, 1.0):  # viridis's dark and bright ends both moved
        colour = sample_colorscale([list(s) for s in figure.data[1].marker.colorscale],
                                   [point])[0]
        for background in BACKGROUNDS.values():
            assert contrast_ratio(_opaque(colour), background) >= 3 - 1e-6


def test_text_on_the_page_is_12_px_in_a_colour_that_reads_as_text_on_both_themes():
    """No colour has 4.5:1 (text's, WCAG 1.4.3) on white and on #171614 at once: a note or a
    label in a line's colour takes the theme's text colour; one on a box keeps its own."""
    fig = go.Figure(go.Scatter(x=[0, 1], y=[0, 1], mode="lines+text", text=["a", "b"],
                               textfont={"color": "#2ca02c", "size": 10}))
    fig.add_annotation(x=0, y=0, text="sequence length", font={"color": "#7f7f7f", "size": 11})
    fig.add_annotation(x=1, y=1, text="boxed", font={"color": "#ffffff", "size": 11},
                       bgcolor="#0068c9")
    ensure_contrast(fig)
    note, boxed = fig.layout.annotations
    assert (note.font.color, note.font.size) == (None, 12)
    assert (fig.data[0].textfont.color, fig.data[0].textfont.size) == (None, 12)
    assert (boxed.font.color, boxed.font.size) == ("#ffffff", 11)
