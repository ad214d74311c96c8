r"""ViT's 2-D sin-cos position embedding of a patch grid: the table, and what it looks like.

The table (`sincos_2d_encoding`) is MAE's (He et al., 2022; facebookresearch/mae,
``util/pos_embed.py``), built from two 1-D tables of half the width: ``get_2d_sincos_pos_embed``
runs ``np.meshgrid(grid_w, grid_h)``, whose *first* output is the x (column) coordinate, and
encodes it into channels [0, d/2); the row (y) coordinate goes into [d/2, d). MAE's code names the
halves ``emb_h`` / ``emb_w`` the other way round (see the source article 002_6ca15f9f9ded23fa.txt);
the values are what they are, and that is what this module reproduces, named correctly.

The ViT paper (Dosovitskiy et al., 2021, Fig. 7 centre) draws one small tile per patch, laid out
as the grid, each the cosine similarity of that patch's position embedding with every patch's.
For MAE's fixed 2-D sin-cos embedding (source 002_6ca15f9f9ded23fa.txt) the tiles can be read off
the formula: channels [0, d/2) encode the column, [d/2, d) the row, so

$$\cos(e_{r,c}, e_{r',c'}) = \tfrac{1}{2}\big(\cos_{d/2}(c - c') + \cos_{d/2}(r - r')\big)$$

with each half contributing the 1-D similarity of its own coordinate (each half has |.|^2 = d/4).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from numpy.typing import DTypeLike

from core import limits
from core._checks import (
    InputError,
    check_base,
    check_dtype,
    check_even_d_model,
    check_finite_array,
    check_int,
    shorten,
)
from core.overview import Overview, resample, resampler
from core.sinusoidal import encode_positions

# --- The table ------------------------------------------------------------------------------------
MAX_GRID_SIDE = 64  # 64 x 64 patches (4096 tokens) covers ViT-H/14 at 896 px


def sincos_2d_encoding(
    grid_h: int,
    grid_w: int,
    d_model: int,
    *,
    base: float = limits.DEFAULT_BASE,
    cls_token: bool = False,
    dtype: DTypeLike = np.float64,
) -> np.ndarray:
    """Shape ``(grid_h * grid_w [+ 1], d_model)``: patches row-major, an all-zero cls row first.

    Channels [0, d/2) are the concatenated-layout encoding of the patch's column index (x) with
    d/2 channels; [d/2, d) the same of its row index (y). d_model must be divisible by 4.
    """
    grid_h = check_int("grid_h", grid_h, minimum=1, maximum=MAX_GRID_SIDE)
    grid_w = check_int("grid_w", grid_w, minimum=1, maximum=MAX_GRID_SIDE)
    d_model = check_even_d_model("d_model", d_model, multiple=4)
    base = check_base(base)
    dtype = check_dtype(dtype)
    half = d_model // 2
    # Every patch of a column shares its x half, every patch of a row its y half: encode the W
    # column and H row indices once each (MAE encodes all H*W coordinates: the same values).
    table_x = encode_positions(np.arange(grid_w), half, base=base, layout="concatenated")
    table_y = encode_positions(np.arange(grid_h), half, base=base, layout="concatenated")
    emb = np.zeros((int(cls_token) + grid_h * grid_w, d_model), dtype=dtype)  # cls row: zeros
    patches = emb[int(cls_token):].reshape(grid_h, grid_w, d_model)  # a view, row-major
    patches[:, :, :half] = table_x[None, :, :]  # (W, d/2) -> every row
    patches[:, :, half:] = table_y[:, None, :]  # (H, d/2) -> every column
    return emb


# --- What the table looks like --------------------------------------------------------------------
MAX_TILES_SIDE = 14  # tiles per side: ViT-B/16's full 14 x 14 grid; larger grids are subsampled
MAX_MOSAIC_SIDE = 300  # cells per side of the whole tiles figure, gaps included: ~1 per pixel


@dataclass(frozen=True)
class VitPreset:
    grid_h: int
    grid_w: int
    d_model: int
    cls_token: bool
    note: str  # where the numbers come from


VIT_PRESETS: dict[str, VitPreset] = {
    "ViT-B/16": VitPreset(14, 14, 768, True, "224 px / 16 px patches, width 768: (197, 768)"),
    "ViT-L/16": VitPreset(14, 14, 1024, True, "224 px / 16 px patches, width 1024: (197, 1024)"),
    "4 x 4 teaching grid": VitPreset(4, 4, 64, False, "small enough to read every number"),
    "6 x 10 rectangle": VitPreset(6, 10, 128, False, "a 96 x 160 px image in 16 px patches"),
}


def parse_patch(text: str, grid_h: int, grid_w: int) -> tuple[int, int]:
    """The selected patch from text ``"row,col"``; empty -> the centre patch.

    Raises ValueError (an `InputError`: reason ``patch_not_allowed`` or ``patch_outside``) naming
    ``patch`` when the text is not two whole numbers or the patch is outside the grid.
    """
    grid_h = check_int("grid_h", grid_h, minimum=1, maximum=MAX_GRID_SIDE)
    grid_w = check_int("grid_w", grid_w, minimum=1, maximum=MAX_GRID_SIDE)
    text = str(text).strip()
    if not text:
        return grid_h // 2, grid_w // 2
    allowed = (f"patch must be 'row,col' with row 0 to {grid_h - 1} and col 0 to {grid_w - 1} "
               f"(the grid is {grid_h} x {grid_w})")
    match = re.fullmatch(r"(\d{1,6})\s*[,;\s]\s*(\d{1,6})", text)
    if not match:
        raise InputError("patch_not_allowed", f"patch={shorten(text)} is not allowed: {allowed}",
                         value=shorten(text))
    row, col = int(match[1]), int(match[2])
    if row >= grid_h or col >= grid_w:
        raise InputError("patch_outside", f"patch={row},{col} is outside the grid: {allowed}",
                         value=f"{row},{col}")
    return row, col


@dataclass(frozen=True)
class SimilarityTiles:
    """The ViT paper's tiles: a grid of tiles, each a (possibly averaged) similarity map."""

    tile_rows: np.ndarray  # (th,) source patch row of each tile row
    tile_cols: np.ndarray  # (tw,) source patch column of each tile column
    tiles: np.ndarray  # (th, tw, h, w) each tile's map, block-averaged to (h, w) if needed
    grid_h: int
    grid_w: int

    @property
    def every_patch(self) -> bool:
        return self.tile_rows.size == self.grid_h and self.tile_cols.size == self.grid_w

    @property
    def exact(self) -> bool:
        return self.tiles.shape[2:] == (self.grid_h, self.grid_w)

    def mosaic(self) -> np.ndarray:
        """The tiles in one array with a NaN gap after each: ``(th * (h + 1), tw * (w + 1))``,
        float32 (what a browser needs; half the bytes)."""
        th, tw, h, w = self.tiles.shape
        out = np.full((th, h + 1, tw, w + 1), np.nan, dtype=np.float32)
        out[:, :h, :, :w] = self.tiles.transpose(0, 2, 1, 3)  # (th, h, tw, w)
        return out.reshape(th * (h + 1), tw * (w + 1))


