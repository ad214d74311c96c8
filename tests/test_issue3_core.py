"""The maths behind the wavelengths, similarity and vit-grid pages, against independent values:
slow loops, closed forms, the articles' numbers and MAE's code (tests/reference.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import core
from core import limits, similarity, vit_grid, wavelength_views
from tests import reference
from ui.pages import params_of


def slow_gram(table: np.ndarray, metric: str) -> np.ndarray:
    n = table.shape[0]
    out = np.zeros((n, n))
    for p in range(n):
        for q in range(n):
            a, b = table[p].astype(np.float64), table[q].astype(np.float64)
            dot = float(a @ b)
            out[p, q] = dot if metric == "dot" else dot / math.sqrt((a @ a) * (b @ b))
    return out


def slow_offset_dot(k: int, d_model: int, base: float = 10000.0) -> float:
    return sum(math.cos(k / base ** (2 * i / d_model)) for i in range(d_model // 2))


# --- similarity: the matrix, its diagonals, the random contrast --------------------------------
@pytest.mark.parametrize("metric", ["dot", "cosine"])
def test_pairwise_overview_equals_slow_gram_and_is_toeplitz(metric):
    table = core.sinusoidal_encoding(40, 16)
    result = similarity.pairwise_similarity(table, metric=metric)
    expected = slow_gram(table, metric)
    assert result.overview.exact
    np.testing.assert_allclose(result.overview.values, expected, atol=2e-5)
    # Toeplitz: every diagonal is one value, the sum of cosines of its offset.
    for k in range(-39, 40):
        diagonal = np.diagonal(expected, offset=k)
        scale = 1.0 if metric == "dot" else 2 / 16
        np.testing.assert_allclose(diagonal, slow_offset_dot(k, 16) * scale, atol=1e-5)
    assert result.spread < 1e-5


def test_envelope_is_min_and_max_of_every_diagonal():
    table = similarity.random_table(30, 8, seed=3)
    result = similarity.pairwise_similarity(table, metric="dot")
    gram = slow_gram(table, "dot")
    np.testing.assert_array_equal(result.offsets, np.arange(-29, 30))
    for j, k in enumerate(result.offsets):
        diagonal = np.diagonal(gram, offset=k)  # entries (p, p + k): q - p = k
        assert result.lowest[j] == pytest.approx(diagonal.min(), abs=1e-4)
        assert result.highest[j] == pytest.approx(diagonal.max(), abs=1e-4)
    assert result.spread > 1.0  # a random table is far from Toeplitz


def test_envelope_across_several_chunks_of_rows():
    table = similarity.random_table(300, 4, seed=8)  # 300 rows: two chunks of 256
    result = similarity.pairwise_similarity(table, metric="cosine")
    unit = table.astype(np.float64) / np.linalg.norm(table, axis=1, keepdims=True)
    gram = unit @ unit.T
    for j, k in enumerate(result.offsets):
        diagonal = np.diagonal(gram, offset=k)
        assert result.lowest[j] == pytest.approx(diagonal.min(), abs=1e-5)
        assert result.highest[j] == pytest.approx(diagonal.max(), abs=1e-5)


def test_sinusoid_envelope_collapses_onto_offset_dot_product():
    d_model, n = 64, 600  # three chunks of rows
    result = similarity.pairwise_similarity(core.sinusoidal_encoding(n, d_model))
    curve = core.offset_dot_product(result.offsets, d_model)
    np.testing.assert_allclose(result.lowest, curve, atol=1e-4)
    np.testing.assert_allclose(result.highest, curve, atol=1e-4)
    for k in (0, 1, 7, 250, -599):
        assert curve[k + n - 1] == pytest.approx(slow_offset_dot(k, d_model), abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 700), d=st.integers(1, 6), rows=st.integers(1, 80),
       cols=st.integers(1, 80), metric=st.sampled_from(["dot", "cosine"]))
def test_upper_triangle_pass_equals_the_full_float64_gram(n, d, rows, cols, metric):
    """Only the upper triangle is multiplied out for the envelope, and the overview is
    (W_r X)(W_c X)^T: both still equal the full matrix's (resampled by the textbook loop), for any
    size (chunks of 256 rows), cells and metric."""
    table = similarity.random_table(n, d, seed=n)
    result = similarity.pairwise_similarity(table, metric=metric, max_rows=rows, max_cols=cols)
    unit = table.astype(np.float64)
    if metric == "cosine":
        unit = unit / np.linalg.norm(unit, axis=1, keepdims=True)
    gram = unit @ unit.T
    expected = reference.loop_gaussian_resample(
        reference.loop_gaussian_resample(gram, rows), cols, axis=1)
    np.testing.assert_allclose(result.overview.values, expected, atol=2e-4)
    skew = {k: np.diagonal(gram, offset=k) for k in range(-(n - 1), n)}
    np.testing.assert_allclose(result.lowest, [skew[k].min() for k in result.offsets], atol=2e-4)
    np.testing.assert_allclose(result.highest, [skew[k].max() for k in result.offsets],
                               atol=2e-4)


def test_large_matrix_is_resampled_like_the_full_matrix():
    table = core.sinusoidal_encoding(1000, 32)
    result = similarity.pairwise_similarity(table, max_rows=100, max_cols=50)
    assert result.overview.values.shape == (100, 50) and not result.overview.exact
    full = table.astype(np.float64) @ table.astype(np.float64).T
    expected = core.resample(full, max_rows=100, max_cols=50).values
    np.testing.assert_allclose(result.overview.values, expected, atol=1e-4)


def test_random_table_is_seeded_and_on_the_sinusoids_scale():
    a = similarity.random_table(500, 256, seed=0)
    np.testing.assert_array_equal(a, similarity.random_table(500, 256, seed=0))
    assert a.shape == (500, 256) and a.dtype == np.float32
    assert np.mean((a.astype(np.float64) ** 2).sum(axis=1)) == pytest.approx(128, rel=0.02)
    assert not np.array_equal(a, similarity.random_table(500, 256, seed=1))


def test_cosine_is_dot_over_half_d_model():
    offsets = np.arange(-50, 51)
    np.testing.assert_allclose(
        similarity.offset_similarity(offsets, 64, metric="cosine"),
        core.offset_dot_product(offsets, 64) / 32,
        rtol=1e-12,
    )


def test_tf_tutorial_anchor_profile():
    # 2048 positions, d_model 512, anchor 1000: the cosine peaks at 1 and is symmetric.
    table = core.sinusoidal_encoding(2048, 512)
    profile = similarity.anchor_profile(table, 1000, metric="cosine")
    assert profile.shape == (2048,)
    assert profile.argmax() == 1000 and profile[1000] == pytest.approx(1.0, abs=1e-6)
    k = np.arange(1, 1001)
    np.testing.assert_allclose(profile[1000 + k[:1000 - 1]], profile[1000 - k[:999]], atol=1e-5)
    for p in (0, 999, 1001, 2047):
        expected = slow_offset_dot(p - 1000, 512) / 256
        assert profile[p] == pytest.approx(expected, abs=1e-5)


def test_anchor_profile_against_the_reference_loop():
    table = reference.loop_interleaved(200, 32)
    profile = similarity.anchor_profile(table, 120, metric="dot")
    np.testing.assert_allclose(profile, table @ table[120], rtol=1e-12)


def test_pair_sample_and_distance_closed_form():
    table = reference.loop_interleaved(300, 64)
    sample = similarity.pair_sample(table, count=500, seed=5, metric="dot")
    np.testing.assert_array_equal(sample.offsets, sample.q - sample.p)
    for j in range(0, 500, 37):
        p, q = sample.p[j], sample.q[j]
        assert sample.similarity[j] == pytest.approx(table[p] @ table[q], abs=1e-9)
        assert sample.distance[j] == pytest.approx(np.linalg.norm(table[p] - table[q]), abs=1e-9)
    # |PE[p] - PE[q]|^2 = d - 2 PE[p].PE[q]: the distance is a function of the offset.
    np.testing.assert_allclose(
        sample.distance, similarity.offset_distance(sample.offsets, 64), atol=1e-6
    )
    assert similarity.offset_distance(np.array([0]), 64)[0] == 0.0


@pytest.mark.parametrize("offset", [1, 3, 17, -5, 0, 299])
def test_shift_residual_below_1e_5_for_every_p(offset):
    table = core.sinusoidal_encoding(300, 128)
    check = similarity.shift_residuals(table, offset)
    assert check.positions.size == 300 - abs(offset)
    assert np.all(check.residuals < 1e-5)
    assert check.largest < 1e-6  # float32 rounding: "about 1e-7"
    exact = similarity.shift_residuals(core.sinusoidal_encoding(300, 128, dtype=np.float64), offset)
    assert exact.largest < 1e-12


def test_shift_residual_on_the_pages_largest_table():
    table = core.sinusoidal_encoding(4096, 1024)
    check = similarity.shift_residuals(table, 3)
    assert check.residuals.shape == (4093,)
    assert np.all(check.residuals < 1e-5)


def test_shift_residual_detects_a_wrong_matrix():
    # The check is not vacuous: a table of another base does not satisfy M_k of this base.
    table = core.sinusoidal_encoding(100, 16, base=100.0)
    assert similarity.shift_residuals(table, 5).largest > 1e-2


def test_rotated_pair_matches_the_angle_addition_formulas():
    rp = similarity.rotated_pair(7, 3, 0, 64)
    assert rp.omega == 1.0 and rp.rotation == 3.0
    np.testing.assert_allclose(rp.before, [math.cos(7), math.sin(7)], atol=1e-12)
    np.testing.assert_allclose(rp.after, [math.cos(10), math.sin(10)], atol=1e-12)
    np.testing.assert_allclose(rp.rotated, rp.after, atol=1e-12)
    rp = similarity.rotated_pair(1000, -40, 5, 512)
    w = 10000 ** (-10 / 512)
    np.testing.assert_allclose(rp.rotated, [math.cos(960 * w), math.sin(960 * w)], atol=1e-12)


def test_before_and_after_are_equal_and_none_outside():
    table = core.sinusoidal_encoding(100, 32)
    after, before = similarity.before_and_after(table, 50, 7)
    assert after == pytest.approx(before, abs=1e-5)
    assert after == pytest.approx(slow_offset_dot(7, 32), abs=1e-5)
    assert similarity.before_and_after(table, 2, 7)[1] is None


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: similarity.pairwise_similarity(np.zeros((3, 2)), metric="euclid"), "metric"),
        (lambda: similarity.pairwise_similarity(np.zeros((3, 2)), metric="cosine"), "metric"),
        (lambda: similarity.anchor_profile(np.ones((3, 2)), 3), "anchor"),
        (lambda: similarity.shift_residuals(np.ones((3, 2)), 3), "offset"),
        (lambda: similarity.rotated_pair(0, 1, 9, 16), "pair"),
        (lambda: similarity.pairwise_similarity(np.ones(3)), "table"),
    ],
)
def test_similarity_errors_name_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# --- wavelengths -------------------------------------------------------------------------------
def test_default_dims_fastest_middle_slowest():
    assert wavelength_views.default_dims(512) == (0, 1, 256, 257, 510, 511)
    assert wavelength_views.default_dims(128) == (0, 1, 64, 65, 126, 127)
    assert wavelength_views.default_dims(2) == (0, 1)


def test_parse_dims():
    assert wavelength_views.parse_dims("0,1, 64 65", 128) == (0, 1, 64, 65)
    assert wavelength_views.parse_dims("3,3,2", 8) == (3, 2)
    assert wavelength_views.parse_dims("  ", 8) == wavelength_views.default_dims(8)


@pytest.mark.parametrize("text", ["abc", "0,128", "-1", "1.5", "1e3", "0x10"])
def test_parse_dims_errors_name_dims(text):
    with pytest.raises(ValueError, match=r"^dims=.* is not allowed: dims must be"):
        wavelength_views.parse_dims(text, 128)


def test_parse_dims_too_many():
    with pytest.raises(ValueError, match=r"^dims has 13 dimensions"):
        wavelength_views.parse_dims(",".join(str(i) for i in range(13)), 128)


@given(text=st.text(max_size=60))
def test_parse_dims_never_fails_other_than_valueerror(text):
    try:
        dims = wavelength_views.parse_dims(text, 64)
    except ValueError as error:
        assert str(error).startswith("dims")
    else:
        assert all(0 <= d < 64 for d in dims) and 1 <= len(dims) <= wavelength_views.MAX_DIMS


def test_dimension_curves_equal_the_reference_loop():
    dims = (0, 1, 5, 30, 31)
    curves = wavelength_views.dimension_curves(200, 32, dims, base=500.0)
    expected = reference.loop_interleaved(200, 32, base=500.0)[:, dims]
    np.testing.assert_allclose(curves.values, expected, atol=1e-12)
    np.testing.assert_array_equal(curves.pairs, [0, 0, 2, 15, 15])
    np.testing.assert_allclose(curves.wavelengths, [2 * math.pi * 500 ** (2 * i / 32)
                                                    for i in (0, 0, 2, 15, 15)])


def test_spectrum_numbers_for_the_paper():
    spectrum = wavelength_views.wavelength_spectrum(512, 2048)
    assert spectrum.shortest == 2 * math.pi
    assert spectrum.longest == pytest.approx(60611.477, abs=1e-3)
    assert spectrum.paper_longest == pytest.approx(62831.853, abs=1e-3)
    assert spectrum.ratio == pytest.approx(1.0366329284, abs=1e-9)
    # pairs with 2 pi 10000^(2i/512) > 2048 positions, counted one by one
    slow = sum(2 * math.pi * 10000 ** (2 * i / 512) > 2048 for i in range(256))
    assert spectrum.incomplete_pairs == slow == 95


def test_article_004_clock_of_pair_0():
    # sin(7) = sin(2.23 pi) = sin(0.23 pi); sin(8) = sin(2.54 pi) = sin(0.54 pi)
    frames = wavelength_views.clock_frames(2048, 768, (0, 191, 383))
    assert frames.truncated and frames.positions.size == wavelength_views.MAX_CLOCK_FRAMES
    assert frames.turns_in_pi[7, 0] == pytest.approx(0.23, abs=0.005)
    assert frames.turns_in_pi[8, 0] == pytest.approx(0.54, abs=0.01)
    np.testing.assert_allclose(frames.y[:, 0], np.sin(np.arange(400)), atol=1e-12)
    np.testing.assert_allclose(frames.x[:, 0], np.cos(np.arange(400)), atol=1e-12)
    # the slowest pair of d = 768 turns 10000^(-766/768) ~ 1e-4 rad per position: near still
    assert frames.turns_in_pi[-1, 2] * math.pi == pytest.approx(399 / 10000 ** (766 / 768))


def test_clock_pairs():
    assert wavelength_views.clock_pairs(8) == (0, 1, 2, 3)
    pairs = wavelength_views.clock_pairs(512, (300, 301))
    assert 0 in pairs and 255 in pairs and 150 in pairs
    assert len(pairs) <= wavelength_views.MAX_CLOCKS


# --- vit-grid ----------------------------------------------------------------------------------
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
    maps = vit_grid.half_similarity_maps(emb.reshape(h * w, d), h, w, 2, 3)
    np.testing.assert_allclose(maps[0], np.broadcast_to(maps[0][:1], (h, w)), atol=1e-12)
    np.testing.assert_allclose(maps[1], np.broadcast_to(maps[1][:, :1], (h, w)), atol=1e-12)


def test_patch_map_closed_form_mean_of_two_1d_cosines():
    h, w, d = 6, 10, 128
    emb = core.sincos_2d_encoding(h, w, d, cls_token=True)
    sim = vit_grid.patch_similarity_map(emb, h, w, 2, 7)
    for r in range(h):
        for c in range(w):
            column_part = slow_offset_dot(c - 7, d // 2) / (d // 4)  # each half: |.|^2 = d/4
            row_part = slow_offset_dot(r - 2, d // 2) / (d // 4)
            expected = 0.5 * (column_part + row_part)
            assert sim[r, c] == pytest.approx(expected, abs=1e-12)
    assert sim[2, 7] == pytest.approx(1.0)


def test_tiles_are_every_patchs_map_for_small_grids():
    h, w, d = 4, 5, 32
    emb = core.sincos_2d_encoding(h, w, d)
    tiles = vit_grid.similarity_tiles(emb, h, w)
    assert tiles.every_patch and tiles.exact and tiles.tiles.shape == (h, w, h, w)
    for r in range(h):
        for c in range(w):
            np.testing.assert_allclose(
                tiles.tiles[r, c], vit_grid.patch_similarity_map(emb, h, w, r, c), atol=1e-12
            )
    mosaic = tiles.mosaic()
    assert mosaic.shape == (h * (h + 1), w * (w + 1))
    np.testing.assert_allclose(mosaic[(h + 1) * 1 : (h + 1) * 1 + h, (w + 1) * 2 : (w + 1) * 2 + w],
                               tiles.tiles[1, 2], atol=1e-6)
    assert np.isnan(mosaic[h, 0]) and np.isnan(mosaic[0, w])


def test_tiles_for_large_grids_stay_small():
    emb = core.sincos_2d_encoding(64, 64, 64)
    tiles = vit_grid.similarity_tiles(emb, 64, 64)
    assert tiles.tile_rows.size == tiles.tile_cols.size == vit_grid.MAX_TILES_SIDE
    assert tiles.tile_rows[0] == 0 and tiles.tile_rows[-1] == 63
    assert not tiles.every_patch and not tiles.exact
    assert max(tiles.mosaic().shape) <= vit_grid.MAX_MOSAIC_SIDE
    # each resampled tile is that patch's full map through the textbook resampler
    full = vit_grid.patch_similarity_map(emb, 64, 64, 0, 63)
    expected = reference.loop_gaussian_resample(
        reference.loop_gaussian_resample(full, tiles.tiles.shape[2]), tiles.tiles.shape[3], axis=1)
    np.testing.assert_allclose(tiles.tiles[0, -1], expected, atol=1e-6)


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


def test_offset_curves_cover_every_offset_of_the_table():
    curves = similarity.offset_curves(50, 16, metric="cosine")
    np.testing.assert_array_equal(curves.offsets, np.arange(-49, 50))
    np.testing.assert_array_equal(curves.gaps, np.arange(50))
    for k in (-49, -3, 0, 7, 49):
        assert curves.similarity[k + 49] == pytest.approx(slow_offset_dot(k, 16) / 8, abs=1e-12)
    table = reference.loop_interleaved(50, 16)
    np.testing.assert_allclose(curves.distance, np.linalg.norm(table - table[0], axis=1),
                               atol=1e-6)
