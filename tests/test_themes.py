"""Figures read on the light and the dark theme: no black or white lines, markers or text drawn
on the page's background (black vanishes on dark, white on light). Lines drawn over a heatmap
(the 2-D grid's x/y split and cls row) are on the heatmap's colours, not the background."""

from __future__ import annotations

import json
import re

import plotly.graph_objects as go
import pytest

from figures.common import display_width, presentation_style, wrap_words
from tests.apptest import open_page
from ui.pages import PAGES

OVER_A_HEATMAP = {"vit-grid"}  # its black guide lines lie on heatmap cells
INVISIBLE_ON_ONE_THEME = re.compile(r'^(black|white|#000(000)?|#fff(fff)?|rgb\(0, ?0, ?0\))$',
                                    re.I)


def colours(node, path=""):
    """Every colour in a figure's JSON (data and layout), with where it is."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "template":  # Streamlit's or plotly's theme, not the figure's choice
                continue
            if "color" in key.lower() and isinstance(value, str):
                yield f"{path}.{key}", value
            else:
                yield from colours(value, f"{path}.{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from colours(value, f"{path}[{index}]")


def views():
    """(page, query) for every page and every section it shows one at a time."""
    for page in PAGES:
        if page.url_path in OVER_A_HEATMAP:
            continue
        for view in page.views:
            yield pytest.param(page, {"view": view} if view else {},
                               id=f"{page.url_path}-{view}" if view else page.url_path)


@pytest.mark.parametrize(("page", "query"), list(views()))
def test_no_figure_colour_vanishes_on_a_theme(page, query):
    at = open_page(page.script, query)
    assert not at.exception
    found = [
        (where, colour)
        for chart in at.get("plotly_chart")
        for where, colour in colours(json.loads(chart.proto.spec))
        if INVISIBLE_ON_ONE_THEME.match(colour.strip())
    ]
    assert found == []


@pytest.mark.parametrize(("text", "width"), [
    ("与最近训练编码的距离", 9), ("最大角度 p·θᵢ（弧度）", 12), ("偏置 −m·(i − j)", 10),
    ("the quick brown fox jumps over the lazy dog", 12), ("可学习行的范数 |P[p]|", 12),
    ("abc (def) ghi", 6), ("距离", 3), ("a", 1),
])
def test_wrapped_titles_keep_punctuation_and_words_together(text, width):
    """Lines within `width`, never starting with closing or ending with opening punctuation,
    no orphaned last character, and nothing lost."""
    lines = wrap_words(text, width).split("<br>")
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    for line in lines:
        assert display_width(line) <= width or " " not in line
        assert line[0] not in ")）" and line[-1] not in "(（"
    if len(lines) > 1:
        assert display_width(lines[-1]) >= 2


def _greedy_lines(text: str, width: int) -> list[str]:
    """Fill each line with words while it fits (the reference for how few lines are needed)."""
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


@pytest.mark.parametrize("text", [
    "Overview: 2048 x 2048 pairs shown as 200 x 200 smoothed cells",
    "Overview: each cell is a smoothed sample every ~2 x 1 entries",
    "the quick brown fox jumps over the lazy dog and runs far away from here",
])
def test_wrapped_notes_use_the_fewest_lines_and_even_ones(text):
    """A note on a slide wraps into as few lines as fit its width, of about equal length: no
    word left alone on a last line ("... smoothed / cells")."""
    lines = wrap_words(text, 44).split("<br>")
    assert len(lines) == len(_greedy_lines(text, 44))
    assert max(map(len, lines)) - min(map(len, lines)) <= max(map(len, text.split())) + 1


def test_a_slides_legend_leaves_the_plot_its_height():
    """A panel's legend in rows under the plot on a slide makes the figure taller, not the plot
    shorter (the extrapolation page's RoPE panel was ~100 px tall in Chinese)."""
    fig = go.Figure([go.Scatter(x=[0, 1], y=[0, 1], name=f"trace {i}") for i in range(6)])
    fig.update_layout(height=360, margin={"t": 60, "b": 60})
    styled = presentation_style(fig)
    plot = styled.layout.height - styled.layout.margin.t - styled.layout.margin.b
    assert plot >= 240
