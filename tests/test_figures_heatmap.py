"""`make_pe_heatmap_figure`: traces, colour scale, axis titles and the overview note."""

from __future__ import annotations

import numpy as np

import core
from figures.heatmap import make_pe_heatmap_figure


def test_exact_heatmap_traces_and_axes():
    fig = make_pe_heatmap_figure(core.sinusoid_overview(5, 4), title="t")
    (heatmap,) = fig.data
    assert heatmap.type == "heatmap"
    assert (heatmap.zmin, heatmap.zmax, heatmap.zmid) == (-1.0, 1.0, 0.0)
    assert "position" in fig.layout.yaxis.title.text
    assert "dimension" in fig.layout.xaxis.title.text
    assert fig.layout.yaxis.autorange == "reversed"  # position 0 at the top
    assert "PE = %{z" in heatmap.hovertemplate
    np.testing.assert_array_equal(heatmap.x, [0, 1, 2, 3])
    assert not fig.layout.annotations


def test_overview_says_it_is_resampled_and_hovers_cell_sizes():
    overview = core.sinusoid_overview(1000, 1000, max_rows=10, max_cols=10)
    fig = make_pe_heatmap_figure(overview, title="t")
    (heatmap,) = fig.data
    assert np.asarray(heatmap.z).shape == (10, 10)
    assert "smoothed value" in heatmap.hovertemplate
    assert "cell of ~100" in heatmap.hovertemplate
    np.testing.assert_allclose(heatmap.y[:2], [49.5, 149.5])  # centres of positions 0-99, 100-199
    notes = fig.layout.annotations[0].text.split("<br>")
    assert notes[0].startswith("Overview: 10 x 10 cells, one every ~100 positions")
    assert notes[1] == ("Each column: ~100 neighbouring sines (or cosines), never a sine with a "
                        "cosine.")
    fast_pairs = int(np.sum(10000.0 ** (-np.arange(0, 1000, 2) / 1000) > np.pi * 10 / 1000))
    assert notes[2].startswith(f"Columns 0–{2 * fast_pairs - 1} change faster than one cell")


def test_exact_table_has_no_notes():
    fig = make_pe_heatmap_figure(core.sinusoid_overview(64, 32), title="t")
    assert len(fig.layout.annotations) == 0 and len(fig.layout.shapes) == 0


def test_figure_json_is_compact():
    # plotly 7 sends numpy arrays as base64 typed arrays: the largest overview stays well under
    # the 1.5 MB-per-rerun budget.
    fig = make_pe_heatmap_figure(core.sinusoid_overview(8192, 4096), title="t")
    assert len(fig.to_json()) < 1_500_000
