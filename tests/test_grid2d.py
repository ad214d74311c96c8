"""2-D sin-cos grids against MAE's own `get_2d_sincos_pos_embed` (tests/reference.py)."""

from __future__ import annotations

import numpy as np
import pytest

import core
from tests import reference


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
