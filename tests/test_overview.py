"""Area-averaged overviews: the closed form equals brute-force block means of the full table."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import core
from tests import reference


def brute_block_mean(table: np.ndarray, row_edges, col_edges) -> np.ndarray:
    """The obvious loop: the mean of every block."""
    out = np.zeros((len(row_edges) - 1, len(col_edges) - 1))
    for r in range(len(row_edges) - 1):
        for c in range(len(col_edges) - 1):
            out[r, c] = table[row_edges[r]:row_edges[r + 1], col_edges[c]:col_edges[c + 1]].mean()
    return out


@given(
    n=st.integers(1, 300),
    d_model=st.integers(1, 40).map(lambda h: 2 * h),
    max_rows=st.integers(1, 50),
    max_cols=st.integers(1, 30),
    base=st.floats(1.5, 1e6),
    layout=st.sampled_from(["interleaved", "concatenated"]),
)
def test_closed_form_overview_equals_brute_force(n, d_model, max_rows, max_cols, base, layout):
    loop = reference.loop_interleaved if layout == "interleaved" else reference.loop_concatenated
    table = loop(n, d_model, base)
    overview = core.sinusoid_overview(n, d_model, base=base, layout=layout, max_rows=max_rows,
                                      max_cols=max_cols)
    expected = brute_block_mean(table, overview.row_edges, overview.col_edges)
    np.testing.assert_allclose(overview.values, expected, atol=2e-6)
    assert overview.exact == (n <= max_rows and d_model <= max_cols)


def test_maximum_size_overview_is_screen_sized_and_matches_block_mean():
    overview = core.sinusoid_overview(8192, 4096)
    assert overview.values.shape == (400, 320) and overview.values.dtype == np.float32
    assert not overview.exact
    full = core.sinusoidal_encoding(8192, 4096)
    means, rows, _ = core.block_mean(full, 400, 320)
    np.testing.assert_array_equal(rows, overview.row_edges)
    np.testing.assert_allclose(overview.values, means, atol=1e-6)


def test_small_table_overview_is_the_table_itself():
    overview = core.sinusoid_overview(5, 4)
    assert overview.exact
    np.testing.assert_allclose(overview.values, reference.loop_interleaved(5, 4), atol=1e-6)


def test_bin_edges_cover_everything_once():
    edges = core.bin_edges(8192, 400)
    assert edges[0] == 0 and edges[-1] == 8192 and len(edges) == 401
    assert np.all(np.diff(edges) >= 20) and np.all(np.diff(edges) <= 21)
    assert list(core.bin_edges(3, 10)) == [0, 1, 2, 3]


def plotly_draws_as_one_image(coordinates) -> bool:
    """plotly.js's test before it draws a heatmap with zsmooth="fast" (heatmap/calc.js): every
    step within 1% of the mean step; otherwise it warns and paints one rectangle per cell."""
    steps = np.diff(coordinates)
    mean = (coordinates[-1] - coordinates[0]) / (len(coordinates) - 1)
    return bool(np.all(np.abs(steps - mean) <= abs(mean) / 100))


@given(size=st.integers(2, 20_000), max_bins=st.integers(2, 500), start=st.integers(0, 1000))
def test_bin_centers_are_evenly_spaced_and_within_half_an_entry(size, max_bins, start):
    edges = core.bin_edges(size, max_bins) + start
    centers = core.bin_centers(edges)
    true_centers = (edges[:-1] + edges[1:] - 1) / 2  # the mean index of each bin's entries
    assert plotly_draws_as_one_image(centers)
    assert np.all(np.abs(centers - true_centers) <= 0.5 + 1e-9)
    if np.all(np.diff(edges) == 1):  # exact bins: the entries' own indices
        np.testing.assert_array_equal(centers, np.arange(start, start + size))


def test_true_bin_centres_would_not_be_drawn_as_one_image():
    """Why bin_centers exists: bins of 20 and 21 positions (8192 over 400 rows) have centres
    plotly refuses to draw as one image."""
    edges = core.bin_edges(8192, 400)
    assert not plotly_draws_as_one_image((edges[:-1] + edges[1:] - 1) / 2)
    assert plotly_draws_as_one_image(core.bin_centers(edges))


def test_window_is_exact_and_clipped_to_the_table():
    window = core.sinusoid_window(100, 16, 60, 16, 64)
    assert window.exact and window.values.shape == (16, 16)
    assert window.col_edges[0] == 48  # shifted back so a full 16-column window fits in 64
    expected = reference.loop_interleaved(116, 64)[100:116, 48:64]
    np.testing.assert_allclose(window.values, expected, atol=1e-6)


def test_window_refuses_oversized_requests():
    with pytest.raises(ValueError, match="pos_count=100000"):
        core.sinusoid_window(0, 100_000, 0, 4, 8)
