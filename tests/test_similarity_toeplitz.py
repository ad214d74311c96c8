"""The sinusoid's PE.PE^T read off its offset function f(k) = sum_i cos(w_i k), against the
brute-force product of float64 tables (both layouts); the random contrast's one product for both
metrics; and the similarity page's caches, counted: a change recomputes only what it needs."""

from __future__ import annotations

import io
import math
import tracemalloc

import numpy as np
import pytest

import core
from core import similarity
from export.files import TableExport
from tests import reference
from tests.apptest import control, decode, open_page, plotly_figures, set_control

SIMILARITY = "app_pages/similarity.py"
LAYOUTS = ["interleaved", "concatenated"]
SIZES = [(1, 2), (2, 2), (7, 4), (40, 16), (300, 64), (513, 34)]


def brute_force(n: int, d_model: int, layout: str, metric: str, base: float = 10000.0):
    """PE @ PE.T of the float64 table, rows normalised for the cosine: ``(n, n)``."""
    table = core.sinusoidal_encoding(n, d_model, base=base, layout=layout, dtype=np.float64)
    if metric == "cosine":
        table = table / np.linalg.norm(table, axis=1, keepdims=True)
    return table @ table.T


# --- f and the exact matrix ---------------------------------------------------------------------
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("n, d_model", SIZES)
def test_offset_dots_are_every_diagonal_of_the_product(n, d_model, layout):
    gram = brute_force(n, d_model, layout, "dot")
    dots = similarity.offset_dots(n, d_model)
    assert dots.shape == (2 * n - 1,) and dots.dtype == np.float64
    for k in range(-(n - 1), n):
        np.testing.assert_allclose(np.diagonal(gram, offset=k), dots[k + n - 1], atol=1e-12)
    assert dots[n - 1] == d_model / 2  # |PE|^2 = d/2 exactly: a sum of d/2 ones


def test_offset_dots_against_the_formula_one_term_at_a_time():
    dots = similarity.offset_dots(600, 34, base=500.0)
    for k in (-599, -17, 0, 1, 250, 599):
        expected = sum(math.cos(k / 500.0 ** (2 * i / 34)) for i in range(17))
        assert dots[k + 599] == pytest.approx(expected, abs=1e-12)
    np.testing.assert_array_equal(dots, dots[::-1])  # even: it cannot tell before from after


@pytest.mark.parametrize("metric", ["dot", "cosine"])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("n, d_model", SIZES)
def test_matrix_equals_the_brute_force_product(n, d_model, layout, metric):
    result = similarity.sinusoid_similarity(n, d_model)
    matrix = result.matrix(metric)
    assert matrix.shape == (n, n) and matrix.dtype == np.float64
    assert not matrix.flags.writeable  # a view of f, shared by every row
    np.testing.assert_allclose(matrix, brute_force(n, d_model, layout, metric), atol=1e-12)


def test_matrix_for_another_base_and_the_loop_table():
    table = reference.loop_interleaved(50, 12, base=77.0)
    expected = table @ table.T
    result = similarity.sinusoid_similarity(50, 12, base=77.0)
    np.testing.assert_allclose(result.matrix("dot"), expected, atol=1e-12)


@pytest.mark.parametrize("metric", ["dot", "cosine"])
def test_row_curves_and_pairwise_read_off_f(metric):
    n, d_model = 300, 64
    result = similarity.sinusoid_similarity(n, d_model, max_rows=40, max_cols=40)
    table = core.sinusoidal_encoding(n, d_model, dtype=np.float64)
    for anchor in (0, 1, 150, 299):
        np.testing.assert_allclose(result.row(anchor, metric),
                                   similarity.anchor_profile(table, anchor, metric=metric),
                                   atol=1e-12)
    curves = result.curves(metric)
    expected = similarity.offset_curves(n, d_model, metric=metric)
    for name in ("offsets", "similarity", "gaps", "distance"):
        np.testing.assert_allclose(getattr(curves, name), getattr(expected, name), atol=1e-12)
    np.testing.assert_allclose(curves.distance, np.linalg.norm(table - table[0], axis=1),
                               atol=1e-6)
    # What pairwise_similarity measures on the float32 table, here exact.
    exact = result.pairwise(metric)
    measured = similarity.pairwise_similarity(core.sinusoidal_encoding(n, d_model),
                                              metric=metric, max_rows=40, max_cols=40)
    scale = d_model / 2 if metric == "dot" else 1.0
    np.testing.assert_array_equal(exact.offsets, measured.offsets)
    np.testing.assert_allclose(exact.lowest, measured.lowest, atol=2e-6 * scale)
    np.testing.assert_allclose(exact.highest, measured.highest, atol=2e-6 * scale)
    np.testing.assert_allclose(exact.overview.values, measured.overview.values,
                               atol=2e-6 * scale)
    assert exact.spread == 0.0 and exact.overview.values.dtype == np.float32


