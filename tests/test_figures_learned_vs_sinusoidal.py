"""The learned-vs-sinusoidal page's figures: the PCA path of the position vectors, the tables,
similarity, offset curves and extent."""

from __future__ import annotations

import numpy as np
import pytest

import core
from core import learned_vs_sinusoidal as lvs
from core.word_position import project
from figures.learned_vs_sinusoidal import (
    add_anchor_states,
    make_extent_figure,
    make_offset_figure,
    make_similarity_figure,
    make_table_heatmap_figure,
    make_trajectory_figure,
    offset_preview_anchors,
)
from tests.live_states import assert_states_draw_the_servers_figures, live_states


def _panels(learned: np.ndarray, sinusoid: np.ndarray) -> dict:
    return {"learned": (learned, ("a", "b")), "sinusoidal": (sinusoid, ("c", "d"))}


def _minilm_positions(rows: int) -> np.ndarray:
    from core.minilm import load_minilm

    return load_minilm().position_embeddings[:rows].astype("float64")


def test_learned_path_is_points_and_sinusoid_path_a_line():
    """All 512 of MiniLM's learned rows, projected, jump across the cloud from one position to
    the next (median step about the cloud's radius): joined in order they drew a hairball of
    grey lines, so they are points coloured by position; the sinusoid's rows move a little per
    position and stay a path. (The first 128 learned rows alone do read as a path.)"""
    rows = 512
    learned = project(_minilm_positions(rows), 2, seed=0).coordinates
    sinusoid = project(core.sinusoidal_encoding(rows, 384, dtype="float64"), 2).coordinates
    fig = make_trajectory_figure(_panels(learned, sinusoid))
    paths = [t for t in fig.data if t.customdata is not None]  # one per panel
    assert [("lines" in t.mode) for t in paths] == [False, True]
    for trace, points in zip(paths, (learned, sinusoid), strict=True):
        np.testing.assert_allclose(np.c_[trace.x, trace.y], points)
        np.testing.assert_array_equal(trace.marker.color, np.arange(rows))  # by position
        assert trace.marker.coloraxis == "coloraxis"
    assert fig.layout.coloraxis.cmin == 0 and fig.layout.coloraxis.cmax == rows - 1
    # Only the ends are labelled, beside their own points.
    labels = [t for t in fig.data if t.text is not None]
    assert len(labels) == 2
    for label, points in zip(labels, (learned, sinusoid), strict=True):
        assert list(label.text) == ["0", str(rows - 1)]
        np.testing.assert_allclose(np.c_[label.x, label.y], points[[0, -1]])


def test_path_rule_on_known_clouds():
    """A circle walked in small steps is a path; the same points shuffled are not."""
    angles = np.linspace(0, 2 * np.pi, 200)
    circle = np.c_[np.cos(angles), np.sin(angles)]
    shuffled = circle[np.random.default_rng(0).permutation(200)]
    fig = make_trajectory_figure(_panels(shuffled, circle))
    assert [t.mode for t in fig.data if t.customdata is not None] == ["markers",
                                                                      "lines+markers"]


def test_learned_figures(learned_table):
    overview = lvs.table_overview(learned_table, 256, 192)
    fig = make_table_heatmap_figure(overview, zmax=0.5, title="Learned")
    assert (fig.data[0].zmin, fig.data[0].zmax) == (-0.5, 0.5)
    assert fig.data[0].customdata is None  # light payload
    sim = make_similarity_figure(lvs.table_overview(np.eye(4), 256, 256), metric="dot", zmax=1,
                                 title="s")
    assert "dot = %{z:.4f}" in sim.data[0].hovertemplate
    assert sim.layout.yaxis.title.text == "position i"
    curves = {"learned": lvs.offset_similarity_curves(learned_table, [0, 10], 5),
              "sinusoidal": lvs.offset_similarity_curves(learned_table, [0, 10], 5)}
    assert len(make_offset_figure(curves, metric="cosine").data) == 4
    extent = make_extent_figure(np.ones(512), np.ones(768), learned_rows=512)
    assert extent.layout.shapes[0].x0 == 511.5 and extent.layout.shapes[0].x1 == 768
    assert extent.layout.yaxis.type == "log"
    assert "no learned row from position 512" in extent.layout.annotations[0].text


