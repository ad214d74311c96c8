"""The vit-grid page's figures, checked on their traces; their live states (each state, applied
as the browser applies it, draws the figure the server makes at that head, or at that patch
when the pointer is over it)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import core
from core import rope_2d, vit_grid
from figures.common import MAX_LIVE_NUMBERS
from figures.vit_grid import (
    add_halves_states,
    add_patch_map_states,
    add_rope_2d_patch_states,
    add_rope_2d_states,
    add_rope_2d_tiles_states,
    add_tiles_range_states,
    make_halves_figure,
    make_patch_map_figure,
    make_rope_2d_figure,
    make_rope_2d_tiles_figure,
    make_tiles_figure,
    make_vit_encoding_figure,
    patch_lattice,
    similarity_range,
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
    assert len(fig.data) == 1  # the selected patch is a square of the layout, at its cell
    (mark,) = fig.layout.shapes
    assert (mark.xanchor, mark.yanchor, mark.xref, mark.yref) == (7, 2, "x", "y")
    assert (mark.xsizemode, mark.ysizemode) == ("pixel", "pixel")
    columns, rows = vit_grid.sincos_half_maps(6, 10, 128, 2, 7)
    halves = make_halves_figure(columns, rows, row=2, col=7, d_model=128)
    assert [(m.xanchor, m.yanchor, m.xref, m.yref) for m in halves.layout.shapes] == [
        (7, 2, "x", "y"), (7, 2, "x2", "y2")]
    left = np.asarray(halves.data[0].z)
    right = np.asarray(halves.data[1].z)
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


def _rope_maps(head: int, row: int = ROW, col: int = COL) -> list[tuple[str, np.ndarray]]:
    """The page's four panels at `head` and patch (row, col), from the slow per-patch
    formulas."""
    emb = core.sincos_2d_encoding(GRID_H, GRID_W, 32)
    rotations = [rope_2d.rope_2d_axial_angles(GRID_H, GRID_W, D_HEAD),
                 rope_2d.rope_2d_dinov3_angles(GRID_H, GRID_W, D_HEAD), _mixed_angles(head)]
    titles = ["MAE", "axial", "DINOv3", message("fig.vit_grid.rope_mixed", "en")]
    values = [reference.patch_similarity_map(emb, GRID_H, GRID_W, row, col)] + [
        rope_2d.rope_2d_similarity(angles, row, col).astype(np.float32) for angles in rotations]
    return list(zip(titles, values, strict=True))


# One colour range for every patch and head (the page's: every scheme's lowest cosine).
COLOURS = {"zmin": -0.25, "zmax": 1.0, "colorscale": "Viridis"}


def test_rope_2d_states_draw_each_head():
    def make(head):
        maps = _rope_maps(head)
        fig = make_rope_2d_figure(maps, row=ROW, col=COL, head=head, colours=COLOURS)
        return add_rope_2d_states(fig, {h: _rope_maps(h)[-1][1]
                                        for h in range(1, rope_2d.MIXED_HEADS + 1)},
                                  row=ROW, col=COL)

    values = assert_states_draw_the_servers_figures(make, "head", 4)
    assert values == [str(h) for h in range(1, 13)]
    # A head changes the last panel's cells and the title alone (the browser draws such a
    # state as a picture over the heatmap): the panels' titles and colour range stay.
    for data, layout, traces in live_states(make(4), "head")["updates"]:
        assert list(data) == ["z"] and list(layout) == ["title.text"] and traces == [3]
    assert make(7).layout.title.text.endswith("(RoPE-Mixed: head 7)")
    assert make(7).layout.annotations[3].text == "RoPE-Mixed"
    assert (make(7).layout.coloraxis.cmin, make(7).layout.coloraxis.cmax) == (-0.25, 1.0)


def _rope_tiles(head: int) -> list[tuple[str, vit_grid.SimilarityTiles]]:
    rotations = [rope_2d.rope_2d_axial_angles(GRID_H, GRID_W, D_HEAD), _mixed_angles(head)]
    tiles = [vit_grid.offset_similarity_tiles(rope_2d.rope_2d_offset_similarity(angles))
             for angles in rotations]
    return [("MAE", vit_grid.sincos_similarity_tiles(GRID_H, GRID_W, 32)), ("axial", tiles[0]),
            (message("fig.vit_grid.rope_mixed", "en"),
             dataclasses.replace(tiles[1], tiles=tiles[1].tiles.astype(np.float32)))]


def test_rope_2d_tiles_states_draw_each_head():
    def make(head):
        tiles = _rope_tiles(head)
        return add_rope_2d_tiles_states(
            make_rope_2d_tiles_figure(tiles, head=head, colours=COLOURS),
            {h: _rope_tiles(h)[-1][1] for h in (1, 2, 7, 12)})

    assert assert_states_draw_the_servers_figures(make, "head", 2) == ["1", "2", "7", "12"]
    for data, layout, _ in live_states(make(2), "head")["updates"]:
        assert list(data) == ["z"] and list(layout) == ["title.text"]


def test_rope_2d_figures_share_one_colour_axis_with_one_bar():
    maps = _rope_maps(3)
    fig = make_rope_2d_figure(maps, row=ROW, col=COL, head=3)
    heatmaps = [trace for trace in fig.data if trace.type == "heatmap"]
    assert [trace.coloraxis for trace in heatmaps] == ["coloraxis"] * 4
    lowest = min(float(np.min(values)) for _, values in maps)
    assert fig.layout.coloraxis.cmin == pytest.approx(min(lowest, 0.999))
    assert fig.layout.coloraxis.cmax == 1.0
    assert fig.layout.coloraxis.colorbar.title.text == "cosine"
    tiles = make_rope_2d_tiles_figure(_rope_tiles(3), head=3)
    assert [trace.coloraxis for trace in tiles.data] == ["coloraxis"] * 3
    assert tiles.layout.coloraxis.colorbar.thickness == 12


def test_rope_2d_figures_without_two_heads_carry_no_states():
    maps = _rope_maps(1)
    fig = add_rope_2d_states(make_rope_2d_figure(maps, row=ROW, col=COL, head=1),
                             {1: maps[-1][1]}, row=ROW, col=COL)
    assert not isinstance(fig.layout.meta, dict) or "live" not in fig.layout.meta


@pytest.mark.parametrize(("grid_h", "grid_w"), [(6, 10), (24, 64), (40, 64), (14, 14), (3, 64)])
def test_rope_tiles_rows_leave_room_for_ticks_and_titles(grid_h, grid_w):
    """The upper panels' tick labels and the lower panels' titles need about 50 px between the
    panel rows, whatever the grid's aspect (a wide grid's tiles make short panels)."""
    tiles = vit_grid.sincos_similarity_tiles(grid_h, grid_w, 32, max_side=210)
    fig = make_rope_2d_tiles_figure([(f"panel {i}", tiles) for i in range(4)], head=1)
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


# --- live states: the selected patch follows the pointer ------------------------------------------
PATCHES = [(r, c) for r in range(GRID_H) for c in range(GRID_W)]
EMB = core.sincos_2d_encoding(GRID_H, GRID_W, 32)  # (35, 32): MAE's table of the small grid


def _patch(text: str) -> tuple[int, int]:
    row, col = (int(n) for n in text.split(","))
    return row, col


def _map(row: int, col: int) -> np.ndarray:
    return reference.patch_similarity_map(EMB, GRID_H, GRID_W, row, col)


def test_the_patch_map_draws_each_patch_under_the_pointer():
    """The tiles view's map at every patch: its cells, its colour range (shared with tiles that
    show 2 x 2 of the patches, averaged), its square and its title."""
    tiles = vit_grid.sincos_similarity_tiles(GRID_H, GRID_W, 32, max_tiles=2, max_side=8)
    mosaic = tiles.mosaic()

    def make(text):
        row, col = _patch(text)
        shown = _map(row, col)
        fig = make_patch_map_figure(shown, row=row, col=col,
                                    colours=similarity_range(mosaic, shown))
        return add_patch_map_states(fig, {p: _map(*p) for p in PATCHES}, shared=mosaic)

    values = assert_states_draw_the_servers_figures(make, "patch", "1,5")
    assert values == [f"{r},{c}" for r, c in PATCHES]  # "row,col", as the link writes it
    fig = make("1,5")
    assert fig.layout.meta["hover"] == {"control": "patch", "traces": [0], "text": "{y},{x}"}
    _, layout, traces = live_states(fig, "patch")["updates"][values.index("4,0")]
    assert layout["title.text"] == "Patch (4, 0) against every patch"
    assert (layout["shapes[0].xanchor"], layout["shapes[0].yanchor"], traces) == (0, 4, [0])
    # The corner's map dips below the averaged tiles: the shared floor moves with the patch.
    assert len({round(d["zmin"][0], 9) for d, _, _ in live_states(fig, "patch")["updates"]}) > 1


def test_the_tiles_follow_a_previewed_patchs_colour_range():
    tiles = vit_grid.sincos_similarity_tiles(GRID_H, GRID_W, 32, max_tiles=2, max_side=8)
    mosaic = tiles.mosaic()

    def make(text):
        fig = make_tiles_figure(tiles, colours=similarity_range(mosaic, _map(*_patch(text))))
        return add_tiles_range_states(fig, mosaic, {p: _map(*p) for p in PATCHES})

    assert len(assert_states_draw_the_servers_figures(make, "patch", "2,3")) == len(PATCHES)
    # Tiles of every patch hold every map's lowest value: the range never moves, no states.
    whole = vit_grid.sincos_similarity_tiles(GRID_H, GRID_W, 32)
    fig = add_tiles_range_states(make_tiles_figure(whole), whole.mosaic(),
                                 {p: _map(*p) for p in PATCHES})
    assert not isinstance(fig.layout.meta, dict) or "live" not in fig.layout.meta


def test_the_halves_draw_each_patch_under_the_pointer():
    def halves(row, col):
        return reference.half_similarity_maps(EMB, GRID_H, GRID_W, row, col)

    def make(text):
        row, col = _patch(text)
        fig = make_halves_figure(*halves(row, col), row=row, col=col, d_model=32)
        return add_halves_states(fig, {p: halves(*p) for p in PATCHES})

    assert len(assert_states_draw_the_servers_figures(make, "patch", "0,6")) == len(PATCHES)
    assert make("0,6").layout.meta["hover"]["traces"] == [0, 1]  # either half


def test_the_rope_maps_draw_each_patch_under_the_pointer_and_each_head_on_a_drag():
    """Every panel at the patch under the pointer; the head slider's states still draw each
    head (at the patch drawn). Both controls' states on one figure."""
    heads = (1, 5, 12)

    def make_at(head, row, col):
        maps = _rope_maps(head, row, col)
        fig = add_rope_2d_states(
            make_rope_2d_figure(maps, row=row, col=col, head=head, colours=COLOURS),
            {h: _rope_maps(h, row, col)[-1][1] for h in heads}, row=row, col=col)
        return add_rope_2d_patch_states(
            fig, {p: [values for _, values in _rope_maps(head, *p)] for p in PATCHES[::3]},
            head=head)

    values = assert_states_draw_the_servers_figures(lambda text: make_at(5, *_patch(text)),
                                                    "patch", "3,3")
    assert values == [f"{r},{c}" for r, c in PATCHES[::3]]
    fig = make_at(5, 3, 3)
    _, layout, traces = live_states(fig, "patch")["updates"][values.index("4,2")]
    assert traces == [0, 1, 2, 3]
    assert [layout[f"shapes[{i}].xanchor"] for i in range(4)] == [2] * 4
    assert layout["title.text"].startswith("Patch (4, 2) against every patch")
    assert fig.layout.meta["hover"]["traces"] == [0, 1, 2, 3]
    assert assert_states_draw_the_servers_figures(lambda head: make_at(head, 3, 3), "head",
                                                  5) == ["1", "5", "12"]