def _tile_patches(grid_h: int, grid_w: int, max_tiles: int) -> tuple[np.ndarray, np.ndarray]:
    """The patches that get a tile: every row and column up to `max_tiles`, else evenly spread
    ones (first and last kept). ``(th,), (tw,)``."""
    max_tiles = check_int("max_tiles", max_tiles, minimum=1)
    tile_rows = np.unique(np.round(np.linspace(0, grid_h - 1, min(grid_h, max_tiles))).astype(int))
    tile_cols = np.unique(np.round(np.linspace(0, grid_w - 1, min(grid_w, max_tiles))).astype(int))
    return tile_rows, tile_cols


def _tile_shape(grid_h: int, grid_w: int, tiles_h: int, tiles_w: int,
                max_side: int) -> tuple[int, int]:
    """Cells (h, w) of each tile: the grid itself if the mosaic fits `max_side` cells a side,
    else the grid at one scale for both axes, so a tile keeps the grid's aspect (40 x 64 patches
    at 14 x 14 tiles: 12 x 20 cells, not 20 x 20), each side at least one cell."""
    max_side = check_int("max_side", max_side, minimum=1)
    fit_h = max(1, max_side // tiles_h - 1)  # the most cells a tile can have down, gaps included
    fit_w = max(1, max_side // tiles_w - 1)
    scale = min(1.0, fit_h / grid_h, fit_w / grid_w)  # cells per patch, the same on both axes
    return max(1, round(grid_h * scale)), max(1, round(grid_w * scale))


def _resampled_tiles(maps: np.ndarray, tile_rows: np.ndarray, tile_cols: np.ndarray,
                     max_side: int) -> SimilarityTiles:
    """Tiles from each tile patch's map ``(th * tw, H, W)``, resampled (`_tile_shape`) so the
    mosaic stays within about `max_side` cells per side."""
    grid_h, grid_w = maps.shape[1:]
    tile_h, tile_w = _tile_shape(grid_h, grid_w, tile_rows.size, tile_cols.size, max_side)
    means = resampler(grid_w, tile_w).apply(resampler(grid_h, tile_h).apply(maps, axis=1), axis=2)
    return SimilarityTiles(
        tile_rows=tile_rows,
        tile_cols=tile_cols,
        tiles=means.reshape(tile_rows.size, tile_cols.size, *means.shape[1:]),  # (th, tw, h, w)
        grid_h=grid_h,
        grid_w=grid_w,
    )


# --- The same from the offsets alone --------------------------------------------------------------
# When two patches' similarity depends on their offset alone, one value per offset, g[dy, dx]
# ((2H - 1, 2W - 1), offset 0 at the centre), gives every map: patch (r, c)'s is a (H, W) window
# of g. The sin-cos code is such: every patch's code has the norm sqrt(d/2) (d/4 sin-cos pairs
# in each half), and cos(e_(y,x), e_(y',x')) = (f(x - x') + f(y - y')) / 2 with
# f(k) = (4/d) sum_j cos(w_j k), the page's formula; so are the 2-D rotations
# (`core.rope_2d.rope_2d_offset_similarity`). g replaces the (H*W, d) table and its (tiles, H*W)
# product (tests/reference.py keeps that way, as the tests' oracle): at 64 x 64, d 1280,
# ~60 -> ~10 ms.


def _check_offsets(offsets: np.ndarray) -> tuple[np.ndarray, int, int]:
    offsets = check_finite_array("offsets", offsets, ndim=2)
    if offsets.shape[0] % 2 == 0 or offsets.shape[1] % 2 == 0:
        raise ValueError(f"offsets must have shape (2H - 1, 2W - 1), got {offsets.shape}")
    return offsets, (offsets.shape[0] + 1) // 2, (offsets.shape[1] + 1) // 2


def offset_similarity_maps(offsets: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Each patch (rows[i], cols[j])'s similarity with every patch, from `offsets`
    (g[dy + H - 1, dx + W - 1]: the similarity of two patches dy rows and dx columns apart):
    ``(len(rows), len(cols), H, W)``."""
    offsets, grid_h, grid_w = _check_offsets(offsets)
    rows, cols = np.asarray(rows, dtype=int).ravel(), np.asarray(cols, dtype=int).ravel()
    for name, values, size in (("rows", rows, grid_h), ("cols", cols, grid_w)):
        if values.size and (values.min() < 0 or values.max() >= size):
            raise ValueError(f"{name} must be 0 to {size - 1} (the grid of these offsets), got "
                             f"{values.min()} to {values.max()}")
    dy = np.arange(grid_h)[None, :] - rows[:, None] + grid_h - 1  # (len(rows), H)
    dx = np.arange(grid_w)[None, :] - cols[:, None] + grid_w - 1  # (len(cols), W)
    return offsets[dy[:, None, :, None], dx[None, :, None, :]]


def offset_similarity_tiles(
    offsets: np.ndarray, *, max_tiles: int = MAX_TILES_SIDE, max_side: int = MAX_MOSAIC_SIDE,
) -> SimilarityTiles:
    """The ViT paper's tiles (`SimilarityTiles`) from the similarity at each offset
    (`offset_similarity_maps`): one tile per patch for grids up to `max_tiles` per side, else
    evenly spread patches (first and last kept); each tile resampled (`core.overview`'s low-pass
    at evenly spaced centres, one scale for both axes) so that the whole mosaic stays within
    about `max_side` cells per side."""
    offsets, grid_h, grid_w = _check_offsets(offsets)
    tile_rows, tile_cols = _tile_patches(grid_h, grid_w, max_tiles)
    maps = offset_similarity_maps(offsets, tile_rows, tile_cols)  # (th, tw, H, W)
    return _resampled_tiles(maps.reshape(-1, grid_h, grid_w), tile_rows, tile_cols, max_side)


def _axis_cosines(grid_h: int, grid_w: int, d_model: int,
                  base: float) -> tuple[np.ndarray, np.ndarray]:
    """f(k) = (4/d) sum_j cos(w_j k), the cosine of two half-codes k apart, for the rows'
    offsets k = -(H - 1) .. H - 1 and the columns' -(W - 1) .. W - 1: ``(2H - 1,), (2W - 1,)``."""
    grid_h = check_int("grid_h", grid_h, minimum=1, maximum=MAX_GRID_SIDE)
    grid_w = check_int("grid_w", grid_w, minimum=1, maximum=MAX_GRID_SIDE)
    half = check_even_d_model("d_model", d_model, multiple=4) // 2
    table = encode_positions(np.arange(max(grid_h, grid_w)), half, base=check_base(base),
                             layout="concatenated")
    f = table @ table[0] / (half // 2)  # row k . row 0 = sum_j cos(w_j k), k >= 0
    return (np.concatenate([f[grid_h - 1:0:-1], f[:grid_h]]),
            np.concatenate([f[grid_w - 1:0:-1], f[:grid_w]]))


def sincos_offset_similarity(grid_h: int, grid_w: int, d_model: int, *,
                             base: float = limits.DEFAULT_BASE) -> np.ndarray:
    """The cosine of `sincos_2d_encoding`'s codes of two patches at each offset (dy, dx):
    (f(dx) + f(dy)) / 2, ``(2H - 1, 2W - 1)`` (`offset_similarity_maps`)."""
    f_rows, f_cols = _axis_cosines(grid_h, grid_w, d_model, base)
    return 0.5 * (f_rows[:, None] + f_cols[None, :])


def sincos_half_maps(
    grid_h: int, grid_w: int, d_model: int, row: int, col: int, *,
    base: float = limits.DEFAULT_BASE,
) -> tuple[np.ndarray, np.ndarray]:
    """The similarity map from each half of `sincos_2d_encoding(grid_h, grid_w, d_model,
    base=base)` alone (the column (x) code of channels [0, d/2), the row (y) code of [d/2, d)):
    each half's cosine is f of its own offset alone, f(x - col) down every column and
    f(y - row) along every row. ``(column half (H, W), row half (H, W))``."""
    f_rows, f_cols = _axis_cosines(grid_h, grid_w, d_model, base)
    row = check_int("row", row, minimum=0, maximum=grid_h - 1)
    col = check_int("col", col, minimum=0, maximum=grid_w - 1)
    by_col = f_cols[np.arange(grid_w) - col + grid_w - 1]  # (W,)
    by_row = f_rows[np.arange(grid_h) - row + grid_h - 1]  # (H,)
    return (np.broadcast_to(by_col[None, :], (grid_h, grid_w)).copy(),
            np.broadcast_to(by_row[:, None], (grid_h, grid_w)).copy())


def sincos_similarity_tiles(
    grid_h: int,
    grid_w: int,
    d_model: int,
    *,
    base: float = limits.DEFAULT_BASE,
    max_tiles: int = MAX_TILES_SIDE,
    max_side: int = MAX_MOSAIC_SIDE,
) -> SimilarityTiles:
    """The tiles of `sincos_2d_encoding(grid_h, grid_w, d_model, base=base)`, each tile patch's
    cosine similarity with every patch, from the similarity at each offset instead of the table
    (`offset_similarity_tiles`)."""
    offsets = sincos_offset_similarity(grid_h, grid_w, d_model, base=base)
    return offset_similarity_tiles(offsets, max_tiles=max_tiles, max_side=max_side)


def sincos_patch_map(
    grid_h: int, grid_w: int, d_model: int, row: int, col: int, *,
    base: float = limits.DEFAULT_BASE,
) -> np.ndarray:
    """The cosine similarity of patch (row, col)'s code in `sincos_2d_encoding(grid_h, grid_w,
    d_model, base=base)` with every patch's, from the similarity at each offset: ``(H, W)``."""
    offsets = sincos_offset_similarity(grid_h, grid_w, d_model, base=base)
    row = check_int("row", row, minimum=0, maximum=grid_h - 1)
    col = check_int("col", col, minimum=0, maximum=grid_w - 1)
    return offset_similarity_maps(offsets, [row], [col])[0, 0]


def vit_encoding_overview(
    grid_h: int,
    grid_w: int,
    d_model: int,
    *,
    base: float = limits.DEFAULT_BASE,
    cls_token: bool = False,
    max_rows: int = limits.MAX_HEATMAP_ROWS,
    max_cols: int = limits.MAX_HEATMAP_COLS,
    max_cells: int = limits.SOLE_HEATMAP_CELLS,
) -> Overview:
    """The ``(tokens, d_model)`` table as a heatmap overview (`core.overview.resample`); the cls
    row is kept on its own row (never mixed with patches) so that it stays visible. The columns
    are four runs of one kind each ([sin | cos] of one coordinate, then of the other), resampled
    apart when the table is wider than the screen."""
    table = sincos_2d_encoding(grid_h, grid_w, d_model, base=base, cls_token=cls_token)
    head = 1 if cls_token else 0
    patches = resample(table[head:], max_rows=max_rows - head, max_cols=max_cols,
                       max_cells=max_cells, col_segments=4)  # (R, C)
    if not head:
        return patches
    cls_row = resample(table[:1], max_rows=1, max_cols=max_cols, col_segments=4)  # (1, C): zeros
    return Overview(
        values=np.concatenate([cls_row.values, patches.values], axis=0),  # (1 + R, C)
        row_edges=np.concatenate([[0], patches.row_edges + 1]),
        col_edges=patches.col_edges,
        exact=patches.exact,
    )


# --- The same from any table: a learned one, rows laid out as the grid -------------------------
def grid_shapes(rows: int, *, max_side: int = MAX_GRID_SIDE) -> list[tuple[int, int, bool]]:
    """The grids a table of `rows` rows can be: (grid_h, grid_w, cls_token) with
    grid_h * grid_w = rows (no class token) or rows - 1 (a class token first, as ViT's 197 =
    1 + 14 x 14), both sides from 2 to `max_side`; the squarest first."""
    rows = check_int("rows", rows, minimum=1)
    shapes = [(h, (rows - cls) // h, bool(cls))
              for cls in (1, 0) for h in range(2, max_side + 1)
              if (rows - cls) % h == 0 and 2 <= (rows - cls) // h <= max_side]
    return sorted(shapes, key=lambda s: (max(s[0], s[1]) / min(s[0], s[1]), not s[2], s[0]))


def table_similarity_tiles(
    table: np.ndarray, grid_h: int, grid_w: int, *, max_tiles: int = MAX_TILES_SIDE,
    max_side: int = MAX_MOSAIC_SIDE,
) -> SimilarityTiles:
    """The ViT paper's tiles of any position table ``(N, d)`` whose rows are a grid_h x grid_w
    grid, row-major (N = grid_h * grid_w, or one more with a class token first, left out): the
    cosine of each tile patch's row with every patch's, as `offset_similarity_tiles` draws them
    for a table whose similarity depends on the offset alone."""
    table = check_finite_array("table", table, ndim=2).astype(np.float64)  # (N, d)
    grid_h = check_int("grid_h", grid_h, minimum=1, maximum=MAX_GRID_SIDE)
    grid_w = check_int("grid_w", grid_w, minimum=1, maximum=MAX_GRID_SIDE)
    patches = grid_h * grid_w
    if table.shape[0] not in (patches, patches + 1):
        raise ValueError(f"table has {table.shape[0]} rows: a {grid_h} x {grid_w} grid needs "
                         f"{patches} (or {patches + 1} with a class token)")
    grid = table[-patches:]  # (H*W, d), a class token dropped
    unit = grid / np.maximum(np.linalg.norm(grid, axis=1, keepdims=True), 1e-300)  # (H*W, d)
    tile_rows, tile_cols = _tile_patches(grid_h, grid_w, max_tiles)
    sources = (tile_rows[:, None] * grid_w + tile_cols[None, :]).ravel()  # (th*tw,) row-major
    maps = (unit[sources] @ unit.T).reshape(-1, grid_h, grid_w)  # (th*tw, H, W) cosines
    return _resampled_tiles(maps, tile_rows, tile_cols, max_side)
