"""core.rope_2d against the reference code: Hugging Face's DINOv3 RoPE module (installed) and
naver-ai/rope-vit's axial and mixed frequencies (written out in tests/reference.py)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from transformers import DINOv3ViTConfig
from transformers.models.dinov3_vit.modeling_dinov3_vit import DINOv3ViTRopePositionEmbedding

from core import rope_2d, vit_grid
from tests import reference


@pytest.mark.parametrize(("rows", "cols", "d_head"), [(14, 14, 64), (6, 10, 32), (1, 5, 16)])
def test_axial_angles_are_rope_vits(rows, cols, d_head):
    cis = reference.rope_vit_compute_axial_cis(d_head, end_x=cols, end_y=rows).numpy()
    got = rope_2d.rope_2d_axial_angles(rows, cols, d_head).reshape(rows * cols, -1)
    np.testing.assert_allclose(np.cos(got), cis.real, atol=2e-5)  # rope-vit works in float32
    np.testing.assert_allclose(np.sin(got), cis.imag, atol=2e-5)


@pytest.mark.parametrize(("rows", "cols", "heads", "d_head"), [(14, 14, 12, 64), (4, 7, 3, 32)])
def test_dinov3_angles_are_hugging_faces(rows, cols, heads, d_head):
    config = DINOv3ViTConfig(hidden_size=heads * d_head, num_attention_heads=heads,
                             image_size=16 * max(rows, cols), patch_size=16, rope_theta=100.0)
    module = DINOv3ViTRopePositionEmbedding(config).eval()
    cos, sin = module(torch.zeros(1, 3, 16 * rows, 16 * cols))
    got = rope_2d.rope_2d_dinov3_angles(rows, cols, d_head).reshape(rows * cols, -1)
    # Hugging Face tiles the d_head/2 angles twice (rotate_half's layout)
    np.testing.assert_allclose(np.cos(got), cos.numpy()[:, : d_head // 2], atol=2e-5)
    np.testing.assert_allclose(np.sin(got), sin.numpy()[:, : d_head // 2], atol=2e-5)


def test_mixed_angles_are_rope_vits_at_the_same_head_angles():
    rows, cols, d_head = 5, 6, 32
    head_angles = [0.3, 2.0, 5.5]
    frequencies = rope_2d.mixed_frequencies_at(d_head, np.array(head_angles))
    freqs = reference.rope_vit_init_random_2d_freqs(d_head, head_angles)  # (2, heads, d/2)
    np.testing.assert_allclose(frequencies[..., 0], freqs[0].numpy(), atol=1e-6)
    np.testing.assert_allclose(frequencies[..., 1], freqs[1].numpy(), atol=1e-6)
    t_x, t_y = reference.rope_vit_init_t_xy(cols, rows)
    cis = reference.rope_vit_compute_mixed_cis(freqs, t_x, t_y, len(head_angles))[0].numpy()
    got = rope_2d.rope_2d_mixed_angles(rows, cols, frequencies).reshape(3, rows * cols, -1)
    np.testing.assert_allclose(np.cos(got), cis.real, atol=2e-5)
    np.testing.assert_allclose(np.sin(got), cis.imag, atol=2e-5)
    # seeded angles: reproducible, one per head, in [0, 2 pi)
    again = rope_2d.rope_2d_mixed_frequencies(d_head, 4, seed=7)
    np.testing.assert_array_equal(again, rope_2d.rope_2d_mixed_frequencies(d_head, 4, seed=7))
    assert again.shape == (4, d_head // 2, 2)


@settings(max_examples=30, deadline=None)
@given(rows=st.integers(2, 12), cols=st.integers(2, 12), data=st.data())
def test_axial_similarity_is_separable_and_mixed_is_not_in_general(rows, cols, data):
    """Axial RoPE's q.k is a function of (dy, dx) that splits into a column part plus a row part
    (no diagonal term); it equals 1 at the patch itself and stays within [-1, 1]."""
    row = data.draw(st.integers(0, rows - 1))
    col = data.draw(st.integers(0, cols - 1))
    angles = rope_2d.rope_2d_axial_angles(rows, cols, 32)
    similarity = rope_2d.rope_2d_similarity(angles, row, col)
    assert similarity[row, col] == pytest.approx(1.0)
    assert (np.abs(similarity) <= 1 + 1e-12).all()
    # f(dy, dx) = (g(dx) + g(dy)) / 2 with g the 1-D kernel
    frequencies = rope_2d.axis_frequencies(32, rope_2d.ROPE_VIT_BASE)
    g = lambda d: np.cos(np.multiply.outer(d, frequencies)).mean(axis=-1)  # noqa: E731
    dy, dx = np.meshgrid(np.arange(rows) - row, np.arange(cols) - col, indexing="ij")
    np.testing.assert_allclose(similarity, (g(dx) + g(dy)) / 2, atol=1e-12)


def test_a_mixed_head_at_45_degrees_sees_the_diagonal():
    """A head whose directions are 45 and 135 degrees: patches along the diagonals are what
    its pairs measure, so its map is not symmetric under swapping rows and columns of a
    rectangle's offsets, as axial RoPE's is."""
    frequencies = rope_2d.mixed_frequencies_at(32, np.array([np.pi / 4]))
    angles = rope_2d.rope_2d_mixed_angles(9, 9, frequencies)[0]
    similarity = rope_2d.rope_2d_similarity(angles, 4, 4)
    # one step along a direction it measures vs one step along an axis
    assert similarity[5, 5] != pytest.approx(similarity[4, 5], abs=1e-3)
    axial = rope_2d.rope_2d_similarity(rope_2d.rope_2d_axial_angles(9, 9, 32), 4, 4)
    np.testing.assert_allclose(axial, axial.T, atol=1e-12)


def test_bad_input_names_the_argument():
    for call, match in (
        (lambda: rope_2d.rope_2d_axial_angles(0, 4, 32), "rows"),
        (lambda: rope_2d.rope_2d_axial_angles(4, 4, 30), "multiple of 4"),
        (lambda: rope_2d.rope_2d_dinov3_angles(4, 65, 32), "cols"),
        (lambda: rope_2d.rope_2d_mixed_frequencies(32, 0), "heads"),
        (lambda: rope_2d.rope_2d_similarity(np.zeros((3, 3, 4)), 3, 0), "row"),
        (lambda: rope_2d.rope_2d_axial_angles(4, 4, 32, base=1.0), "base"),
    ):
        with pytest.raises(ValueError, match=match):
            call()


@settings(max_examples=20, deadline=None)
@given(rows=st.integers(1, 9), cols=st.integers(1, 9),
       scheme=st.sampled_from(["axial", "dinov3", "mixed"]), d_head=st.sampled_from([8, 32]))
def test_the_tiles_of_a_rotation_are_its_similarity_from_every_patch(rows, cols, scheme,
                                                                       d_head):
    """The ViT paper's tiles of a rotation (tests/reference.py's `similarity_tiles` of
    `rope_2d_table`) hold, at tile (r, c), `rope_2d_similarity` from patch (r, c): a loop over
    the patches, one at a time. The page reads them off the similarity at each offset
    (`rope_2d_offset_similarity`): the same tiles and maps."""
    if scheme == "axial":
        angles = rope_2d.rope_2d_axial_angles(rows, cols, d_head)
    elif scheme == "dinov3":
        angles = rope_2d.rope_2d_dinov3_angles(rows, cols, d_head)
    else:
        angles = rope_2d.rope_2d_mixed_angles(
            rows, cols, rope_2d.rope_2d_mixed_frequencies(d_head, 3))[2]
    table = reference.rope_2d_table(angles)
    assert table.shape == (rows * cols, d_head)
    tiles = reference.similarity_tiles(table, rows, cols)
    assert tiles.exact
    offsets = rope_2d.rope_2d_offset_similarity(angles)
    assert offsets.shape == (2 * rows - 1, 2 * cols - 1)
    np.testing.assert_allclose(vit_grid.offset_similarity_tiles(offsets).tiles, tiles.tiles,
                               atol=1e-12)
    for r in range(rows):
        for c in range(cols):
            np.testing.assert_allclose(tiles.tiles[r, c],
                                       rope_2d.rope_2d_similarity(angles, r, c), atol=1e-12)
            np.testing.assert_allclose(vit_grid.offset_similarity_maps(offsets, [r], [c])[0, 0],
                                       rope_2d.rope_2d_similarity(angles, r, c), atol=1e-12)


def test_the_largest_grids_tiles_by_offset_equal_the_tables():
    """At the page's largest grid the tiles are subsampled and resampled: by offset or through
    the table, the same; angles that are not affine in (row, col) have no similarity by
    offset."""
    for angles in (rope_2d.rope_2d_axial_angles(64, 64, 256),
                   rope_2d.rope_2d_dinov3_angles(64, 40, 256),
                   rope_2d.rope_2d_mixed_angles(
                       40, 64, rope_2d.rope_2d_mixed_frequencies(256, 12))[11]):
        rows, cols, _ = angles.shape
        expected = reference.similarity_tiles(reference.rope_2d_table(angles), rows, cols,
                                              max_side=210)
        assert not expected.exact
        offsets = rope_2d.rope_2d_offset_similarity(angles)
        np.testing.assert_allclose(
            vit_grid.offset_similarity_tiles(offsets, max_side=210).tiles, expected.tiles,
            atol=1e-12)
    squared = rope_2d.rope_2d_axial_angles(5, 6, 8) ** 2
    with pytest.raises(ValueError, match="affine"):
        rope_2d.rope_2d_offset_similarity(squared)
