"""core.vit_grid against independent values: slow loops, closed forms, the articles' numbers and
the reference code (tests/reference.py)."""

from __future__ import annotations

import numpy as np
import pytest

import core
from core import limits, vit_grid
from tests import reference
from tests.reference import loop_offset_dot
from ui.pages import params_of


def test_vit_b16_shape_with_cls():
    emb = core.sincos_2d_encoding(14, 14, 768, cls_token=True)
    assert emb.shape == (197, 768)
    np.testing.assert_array_equal(emb[0], 0.0)
    mae = reference.mae_get_2d_sincos_pos_embed(768, 14, cls_token=True)
    np.testing.assert_allclose(emb, mae, atol=1e-6)  # MAE's float32 grid


def test_column_half_constant_down_columns_row_half_along_rows():
    h, w, d = 5, 7, 64
    emb = core.sincos_2d_encoding(h, w, d).reshape(h, w, d)  # (row, col, channel)
    column_half, row_half = emb[..., : d // 2], emb[..., d // 2 :]
    np.testing.assert_array_equal(column_half, np.broadcast_to(column_half[:1], column_half.shape))
    np.testing.assert_array_equal(row_half, np.broadcast_to(row_half[:, :1], row_half.shape))
    maps = vit_grid.sincos_half_maps(h, w, d, 2, 3)
    np.testing.assert_allclose(maps[0], np.broadcast_to(maps[0][:1], (h, w)), atol=1e-12)
    np.testing.assert_allclose(maps[1], np.broadcast_to(maps[1][:, :1], (h, w)), atol=1e-12)


def test_patch_map_closed_form_mean_of_two_1d_cosines():
    h, w, d = 6, 10, 128
    emb = core.sincos_2d_encoding(h, w, d, cls_token=True)
    sim = reference.patch_similarity_map(emb, h, w, 2, 7)  # the table's own cosines
    for r in range(h):
        for c in range(w):
            column_part = loop_offset_dot(c - 7, d // 2) / (d // 4)  # each half: |.|^2 = d/4
            row_part = loop_offset_dot(r - 2, d // 2) / (d // 4)
            expected = 0.5 * (column_part + row_part)
            assert sim[r, c] == pytest.approx(expected, abs=1e-12)
    assert sim[2, 7] == pytest.approx(1.0)


def test_tiles_are_every_patchs_map_for_small_grids():
    h, w, d = 4, 5, 32
    emb = core.sincos_2d_encoding(h, w, d)
    tiles = vit_grid.sincos_similarity_tiles(h, w, d)
    assert tiles.every_patch and tiles.exact and tiles.tiles.shape == (h, w, h, w)
    for r in range(h):
        for c in range(w):
            np.testing.assert_allclose(
                tiles.tiles[r, c], reference.patch_similarity_map(emb, h, w, r, c), atol=1e-12
            )
    mosaic = tiles.mosaic()
    assert mosaic.shape == (h * (h + 1), w * (w + 1))
    np.testing.assert_allclose(mosaic[(h + 1) * 1 : (h + 1) * 1 + h, (w + 1) * 2 : (w + 1) * 2 + w],
                               tiles.tiles[1, 2], atol=1e-6)
    assert np.isnan(mosaic[h, 0]) and np.isnan(mosaic[0, w])


def test_tiles_for_large_grids_stay_small():
    emb = core.sincos_2d_encoding(64, 64, 64)
    tiles = vit_grid.sincos_similarity_tiles(64, 64, 64)
    assert tiles.tile_rows.size == tiles.tile_cols.size == vit_grid.MAX_TILES_SIDE
    assert tiles.tile_rows[0] == 0 and tiles.tile_rows[-1] == 63
    assert not tiles.every_patch and not tiles.exact
    assert max(tiles.mosaic().shape) <= vit_grid.MAX_MOSAIC_SIDE
    # each resampled tile is that patch's full map through the textbook resampler
    full = reference.patch_similarity_map(emb, 64, 64, 0, 63)
    expected = reference.loop_gaussian_resample(
        reference.loop_gaussian_resample(full, tiles.tiles.shape[2]), tiles.tiles.shape[3], axis=1)
    np.testing.assert_allclose(tiles.tiles[0, -1], expected, atol=1e-6)


@pytest.mark.parametrize(("grid_h", "grid_w", "max_side"), [
    (40, 64, 300), (64, 40, 300), (40, 64, 210), (3, 64, 300), (64, 64, 300), (48, 64, 210),
])
def test_subsampled_tiles_keep_the_grids_aspect(grid_h, grid_w, max_side):
    """A tile is the grid at one scale for both axes: 40 x 64 patches give tiles of 5:8 (within
    one cell), not squares, the longer side using the whole room the mosaic has (14 tiles and
    14 gaps in `max_side` cells); a square grid keeps square tiles. The MAE tiles and a
    rotation's (read off the offsets) alike."""
    room = max_side // 14 - 1  # cells per tile side: 20 at 300 cells, 14 at 210
    for tiles in (vit_grid.sincos_similarity_tiles(grid_h, grid_w, 64, max_side=max_side),
                  vit_grid.offset_similarity_tiles(np.zeros((2 * grid_h - 1, 2 * grid_w - 1)),
                                                   max_side=max_side)):
        th, tw, h, w = tiles.tiles.shape
        assert (th, tw) == (min(grid_h, 14), 14)
        longer, shorter = max(grid_h, grid_w), min(grid_h, grid_w)
        assert max(h, w) == room  # the longer side
        assert abs(min(h, w) - room * shorter / longer) <= 1  # the shorter, in proportion
        assert (h >= w) == (grid_h >= grid_w)
        assert tiles.mosaic().shape == (th * (h + 1), tw * (w + 1))
        assert max(tiles.mosaic().shape) <= max_side


def test_square_and_small_grids_keep_their_tiles():
    """What the aspect fix leaves alone: a square grid's tiles stay square (64 x 64 patches:
    20 x 20 cells at 300 a side), and a grid that fits is drawn cell for cell."""
    assert vit_grid.sincos_similarity_tiles(64, 64, 64).tiles.shape == (14, 14, 20, 20)
    assert vit_grid.sincos_similarity_tiles(14, 14, 768).tiles.shape == (14, 14, 14, 14)
    assert vit_grid.sincos_similarity_tiles(6, 10, 128).tiles.shape == (6, 10, 6, 10)
    assert vit_grid.sincos_similarity_tiles(1, 1, 4).tiles.shape == (1, 1, 1, 1)
    with pytest.raises(ValueError, match="max_side"):
        vit_grid.sincos_similarity_tiles(6, 10, 128, max_side=0)


@pytest.mark.parametrize(("grid_h", "grid_w", "d_model", "base"), [
    (1, 1, 4, 10_000.0), (6, 10, 128, 10_000.0), (14, 14, 768, 100.0), (3, 64, 8, 10_000.0),
    (64, 40, 64, 500_000.0), (40, 64, 768, 10_000.0),
    (vit_grid.MAX_GRID_SIDE, vit_grid.MAX_GRID_SIDE, 1280, 10_000.0),
])
def test_sincos_tiles_patch_and_half_maps_equal_the_tables(grid_h, grid_w, d_model, base):
    """The pages' tiles, patch map and half maps come from one cosine profile per axis
    (`sincos_similarity_tiles`, `sincos_patch_map`, `sincos_half_maps`): the same numbers as the
    table's cosines (tests/reference.py's `similarity_tiles`, `patch_similarity_map`,
    `half_similarity_maps` of `sincos_2d_encoding`), subsampled and resampled grids included,
    and a cls row changes no patch's map."""
    emb = core.sincos_2d_encoding(grid_h, grid_w, d_model, base=base, cls_token=True)
    table = reference.similarity_tiles(emb, grid_h, grid_w)
    profile = vit_grid.sincos_similarity_tiles(grid_h, grid_w, d_model, base=base)
    np.testing.assert_array_equal(profile.tile_rows, table.tile_rows)
    np.testing.assert_array_equal(profile.tile_cols, table.tile_cols)
    np.testing.assert_allclose(profile.tiles, table.tiles, atol=1e-12)
    small = vit_grid.sincos_similarity_tiles(grid_h, grid_w, d_model, base=base, max_side=60)
    np.testing.assert_allclose(
        small.tiles, reference.similarity_tiles(emb, grid_h, grid_w, max_side=60).tiles,
        atol=1e-12)
    for row, col in ((0, 0), (grid_h // 3, grid_w - 1), (grid_h - 1, grid_w // 2)):
        np.testing.assert_allclose(
            vit_grid.sincos_patch_map(grid_h, grid_w, d_model, row, col, base=base),
            reference.patch_similarity_map(emb, grid_h, grid_w, row, col), atol=1e-12)
        for fast, slow in zip(
                vit_grid.sincos_half_maps(grid_h, grid_w, d_model, row, col, base=base),
                reference.half_similarity_maps(emb, grid_h, grid_w, row, col), strict=True):
            np.testing.assert_allclose(fast, slow, atol=1e-12)


def test_sincos_patch_map_is_the_mean_of_two_1d_cosines_and_checks_its_input():
    h, w, d = 5, 9, 64
    sim = vit_grid.sincos_patch_map(h, w, d, 4, 1)
    for r in range(h):
        for c in range(w):
            expected = 0.5 * (loop_offset_dot(c - 1, d // 2) + loop_offset_dot(r - 4, d // 2))
            assert sim[r, c] == pytest.approx(expected / (d // 4), abs=1e-12)
    with pytest.raises(ValueError, match="row"):
        vit_grid.sincos_patch_map(h, w, d, h, 0)
    with pytest.raises(ValueError, match="d_model"):
        vit_grid.sincos_similarity_tiles(h, w, 66)
    with pytest.raises(ValueError, match="grid_w"):
        vit_grid.sincos_similarity_tiles(h, vit_grid.MAX_GRID_SIDE + 1, d)
    offsets = vit_grid.sincos_offset_similarity(h, w, d)
    assert offsets.shape == (2 * h - 1, 2 * w - 1)
    for rows, cols, name in (([h], [0], "rows"), ([0], [-1], "cols")):
        with pytest.raises(ValueError, match=name):
            vit_grid.offset_similarity_maps(offsets, rows, cols)
    with pytest.raises(ValueError, match="offsets"):
        vit_grid.offset_similarity_tiles(np.zeros((4, 5)))


def test_vit_encoding_overview_keeps_the_cls_row():
    overview = vit_grid.vit_encoding_overview(14, 14, 768, cls_token=True)
    assert overview.values.shape == (197, 768)  # every channel its own column up to 1024
    assert overview.row_edges[-1] == 197 and overview.col_edges[-1] == 768
    np.testing.assert_array_equal(overview.values[0], 0.0)
    big = vit_grid.vit_encoding_overview(64, 64, 1280, cls_token=True)
    assert big.values.shape == (1 + limits.SOLE_HEATMAP_CELLS // 512, 512)
    np.testing.assert_array_equal(big.row_edges[:2], [0, 1])  # the cls row on its own
    np.testing.assert_array_equal(big.values[0], 0.0)
    # 1280 channels are four runs of 320 (sin, cos of one coordinate, then the other), each
    # shown as 128 columns of its own kind: patch (0, 0) has every sine 0 and every cosine 1.
    wide = vit_grid.vit_encoding_overview(8, 8, 1280)  # 64 exact rows, 1280 -> 512 columns
    assert wide.values.shape == (64, 512)
    first_patch = wide.values[0]
    np.testing.assert_allclose(first_patch[0:128], 0.0, atol=1e-6)
    np.testing.assert_allclose(first_patch[128:256], 1.0, atol=1e-6)
    np.testing.assert_allclose(first_patch[256:384], 0.0, atol=1e-6)
    np.testing.assert_allclose(first_patch[384:], 1.0, atol=1e-6)
    assert list(wide.col_edges[[0, 128, 256, 384, 512]]) == [0, 320, 640, 960, 1280]
    exact = vit_grid.vit_encoding_overview(4, 4, 64)
    assert exact.exact
    np.testing.assert_allclose(exact.values, core.sincos_2d_encoding(4, 4, 64), atol=1e-7)


def test_parse_patch():
    assert vit_grid.parse_patch("3,4", 14, 14) == (3, 4)
    assert vit_grid.parse_patch(" 0 , 13 ", 14, 14) == (0, 13)
    assert vit_grid.parse_patch("", 6, 10) == (3, 5)


@pytest.mark.parametrize("text", ["3", "a,b", "3,4,5", "-1,2", "14,0", "0,14", "1.5,2"])
def test_parse_patch_errors_name_patch(text):
    with pytest.raises(ValueError, match=r"^patch=.* (is not allowed|is outside the grid)"):
        vit_grid.parse_patch(text, 14, 14)


def test_presets():
    b16 = vit_grid.VIT_PRESETS["ViT-B/16"]
    assert (b16.grid_h, b16.grid_w, b16.d_model, b16.cls_token) == (14, 14, 768, True)
    specs = params_of("vit-grid")
    for preset in vit_grid.VIT_PRESETS.values():  # every preset is a valid set of URL values
        specs["grid_h"].validate(preset.grid_h)
        specs["grid_w"].validate(preset.grid_w)
        specs["d_model"].validate(preset.d_model)
    assert specs["grid_h"].maximum == core.vit_grid.MAX_GRID_SIDE


# --- the 2-D sin-cos grid itself, against MAE's get_2d_sincos_pos_embed ---------------------
@pytest.mark.parametrize("grid, d_model", [(1, 4), (4, 8), (14, 768), (16, 1024), (7, 64)])
@pytest.mark.parametrize("cls_token", [False, True])
def test_square_grids_equal_mae(grid, d_model, cls_token):
    ours = core.sincos_2d_encoding(grid, grid, d_model, cls_token=cls_token)
    mae = reference.mae_get_2d_sincos_pos_embed(d_model, grid, cls_token=cls_token)
    assert ours.shape == mae.shape
    np.testing.assert_allclose(ours, mae, atol=1e-12, rtol=0)


def test_vit_b16_shape_with_cls_token():
    assert core.sincos_2d_encoding(14, 14, 768, cls_token=True).shape == (197, 768)


def test_halves_encode_column_then_row_on_rectangular_grids():
    h, w, d = 3, 5, 16
    emb = core.sincos_2d_encoding(h, w, d).reshape(h, w, d)
    first, second = emb[..., : d // 2], emb[..., d // 2 :]
    # [0, d/2) depends only on the column: constant down each column of patches.
    assert np.allclose(first, first[:1, :, :])
    # [d/2, d) depends only on the row: constant along each row of patches.
    assert np.allclose(second, second[:, :1, :])
    np.testing.assert_allclose(first[0, :, :], reference.loop_concatenated(w, d // 2), atol=1e-12)
    np.testing.assert_allclose(second[:, 0, :], reference.loop_concatenated(h, d // 2), atol=1e-12)


# --- tiles of any table, its rows a grid (a learned ViT table) ---------------------------------
@pytest.mark.parametrize(("grid_h", "grid_w", "cls"), [(14, 14, True), (6, 10, False),
                                                        (40, 24, False)])
def test_table_similarity_tiles_equal_the_loop_oracle(grid_h, grid_w, cls):
    rng = np.random.default_rng(grid_h)
    table = rng.standard_normal((grid_h * grid_w + cls, 12))
    got = vit_grid.table_similarity_tiles(table, grid_h, grid_w)
    expected = reference.similarity_tiles(table, grid_h, grid_w, max_tiles=vit_grid.MAX_TILES_SIDE,
                                          max_side=vit_grid.MAX_MOSAIC_SIDE)
    np.testing.assert_array_equal(got.tile_rows, expected.tile_rows)
    np.testing.assert_array_equal(got.tile_cols, expected.tile_cols)
    np.testing.assert_allclose(got.tiles, expected.tiles, atol=1e-12)


def test_table_tiles_of_maes_table_equal_its_offset_tiles():
    """MAE's sin-cos table read as a table gives the tiles its closed form gives."""
    table = vit_grid.sincos_2d_encoding(8, 8, 64, cls_token=True, dtype="float64")
    from_table = vit_grid.table_similarity_tiles(table, 8, 8)
    closed = vit_grid.sincos_similarity_tiles(8, 8, 64)
    np.testing.assert_allclose(from_table.tiles, closed.tiles, atol=1e-12)


def test_grid_shapes_of_a_vit_table_and_others():
    assert vit_grid.grid_shapes(197)[0] == (14, 14, True)
    assert vit_grid.grid_shapes(196)[0] == (14, 14, False)
    assert (16, 32, False) in vit_grid.grid_shapes(512)
    assert vit_grid.grid_shapes(3) == [] and vit_grid.grid_shapes(10_000) == []
    with pytest.raises(ValueError, match="a 14 x 14 grid needs 196"):
        vit_grid.table_similarity_tiles(np.ones((190, 4)), 14, 14)
