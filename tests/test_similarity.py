"""core.similarity against independent values: slow loops, closed forms, the articles' numbers and
the reference code (tests/reference.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import core
from core import similarity
from tests import reference
from tests.reference import loop_offset_dot


def slow_gram(table: np.ndarray, metric: str) -> np.ndarray:
    n = table.shape[0]
    out = np.zeros((n, n))
    for p in range(n):
        for q in range(n):
            a, b = table[p].astype(np.float64), table[q].astype(np.float64)
            dot = float(a @ b)
            out[p, q] = dot if metric == "dot" else dot / math.sqrt((a @ a) * (b @ b))
    return out


# --- similarity: the matrix, its diagonals, the random contrast --------------------------------
@pytest.mark.parametrize("metric", ["dot", "cosine"])
def test_pairwise_overview_equals_slow_gram_and_is_toeplitz(metric):
    table = core.sinusoidal_encoding(40, 16)
    result = similarity.pairwise_similarity(table, metric=metric)
    expected = slow_gram(table, metric)
    assert result.overview.exact
    np.testing.assert_allclose(result.overview.values, expected, atol=2e-5)
    # Toeplitz: every diagonal is one value, the sum of cosines of its offset.
    for k in range(-39, 40):
        diagonal = np.diagonal(expected, offset=k)
        scale = 1.0 if metric == "dot" else 2 / 16
        np.testing.assert_allclose(diagonal, loop_offset_dot(k, 16) * scale, atol=1e-5)
    assert result.spread < 1e-5


def test_envelope_is_min_and_max_of_every_diagonal():
    table = similarity.random_table(30, 8, seed=3)
    result = similarity.pairwise_similarity(table, metric="dot")
    gram = slow_gram(table, "dot")
    np.testing.assert_array_equal(result.offsets, np.arange(-29, 30))
    for j, k in enumerate(result.offsets):
        diagonal = np.diagonal(gram, offset=k)  # entries (p, p + k): q - p = k
        assert result.lowest[j] == pytest.approx(diagonal.min(), abs=1e-4)
        assert result.highest[j] == pytest.approx(diagonal.max(), abs=1e-4)
    assert result.spread > 1.0  # a random table is far from Toeplitz


def test_envelope_across_several_chunks_of_rows():
    table = similarity.random_table(300, 4, seed=8)  # 300 rows: two chunks of 256
    result = similarity.pairwise_similarity(table, metric="cosine")
    unit = table.astype(np.float64) / np.linalg.norm(table, axis=1, keepdims=True)
    gram = unit @ unit.T
    for j, k in enumerate(result.offsets):
        diagonal = np.diagonal(gram, offset=k)
        assert result.lowest[j] == pytest.approx(diagonal.min(), abs=1e-5)
        assert result.highest[j] == pytest.approx(diagonal.max(), abs=1e-5)


def test_sinusoid_envelope_collapses_onto_offset_dot_product():
    d_model, n = 64, 600  # three chunks of rows
    result = similarity.pairwise_similarity(core.sinusoidal_encoding(n, d_model))
    curve = core.offset_dot_product(result.offsets, d_model)
    np.testing.assert_allclose(result.lowest, curve, atol=1e-4)
    np.testing.assert_allclose(result.highest, curve, atol=1e-4)
    for k in (0, 1, 7, 250, -599):
        assert curve[k + n - 1] == pytest.approx(loop_offset_dot(k, d_model), abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 700), d=st.integers(1, 6), rows=st.integers(1, 80),
       cols=st.integers(1, 80), metric=st.sampled_from(["dot", "cosine"]))
def test_upper_triangle_pass_equals_the_full_float64_gram(n, d, rows, cols, metric):
    """Only the upper triangle is multiplied out for the envelope, and the overview is
    (W_r X)(W_c X)^T: both still equal the full matrix's (resampled by the textbook loop), for any
    size (chunks of 256 rows), cells and metric."""
    table = similarity.random_table(n, d, seed=n)
    result = similarity.pairwise_similarity(table, metric=metric, max_rows=rows, max_cols=cols)
    unit = table.astype(np.float64)
    if metric == "cosine":
        unit = unit / np.linalg.norm(unit, axis=1, keepdims=True)
    gram = unit @ unit.T
    expected = reference.loop_gaussian_resample(
        reference.loop_gaussian_resample(gram, rows), cols, axis=1)
    np.testing.assert_allclose(result.overview.values, expected, atol=2e-4)
    skew = {k: np.diagonal(gram, offset=k) for k in range(-(n - 1), n)}
    np.testing.assert_allclose(result.lowest, [skew[k].min() for k in result.offsets], atol=2e-4)
    np.testing.assert_allclose(result.highest, [skew[k].max() for k in result.offsets],
                               atol=2e-4)


def test_large_matrix_is_resampled_like_the_full_matrix():
    table = core.sinusoidal_encoding(1000, 32)
    result = similarity.pairwise_similarity(table, max_rows=100, max_cols=50)
    assert result.overview.values.shape == (100, 50) and not result.overview.exact
    full = table.astype(np.float64) @ table.astype(np.float64).T
    expected = core.resample(full, max_rows=100, max_cols=50).values
    np.testing.assert_allclose(result.overview.values, expected, atol=1e-4)


def test_random_table_is_seeded_and_on_the_sinusoids_scale():
    a = similarity.random_table(500, 256, seed=0)
    np.testing.assert_array_equal(a, similarity.random_table(500, 256, seed=0))
    assert a.shape == (500, 256) and a.dtype == np.float32
    assert np.mean((a.astype(np.float64) ** 2).sum(axis=1)) == pytest.approx(128, rel=0.02)
    assert not np.array_equal(a, similarity.random_table(500, 256, seed=1))


def test_cosine_is_dot_over_half_d_model():
    offsets = np.arange(-50, 51)
    np.testing.assert_allclose(
        similarity.offset_similarity(offsets, 64, metric="cosine"),
        core.offset_dot_product(offsets, 64) / 32,
        rtol=1e-12,
    )


def test_tf_tutorial_anchor_profile():
    # 2048 positions, d_model 512, anchor 1000: the cosine peaks at 1 and is symmetric.
    table = core.sinusoidal_encoding(2048, 512)
    profile = similarity.anchor_profile(table, 1000, metric="cosine")
    assert profile.shape == (2048,)
    assert profile.argmax() == 1000 and profile[1000] == pytest.approx(1.0, abs=1e-6)
    k = np.arange(1, 1001)
    np.testing.assert_allclose(profile[1000 + k[:1000 - 1]], profile[1000 - k[:999]], atol=1e-5)
    for p in (0, 999, 1001, 2047):
        expected = loop_offset_dot(p - 1000, 512) / 256
        assert profile[p] == pytest.approx(expected, abs=1e-5)


def test_anchor_profile_against_the_reference_loop():
    table = reference.loop_interleaved(200, 32)
    profile = similarity.anchor_profile(table, 120, metric="dot")
    np.testing.assert_allclose(profile, table @ table[120], rtol=1e-12)


def test_pair_sample_and_distance_closed_form():
    table = reference.loop_interleaved(300, 64)
    sample = similarity.pair_sample(table, count=500, seed=5, metric="dot")
    np.testing.assert_array_equal(sample.offsets, sample.q - sample.p)
    for j in range(0, 500, 37):
        p, q = sample.p[j], sample.q[j]
        assert sample.similarity[j] == pytest.approx(table[p] @ table[q], abs=1e-9)
        assert sample.distance[j] == pytest.approx(np.linalg.norm(table[p] - table[q]), abs=1e-9)
    # |PE[p] - PE[q]|^2 = d - 2 PE[p].PE[q]: the distance is a function of the offset.
    np.testing.assert_allclose(
        sample.distance, similarity.offset_distance(sample.offsets, 64), atol=1e-6
    )
    assert similarity.offset_distance(np.array([0]), 64)[0] == 0.0


@pytest.mark.parametrize("offset", [1, 3, 17, -5, 0, 299])
def test_shift_residual_below_1e_5_for_every_p(offset):
    table = core.sinusoidal_encoding(300, 128)
    check = similarity.shift_residuals(table, offset)
    assert check.positions.size == 300 - abs(offset)
    assert np.all(check.residuals < 1e-5)
    assert check.largest < 1e-6  # float32 rounding: "about 1e-7"
    exact = similarity.shift_residuals(core.sinusoidal_encoding(300, 128, dtype=np.float64), offset)
    assert exact.largest < 1e-12


def test_shift_residual_on_the_pages_largest_table():
    table = core.sinusoidal_encoding(4096, 1024)
    check = similarity.shift_residuals(table, 3)
    assert check.residuals.shape == (4093,)
    assert np.all(check.residuals < 1e-5)


def test_shift_residual_detects_a_wrong_matrix():
    # The check is not vacuous: a table of another base does not satisfy M_k of this base.
    table = core.sinusoidal_encoding(100, 16, base=100.0)
    assert similarity.shift_residuals(table, 5).largest > 1e-2


def test_rotated_pair_matches_the_angle_addition_formulas():
    rp = similarity.rotated_pair(7, 3, 0, 64)
    assert rp.omega == 1.0 and rp.rotation == 3.0
    np.testing.assert_allclose(rp.before, [math.cos(7), math.sin(7)], atol=1e-12)
    np.testing.assert_allclose(rp.after, [math.cos(10), math.sin(10)], atol=1e-12)
    np.testing.assert_allclose(rp.rotated, rp.after, atol=1e-12)
    rp = similarity.rotated_pair(1000, -40, 5, 512)
    w = 10000 ** (-10 / 512)
    np.testing.assert_allclose(rp.rotated, [math.cos(960 * w), math.sin(960 * w)], atol=1e-12)


@pytest.mark.parametrize(("position", "offset", "pair", "d_model"),
                         [(7, 3, 0, 64), (1000, -40, 5, 512), (4095, -4095, 511, 1024)])
def test_rotated_pair_reads_the_encodings_columns_and_shift_matrix_block(position, offset, pair,
                                                                         d_model):
    rp = similarity.rotated_pair(position, offset, pair, d_model)
    rows = core.encode_positions([position, position + offset], d_model)
    np.testing.assert_array_equal(rp.before, rows[0, [2 * pair + 1, 2 * pair]])
    np.testing.assert_array_equal(rp.after, rows[1, [2 * pair + 1, 2 * pair]])
    cols = slice(2 * pair, 2 * pair + 2)
    moved = core.shift_matrix(offset, d_model)[cols, cols] @ rows[0, cols]
    np.testing.assert_allclose(rp.rotated, moved[::-1], atol=1e-15)


@given(n=st.integers(1, 300), d_model=st.integers(1, 24).map(lambda h: 2 * h),
       metric=st.sampled_from(["dot", "cosine"]), data=st.data())
def test_sinusoid_before_and_after_reads_the_same_numbers_off_three_rows(n, d_model, metric,
                                                                         data):
    anchor = data.draw(st.integers(0, n - 1))
    offset = data.draw(st.integers(-(n - 1), n - 1))
    whole = similarity.before_and_after(core.sinusoidal_encoding(n, d_model), anchor, offset,
                                        metric=metric)
    assert similarity.sinusoid_before_and_after(n, d_model, anchor, offset,
                                                metric=metric) == whole


def test_before_and_after_are_equal_and_none_outside():
    table = core.sinusoidal_encoding(100, 32)
    after, before = similarity.before_and_after(table, 50, 7)
    assert after == pytest.approx(before, abs=1e-5)
    assert after == pytest.approx(loop_offset_dot(7, 32), abs=1e-5)
    assert similarity.before_and_after(table, 2, 7)[1] is None


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: similarity.pairwise_similarity(np.zeros((3, 2)), metric="euclid"), "metric"),
        (lambda: similarity.pairwise_similarity(np.zeros((3, 2)), metric="cosine"), "metric"),
        (lambda: similarity.anchor_profile(np.ones((3, 2)), 3), "anchor"),
        (lambda: similarity.shift_residuals(np.ones((3, 2)), 3), "offset"),
        (lambda: similarity.rotated_pair(0, 1, 9, 16), "pair"),
        (lambda: similarity.pairwise_similarity(np.ones(3)), "table"),
    ],
)
def test_similarity_errors_name_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_offset_curves_cover_every_offset_of_the_table():
    curves = similarity.offset_curves(50, 16, metric="cosine")
    np.testing.assert_array_equal(curves.offsets, np.arange(-49, 50))
    np.testing.assert_array_equal(curves.gaps, np.arange(50))
    for k in (-49, -3, 0, 7, 49):
        assert curves.similarity[k + 49] == pytest.approx(loop_offset_dot(k, 16) / 8, abs=1e-12)
    table = reference.loop_interleaved(50, 16)
    np.testing.assert_allclose(curves.distance, np.linalg.norm(table - table[0], axis=1),
                               atol=1e-6)
