"""core.nope against a slow loop (each prefix's mean summed vector by vector) and the theory it
illustrates (Haviv et al. 2022: E|mean of p + 1 vectors|^2 = 1 / (p + 1))."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core import limits, nope


def loop_norms(length: int, width: int, draws: int, seed: int) -> list[list[float]]:
    """The same draws, each prefix's mean added up one vector and one entry at a time."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(draws):
        vectors = rng.standard_normal((length, width)) / math.sqrt(width)
        row = []
        for p in range(length):
            mean = [0.0] * width
            for q in range(p + 1):
                for i in range(width):
                    mean[i] += vectors[q, i] / (p + 1)
            row.append(math.sqrt(sum(v * v for v in mean)))
        out.append(row)
    return out


def test_causal_mean_norms_match_a_slow_loop():
    np.testing.assert_allclose(nope.causal_mean_norms(12, 5, draws=3, seed=4),
                               loop_norms(12, 5, 3, 4), rtol=1e-12)


def test_the_first_position_is_one_vector_and_later_means_shrink():
    norms = nope.causal_mean_norms(64, 256, draws=4)
    rng = np.random.default_rng(0)
    first = rng.standard_normal((64, 256))[0] / 16  # draw 0's first vector
    assert norms[0, 0] == pytest.approx(np.linalg.norm(first), rel=1e-12)
    assert np.all(norms[:, -1] < norms[:, 0] / 4)


def test_the_mean_squared_norm_is_one_over_p_plus_one():
    """Over 400 draws, E|m_p|^2 = 1 / (p + 1) within four standard errors (the squared norm of
    a mean of p + 1 vectors of width w is a chi-square of w degrees / (w (p + 1)): relative
    spread sqrt(2 / w) per draw)."""
    length, width, draws = 50, 16, 400
    squares = np.square(np.concatenate([nope.causal_mean_norms(length, width, draws=50, seed=s)
                                        for s in range(8)]))
    expected = 1.0 / np.arange(1, length + 1)
    error = 4 * math.sqrt(2 / width) / math.sqrt(draws)
    np.testing.assert_allclose(squares.mean(axis=0) / expected, 1.0, atol=error)
    np.testing.assert_allclose(np.square(nope.expected_norm(length)), expected, rtol=1e-15)


def test_position_is_read_back_from_the_norm_the_better_the_wider():
    positions = np.arange(200)
    errors = {}
    for width in (16, 1024):
        read = nope.read_position(nope.causal_mean_norms(200, width, draws=8, seed=2))
        errors[width] = np.median(np.abs(read - positions) / (positions + 1))
    # The relative spread is ~sqrt(2 / w): 0.044 at width 1024, 0.35 at 16.
    assert errors[1024] < 0.1 < errors[16] and errors[16] > 4 * errors[1024], errors
    assert nope.read_position(np.array([1.0, 0.5]))[1] == pytest.approx(3.0)


def test_the_read_back_spread_is_each_positions_percentiles_over_the_draws():
    norms = nope.causal_mean_norms(30, 8, draws=8, seed=3)
    spread = nope.read_position_spread(norms)
    read = 1 / norms**2 - 1
    for p in (0, 7, 29):
        column = sorted(read[:, p])  # numpy's linear interpolation between order statistics
        np.testing.assert_allclose(spread[1, p], (column[3] + column[4]) / 2, rtol=1e-12)
        assert spread[0, p] <= spread[1, p] <= spread[2, p]


@pytest.mark.parametrize(("length", "width", "name"), [
    (0, 8, "length"), (limits.MAX_NOPE_LENGTH + 1, 8, "length"), (8, 0, "width"),
    (8, limits.MAX_NOPE_WIDTH + 1, "width"), (2.5, 8, "length"),
])
def test_bad_sizes_name_the_parameter(length, width, name):
    with pytest.raises(ValueError, match=name):
        nope.causal_mean_norms(length, width)
