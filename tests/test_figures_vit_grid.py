"""The vit-grid page's figures, checked on their traces."""

from __future__ import annotations

import numpy as np
import pytest

import core
from core import vit_grid
from figures.vit_grid import (
    make_halves_figure,
    make_patch_map_figure,
    make_tiles_figure,
    make_vit_encoding_figure,
)


def test_tiles_figure_for_vit_b16():
    emb = core.sincos_2d_encoding(14, 14, 768)
    fig = make_tiles_figure(vit_grid.similarity_tiles(emb, 14, 14))
    z = np.asarray(fig.data[0].z, dtype=np.float64)
    assert z.shape == (14 * 15, 14 * 15)
    tile = z[3 * 15 : 3 * 15 + 14, 4 * 15 : 4 * 15 + 14]
    np.testing.assert_allclose(tile, vit_grid.patch_similarity_map(emb, 14, 14, 3, 4), atol=1e-6)
    assert tile[3, 4] == pytest.approx(1.0)
    assert "all 14 x 14 patches" in fig.layout.annotations[0].text
    assert list(fig.layout.xaxis.ticktext) == [str(c) for c in range(14)]


def test_tiles_figure_for_a_large_grid_says_what_is_shown():
    emb = core.sincos_2d_encoding(64, 40, 64)
    fig = make_tiles_figure(vit_grid.similarity_tiles(emb, 64, 40))
    text = fig.layout.annotations[0].text
    assert "14 x 14 of the 64 x 40 patches" in text and "averaged" in text
    assert max(np.asarray(fig.data[0].z).shape) <= 400
    assert len(fig.to_json()) < 1_500_000


def test_patch_map_and_halves_figures():
    emb = core.sincos_2d_encoding(6, 10, 128, cls_token=True)
    sim = vit_grid.patch_similarity_map(emb, 6, 10, 2, 7)
    fig = make_patch_map_figure(sim, row=2, col=7)
    assert np.asarray(fig.data[0].z).shape == (6, 10)
    assert "cosine = %{z" in fig.data[0].hovertemplate
    assert (fig.data[1].x[0], fig.data[1].y[0]) == (7, 2)
    columns, rows = vit_grid.half_similarity_maps(emb, 6, 10, 2, 7)
    halves = make_halves_figure(columns, rows, row=2, col=7, d_model=128)
    left = np.asarray(halves.data[0].z)
    right = np.asarray(halves.data[2].z)
    assert np.ptp(left, axis=0).max() < 1e-12  # column half: constant down each column
    assert np.ptp(right, axis=1).max() < 1e-12  # row half: constant along each row
    titles = [a.text for a in halves.layout.annotations]
    assert "channels [0, 64): the column code (x)" in titles
    assert "channels [64, 128): the row code (y)" in titles


def test_vit_encoding_figure_marks_cls_and_split():
    overview = vit_grid.vit_encoding_overview(14, 14, 768, cls_token=True)
    fig = make_vit_encoding_figure(overview, d_model=768, cls_token=True)
    assert np.asarray(fig.data[0].z).shape == (197, 768)
    shape_kinds = [(s.type, s.x0, s.y0) for s in fig.layout.shapes]
    assert ("line", 383.5, 0) in shape_kinds  # the x | y channel split
    assert any(t == "rect" and y0 == -0.5 for t, _, y0 in shape_kinds)  # the cls row
    assert any("cls token" in a.text for a in fig.layout.annotations)
    plain = make_vit_encoding_figure(vit_grid.vit_encoding_overview(4, 4, 64), d_model=64,
                                     cls_token=False)
    assert not any("cls" in (a.text or "") for a in plain.layout.annotations)
