"""Overviews: resampled like an image (fast columns grey, slow columns faithful), and the closed
form equal to the textbook resampler applied to the full table."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import core
from core import limits
from tests import reference


def exact_at(positions: np.ndarray, d_model: int, base: float, layout: str,
             timescales: str = "paper") -> np.ndarray:
    """The formula at (fractional) positions, straight from tensor2tensor's or the paper's
    frequencies: ``(len(positions), d_model)`` float64."""
    if timescales == "paper":
        omega = base ** (-np.arange(0, d_model, 2) / d_model)
    else:
        omega = base ** (-np.arange(d_model // 2) / max(d_model // 2 - 1, 1))
    angles = np.multiply.outer(positions, omega)
    out = np.empty((positions.size, d_model))
    if layout == "interleaved":
        out[:, 0::2], out[:, 1::2] = np.sin(angles), np.cos(angles)
    else:
        out[:, : d_model // 2], out[:, d_model // 2 :] = np.sin(angles), np.cos(angles)
    return out


def column_frequencies(d_model: int, base: float, layout: str) -> np.ndarray:
    """Each column's angular frequency (radians per position), ``(d_model,)``."""
    omega = base ** (-np.arange(0, d_model, 2) / d_model)
    return np.repeat(omega, 2) if layout == "interleaved" else np.tile(omega, 2)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 20_000),
    d_model=st.integers(1, 512).map(lambda h: 2 * h),
    max_rows=st.integers(8, 600),
    base=st.floats(1.5, 1e6),
    layout=st.sampled_from(["interleaved", "concatenated"]),
)
def test_overview_columns_are_grey_when_fast_and_faithful_when_slow(
    n, d_model, max_rows, base, layout
):
    """What a good image resampler promises, column by column, at any size: a column turning
    1.5x past the rows' Nyquist rate is drawn as its local mean (|value| <= 0.1, grey), a column
    with at least 8 rows per period keeps its value at the cell's centre within 0.1."""
    overview = core.sinusoid_overview(n, d_model, base=base, layout=layout, max_rows=max_rows,
                                      max_cols=1024, max_cells=10**9)
    rows = overview.values.shape[0]
    assert overview.values.shape == (min(n, max_rows), d_model)  # every dimension its own column
    step = n / rows  # positions per row cell
    nyquist = np.pi / step
    omega = column_frequencies(d_model, base, layout)  # (d,)
    centres = (np.arange(rows) + 0.5) * step - 0.5  # evenly spaced, as drawn
    np.testing.assert_allclose(overview.row_centers, centres, atol=1e-9)
    exact = exact_at(centres, d_model, base, layout)  # (R, d)
    fast = omega >= 1.5 * nyquist
    slow = omega <= nyquist / 4
    assert np.all(np.abs(overview.values[:, fast]) <= 0.1)
    assert np.all(np.abs(overview.values[:, slow] - exact[:, slow]) <= 0.1)
    if rows == n:  # nothing to filter: the table itself
        np.testing.assert_allclose(overview.values, exact, atol=2e-7)
        assert overview.exact and overview.fast_dims == ()


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(50, 3000),
    d_model=st.integers(1, 64).map(lambda h: 2 * h),
    max_rows=st.integers(8, 300),
    layout=st.sampled_from(["interleaved", "concatenated"]),
)
def test_closed_form_overview_equals_the_resampled_table(n, d_model, max_rows, layout):
    """The closed form H(w) sin(w c) is the Gaussian resampler applied to the full table (the
    textbook loop), up to the kernel's cut, the table's ends and the integer sampling of a narrow
    kernel (H(2 pi - w) <= 0.031 at sigma = 0.5): interior cells within 0.035."""
    table = exact_at(np.arange(n, dtype=np.float64), d_model, 10000.0, layout)
    expected = reference.loop_gaussian_resample(table, min(n, max_rows))
    overview = core.sinusoid_overview(n, d_model, layout=layout, max_rows=max_rows,
                                      max_cells=10**9)
    interior = slice(2, -2) if expected.shape[0] > 4 else slice(None)
    np.testing.assert_allclose(overview.values[interior], expected[interior], atol=0.035)