def _offset_chart(rows: int, anchor: int, metric: str = "cosine"):
    """The offset view's chart as the page makes it at `anchor`: a random table of `rows`
    rows beside the sinusoid, the anchors of anchor 0 fixed, the chosen one's line apart and
    its line at every anchor previewed for a drag."""
    learned = np.random.default_rng(rows).normal(size=(rows, 16))
    tables = {"learned": learned, "sinusoidal": core.sinusoidal_encoding(rows, 16)}
    span = min(128, rows - 1)
    fixed = {name: lvs.offset_similarity_curves(table, lvs.comparison_anchors(0, rows), span,
                                                metric)
             for name, table in tables.items()}
    lines = {name: lvs.offset_similarity_curve(table, anchor, span, metric)
             for name, table in tables.items()}
    previewed = offset_preview_anchors(rows, 2 * span + 1)
    previews = {name: {**lvs.offset_similarity_curves(table, previewed, span, metric),
                       anchor: lines[name]} for name, table in tables.items()}
    fig = make_offset_figure(fixed, metric=metric, chosen=(anchor, lines))
    return add_anchor_states(fig, fixed, previews, metric=metric)


@pytest.mark.parametrize("metric", ["cosine", "dot"])
def test_offset_anchor_states_draw_every_anchor_of_a_small_table(metric):
    """40 rows: a line of 79 offsets per table, every anchor carried (0, 13 and 26 are also
    fixed lines: there the chosen one is hidden, as the server draws it)."""
    values = assert_states_draw_the_servers_figures(
        lambda anchor: _offset_chart(40, anchor, metric), "anchor", 17)
    assert values == [str(a) for a in range(40)]


def test_offset_anchor_states_at_the_learned_tables_size_are_spaced_and_bounded():
    """300 rows, lines of 257 offsets in two panels: 514 numbers an anchor, so 40,000 carry 77
    anchors, about every 4th (299 / 76), the drawn one added."""
    fig = _offset_chart(300, 151)
    values = [int(v) for v in live_states(fig, "anchor")["values"]]
    assert len(set(values) - {151}) == 77 and 151 in values
    assert values[0] == 0 and values[-1] == 299 and max(np.diff(values)) == 4
    assert len(fig.to_json()) < 450_000
    assert_states_draw_the_servers_figures(lambda anchor: _offset_chart(300, anchor), "anchor",
                                           151, values=[0, 4, 151, 295, 299])


@pytest.mark.parametrize(("anchor", "hidden"), [(7, False), (0, True), (20, True), (39, False)])
def test_offset_chart_keeps_its_traces_and_legend_order_whichever_anchor(anchor, hidden):
    """Four lines a panel (anchors 0, 13, 26 and the chosen one, last), the chosen one hidden
    where it is one of the others; the legend lists each panel's anchors in order."""
    fig = _offset_chart(60, anchor)
    assert len(fig.data) == 8
    chosen = [fig.data[3], fig.data[7]]
    assert [t.name for t in chosen] == [f"learned, anchor {anchor}",
                                        f"sinusoidal, anchor {anchor}"]
    assert [t.visible for t in chosen] == [not hidden] * 2
    shown = sorted((t for t in fig.data if t.visible is not False), key=lambda t: t.legendrank)
    expected = sorted({0, 20, 40, anchor})
    assert [t.name for t in shown] == [f"{name}, anchor {a}" for name in ("learned", "sinusoidal")
                                       for a in expected]


def test_wavelength_figure_draws_the_ladder_the_periods_and_the_band():
    from figures.learned_vs_sinusoidal import make_wavelength_figure

    ladder = np.array([2 * np.pi, 2 * np.pi, 20.0, 20.0, 300.0, 300.0])
    period = np.array([6.0, 6.5, 21.0, np.inf, 255.0, 255.0])  # a constant column: inf
    share = np.array([0.9, 0.8, 0.7, 0.0, 0.3, 0.2])
    fig = make_wavelength_figure(period, share, ladder, samples=255)
    line, points = fig.data
    np.testing.assert_array_equal(line.y, ladder)
    np.testing.assert_array_equal(points.x, [0, 1, 2, 4, 5])  # the constant column left out
    np.testing.assert_array_equal(points.marker.color, [0.9, 0.8, 0.7, 0.3, 0.2])
    (band,) = fig.layout.shapes
    assert band.y0 == 127.5  # fewer than two cycles in 255 positions
    assert fig.layout.yaxis.type == "log"
    assert "127" in fig.layout.annotations[0].text or "128" in fig.layout.annotations[0].text
