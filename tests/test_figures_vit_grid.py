"""The vit-grid page's figures, checked on their traces; the RoPE view's live states (each
state, applied as the browser applies it, draws the figure the server makes at that head)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import core
from core import rope_2d, vit_grid
from figures.vit_grid import (
    add_rope_2d_states,
    add_rope_2d_tiles_states,
    make_halves_figure,
    make_patch_map_figure,
    make_rope_2d_figure,
    make_rope_2d_tiles_figure,
    make_tiles_figure,
    make_vit_encoding_figure,
)
from locales import message
from tests import reference
from tests.live_states import assert_states_draw_the_servers_figures, live_states


def test_tiles_figure_for_vit_b16():
    emb = core.sincos_2d_encoding(14, 14, 768)
    fig = make_tiles_figure(vit_grid.sincos_similarity_tiles(14, 14, 768))
    z = np.asarray(fig.data[0].z, dtype=np.float64)
    assert z.shape == (14 * 15, 14 * 15)
    tile = z[3 * 15 : 3 * 15 + 14, 4 * 15 : 4 * 15 + 14]
    np.testing.assert_allclose(tile, reference.patch_similarity_map(emb, 14, 14, 3, 4), atol=1e-6)
    assert tile[3, 4] == pytest.approx(1.0)
    assert "all 14 x 14 patches" in fig.layout.annotations[0].text
    assert list(fig.layout.xaxis.ticktext) == [str(c) for c in range(14)]


def test_tiles_figure_for_a_large_grid_says_what_is_shown():
    fig = make_tiles_figure(vit_grid.sincos_similarity_tiles(64, 40, 64))
    text = fig.layout.annotations[0].text
    assert "14 x 14 of the 64 x 40 patches" in text and "averaged" in text
    assert max(np.asarray(fig.data[0].z).shape) <= 400
    assert len(fig.to_json()) < 1_500_000


def test_patch_map_and_halves_figures():
    sim = vit_grid.sincos_patch_map(6, 10, 128, 2, 7)
    fig = make_patch_map_figure(sim, row=2, col=7)
    assert np.asarray(fig.data[0].z).shape == (6, 10)
    assert "cosine = %{z" in fig.data[0].hovertemplate
    assert (fig.data[1].x[0], fig.data[1].y[0]) == (7, 2)
    columns, rows = vit_grid.sincos_half_maps(6, 10, 128, 2, 7)
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


# --- live states: the RoPE view's head slider -----------------------------------------------------
GRID_H, GRID_W, D_HEAD, ROW, COL = 5, 7, 16, 1, 5
MIXED = rope_2d.rope_2d_mixed_frequencies(D_HEAD, rope_2d.MIXED_HEADS)  # (12, 8, 2)


def _mixed_angles(head: int) -> np.ndarray:
    return rope_2d.rope_2d_mixed_angles(GRID_H, GRID_W, MIXED[head - 1: head])[0]


def _rope_maps(head: int) -> list[tuple[str, np.ndarray]]:
    """The page's four panels at `head`, from the slow per-patch formulas."""
    emb = core.sincos_2d_encoding(GRID_H, GRID_W, 32)
    rotations = [rope_2d.rope_2d_axial_angles(GRID_H, GRID_W, D_HEAD),
                 rope_2d.rope_2d_dinov3_angles(GRID_H, GRID_W, D_HEAD), _mixed_angles(head)]
    titles = ["MAE", "axial", "DINOv3", message("fig.vit_grid.rope_mixed", "en", head=head)]
    values = [reference.patch_similarity_map(emb, GRID_H, GRID_W, ROW, COL)] + [
        rope_2d.rope_2d_similarity(angles, ROW, COL).astype(np.float32) for angles in rotations]
    return list(zip(titles, values, strict=True))


def test_rope_2d_states_draw_each_head():
    def make(head):
        maps = _rope_maps(head)
        fig = make_rope_2d_figure(maps, row=ROW, col=COL)
        return add_rope_2d_states(fig, maps, {h: _rope_maps(h)[-1]
                                              for h in range(1, rope_2d.MIXED_HEADS + 1)})

    values = assert_states_draw_the_servers_figures(make, "head", 4)
    assert values == [str(h) for h in range(1, 13)]
    # The shared colour range moves with the head (the mixed map is the lowest for some).
    lows = {round(layout["coloraxis.cmin"], 6)
            for _, layout, _ in live_states(make(4), "head")["updates"]}
    assert len(lows) > 1