# --- the overview -------------------------------------------------------------------------------
@pytest.mark.parametrize("metric", ["dot", "cosine"])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize(
    "n, d_model, rows, cols",
    [(40, 16, 400, 400), (41, 16, 40, 40), (300, 64, 200, 200), (301, 8, 37, 90),
     (1000, 32, 100, 50), (5, 2, 3, 3), (2, 2, 1, 2)],
)
def test_overview_equals_the_resampled_brute_force_product(n, d_model, rows, cols, layout,
                                                           metric):
    """W_r S W_c^T from the resampled phasors equals `core.resample` of the whole product (the
    same Gaussian low-pass) and the textbook loop."""
    result = similarity.sinusoid_similarity(n, d_model, max_rows=rows, max_cols=cols)
    overview = result.pairwise(metric).overview
    gram = brute_force(n, d_model, layout, metric)
    expected = core.resample(gram, max_rows=rows, max_cols=cols, max_cells=n * n)
    assert overview.values.shape == expected.values.shape == (min(n, rows), min(n, cols))
    assert overview.exact == expected.exact == (n <= rows and n <= cols)
    np.testing.assert_array_equal(overview.row_edges, expected.row_edges)
    np.testing.assert_array_equal(overview.col_edges, expected.col_edges)
    scale = d_model / 2 if metric == "dot" else 1.0
    np.testing.assert_allclose(overview.values, expected.values, atol=1e-6 * scale)
    loop = reference.loop_gaussian_resample(reference.loop_gaussian_resample(gram, rows),
                                            cols, axis=1)
    np.testing.assert_allclose(overview.values, loop, atol=1e-6 * scale)


def test_the_page_maximum_costs_no_table_and_no_product():
    """4096 x 1024: f and a 200 x 200 overview peak at a few MB; the float32 table alone would
    be 16 MB and PE.PE^T 64 MB."""
    similarity.sinusoid_similarity(64, 16)  # imports and caches warmed outside the measure
    tracemalloc.start()
    try:
        result = similarity.sinusoid_similarity(4096, 1024, max_rows=200, max_cols=200)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10 * 2**20, peak
    assert result.overview.values.shape == (200, 200)
    assert result.dot[4095] == 512.0


# --- exports: the exact matrix, as the page offers it -------------------------------------------
@pytest.mark.parametrize("metric", ["dot", "cosine"])
def test_exports_are_the_exact_matrix(metric):
    n, d_model = 600, 32  # 600 > the 200-cell overview: the chart is resampled, the files exact
    result = similarity.sinusoid_similarity(n, d_model, max_rows=200, max_cols=200)
    export = TableExport(result.pairwise(metric).overview, (n, n),
                         lambda: result.matrix(metric), row_name="p", col_name="q")
    expected = brute_force(n, d_model, "interleaved", metric)
    npy = np.load(io.BytesIO(export.npy()), allow_pickle=False)
    assert npy.shape == (n, n) and npy.dtype == np.float32
    np.testing.assert_allclose(npy, expected, atol=1e-5 * (d_model / 2))
    lines = export.csv().decode("utf-8").splitlines()
    assert lines[0].split(",")[:3] == ["p \\ q", "0", "1"] and len(lines) == n + 1
    row = np.array(lines[123].split(",")[1:], dtype=np.float64)  # position 122
    np.testing.assert_allclose(row, expected[122], rtol=1e-7, atol=1e-12)


# --- the random contrast ------------------------------------------------------------------------
def test_random_contrast_is_pairwise_similarity_and_pair_sample_for_both_metrics():
    n, d_model = 300, 12  # two chunks of 256 rows
    contrast = similarity.random_contrast(n, d_model, seed=4, count=100, sample_seed=2,
                                          max_rows=37, max_cols=50)
    table = similarity.random_table(n, d_model, seed=4)
    for metric in ("dot", "cosine"):
        alone = similarity.pairwise_similarity(table, metric=metric, max_rows=37, max_cols=50)
        both = contrast.pairwise[metric]
        np.testing.assert_array_equal(both.offsets, alone.offsets)
        np.testing.assert_allclose(both.lowest, alone.lowest, atol=1e-5)
        np.testing.assert_allclose(both.highest, alone.highest, atol=1e-5)
        np.testing.assert_allclose(both.overview.values, alone.overview.values, atol=1e-5)
        sample = similarity.pair_sample(table, count=100, seed=2, metric=metric)
        np.testing.assert_array_equal(contrast.samples[metric].p, sample.p)
        np.testing.assert_allclose(contrast.samples[metric].similarity, sample.similarity)
    assert contrast.pairwise["dot"].spread > 1.0  # far from Toeplitz


