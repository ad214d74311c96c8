"""core.learned_vs_sinusoidal against independent values: slow loops (similarity, offsets,
neighbours, diagonal means, a Fourier loop), the sinusoid's Toeplitz structure, and MiniLM's
learned table."""

from __future__ import annotations

import math

import numpy as np
import pytest

import core
from core import learned_vs_sinusoidal as lvs
from tests import reference


# --- learned vs sinusoidal statistics ------------------------------------------------------------
def loop_similarity(table, metric):
    n = len(table)
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            dot = float(np.dot(table[i], table[j]))
            if metric == "cosine":
                dot /= math.sqrt(np.dot(table[i], table[i]) * np.dot(table[j], table[j]))
            out[i, j] = dot
    return out


@pytest.mark.parametrize("metric", ["cosine", "dot"])
def test_similarity_offsets_and_neighbours_equal_loops(learned_table, metric):
    table = learned_table[:40]
    expected = loop_similarity(table, metric)
    np.testing.assert_allclose(lvs.full_similarity_matrix(table, metric), expected, atol=1e-10)
    offsets, values = lvs.offset_similarity_curve(table, 5, 8, metric)
    np.testing.assert_array_equal(offsets, np.arange(-8, 9))
    for k, v in zip(offsets, values, strict=True):
        if 0 <= 5 + k < 40:
            assert v == pytest.approx(expected[5, 5 + k])
        else:
            assert math.isnan(v)
    np.testing.assert_allclose(lvs.neighbour_similarity(table, metric),
                               [expected[p, p + 1] for p in range(39)])


def test_sinusoid_similarity_is_toeplitz_and_learned_is_not(learned_table):
    sinusoid = core.sinusoidal_encoding(512, 384, dtype=np.float64)
    assert lvs.toeplitz_deviation(lvs.full_similarity_matrix(sinusoid)) < 1e-12
    learned = lvs.toeplitz_deviation(lvs.full_similarity_matrix(learned_table))
    assert learned > 0.05
    # the definition, by loop over diagonals
    sim = loop_similarity(learned_table[:30], "cosine")
    gaps = []
    for i in range(30):
        for j in range(30):
            diagonal = [sim[a, a + j - i] for a in range(30) if 0 <= a + j - i < 30]
            gaps.append(sim[i, j] - np.mean(diagonal))
    assert lvs.toeplitz_deviation(sim) == pytest.approx(math.sqrt(np.mean(np.square(gaps))))


def test_toeplitz_deviation_over_several_row_blocks_matches_diagonal_means():
    """Above one block of rows (256) and not a multiple of it: each diagonal's mean read with
    np.diagonal, the whole matrix at once."""
    rng = np.random.default_rng(3)
    n = 601
    matrix = rng.normal(size=(n, n))
    toeplitz = np.empty_like(matrix)
    for k in range(-(n - 1), n):
        mean = np.diagonal(matrix, offset=k).mean()
        rows = np.arange(max(0, -k), min(n, n - k))
        toeplitz[rows, rows + k] = mean
    expected = math.sqrt(np.mean((matrix - toeplitz) ** 2))
    assert lvs.toeplitz_deviation(matrix) == pytest.approx(expected, rel=1e-12)
    # a Toeplitz matrix: every diagonal constant
    offsets = np.subtract.outer(np.arange(n), np.arange(n))
    assert lvs.toeplitz_deviation(np.cos(0.1 * offsets)) < 1e-12


def test_offset_curves_are_identical_for_the_sinusoid_only(learned_table):
    sinusoid = core.sinusoidal_encoding(512, 384, dtype=np.float64)
    anchors = lvs.comparison_anchors(100, 512)
    assert anchors == [0, 100, 170, 341]
    sinusoid_curves = lvs.offset_similarity_curves(sinusoid, anchors, 64, "dot")
    assert lvs.curve_spread(sinusoid_curves) < 1e-9
    # PE_a . PE_{a+k} = sum_i cos(w_i k): core.offset_dot_product, whatever the anchor.
    offsets, values = sinusoid_curves[341]
    np.testing.assert_allclose(values, core.offset_dot_product(offsets, 384), atol=1e-9)
    learned_curves = lvs.offset_similarity_curves(learned_table, anchors, 64, "cosine")
    assert lvs.curve_spread(learned_curves) > 0.1