def test_tensorflow_tutorial_table_shows_no_pattern_the_table_does_not_have():
    """The moire of /heatmap?d_model=512&positions=2048: with box means over bins of 5 and 6
    positions, a column turning ~1 radian per position kept up to a quarter of its amplitude
    and beat against the bins. Now every column faster than 1.5x the rows' Nyquist rate is grey,
    and every dimension has its own column."""
    overview = core.sinusoid_overview(2048, 512)
    rows = overview.values.shape[0]
    assert overview.values.shape[1] == 512 and rows == limits.MAX_HEATMAP_CELLS // 512
    omega = column_frequencies(512, 10000.0, "interleaved")
    fast = omega >= 1.5 * np.pi * rows / 2048
    assert fast[:10].all()  # the first pairs turn ~1 radian per position
    assert np.abs(overview.values[:, fast]).max() <= 0.1
    # the old box average of the same table left a visible beat in those columns
    table = core.sinusoidal_encoding(2048, 512).astype(np.float64)
    edges = core.bin_edges(2048, rows)
    box = np.add.reduceat(table, edges[:-1], axis=0) / np.diff(edges)[:, None]
    assert np.abs(box[:, fast]).max() > 0.2


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
@pytest.mark.parametrize("d_model", [2048, 4096])
def test_wide_tables_never_mix_a_sine_with_a_cosine(d_model, layout):
    """Wider than 1024 columns: each cell resamples neighbouring columns of one kind only. At
    position 0 every sine is 0 and every cosine 1, so a cell mixing the two would show 0.5."""
    overview = core.sinusoid_overview(64, d_model, layout=layout)
    assert overview.values.shape == (64, limits.WIDE_HEATMAP_COLS)
    first = overview.values[0]  # position 0
    if layout == "interleaved":
        sines, cosines = first[0::2], first[1::2]
    else:
        sines, cosines = first[:256], first[256:]
    np.testing.assert_allclose(sines, 0.0, atol=1e-6)
    np.testing.assert_allclose(cosines, 1.0, atol=1e-6)


def test_fast_dimensions_are_named_for_both_layouts():
    inter = core.sinusoid_overview(2048, 512)
    concat = core.sinusoid_overview(2048, 512, layout="concatenated")
    nyquist = np.pi * inter.values.shape[0] / 2048
    fast_pairs = int(np.sum(10000.0 ** (-np.arange(0, 512, 2) / 512) > nyquist))
    assert fast_pairs > 0
    assert inter.fast_dims == ((0, 2 * fast_pairs),)
    assert concat.fast_dims == ((0, fast_pairs), (256, 256 + fast_pairs))
    assert core.sinusoid_overview(64, 512).fast_dims == ()  # exact: nothing hidden


@pytest.mark.parametrize("d_model", [64, 128, 512])
def test_tensor2tensor_timescales_overview_matches_its_timing_signal(d_model):
    overview = core.sinusoid_overview(256, d_model, layout="concatenated",
                                      timescales="tensor2tensor")
    assert overview.exact
    np.testing.assert_allclose(overview.values,
                               reference.t2t_get_timing_signal_1d(256, d_model), atol=2e-7)


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 120),
    m=st.integers(1, 60).map(lambda k: 2 * k),
    max_rows=st.integers(1, 50),
    max_cols=st.integers(1, 40),
    segments=st.sampled_from([1, 2]),
)
def test_resample_equals_the_textbook_loop(n, m, max_rows, max_cols, segments):
    matrix = np.random.default_rng(n * m).standard_normal((n, m))
    overview = core.resample(matrix, max_rows=max_rows, max_cols=max_cols, max_cells=10**9,
                             col_segments=segments)
    expected = reference.loop_gaussian_resample(matrix, min(n, max_rows))
    cols = overview.values.shape[1]
    if cols < m:
        run = m // segments
        expected = np.concatenate(
            [reference.loop_gaussian_resample(expected[:, k * run : (k + 1) * run],
                                              cols // segments, axis=1)
             for k in range(segments)], axis=1)
    np.testing.assert_allclose(overview.values, expected, atol=1e-5)
    assert overview.exact == (overview.values.shape == matrix.shape)
    assert overview.row_edges[-1] == n and overview.col_edges[-1] == m


def test_overview_cells_stay_within_the_budget():
    for positions, d_model in [(8192, 4096), (8192, 1024), (2048, 512), (8192, 64)]:
        overview = core.sinusoid_overview(positions, d_model)
        rows, cols = overview.values.shape
        assert cols == (d_model if d_model <= limits.MAX_HEATMAP_COLS else limits.WIDE_HEATMAP_COLS)
        assert rows * cols <= limits.MAX_HEATMAP_CELLS and rows <= limits.MAX_HEATMAP_ROWS
        assert overview.values.dtype == np.float32


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