@pytest.mark.parametrize("n", [1, 2, 3, 255, 256, 257, 258, 513])
def test_envelope_at_every_last_chunk_size(n):
    """Chunks of 256 rows: the last one holds 1, 2, ... rows, where the skewed block's gaps
    between rows (refilled with +-inf) are empty or one cell wide."""
    table = similarity.random_table(n, 3, seed=n)
    result = similarity.pairwise_similarity(table, metric="dot", max_rows=8, max_cols=8)
    gram = table.astype(np.float64) @ table.astype(np.float64).T
    lowest = [np.diagonal(gram, offset=k).min() for k in range(-(n - 1), n)]
    highest = [np.diagonal(gram, offset=k).max() for k in range(-(n - 1), n)]
    np.testing.assert_allclose(result.lowest, lowest, atol=1e-5)
    np.testing.assert_allclose(result.highest, highest, atol=1e-5)


# --- the shift check: block rotations, O(n d) ----------------------------------------------------
@pytest.mark.parametrize("offset", [-299, -5, 0, 3, 120, 299])
def test_shift_residuals_equal_the_dense_product(offset):
    table = core.sinusoidal_encoding(300, 64)
    check = similarity.shift_residuals(table, offset)
    positions = np.arange(max(0, -offset), min(300, 300 - offset))
    dense = table[positions].astype(np.float64) @ core.shift_matrix(offset, 64).T
    expected = np.abs(table[positions + offset].astype(np.float64) - dense).max(axis=1)
    np.testing.assert_array_equal(check.positions, positions)
    np.testing.assert_allclose(check.residuals, expected, atol=1e-15)


# --- checks ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: similarity.sinusoid_similarity(0, 8), "num_positions"),
        (lambda: similarity.sinusoid_similarity(10, 7), "d_model"),
        (lambda: similarity.sinusoid_similarity(10, 8, base=-1.0), "base"),
        (lambda: similarity.offset_dots(0, 8), "num_positions"),
        (lambda: similarity.sinusoid_similarity(10, 8).row(10), "anchor"),
        (lambda: similarity.sinusoid_similarity(10, 8).matrix("euclid"), "metric"),
        (lambda: similarity.sinusoid_similarity(10, 8).pairwise("euclid"), "metric"),
        (lambda: similarity.sinusoid_similarity(10, 8).curves("euclid"), "metric"),
    ],
)
def test_errors_name_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# --- the page: each change recomputes only what it needs ----------------------------------------
@pytest.fixture
def counted(monkeypatch):
    """The page's calls into core.similarity's expensive functions (not their calls to each
    other), from empty caches."""
    from server.cache import clear_all

    calls: list[str] = []
    depth = [0]
    for name in ("sinusoid_similarity", "random_contrast", "pair_sample", "shift_residuals",
                 "pairwise_similarity", "anchor_profile", "offset_curves"):
        real = getattr(similarity, name)

        def counting(*args, _real=real, _name=name, **kwargs):
            if depth[0] == 0:
                calls.append(_name)
            depth[0] += 1
            try:
                return _real(*args, **kwargs)
            finally:
                depth[0] -= 1

        monkeypatch.setattr(similarity, name, counting)
    clear_all()
    yield calls
    clear_all()


def test_page_changes_reuse_the_cached_products(counted):
    at = open_page(SIMILARITY, {"positions": "300", "d_model": "34"})
    assert not at.exception
    assert sorted(counted) == ["random_contrast", "sinusoid_similarity"]  # the matrix view
    z = decode(plotly_figures(at)[0]["data"][0]["z"])
    expected = core.resample(brute_force(300, 34, "interleaved", "cosine"), max_rows=200,
                             max_cols=200).values
    np.testing.assert_allclose(z, expected, atol=1e-6)

    def change(key, value):
        counted.clear()
        if control_kind(at, key) == "radio":
            at.radio(key=key).set_value(value).run()
        else:
            set_control(at, key, value)
        assert not at.exception, (key, value)
        return sorted(counted)

    # The matrix view's own control reads the cached products: nothing is recomputed (its
    # other views' controls are theirs, made only with them).
    assert change("metric", "dot") == []
    assert change("metric", "cosine") == []
    # Other views read the same cached f and contrast; only the pair sample (2000 rows) is new.
    assert change("view", "anchor") == []
    assert change("anchor", 250) == []
    assert change("view", "offset") == ["pair_sample"]  # the sinusoid's sampled pairs
    assert change("metric", "dot") == ["pair_sample"]
    assert change("offset", -4) == []
    assert change("view", "distance") == []
    assert change("view", "rotation") == ["shift_residuals"]
    assert change("offset", 5) == ["shift_residuals"]  # the check itself is per offset, O(n d)
    assert change("anchor", 7) == []
    # A new base: the sinusoid's f, never the random contrast, which has no base.
    assert change("view", "matrix") == []
    assert change("base", 500.0) == ["sinusoid_similarity"]
    # A new size: both.
    assert change("positions", 280) == ["random_contrast", "sinusoid_similarity"]
    assert change("d_model", 32) == ["random_contrast", "sinusoid_similarity"]
    assert change("positions", 300) == ["random_contrast", "sinusoid_similarity"]
    assert change("d_model", 34) == []  # back to (300, 34) at base 500: both still cached


def control_kind(at, key: str) -> str:
    if any(w.key == key for w in at.radio):
        return "radio"
    return control(at, key).type