def test_summaries_of_both_tables(learned_table):
    sinusoid = core.sinusoidal_encoding(512, 384, dtype=np.float64)
    summary = lvs.summarize_table(sinusoid, "cosine")
    assert summary.first_norm == pytest.approx(math.sqrt(192))  # sqrt(d/2): sin^2 + cos^2 = 1
    assert summary.rest_norm == pytest.approx(math.sqrt(192))
    # cos(P_p, P_{p+1}) = mean_i cos(w_i) for every p
    omega = 10000.0 ** (-np.arange(0, 384, 2) / 384)
    assert summary.neighbour_mean == pytest.approx(np.mean(np.cos(omega)), abs=1e-12)
    assert summary.neighbour_mean == pytest.approx(0.9727, abs=1e-4)
    learned = lvs.summarize_table(learned_table, "cosine")
    lengths = [math.sqrt(sum(x * x for x in row)) for row in learned_table]
    assert learned.first_norm == pytest.approx(lengths[0])
    assert learned.rest_norm == pytest.approx(np.mean(lengths[1:]))
    assert learned.first_norm > 4 * learned.rest_norm  # position 0 ([CLS]) stands out
    assert learned.rows == 512


def loop_dominant_wave(column: np.ndarray) -> tuple[float, float]:
    """(share, period) of the strongest wave, by an explicit discrete Fourier sum."""
    x = column - column.mean()
    m = len(x)
    power = []
    for k in range(1, m // 2 + 1):
        angle = 2 * np.pi * k * np.arange(m) / m
        power.append(np.dot(x, np.cos(angle)) ** 2 + np.dot(x, np.sin(angle)) ** 2)
    best = int(np.argmax(power))
    return power[best] / sum(power), m / (best + 1)


def test_dominant_waves_equal_a_fourier_loop(learned_table):
    waves = lvs.dominant_waves(learned_table)
    dims = lvs.periodic_dimensions(learned_table, 4)
    for d in [*dims.tolist(), 0, 100]:
        share, period = loop_dominant_wave(learned_table[1:, d])
        assert waves.share[d] == pytest.approx(share, rel=1e-9)
        assert waves.period[d] == pytest.approx(period)
    assert np.all(np.diff(waves.share[dims]) <= 0)  # best first
    ripples = np.nonzero(waves.period <= 511 / 2)[0]  # at least two cycles in the table
    assert set(dims.tolist()) == set(ripples[np.argsort(waves.share[ripples])[-4:]].tolist())
    assert waves.share[dims[0]] > 0.8  # one learned column is 80% a single slow wave
    assert dims[0] == 190 and waves.period[190] == pytest.approx(511 / 3)
    trend_too = lvs.periodic_dimensions(learned_table, 4, min_cycles=1)
    assert set(trend_too.tolist()) == set(np.argsort(waves.share)[-4:].tolist())
    # A pure sinusoid column is 100% one wave, of its own period.
    pure = np.sin(2 * np.pi * np.arange(101) / 25.0)[:, None]
    pure_waves = lvs.dominant_waves(np.hstack([pure, np.ones((101, 1))]))
    assert pure_waves.share[0] == pytest.approx(1.0) and pure_waves.period[0] == 25.0
    assert pure_waves.share[1] == 0.0 and pure_waves.period[1] == np.inf  # constant column


def test_table_overview_and_colour_range(learned_table):
    exact = lvs.table_overview(learned_table[:10], 256, 384)
    assert exact.exact and exact.values.shape == (10, 384)
    averaged = lvs.table_overview(learned_table, 256, 192)
    assert not averaged.exact and averaged.values.shape == (256, 192)
    expected = reference.loop_gaussian_resample(
        reference.loop_gaussian_resample(learned_table, 256), 192, axis=1)
    np.testing.assert_allclose(averaged.values, expected, atol=1e-6)
    assert lvs.symmetric_range(np.array([-3.0, 1.0, 0.5]), 1.0) == 3.0
    assert lvs.symmetric_range(np.zeros(3)) == 1.0
