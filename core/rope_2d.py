"""2-D RoPE for image patches: the angle each frequency pair of a head turns by at each patch.

Vision transformers since MAE rotate queries and keys instead of adding a table:
- **axial** (naver-ai/rope-vit ``compute_axial_cis``; EVA-02 alike): half of the pairs turn with
  the patch's column x, the other half with its row y, each half at frequencies
  base^(-4j/d_head), j < d_head/4 (rope-vit's base is 100).
- **DINOv3** (Hugging Face's ``DINOv3ViTRopePositionEmbedding``): the same split, of patch
  *centres* normalised to [-1, 1] (so a larger image covers the same range), times 2 pi; row
  angles first, base 100.
- **mixed** (RoPE-Mixed, Heo et al., ECCV 2024, ``init_random_2d_freqs``): every pair of every
  head turns with x fx + y fy, a 2-D frequency vector whose direction is learned. Here at its
  initialisation (trained weights do not ship): magnitudes base^(-4j/d_head), each head's
  directions a random angle and that angle + 90 degrees; base 10.

For a query and a key whose pairs all point the same way, q.k / (d_head/2) at patches p and p'
is the mean over pairs of cos(angle_p - angle_p'): `rope_2d_similarity`. That is the cosine
similarity of the vectors [cos angle_p | sin angle_p] (tests/reference.py's `rope_2d_table`), so
the ViT paper's tiles of a rotation are that table's, as for MAE's. Every angle here is affine in
the patch's row and column, so that value depends on the offset alone: `rope_2d_offset_similarity`
gives it at each offset, and `core.vit_grid.offset_similarity_tiles` the tiles from it.
"""

from __future__ import annotations

import math

import numpy as np

from core import limits
from core._checks import check_base, check_int

ROPE_VIT_BASE = 100.0  # rope-vit's axial theta, and DINOv3's rope_theta
MIXED_BASE = 10.0  # rope-vit's init_random_2d_freqs theta
MIXED_HEADS = 12  # ViT-B's heads: the RoPE-Mixed heads a page draws from (seed 0)


def _check_grid(rows: int, cols: int, d_head: int) -> tuple[int, int, int]:
    rows = check_int("rows", rows, minimum=1, maximum=limits.MAX_ROPE_2D_SIDE)
    cols = check_int("cols", cols, minimum=1, maximum=limits.MAX_ROPE_2D_SIDE)
    d_head = check_int("d_head", d_head, minimum=4, maximum=limits.MAX_D_HEAD)
    if d_head % 4:
        raise ValueError(f"d_head must be a multiple of 4 (a pair per axis per frequency), got "
                         f"{d_head}")
    return rows, cols, d_head


def axis_frequencies(d_head: int, base: float) -> np.ndarray:
    """base^(-4j/d_head) for j < d_head/4, float64: one axis's frequencies."""
    return base ** (-np.arange(0, d_head, 4) / d_head)


def rope_2d_axial_angles(rows: int, cols: int, d_head: int, *,
                         base: float = ROPE_VIT_BASE) -> np.ndarray:
    """(rows, cols, d_head/2) float64: pair angles at the patch in row y, column x (0-based):
    x f_j for the first d_head/4 pairs, y f_j for the others (rope-vit's order)."""
    rows, cols, d_head = _check_grid(rows, cols, d_head)
    frequencies = axis_frequencies(d_head, check_base(base))
    y, x = np.meshgrid(np.arange(rows, dtype=np.float64), np.arange(cols, dtype=np.float64),
                       indexing="ij")
    return np.concatenate([x[..., None] * frequencies, y[..., None] * frequencies], axis=-1)


def rope_2d_dinov3_angles(rows: int, cols: int, d_head: int, *,
                          base: float = ROPE_VIT_BASE) -> np.ndarray:
    """(rows, cols, d_head/2) float64: DINOv3's pair angles, 2 pi c f_j with c the patch
    centre's row coordinate (first d_head/4 pairs) and column coordinate (the others), each
    normalised to [-1, 1] over the grid."""
    rows, cols, d_head = _check_grid(rows, cols, d_head)
    frequencies = axis_frequencies(d_head, check_base(base))
    centre_y = 2.0 * (np.arange(rows) + 0.5) / rows - 1.0
    centre_x = 2.0 * (np.arange(cols) + 0.5) / cols - 1.0
    y, x = np.meshgrid(centre_y, centre_x, indexing="ij")
    return 2 * math.pi * np.concatenate([y[..., None] * frequencies, x[..., None] * frequencies],
                                        axis=-1)


