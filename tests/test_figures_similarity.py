"""The similarity page's figures, checked on their traces."""

from __future__ import annotations

import math

import numpy as np
import pytest

import core
from core import similarity
from figures.common import presentation_style
from figures.similarity import (
    add_anchor_profile_states,
    add_offset_mark_states,
    add_rotation_view_states,
    make_anchor_profile_figure,
    make_distance_figure,
    make_offset_scatter_figure,
    make_rotation_figure,
    make_shift_matrix_figure,
    make_similarity_matrix_figure,
)
from tests.live_states import assert_states_draw_the_servers_figures, live_states


def scatter_figure(n: int = 200, d_model: int = 32, metric: str = "dot", offset: int = 5,
                   **anchor):
    table = core.sinusoidal_encoding(n, d_model)
    random = similarity.random_table(n, d_model)
    offsets = np.arange(-(n - 1), n)
    curve = similarity.offset_similarity(offsets, d_model, metric=metric)
    sample = similarity.pair_sample(table, count=300, metric=metric)
    random_sample = similarity.pair_sample(random, count=300, metric=metric)
    envelope = similarity.pairwise_similarity(random, metric=metric)
    fig = make_offset_scatter_figure(
        curve_offsets=offsets,
        curve=curve,
        sinusoid_points=(sample.offsets, sample.similarity),
        random_points=(random_sample.offsets, random_sample.similarity),
        random_envelope=(envelope.offsets, envelope.lowest, envelope.highest),
        offset=offset,
        offset_value=float(similarity.offset_similarity(np.array(offset), d_model, metric=metric)),
        metric=metric,
        **anchor,
    )
    return fig, sample, random_sample


def test_similarity_curve_equals_offset_dot_product():
    fig, _, _ = scatter_figure(d_model=32)
    curve = next(t for t in fig.data if t.name.startswith("Σ<sub>i</sub> cos"))
    np.testing.assert_allclose(curve.y, core.offset_dot_product(np.asarray(curve.x), 32),
                               rtol=0, atol=1e-12)
    # ... and every sinusoid pair lies on it, while the random pairs do not.
    sinusoid = fig.data[0]
    random = next(t for t in fig.data if t.name == "pairs (p, q), random table")
    on_curve = core.offset_dot_product(np.asarray(sinusoid.x), 32)
    assert np.abs(np.asarray(sinusoid.y) - on_curve).max() < 1e-4
    off_curve = core.offset_dot_product(np.asarray(random.x), 32)
    assert np.abs(np.asarray(random.y) - off_curve).max() > 1.0
    assert fig.layout.xaxis.title.text == "offset k = q − p"


def test_direction_blindness_markers_have_equal_heights():
    fig, _, _ = scatter_figure(offset=9)
    marks = fig.data[-1]  # one trace, one legend entry for both
    assert marks.name == "±k: the same value, before or after"
    assert (marks.xaxis, marks.yaxis) == ("x", "y")  # on the sinusoid's panel
    assert list(marks.x) == [-9, 9]
    assert marks.y[0] == marks.y[1] == pytest.approx(core.offset_dot_product(9, 32))
    assert list(marks.text) == ["−k = −9", "k = 9"]


@pytest.mark.parametrize(("anchor", "labels"), [
    (50, ["−k = −9: q = 41", "k = 9: q = 59"]),  # both neighbours in the table
    (4, ["−k = −9: q = −5, outside", "k = 9: q = 13"]),  # 4 - 9 is no position
    (195, ["−k = −9: q = 186", "k = 9: q = 204, outside"]),  # nor 195 + 9 of 200
])
def test_direction_blindness_markers_name_the_anchors_neighbours(anchor, labels):
    """Given the anchor p, each ±k mark names the position q = p ± k it pairs p with, or that
    the table has none there: moving the anchor moves what the chart says."""
    fig, _, _ = scatter_figure(offset=9, anchor=anchor, positions=200)
    marks = fig.data[-1]
    assert list(marks.text) == labels
    assert list(marks.x) == [-9, 9]  # the value is the offset's, wherever p is


