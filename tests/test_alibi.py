"""`core.alibi` (and the ALiBi panel of `core.extrapolation`) against the paper's numbers.

The slopes for 12 and 6 heads are the output of ``get_slopes`` in the paper's reference code
(ofirpress/attention_with_linear_biases, fairseq/models/transformer.py), written out here.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import core
from core import alibi, extrapolation, limits
from core.overview import Overview, bin_edges
from figures.alibi import (
    HIGHLIGHT,
    make_alibi_bias_grid_figure,
    make_alibi_head_figure,
    make_alibi_reach_figure,
    make_alibi_slopes_figure,
)
from figures.extrapolation import make_alibi_reach_line_figure
from tests import reference
from ui.pages import params_of

# get_slopes(12) = get_slopes_power_of_2(8) + get_slopes(16)[0::2][:4]
REFERENCE_12 = [
    0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625,
    0.7071067811865476, 0.35355339059327384, 0.17677669529663692, 0.08838834764831849,
]
# get_slopes(6) = get_slopes_power_of_2(4) + get_slopes(8)[0::2][:2]
REFERENCE_6 = [0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125]
REFERENCE_3 = [0.0625, 0.00390625, 0.25]
REFERENCE_1 = [0.00390625]


def test_eight_heads_are_one_half_to_one_over_256():
    np.testing.assert_array_equal(alibi.alibi_slopes(8), [1 / 2**h for h in range(1, 9)])
    assert core.alibi_slopes is alibi.alibi_slopes  # the lazy export of core


@pytest.mark.parametrize(
    "heads, expected", [(12, REFERENCE_12), (6, REFERENCE_6), (3, REFERENCE_3), (1, REFERENCE_1)]
)
def test_other_head_counts_match_the_reference_code(heads, expected):
    np.testing.assert_allclose(alibi.alibi_slopes(heads), expected, rtol=1e-15)


@pytest.mark.parametrize("n", [2, 4, 16, 32, 64])
def test_powers_of_two_follow_the_papers_formula(n):
    np.testing.assert_allclose(
        alibi.alibi_slopes(n), [2 ** (-8 * h / n) for h in range(1, n + 1)], rtol=1e-15
    )


def loop_bias(heads: int, seq: int, causal: bool) -> np.ndarray:
    slopes = alibi.alibi_slopes(heads)
    out = np.zeros((heads, seq, seq))
    for h in range(heads):
        for i in range(seq):
            for j in range(seq):
                if j <= i:
                    out[h, i, j] = -slopes[h] * (i - j)
                else:
                    out[h, i, j] = -math.inf if causal else -slopes[h] * (j - i)
    return out


@pytest.mark.parametrize("heads, seq", [(1, 1), (4, 6), (12, 9)])
@pytest.mark.parametrize("causal", [True, False])
def test_bias_equals_a_loop(heads, seq, causal):
    bias = alibi.alibi_bias(heads, seq, causal=causal)
    assert bias.shape == (heads, seq, seq)
    np.testing.assert_array_equal(bias, loop_bias(heads, seq, causal))


def test_causal_bias_rows_are_translates():
    # The reference code adds slope * j to every row (the softmax ignores a per-row constant):
    # the same attention as -slope * (i - j).
    bias = alibi.alibi_bias(8, 10)
    slopes = alibi.alibi_slopes(8)
    reference_rows = slopes[:, None] * np.arange(10)[None, :]  # (H, P): the code's `alibi`
    for i in range(10):
        visible = slice(0, i + 1)
        difference = bias[:, i, visible] - reference_rows[:, visible]
        np.testing.assert_allclose(difference, difference[:, :1].repeat(i + 1, axis=1))


@given(heads=st.integers(1, 16), seq=st.integers(1, 40), causal=st.booleans())
def test_exact_overview_equals_the_bias(heads, seq, causal):
    overview = alibi.alibi_bias_overview(heads, seq, causal=causal, max_side=64)
    assert overview.exact
    bias = alibi.alibi_bias(heads, seq, causal=causal).astype(np.float32)
    np.testing.assert_allclose(overview.values, np.where(np.isinf(bias), np.nan, bias),
                               rtol=1e-6)


def test_resampled_overview_weighs_the_visible_entries_only():
    """Each cell: the textbook Gaussian resampler's weights over the visible entries, normalised
    by their share; blank (NaN) where the filter sees more masked than visible entries."""
    heads, seq, side = 4, 50, 7
    overview = alibi.alibi_bias_overview(heads, seq, causal=True, max_side=side)
    assert overview.values.shape == (heads, side, side) and not overview.exact
    # core.overview's type and bins: one stacked table per head, the edges shared by all heads.
    assert isinstance(overview, Overview)
    np.testing.assert_array_equal(overview.row_edges, bin_edges(seq, side))
    np.testing.assert_array_equal(overview.col_edges, bin_edges(seq, side))
    assert overview.rows_per_cell == overview.cols_per_cell == seq / side
    bias = alibi.alibi_bias(heads, seq, causal=True)
    for h in range(heads):
        visible = np.isfinite(bias[h]).astype(float)
        weighted = reference.loop_gaussian_resample(
            reference.loop_gaussian_resample(np.where(visible > 0, bias[h], 0.0), side),
            side, axis=1)
        share = reference.loop_gaussian_resample(
            reference.loop_gaussian_resample(visible, side), side, axis=1)
        expected = np.where(share >= 0.5, weighted / np.where(share > 0, share, 1), np.nan)
        np.testing.assert_allclose(overview.values[h], expected, rtol=1e-5, atol=1e-6)
    assert np.isnan(overview.values[:, 0, -1]).all()  # the far upper corner is masked
    assert np.isfinite(overview.values[:, -1, 0]).all()


def test_reach_is_a_softmax_of_the_bias():
    reach = alibi.alibi_attention_reach(8, 300)
    for h, slope in enumerate(reach.slopes):
        raw = [math.exp(-slope * d) for d in range(300)]
        weights = [w / sum(raw) for w in raw]
        np.testing.assert_allclose(reach.weights[h], weights, rtol=1e-12)
        mean = sum(w * d for d, w in enumerate(weights))
        assert reach.mean_distance[h] == pytest.approx(mean, rel=1e-12)
    # steep heads look locally, shallow heads far
    assert np.all(np.diff(reach.mean_distance) > 0)
    assert reach.mean_distance[0] == pytest.approx(1 / (math.e**0.5 - 1), rel=1e-6)  # geometric


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: alibi.alibi_slopes(0), "num_heads=0"),
        (lambda: alibi.alibi_slopes(65), "num_heads=65"),
        (lambda: alibi.alibi_slopes(2.5), "num_heads=2.5"),
        (lambda: alibi.alibi_bias(8, 0), "seq_len=0"),
        (lambda: alibi.alibi_bias(64, 4096), "seq_len=4096"),
        (lambda: alibi.alibi_bias_overview(8, 5000), "seq_len=5000"),
        (lambda: alibi.alibi_attention_reach(0, 10), "num_heads=0"),
    ],
)
def test_bad_inputs_raise_value_errors_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name.replace(".", r"\.")):
        call()


def test_page_limits_agree_with_core():
    spec = params_of("alibi")
    assert spec["num_heads"].maximum == limits.MAX_HEADS == spec["head"].maximum
    assert spec["positions"].maximum == limits.MAX_ALIBI_POSITIONS


# --- core.extrapolation's ALiBi panel ------------------------------------------------------------
def test_alibi_reach_is_the_straight_line():
    reach = extrapolation.alibi_reach(100, 5000)
    assert reach.distances[0] == 0 and reach.distances[-1] == 4999
    assert reach.distances.size <= extrapolation.MAX_LINE_POINTS
    np.testing.assert_array_equal(reach.slopes, [1 / 2**h for h in range(1, 9)])
    np.testing.assert_allclose(reach.bias, -np.outer(reach.slopes, reach.distances))
    assert reach.bias.min() == -0.5 * 4999
    assert extrapolation.alibi_reach(10, 20).distances.tolist() == list(range(20))


# --- figures -------------------------------------------------------------------------------------
def test_figures_have_their_traces_and_axes():
    slopes = alibi.alibi_slopes(12)
    fig = make_alibi_slopes_figure(slopes)
    np.testing.assert_array_equal(fig.data[0].y, slopes)
    assert fig.layout.yaxis.type == "log"

    grid = alibi.alibi_bias_overview(12, 20, max_side=8)
    fig = make_alibi_bias_grid_figure(grid, slopes, highlight=2)
    assert len(fig.data) == 12
    assert all(trace.coloraxis == "coloraxis" for trace in fig.data)  # one shared scale
    assert fig.layout.coloraxis.cmax == 0
    np.testing.assert_allclose(fig.data[0].customdata, grid.values[0], rtol=1e-6)  # the hover
    # The chosen head's title outlined in the accent, every title with the same border (none
    # moves), and no bold (a new text is a new layout for plotly.js; a colour is redrawn alone).
    titles = fig.layout.annotations[:12]
    assert [a.bordercolor == HIGHLIGHT for a in titles] == [h == 2 for h in range(12)]
    assert titles[2].font.color is None  # the layout's: red text is unreadable on dark
    assert {a.borderwidth for a in titles} == {1.5}
    assert not any("<b>" in a.text for a in titles)

    fig = make_alibi_head_figure(grid, 2, slopes)
    np.testing.assert_allclose(fig.data[0].customdata, grid.values[2], rtol=1e-6)  # the hover
    assert "Head 3" in fig.layout.title.text

    fig = make_alibi_reach_figure(alibi.alibi_attention_reach(4, 50))
    assert len(fig.data) == 4 and fig.layout.yaxis.type == "log"

    fig = make_alibi_reach_line_figure(extrapolation.alibi_reach(10, 40), 10)
    assert len(fig.data) == 9  # a line per head, and the slopes' colour bar


def _colour_fractions(fig, trace) -> np.ndarray:
    """Where each cell of a heatmap trace falls on its colour axis, 0 (cmin) .. 1 (cmax)."""
    axis = fig.layout.coloraxis
    z = np.asarray(trace.z, dtype=float)
    return (z - axis.cmin) / (axis.cmax - axis.cmin)


@pytest.mark.parametrize(("heads", "positions"), [(8, 256), (16, 1024), (4, 64)])
def test_every_head_of_the_bias_grid_shows_a_gradient(heads, positions):
    """On one linear scale the paper's heads 5-8 (m = 1/32 .. 1/256) were one flat yellow:
    every head's cells now span a fifth of the shared scale or more, steeper heads reach
    darker, and the colour bar's labels sit where their bias values fall."""
    slopes = alibi.alibi_slopes(heads)
    grid = alibi.alibi_bias_overview(heads, positions, max_side=64)
    fig = make_alibi_bias_grid_figure(grid, slopes)
    darkest = []
    for trace in fig.data:
        fractions = _colour_fractions(fig, trace)
        assert np.nanmax(fractions) - np.nanmin(fractions) >= 0.2
        assert np.nanmin(fractions) >= -1e-6 and np.nanmax(fractions) <= 1 + 1e-6
        darkest.append(np.nanmin(fractions))
    assert np.all(np.diff(darkest) > 0)  # head 1 (steepest) darkest, then in order
    # A colour bar label "−10" sits where a bias of -10 is coloured: -log10(1 + 10 / m_min).
    colorbar = fig.layout.coloraxis.colorbar
    floor = slopes.min()
    for value, text in zip(colorbar.tickvals, colorbar.ticktext, strict=True):
        bias = float(text.replace("−", "-"))
        assert value == pytest.approx(-np.log10(1 + abs(bias) / floor))


def test_enlarged_head_axes_span_the_keys_and_queries():
    """Square cells by shrinking the plot: the key axis spans the keys (it ran from -100 to 350
    around 256 keys when plotly padded the range instead)."""
    grid = alibi.alibi_bias_overview(8, 256)
    fig = make_alibi_head_figure(grid, 0, alibi.alibi_slopes(8))
    assert fig.layout.yaxis.scaleanchor == "x"
    assert fig.layout.xaxis.constrain == "domain" and fig.layout.yaxis.constrain == "domain"