def rope_2d_mixed_frequencies(d_head: int, heads: int, *, base: float = MIXED_BASE,
                              seed: int = 0) -> np.ndarray:
    """(heads, d_head/2, 2) float64: RoPE-Mixed's (fx, fy) of each pair at initialisation. A
    head's first d_head/4 pairs point at a random angle a, the others at a + 90 degrees, with
    magnitudes base^(-4j/d_head); `seed` picks the angles (numpy's default generator)."""
    d_head = check_int("d_head", d_head, minimum=4, maximum=limits.MAX_D_HEAD)
    if d_head % 4:
        raise ValueError(f"d_head must be a multiple of 4, got {d_head}")
    heads = check_int("heads", heads, minimum=1, maximum=limits.MAX_HEADS)
    seed = check_int("seed", seed, minimum=0, maximum=2**32 - 1)
    angles = np.random.default_rng(seed).uniform(0.0, 2 * math.pi, size=heads)
    return mixed_frequencies_at(d_head, angles, base=base)


def mixed_frequencies_at(d_head: int, angles: np.ndarray, *,
                         base: float = MIXED_BASE) -> np.ndarray:
    """(len(angles), d_head/2, 2): `rope_2d_mixed_frequencies` for given head angles."""
    magnitude = axis_frequencies(d_head, check_base(base))  # (d_head/4,)
    angles = np.asarray(angles, dtype=np.float64)[:, None]
    fx = np.concatenate([magnitude * np.cos(angles), magnitude * np.cos(math.pi / 2 + angles)],
                        axis=-1)
    fy = np.concatenate([magnitude * np.sin(angles), magnitude * np.sin(math.pi / 2 + angles)],
                        axis=-1)
    return np.stack([fx, fy], axis=-1)


def rope_2d_mixed_angles(rows: int, cols: int, frequencies: np.ndarray) -> np.ndarray:
    """(heads, rows, cols, d_head/2) float64: x fx + y fy for each head and pair, x the column
    and y the row (0-based), `frequencies` as `rope_2d_mixed_frequencies` gives them."""
    frequencies = np.asarray(frequencies, dtype=np.float64)
    if frequencies.ndim != 3 or frequencies.shape[-1] != 2:
        raise ValueError(f"frequencies must have shape (heads, pairs, 2), got "
                         f"{frequencies.shape}")
    rows, cols, _ = _check_grid(rows, cols, 4)
    y, x = np.meshgrid(np.arange(rows, dtype=np.float64), np.arange(cols, dtype=np.float64),
                       indexing="ij")
    return (x[None, :, :, None] * frequencies[:, None, None, :, 0]
            + y[None, :, :, None] * frequencies[:, None, None, :, 1])


def rope_2d_similarity(angles: np.ndarray, row: int, col: int) -> np.ndarray:
    """(rows, cols): q.k / (d_head/2) between the patch (row, col) and every patch, for a query
    and key whose pairs all point the same way: the mean over pairs of cos(angle difference).
    `angles` is (rows, cols, pairs)."""
    angles = np.asarray(angles, dtype=np.float64)
    if angles.ndim != 3:
        raise ValueError(f"angles must have shape (rows, cols, pairs), got {angles.shape}")
    rows, cols, _ = angles.shape
    row = check_int("row", row, minimum=0, maximum=rows - 1)
    col = check_int("col", col, minimum=0, maximum=cols - 1)
    return np.cos(angles - angles[row, col]).mean(axis=-1)


def rope_2d_offset_similarity(angles: np.ndarray) -> np.ndarray:
    """`rope_2d_similarity` at each offset: g[dy + rows - 1, dx + cols - 1] is the value for two
    patches dy rows and dx columns apart, ``(2 rows - 1, 2 cols - 1)`` float64, the same
    wherever the pair is (`core.vit_grid.offset_similarity_maps` reads every map off it).

    Every pair's angle must be affine in (row, col), a y + b x + c, as the axial, DINOv3 and
    RoPE-Mixed angles are: then cos(a dy + b dx) = cos(a dy) cos(b dx) - sin(a dy) sin(b dx),
    two (2 rows - 1, pairs) x (pairs, 2 cols - 1) products for the whole grid of offsets.
    Raises ValueError for angles that are not."""
    angles = np.asarray(angles, dtype=np.float64)
    if angles.ndim != 3:
        raise ValueError(f"angles must have shape (rows, cols, pairs), got {angles.shape}")
    rows, cols, pairs = angles.shape
    per_row = angles[1, 0] - angles[0, 0] if rows > 1 else np.zeros(pairs)  # (pairs,) a
    per_col = angles[0, 1] - angles[0, 0] if cols > 1 else np.zeros(pairs)  # (pairs,) b
    rebuilt = (angles[0, 0] + np.arange(rows)[:, None, None] * per_row
               + np.arange(cols)[None, :, None] * per_col)  # (rows, cols, pairs)
    scale = max(1.0, float(np.abs(angles).max(initial=0.0)))
    if not np.allclose(rebuilt, angles, rtol=0.0, atol=1e-9 * scale):
        raise ValueError("angles must be affine in (row, col) for a similarity by offset")
    dy = np.outer(np.arange(-(rows - 1), rows), per_row)  # (2 rows - 1, pairs)
    dx = np.outer(np.arange(-(cols - 1), cols), per_col)  # (2 cols - 1, pairs)
    return (np.cos(dy) @ np.cos(dx).T - np.sin(dy) @ np.sin(dx).T) / pairs

