"""2-D sin-cos position embeddings for ViT patch grids, as in MAE's ``util/pos_embed.py``.

MAE (He et al., 2022; facebookresearch/mae) builds the 2-D table from two 1-D tables of half the
width: ``get_2d_sincos_pos_embed`` runs ``np.meshgrid(grid_w, grid_h)``, whose *first* output is
the x (column) coordinate, and encodes it into channels [0, d/2); the row (y) coordinate goes into
[d/2, d). MAE's code names the halves ``emb_h`` / ``emb_w`` the other way round (see the source
article 002_6ca15f9f9ded23fa.txt); the values are what they are, and that is what this module
reproduces, named correctly.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import DTypeLike

from core import limits
from core._checks import check_base, check_dtype, check_even_d_model, check_int
from core.sinusoidal import encode_positions

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
