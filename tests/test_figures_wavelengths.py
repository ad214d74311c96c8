"""The wavelengths page's figures, checked on their traces."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core import wavelength_views
from figures.wavelengths import (
    make_clock_figure,
    make_dimension_curves_figure,
    make_spectrum_figure,
)


def test_dimension_curves_figure_labels_each_wavelength():
    curves = wavelength_views.dimension_curves(100, 512, (0, 1, 510))
    fig = make_dimension_curves_figure(curves)
    assert [t.name for t in fig.data] == [
        "dim 0: sin, λ=6.28",  # the pair (i = dim // 2) left to the legend's width
        "dim 1: cos, λ=6.28",
        "dim 510: sin, λ=60,611.48",
    ]
    np.testing.assert_allclose(fig.data[0].y, np.sin(np.arange(100)), atol=1e-7)  # float32
    assert fig.layout.xaxis.title.text == "position (pos)"
    # A pair's sin and cos differ by more than their colour's shade: the cos is dashed.
    assert [t.line.dash for t in fig.data] == ["solid", "dash", "solid"]


def test_spectrum_figure():
    spectrum = wavelength_views.wavelength_spectrum(512, 2048)
    fig = make_spectrum_figure(spectrum)
    assert fig.layout.yaxis.type == "log"
    complete, incomplete = fig.data
    assert len(incomplete.x) == 95 and len(complete.x) == 161
    assert min(incomplete.y) > 2048 >= max(complete.y)
    lines = sorted(s.y0 for s in fig.layout.shapes)
    assert lines == pytest.approx([2 * math.pi, 2048, 2 * math.pi * 10000])
    texts = " ".join(a.text for a in fig.layout.annotations)
    assert "paper's rounded 10000·2π = 62,831.9" in texts
    assert "60,611.5" in texts and "sequence length n = 2048" in texts


def test_clock_figure_frames_and_the_articles_sin_7():
    frames = wavelength_views.clock_frames(2048, 768, (0, 191, 383))
    fig = make_clock_figure(frames, start=7)
    assert len(fig.frames) == wavelength_views.MAX_CLOCK_FRAMES
    assert fig.layout.sliders[0].active == 7
    assert len(fig.layout.sliders[0].steps) == 400
    frame7 = next(f for f in fig.frames if f.name == "7")
    texts = frame7.data[2].text
    assert texts[0] == "pos 7: 0.23π"  # sin(7) = sin(2.23 pi) = sin(0.23 pi)
    tip_x, tip_y = frame7.data[1].x, frame7.data[1].y
    assert tip_x[0] == pytest.approx(math.cos(7), abs=1e-4)  # the first clock is centred at 0
    assert tip_y[0] == pytest.approx(math.sin(7), abs=1e-4)
    # the initial drawing is position 7 too
    assert fig.data[4].text[0] == "pos 7: 0.23π"
    assert "i=383" in fig.data[1].text[2]
    assert [b.label for b in fig.layout.updatemenus[0].buttons] == ["▶ play", "❚❚ pause"]