def test_figures_of_one_patch_carry_no_patch_states():
    shown = _map(0, 0)
    fig = add_patch_map_states(make_patch_map_figure(shown, row=0, col=0), {(0, 0): shown})
    assert not isinstance(fig.layout.meta, dict)


def test_patch_lattice_is_every_patch_when_they_fit_else_every_kth_row_and_column():
    assert patch_lattice(14, 14, row=7, col=7, per_state=196) == (
        list(range(14)), list(range(14)), 1)  # 196 states of 196 numbers: 38,416 <= 40,000
    assert MAX_LIVE_NUMBERS // 4096 == 9
    # 64 x 64: a state is 4,096 numbers, 9 fit. Every 17th to 20th row and column through
    # (32, 40) still make 3 x 4 = 12 (the columns from 40 % k reach 4 times): every 21st.
    assert patch_lattice(64, 64, row=32, col=40, per_state=4096) == (
        [11, 32, 53], [19, 40, 61], 21)
    # 63 x 63's halves (7,938 numbers a state, 5 fit): every 31st row and column through
    # (31, 31) makes 3 x 3, every 32nd leaves (31, 31) alone: every 32nd from 0, 2 x 2.
    assert patch_lattice(63, 63, row=31, col=31, per_state=2 * 63 * 63) == ([0, 32], [0, 32], 32)
    assert patch_lattice(1, 1, row=0, col=0, per_state=1) == ([], [], 0)  # one patch: nothing
    assert patch_lattice(64, 64, row=0, col=0, per_state=30_000) == ([], [], 0)  # one fits
