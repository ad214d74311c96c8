"""core.wavelength_views against independent values: slow loops, closed forms, the articles'
numbers and the reference code (tests/reference.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from core import wavelength_views
from tests import reference


def test_default_dims_fastest_middle_slowest():
    assert wavelength_views.default_dims(512) == (0, 1, 256, 257, 510, 511)
    assert wavelength_views.default_dims(128) == (0, 1, 64, 65, 126, 127)
    assert wavelength_views.default_dims(2) == (0, 1)


def test_parse_dims():
    assert wavelength_views.parse_dims("0,1, 64 65", 128) == (0, 1, 64, 65)
    assert wavelength_views.parse_dims("3,3,2", 8) == (3, 2)
    assert wavelength_views.parse_dims("  ", 8) == wavelength_views.default_dims(8)


@pytest.mark.parametrize("text", ["abc", "0,128", "-1", "1.5", "1e3", "0x10"])
def test_parse_dims_errors_name_dims(text):
    with pytest.raises(ValueError, match=r"^dims=.* is not allowed: dims must be"):
        wavelength_views.parse_dims(text, 128)


def test_parse_dims_too_many():
    with pytest.raises(ValueError, match=r"^dims has 13 dimensions"):
        wavelength_views.parse_dims(",".join(str(i) for i in range(13)), 128)


@given(text=st.text(max_size=60))
def test_parse_dims_never_fails_other_than_valueerror(text):
    try:
        dims = wavelength_views.parse_dims(text, 64)
    except ValueError as error:
        assert str(error).startswith("dims")
    else:
        assert all(0 <= d < 64 for d in dims) and 1 <= len(dims) <= wavelength_views.MAX_DIMS


def test_dimension_curves_equal_the_reference_loop():
    dims = (0, 1, 5, 30, 31)
    curves = wavelength_views.dimension_curves(200, 32, dims, base=500.0)
    expected = reference.loop_interleaved(200, 32, base=500.0)[:, dims]
    np.testing.assert_allclose(curves.values, expected, atol=1e-12)
    np.testing.assert_array_equal(curves.pairs, [0, 0, 2, 15, 15])
    np.testing.assert_allclose(curves.wavelengths, [2 * math.pi * 500 ** (2 * i / 32)
                                                    for i in (0, 0, 2, 15, 15)])


def test_spectrum_numbers_for_the_paper():
    spectrum = wavelength_views.wavelength_spectrum(512, 2048)
    assert spectrum.shortest == 2 * math.pi
    assert spectrum.longest == pytest.approx(60611.477, abs=1e-3)
    assert spectrum.paper_longest == pytest.approx(62831.853, abs=1e-3)
    assert spectrum.ratio == pytest.approx(1.0366329284, abs=1e-9)
    # pairs with 2 pi 10000^(2i/512) > 2048 positions, counted one by one
    slow = sum(2 * math.pi * 10000 ** (2 * i / 512) > 2048 for i in range(256))
    assert spectrum.incomplete_pairs == slow == 95


def test_article_004_clock_of_pair_0():
    # sin(7) = sin(2.23 pi) = sin(0.23 pi); sin(8) = sin(2.54 pi) = sin(0.54 pi)
    frames = wavelength_views.clock_frames(2048, 768, (0, 191, 383))
    assert frames.truncated and frames.positions.size == wavelength_views.MAX_CLOCK_FRAMES
    assert frames.turns_in_pi[7, 0] == pytest.approx(0.23, abs=0.005)
    assert frames.turns_in_pi[8, 0] == pytest.approx(0.54, abs=0.01)
    np.testing.assert_allclose(frames.y[:, 0], np.sin(np.arange(400)), atol=1e-12)
    np.testing.assert_allclose(frames.x[:, 0], np.cos(np.arange(400)), atol=1e-12)
    # the slowest pair of d = 768 turns 10000^(-766/768) ~ 1e-4 rad per position: near still
    assert frames.turns_in_pi[-1, 2] * math.pi == pytest.approx(399 / 10000 ** (766 / 768))


def test_clock_pairs():
    assert wavelength_views.clock_pairs(8) == (0, 1, 2, 3)
    pairs = wavelength_views.clock_pairs(512, (300, 301))
    assert 0 in pairs and 255 in pairs and 150 in pairs
    assert len(pairs) <= wavelength_views.MAX_CLOCKS