def test_direction_blindness_marker_labels_turn_under_and_inward_at_the_ends():
    """Near the centre a label is written above its mark, outward; toward the table's ends
    under it, toward the centre (outward it ran out of the panel), the right one a line lower
    (browser: tests/test_browser_similarity.py measures them drawn)."""
    near = scatter_figure(offset=9, anchor=100, positions=200)[0].data[-1]
    assert list(near.textposition) == ["top left", "top right"]
    end = scatter_figure(offset=199, anchor=100, positions=200)[0].data[-1]
    assert list(end.textposition) == ["bottom right", "bottom left"]
    assert list(end.text) == ["−k = −199: q = −99, outside", " <br>k = 199: q = 299, outside"]
    flipped = scatter_figure(offset=-199, anchor=100, positions=200)[0].data[-1]
    assert list(flipped.x) == [199, -199]  # −k's mark on the right now: it goes lower
    assert list(flipped.textposition) == ["bottom left", "bottom right"]
    assert flipped.text[0].startswith(" <br>−k = 199") and "<br>" not in flipped.text[1]


def test_direction_blindness_markers_on_a_slide_grow_and_stay_opaque():
    """On a slide markers grow by PRESENTATION_SCALE, the ±k diamonds too, and stay opaque."""
    fig, _, _ = scatter_figure(offset=9)
    slide = presentation_style(fig)
    marks = slide.data[-1]
    assert marks.marker.size == pytest.approx(14 * 1.6)
    assert marks.marker.opacity in (None, 1)
    assert list(marks.x) == [-9, 9]  # placed on the data as before


def test_cosine_curve_is_dot_over_half_d():
    fig, _, _ = scatter_figure(d_model=16, metric="cosine")
    curve = next(t for t in fig.data if t.name.startswith("Σ<sub>i</sub> cos"))
    np.testing.assert_allclose(curve.y, core.offset_dot_product(np.asarray(curve.x), 16) / 8)
    assert fig.layout.yaxis.title.text == "cos(PE[p], PE[q])"


def test_similarity_matrix_is_toeplitz_and_scaled():
    d_model = 24
    result = similarity.pairwise_similarity(core.sinusoidal_encoding(60, d_model))
    fig = make_similarity_matrix_figure(result, metric="dot", d_model=d_model)
    (heatmap,) = fig.data
    z = np.asarray(heatmap.z, dtype=np.float64)
    assert z.shape == (60, 60)
    for k in range(-59, 60):  # constant along each diagonal
        diagonal = np.diagonal(z, offset=k)
        assert np.ptp(diagonal) < 1e-4
        assert diagonal[0] == pytest.approx(core.offset_dot_product(k, d_model), abs=1e-4)
    assert (heatmap.zmin, heatmap.zmax) == (-12, 12)  # +-|PE|^2 = d/2
    assert "dot = %{z" in heatmap.hovertemplate
    assert fig.layout.xaxis.title.text == "position q"


def test_large_similarity_matrix_says_it_is_resampled():
    result = similarity.pairwise_similarity(core.sinusoidal_encoding(2048, 64), metric="cosine")
    fig = make_similarity_matrix_figure(result, metric="cosine", d_model=64)
    assert np.asarray(fig.data[0].z).shape == (400, 400)
    assert "2048 x 2048 pairs shown as 400 x 400 smoothed cells" in fig.layout.annotations[0].text
    assert len(fig.to_json()) < 1_500_000


def test_anchor_profile_figure():
    profile = similarity.anchor_profile(core.sinusoidal_encoding(2048, 512), 1000)
    fig = make_anchor_profile_figure(profile, anchor=1000, metric="cosine", zoom=50)
    full, zoom = fig.data
    assert len(full.x) == 2048 and list(zoom.x) == list(range(950, 1051))
    assert zoom.y[50] == pytest.approx(1.0, abs=1e-6)
    assert [s.x0 for s in fig.layout.shapes] == [1000, 1000]  # the anchor, in both panels