def _rope_tiles(head: int) -> list[tuple[str, vit_grid.SimilarityTiles]]:
    rotations = [rope_2d.rope_2d_axial_angles(GRID_H, GRID_W, D_HEAD), _mixed_angles(head)]
    tiles = [vit_grid.offset_similarity_tiles(rope_2d.rope_2d_offset_similarity(angles))
             for angles in rotations]
    return [("MAE", vit_grid.sincos_similarity_tiles(GRID_H, GRID_W, 32)), ("axial", tiles[0]),
            (message("fig.vit_grid.rope_mixed", "en", head=head),
             dataclasses.replace(tiles[1], tiles=tiles[1].tiles.astype(np.float32)))]


def test_rope_2d_tiles_states_draw_each_head():
    def make(head):
        tiles = _rope_tiles(head)
        return add_rope_2d_tiles_states(make_rope_2d_tiles_figure(tiles), tiles,
                                        {h: _rope_tiles(h)[-1] for h in (1, 2, 7, 12)})

    assert assert_states_draw_the_servers_figures(make, "head", 2) == ["1", "2", "7", "12"]


def test_rope_2d_figures_share_one_colour_axis_with_one_bar():
    maps = _rope_maps(3)
    fig = make_rope_2d_figure(maps, row=ROW, col=COL)
    heatmaps = [trace for trace in fig.data if trace.type == "heatmap"]
    assert [trace.coloraxis for trace in heatmaps] == ["coloraxis"] * 4
    lowest = min(float(np.min(values)) for _, values in maps)
    assert fig.layout.coloraxis.cmin == pytest.approx(min(lowest, 0.999))
    assert fig.layout.coloraxis.cmax == 1.0
    assert fig.layout.coloraxis.colorbar.title.text == "cosine"
    tiles = make_rope_2d_tiles_figure(_rope_tiles(3))
    assert [trace.coloraxis for trace in tiles.data] == ["coloraxis"] * 3
    assert tiles.layout.coloraxis.colorbar.thickness == 12


def test_rope_2d_figures_without_two_heads_carry_no_states():
    maps = _rope_maps(1)
    fig = add_rope_2d_states(make_rope_2d_figure(maps, row=ROW, col=COL), maps,
                             {1: maps[-1]})
    assert not isinstance(fig.layout.meta, dict) or "live" not in fig.layout.meta


@pytest.mark.parametrize(("grid_h", "grid_w"), [(6, 10), (24, 64), (40, 64), (14, 14), (3, 64)])
def test_rope_tiles_rows_leave_room_for_ticks_and_titles(grid_h, grid_w):
    """The upper panels' tick labels and the lower panels' titles need about 50 px between the
    panel rows, whatever the grid's aspect (a wide grid's tiles make short panels)."""
    tiles = vit_grid.sincos_similarity_tiles(grid_h, grid_w, 32, max_side=210)
    fig = make_rope_2d_tiles_figure([(f"panel {i}", tiles) for i in range(4)])
    plot = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b  # px
    assert (fig.layout.yaxis.domain[0] - fig.layout.yaxis3.domain[1]) * plot >= 50


def test_tiles_axes_name_every_tile_unless_the_tiles_are_far_from_square():
    """A label per tile row and column; on a wide grid's short tiles (24 x 64 patches: 5 x 14
    cells at 210 a side) every other row, so the labels do not run into each other."""
    wider = make_tiles_figure(vit_grid.sincos_similarity_tiles(40, 64, 32))  # 12 x 20 cells
    assert list(wider.layout.yaxis.ticktext) == ["0", "3", "6", "9", "12", "15", "18", "21",
                                                 "24", "27", "30", "33", "36", "39"]
    wide = make_tiles_figure(vit_grid.sincos_similarity_tiles(24, 64, 32, max_side=210))
    assert list(wide.layout.yaxis.ticktext) == ["0", "4", "7", "11", "14", "18", "21"]
    assert len(wide.layout.xaxis.ticktext) == 14
    tall = make_tiles_figure(vit_grid.sincos_similarity_tiles(64, 24, 32, max_side=210))
    assert len(tall.layout.xaxis.ticktext) == 7 and len(tall.layout.yaxis.ticktext) == 14
    z = np.asarray(wide.data[0].z, dtype=np.float64)  # (14 tiles of 5 cells + gaps, 14 of 14)
    assert z.shape == (14 * 6, 14 * 15)
    np.testing.assert_allclose(wide.layout.yaxis.tickvals, np.arange(0, 14, 2) * 6 + 2)
