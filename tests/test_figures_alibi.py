"""The ALiBi page's live states (figures.common.add_live_states): each state the enlarged head and
the bias grid carry for the head slider, applied as the browser applies it, draws the figure the
server makes at that head."""

from __future__ import annotations

import numpy as np
import pytest

from core import alibi, limits
from figures.alibi import (
    HIGHLIGHT,
    add_alibi_head_states,
    add_bias_grid_head_states,
    make_alibi_bias_grid_figure,
    make_alibi_head_figure,
)
from figures.common import MAX_LIVE_NUMBERS, state_weight
from tests.live_states import assert_states_draw_the_servers_figures, live_states, previewed


@pytest.mark.parametrize(("heads", "causal", "positions", "side"),
                         [(8, True, 12, 256), (8, False, 40, 16), (12, True, 30, 256)])
def test_alibi_head_states_draw_each_head(heads, causal, positions, side):
    """Exact cells (12 positions) and block means (40 positions in 16 x 16 cells), masked and
    symmetric, and 12 heads (slopes not all powers of two: a head's ratio to another is not
    exact in binary): every head's cells and title."""
    overview = alibi.alibi_bias_overview(heads, positions, causal=causal, max_side=side)
    slopes = alibi.alibi_slopes(heads)

    def make(head):
        return add_alibi_head_states(make_alibi_head_figure(overview, head - 1, slopes),
                                     head - 1, slopes)

    values = assert_states_draw_the_servers_figures(make, "head", 3)
    assert values == [str(h) for h in range(1, heads + 1)]


def test_alibi_head_states_carry_the_cells_bit_for_bit():
    """The hover prints the bias to 4 decimals: a state's cells, made in the browser from the
    drawn head's, are the server's float32 numbers (-1/32 rounded to 4 decimals half to even is
    -0.0312, printed from float32 it is -0.0313): with a power of two's slopes, the scaling is
    exact."""
    overview = alibi.alibi_bias_overview(8, 6, max_side=256)
    slopes = alibi.alibi_slopes(8)  # 1/2, 1/4, ..., 1/256
    fig = add_alibi_head_states(make_alibi_head_figure(overview, 0, slopes), 0, slopes)
    bias = np.asarray(previewed(fig, "head", "5").data[0].customdata)
    assert bias.dtype == np.float32 and bias[1, 0] == np.float32(-1 / 32)  # head 5: m = 2^-5
    assert bias[5, 0] == np.float32(-5 / 32) and np.isnan(bias[0, 1])  # masked: no cell
    np.testing.assert_array_equal(bias, make_alibi_head_figure(overview, 4, slopes)
                                  .data[0].customdata)


@pytest.mark.parametrize(("heads", "positions"), [(8, 256), (limits.MAX_HEADS, 2048)])
def test_every_head_is_carried_at_any_size_as_one_number(heads, positions):
    """A head's state is its scale and its title: every head is carried at the page's default
    (8 heads x 256 x 256 cells: a state of cells was 65,536 numbers, past MAX_LIVE_NUMBERS, and
    none was sent) and at the most, far within the bound."""
    overview = alibi.alibi_bias_overview(heads, positions, max_side=256)
    slopes = alibi.alibi_slopes(heads)
    fig = add_alibi_head_states(make_alibi_head_figure(overview, 1, slopes), 1, slopes)
    states = live_states(fig, "head")
    assert states["values"] == [str(h) for h in range(1, heads + 1)]
    weight = sum(state_weight(update) for update in states["updates"])
    assert weight < MAX_LIVE_NUMBERS // 20, weight


def test_alibi_head_is_coloured_on_the_grids_scale_for_every_head():
    """The enlarged head is drawn on the grid's colour axis, the same at every head (a head's
    live state changes its cells alone): -log10(1 + |bias| / m_min), from the steepest head's
    largest penalty to 0; the hover reads the bias itself."""
    overview = alibi.alibi_bias_overview(8, 6, max_side=256)
    slopes = alibi.alibi_slopes(8)
    grid = make_alibi_bias_grid_figure(overview, slopes).layout.coloraxis
    for head in (0, 4, 7):
        fig = make_alibi_head_figure(overview, head, slopes)
        assert fig.layout.coloraxis.cmin == grid.cmin and fig.layout.coloraxis.cmax == 0
        assert fig.layout.coloraxis.cmin == pytest.approx(-np.log10(1 + 0.5 * 5 * 256))
        assert list(fig.layout.coloraxis.colorbar.ticktext) == list(grid.colorbar.ticktext)
        trace = fig.data[0]
        assert trace.coloraxis == "coloraxis" and "%{customdata" in trace.hovertemplate
        m = 2.0 ** -(head + 1)
        assert trace.customdata[5][0] == np.float32(-5 * m)
        assert trace.z[5][0] == pytest.approx(-np.log10(1 + 5 * m * 256), rel=1e-6)


def test_alibi_head_figure_without_two_heads_carries_no_states():
    overview = alibi.alibi_bias_overview(1, 8)
    slopes = alibi.alibi_slopes(1)
    fig = add_alibi_head_states(make_alibi_head_figure(overview, 0, slopes), 0, slopes)
    assert not isinstance(fig.layout.meta, dict) or "live" not in fig.layout.meta


@pytest.mark.parametrize("heads", [3, 12])
def test_bias_grid_outline_follows_each_head(heads):
    overview = alibi.alibi_bias_overview(heads, 10, max_side=8)
    slopes = alibi.alibi_slopes(heads)

    def make(head):
        fig = make_alibi_bias_grid_figure(overview, slopes, highlight=head - 1)
        return add_bias_grid_head_states(fig, heads)

    values = assert_states_draw_the_servers_figures(make, "head", 2)
    assert values == [str(h) for h in range(1, heads + 1)]


def test_bias_grid_state_undoes_the_state_before_it():
    """States are applied one after another while the thumb moves: after head 2's and then
    head 5's, only head 5's title is outlined."""
    overview = alibi.alibi_bias_overview(8, 10, max_side=8)
    fig = add_bias_grid_head_states(
        make_alibi_bias_grid_figure(overview, alibi.alibi_slopes(8), highlight=0), 8)
    states = live_states(fig, "head")
    for head in (2, 5):
        _, layout, traces = states["updates"][states["values"].index(str(head))]
        fig.plotly_update(relayout_data=layout, trace_indexes=traces)
    assert [a.bordercolor for a in fig.layout.annotations[:8]] == [
        HIGHLIGHT if h == 4 else None for h in range(8)]
