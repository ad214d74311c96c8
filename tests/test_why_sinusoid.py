"""Why sines and cosines (core.why_sinusoid, figures.why_sinusoid): the three properties the home
page and the tour open with, each pinned to the paper's formula written out entry by entry."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.why_sinusoid import why_sinusoid
from figures.why_sinusoid import make_code_figure, make_nearby_figure, make_shift_figure


def pe(pos: int, d_model: int = 64, base: float = 10000.0) -> np.ndarray:
    """The paper's formula, one entry at a time."""
    return np.array([math.sin(pos / base ** (2 * (j // 2) / d_model)) if j % 2 == 0
                     else math.cos(pos / base ** (2 * (j // 2) / d_model))
                     for j in range(d_model)])


@pytest.fixture(scope="module")
def why():
    return why_sinusoid()


def test_every_position_has_its_own_code(why):
    codes = [pe(p) for p in range(64)]
    distances = {(p, q): float(np.linalg.norm(codes[p] - codes[q]))
                 for p in range(64) for q in range(p + 1, 64)}
    assert why.nearest == pytest.approx(min(distances.values()), abs=1e-9)
    assert why.nearest > 1.0  # well apart: a model can tell every position from every other
    p, q = why.nearest_pair
    assert distances[(p, q)] == pytest.approx(why.nearest, abs=1e-9)
    assert q - p == 1  # the closest codes are neighbours
    assert why.norm == pytest.approx(math.sqrt(32))  # sin^2 + cos^2 = 1 per pair


def test_the_clocks_are_a_decade_apart(why):
    # Pairs 0, 8, 16, 24 of 32: wavelengths 2 pi x 1, 10, 100, 1000 (10000^(8/32) = 10).
    assert why.clocks.pairs == (0, 8, 16, 24)
    assert np.allclose(why.clocks.wavelengths, 2 * np.pi * np.array([1, 10, 100, 1000]))
    assert np.isclose(why.clocks.y[20, 1], pe(20)[16])  # sin of pair 8 at position 20


def test_similarity_depends_on_the_offset_alone_and_falls_smoothly(why):
    for p, q in ((0, 0), (3, 10), (20, 5), (63, 0)):
        expected = sum(math.cos((p - q) / 10000 ** (2 * i / 64)) for i in range(32)) / 32
        assert why.cosine[p, q] == pytest.approx(expected, abs=1e-12)
        assert why.cosine[p, q] == pytest.approx(float(pe(p) @ pe(q)) / 32, abs=1e-12)
    # the same curve around every anchor: a function of p - q
    for k in (1, 5, 17):
        diagonal = np.diagonal(why.cosine, offset=k)
        assert np.ptp(diagonal) < 1e-12
    # nearby alike: falls monotonically over the first five offsets
    assert np.all(np.diff(why.cosine[0, :6]) < 0)


def test_a_shift_is_one_rotation_for_every_position(why):
    assert np.all(why.residuals < 1e-12)
    assert why.residuals[0] == 0.0
    # The same rotation by hand for pair i: [[cos kw, sin kw], [-sin kw, cos kw]] (sin, cos).
    k, w = 7, why.omega
    for p in (0, 9, 40):
        sin, cos = pe(p)[2 * why.pair], pe(p)[2 * why.pair + 1]
        moved = (sin * math.cos(k * w) + cos * math.sin(k * w),
                 -sin * math.sin(k * w) + cos * math.cos(k * w))
        assert np.allclose(moved, pe(p + k)[[2 * why.pair, 2 * why.pair + 1]], atol=1e-12)
        assert np.allclose(why.circle[p], pe(p)[[2 * why.pair + 1, 2 * why.pair]])


def test_the_pictures_move_in_the_browser(why):
    """Each figure carries every state its slider shows: dragging needs no server."""
    code = make_code_figure(why)
    assert len(code.frames) == 64 and not code.layout.updatemenus
    nearby = make_nearby_figure(why, anchor=20)
    [slider] = nearby.layout.sliders
    assert len(slider.steps) == 64 and slider.active == 20
    step = slider.steps[33]
    assert step.method == "restyle"
    ys, anchor = step.args[0]["y"]
    assert anchor == [1.0]
    assert np.allclose(ys, [float(pe(33) @ pe(q)) / 32 for q in range(64)], atol=1e-4)
    assert step.args[0]["x"][1] == [33]
    shift = make_shift_figure(why, offset=1)
    [slider] = shift.layout.sliders
    step = slider.steps[5]  # k = 5: each arrow from p to p + 5
    x, y = step.args[0]["x"][0], step.args[0]["y"][0]
    assert x[0:2] == pytest.approx([pe(0)[2 * why.pair + 1], pe(5)[2 * why.pair + 1]], abs=1e-4)
    assert y[3:5] == pytest.approx([pe(1)[2 * why.pair], pe(6)[2 * why.pair]], abs=1e-4)
    assert "×10⁻¹" in step.args[0]["text"][1][0]  # the error, rounding, for people


@pytest.mark.parametrize("bad", [{"num_positions": 1}, {"num_positions": 10_000},
                                 {"d_model": 63}, {"pair": 40}])
def test_bad_sizes_are_refused_by_name(bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        why_sinusoid(**bad)