def test_distance_figure_points_on_the_closed_form():
    table = core.sinusoidal_encoding(300, 64)
    sample = similarity.pair_sample(table, count=200)
    k = np.arange(300)
    fig = make_distance_figure(
        sample_gaps=np.abs(sample.offsets), sample_distances=sample.distance,
        curve_offsets=k, curve=similarity.offset_distance(k, 64),
    )
    points, curve = fig.data
    np.testing.assert_allclose(curve.y, np.sqrt(64 - 2 * core.offset_dot_product(k, 64)))
    np.testing.assert_allclose(
        points.y, np.interp(points.x, curve.x, curve.y), atol=1e-5
    )
    assert fig.layout.yaxis.title.text == "‖PE[p] − PE[q]‖"


def test_shift_matrix_figure_shows_2x2_rotation_blocks():
    k, d_model = 4, 16
    fig = make_shift_matrix_figure(core.shift_matrix(k, d_model), offset=k, d_model=d_model)
    z = np.asarray(fig.data[0].z, dtype=np.float64)
    assert z.shape == (16, 16)
    for i in range(8):
        b = k * 10000 ** (-2 * i / d_model)
        block = z[2 * i : 2 * i + 2, 2 * i : 2 * i + 2]
        np.testing.assert_allclose(
            block, [[math.cos(b), math.sin(b)], [-math.sin(b), math.cos(b)]], atol=1e-7
        )
        z[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = 0
    assert not z.any()  # nothing outside the blocks
    assert fig.layout.title.text == "Mₖ for k = 4"
    window = make_shift_matrix_figure(core.shift_matrix(k, 512)[:32, :32], offset=k, d_model=512)
    assert "first 32 of 512 dimensions" in window.layout.title.text


def test_rotation_figure():
    rp = similarity.rotated_pair(7, 3, 0, 64)
    fig = make_rotation_figure(rp, position=7, offset=3)
    by_name = {t.name: t for t in fig.data}
    assert "ω<sub>0</sub>·k = 3.0000 rad" in by_name
    before, after = by_name["pair 0 of PE[7]"], by_name["pair 0 of PE[10]"]
    moved = by_name["Mₖ's block applied to PE[7]"]
    assert before.x[1] == pytest.approx(math.cos(7)) and before.y[1] == pytest.approx(math.sin(7))
    assert after.x[1] == pytest.approx(math.cos(10))
    assert moved.x[0] == pytest.approx(after.x[1]) and moved.y[0] == pytest.approx(after.y[1])


# --- live states: what a drag draws before the release is the server's figure at that value -----
# (tests/live_states.py applies each state as the browser does; ui/chart/live.js draws them)
def offset_view(n: int, d_model: int, *, offset: int, anchor: int, metric: str = "cosine"):
    """The offset chart as the page makes it at `offset` and `anchor`, with its live states."""
    fig, _, _ = scatter_figure(n, d_model, metric, offset, anchor=anchor, positions=n)
    offsets = np.arange(-(n - 1), n)
    drawn = float(similarity.offset_similarity(np.array(offset), d_model, metric=metric))
    return add_offset_mark_states(
        fig, curve_offsets=offsets,
        curve=similarity.offset_similarity(offsets, d_model, metric=metric),
        offset=offset, offset_value=drawn, anchor=anchor, positions=n)


@pytest.mark.parametrize(("name", "values"), [
    ("offset", [-39, -7, 0, 1, 5, 38, 39]),  # both signs, k = 0, the table's ends
    ("anchor", [0, 3, 20, 36, 39]),  # with a neighbour outside the table, both inside
])
def test_offset_marks_states_draw_each_offset_and_anchor(name, values):
    at = {"offset": 5, "anchor": 20}

    def make(value):
        return offset_view(40, 16, **{**at, name: value})

    carried = assert_states_draw_the_servers_figures(make, name, at[name], values=values)
    low = -39 if name == "offset" else 0
    assert carried == [str(v) for v in range(low, 40)]  # every value of the table


def anchor_view(n: int, d_model: int, anchor: int, metric: str = "cosine"):
    toeplitz = similarity.sinusoid_similarity(n, d_model)
    fig = make_anchor_profile_figure(toeplitz.row(anchor, metric), anchor=anchor, metric=metric)
    return add_anchor_profile_states(fig, toeplitz.similarity(metric), anchor=anchor,
                                     metric=metric)


@pytest.mark.parametrize("metric", ["cosine", "dot"])
def test_anchor_profile_states_draw_each_anchor(metric):
    """Every anchor of the page's default table (128 positions), the zoom cut at both ends."""
    carried = assert_states_draw_the_servers_figures(
        lambda a: anchor_view(128, 32, a, metric), "anchor", 64, values=[0, 3, 50, 64, 100, 127])
    assert carried == [str(a) for a in range(128)]


def test_anchor_profile_states_at_the_largest_table_are_spaced_and_bounded():
    """4096 positions: a state is a whole row, so a few evenly spaced anchors, the ends and the
    one drawn among them; the chart stays well under a rerun's 1.5 MB."""
    fig = anchor_view(4096, 64, 1000)
    values = [int(v) for v in live_states(fig, "anchor")["values"]]
    assert 2 < len(values) < 20 and {0, 1000, 4095} <= set(values)
    assert len(fig.to_json()) < 600_000
    assert_states_draw_the_servers_figures(lambda a: anchor_view(4096, 64, a), "anchor", 1000,
                                           values=[0, 4095])


def rotation_view(n: int, d_model: int, *, anchor: int, offset: int, pair: int):
    """The rotation view's two charts as the page makes them, with their live states."""
    window = min(d_model, 32)

    def rotation_at(at_anchor, at_offset, at_pair):
        start = max(at_anchor, -at_offset)
        return start, similarity.rotated_pair(start, at_offset, at_pair, d_model)

    start, rotated = rotation_at(anchor, offset, pair)
    return add_rotation_view_states(
        make_shift_matrix_figure(core.shift_matrix(offset, d_model)[:window, :window],
                                 offset=offset, d_model=d_model),
        make_rotation_figure(rotated, position=start, offset=offset),
        window_at=lambda k: core.shift_matrix(k, d_model)[:window, :window],
        rotation_at=rotation_at, anchor=anchor, offset=offset, pair=pair, positions=n,
        d_model=d_model)


@pytest.mark.parametrize(("name", "values"), [
    ("anchor", [0, 2, 39]),
    ("offset", [-39, -10, 0, 1, 39]),  # -10 from anchor 2: the pair starts at position 10
    ("pair", [0, 3, 7]),
])
def test_rotation_view_states_draw_each_value(name, values):
    at = {"anchor": 2, "offset": 3, "pair": 1}

    def chart(index):
        return lambda value: rotation_view(40, 16, **{**at, name: value})[index]

    for index in (0, 1) if name == "offset" else (1,):  # M_k follows the offset alone
        assert_states_draw_the_servers_figures(chart(index), name, at[name], values=values)


def test_rotation_view_charts_preview_the_same_offsets():
    """At the page's default table (128 positions x 128): every anchor and pair; M_k's window
    is 32 x 32 numbers a state, so fewer offsets, the same in both charts (the title of one and
    the vector of the other agree while dragging). Each chart within its budget."""
    shift, rotation = rotation_view(128, 128, anchor=64, offset=3, pair=0)
    offsets = live_states(shift, "offset")["values"]
    assert offsets == live_states(rotation, "offset")["values"]
    assert 8 <= len(offsets) < 255 and {"-127", "3", "127"} <= set(offsets)
    assert live_states(rotation, "anchor")["values"] == [str(a) for a in range(128)]
    assert live_states(rotation, "pair")["values"] == [str(i) for i in range(64)]
    assert "anchor" not in shift.layout.meta["live"] and "pair" not in shift.layout.meta["live"]
    assert len(shift.to_json()) + len(rotation.to_json()) < 1_000_000


def test_m_k_figure_is_the_same_whatever_the_anchor_and_pair():
    """Its states depend on the offset alone: a change of the anchor or the pair leaves M_k's
    figure as it was, so the browser does not draw it again."""
    shift = rotation_view(128, 128, anchor=64, offset=3, pair=0)[0].to_json()
    assert rotation_view(128, 128, anchor=5, offset=3, pair=0)[0].to_json() == shift
    assert rotation_view(128, 128, anchor=64, offset=3, pair=9)[0].to_json() == shift
    assert rotation_view(128, 128, anchor=64, offset=4, pair=0)[0].to_json() != shift
