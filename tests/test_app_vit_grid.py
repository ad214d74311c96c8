"""The vit-grid page through Streamlit's AppTest: it renders, its controls drive it, bad URL values
are explained, and the numbers shown are the right ones."""

from __future__ import annotations

import math

import numpy as np
import pytest

import core
from tests import reference
from tests.apptest import (
    control,
    decode,
    markdown,
    open_at_defaults,
    open_page,
    open_with_one_bad_value,
    plotly_figures,
)

VIT_GRID = "app_pages/vit_grid.py"


def test_default_render():
    at = open_at_defaults(VIT_GRID, charts=2)
    assert at.latex  # the formulas are next to the figures


def test_vit_grid_default_is_vit_b16_with_cls():
    at = open_page(VIT_GRID)
    assert "**(197, 768)**" in markdown(at)
    tiles, patch = plotly_figures(at)  # one section at a time: the tiles first
    assert decode(tiles["data"][0]["z"]).shape == (14 * 15, 14 * 15)
    similarity = decode(patch["data"][0]["z"])
    assert similarity.shape == (14, 14) and similarity[7, 7] == pytest.approx(1.0)
    at.radio(key="view").set_value("encoding").run()
    (encoding,) = plotly_figures(at)
    assert decode(encoding["data"][0]["z"]).shape[0] == 197


def test_vit_grid_patch_and_halves():
    at = open_page(VIT_GRID, {"grid_h": "5", "grid_w": "7", "d_model": "64", "patch": "1,5"})
    _, patch = plotly_figures(at)
    assert patch["layout"]["title"]["text"] == "Patch (1, 5) against every patch"
    at.radio(key="view").set_value("halves").run()
    (halves,) = plotly_figures(at)
    columns = decode(halves["data"][0]["z"])
    rows = decode(halves["data"][1]["z"])
    assert np.ptp(columns, axis=0).max() < 1e-9 and np.ptp(rows, axis=1).max() < 1e-9
    assert columns[0, 5] == pytest.approx(1.0) and rows[1, 0] == pytest.approx(1.0)


def test_vit_grid_presets_set_the_controls():
    at = open_page(VIT_GRID)
    at.button(key="preset_2").click().run()  # the 4 x 4 teaching grid
    assert control(at, "grid_h").value == 4
    assert control(at, "d_model").value == 64
    assert at.toggle(key="cls_token").value is False
    assert "**(16, 64)**" in markdown(at)
    assert at.query_params["grid_h"] == "4"
    at.button(key="preset_1").click().run()  # ViT-L/16
    assert "**(197, 1024)**" in markdown(at)


def test_vit_grid_controls_drive_the_page():
    at = open_page(VIT_GRID, {"grid_h": "3", "grid_w": "4", "d_model": "16", "view": "encoding"})
    at.toggle(key="cls_token").set_value(False).run()
    assert decode(plotly_figures(at)[0]["data"][0]["z"]).shape == (12, 16)
    at.radio(key="view").set_value("tiles").run()
    at.text_input(key="patch").set_value("2,3").run()
    assert plotly_figures(at)[1]["layout"]["title"]["text"] == "Patch (2, 3) against every patch"


# --- bad URL values: a notice naming the parameter, the page still draws -----------------------
BAD_VALUES = [
    (VIT_GRID, "grid_h", "65"),
    (VIT_GRID, "grid_w", "0"),
    (VIT_GRID, "d_model", "6"),
    (VIT_GRID, "cls_token", "maybe"),
    (VIT_GRID, "patch", "3;4;5"),
    (VIT_GRID, "patch", "20,20"),
    (VIT_GRID, "d_head", "62"),
    (VIT_GRID, "head", "13"),
    (VIT_GRID, "text_before", "0"),
    (VIT_GRID, "text_after", "257"),
]


@pytest.mark.parametrize("page, name, value", BAD_VALUES)
def test_bad_url_value_gives_a_notice_naming_the_parameter(page, name, value):
    at = open_with_one_bad_value(page, name, value)
    assert len(plotly_figures(at)) == 2  # the page still draws, with the default


def test_rope_view_draws_the_table_and_three_rotations_from_their_references():
    """The 2-D RoPE view: MAE's map as the tiles view draws it, axial RoPE as rope-vit's
    frequencies give it, DINOv3's from Hugging Face's module, its own controls in the view."""
    import torch
    from transformers import DINOv3ViTConfig
    from transformers.models.dinov3_vit.modeling_dinov3_vit import (
        DINOv3ViTRopePositionEmbedding,
    )

    query = {"grid_h": "6", "grid_w": "10", "patch": "2,7", "d_head": "32", "head": "3"}
    at = open_page(VIT_GRID, {**query, "view": "rope"})
    assert not at.exception, [e.value for e in at.exception]
    assert at.main.select_slider(key="d_head") and at.main.slider(key="head")
    assert "head" not in [w.key for w in at.sidebar.slider]
    figure, tiles_figure = plotly_figures(at)
    maps = [decode(trace["z"]).reshape(6, 10) for trace in figure["data"] if "z" in trace]
    assert len(maps) == 4
    mae, axial, dinov3, mixed = maps
    tiles = open_page(VIT_GRID, {**query, "view": "tiles"})
    np.testing.assert_allclose(mae, decode(plotly_figures(tiles)[1]["data"][0]["z"]).reshape(
        6, 10), atol=1e-6)
    # The tiles of each scheme: MAE's as the tiles view draws them; in every panel, the tile of
    # the selected patch is that patch's map (each tile 6 x 10 cells and a gap, every patch).
    mosaics = [decode(trace["z"]).reshape(6 * 7, 10 * 11) for trace in tiles_figure["data"]]
    np.testing.assert_allclose(mosaics[0], decode(plotly_figures(tiles)[0]["data"][0]["z"])
                               .reshape(6 * 7, 10 * 11), atol=1e-6, equal_nan=True)
    for mosaic, drawn in zip(mosaics, maps, strict=True):
        np.testing.assert_allclose(mosaic[2 * 7:2 * 7 + 6, 7 * 11:7 * 11 + 10], drawn,
                                   atol=1e-6)
    # axial: half the pairs turn with x, half with y, at 100^(-4j/32), j < 8 (rope-vit)
    frequencies = 100.0 ** (-np.arange(0, 32, 4) / 32)
    dy, dx = np.meshgrid(np.arange(6) - 2, np.arange(10) - 7, indexing="ij")
    kernel = lambda d: np.cos(np.multiply.outer(d, frequencies)).mean(axis=-1)  # noqa: E731
    np.testing.assert_allclose(axial, (kernel(dx) + kernel(dy)) / 2, atol=1e-6)
    # DINOv3: the cosine of two patches' rotations from Hugging Face's cos and sin
    config = DINOv3ViTConfig(hidden_size=12 * 32, num_attention_heads=12, image_size=160,
                             patch_size=16, rope_theta=100.0)
    cos, sin = DINOv3ViTRopePositionEmbedding(config).eval()(torch.zeros(1, 3, 96, 160))
    cos, sin = cos.numpy()[:, :16], sin.numpy()[:, :16]
    at_patch = 2 * 10 + 7
    expected = (cos * cos[at_patch] + sin * sin[at_patch]).mean(axis=-1).reshape(6, 10)
    np.testing.assert_allclose(dinov3, expected, atol=1e-5)
    assert mixed[2, 7] == pytest.approx(1.0) and not np.allclose(mixed, axial, atol=1e-3)
    at.slider(key="head").set_value(4).run()  # the view's own control: the mixed map follows
    shown = [t for t in plotly_figures(at)[0]["data"] if "z" in t][3]["z"]
    assert not np.allclose(decode(shown).ravel(), mixed.ravel(), atol=1e-3)


def test_mrope_view_draws_qwen2_vls_position_ids_and_relative_logits():
    from tests.test_relative_bias import hf_position_ids

    at = open_page(VIT_GRID, {"view": "mrope", "grid_h": "3", "grid_w": "5",
                              "text_before": "2", "text_after": "6"})
    assert not at.exception, [e.value for e in at.exception]
    assert at.main.number_input(key="text_before") and not at.sidebar.number_input
    ids_figure, logits_figure = plotly_figures(at)
    ids = decode(ids_figure["data"][0]["z"]).reshape(3, -1)
    np.testing.assert_array_equal(
        ids, hf_position_ids([("text", 2), ("image", (1, 3, 5)), ("text", 6)]))
    # each axis alone turns its own pairs of Qwen2-VL's (16, 24, 24) at 1e6^(-2i/128)
    theta = 1e6 ** (-np.arange(0, 128, 2) / 128)
    owner = np.repeat([0, 1, 2], [16, 24, 24])
    for axis, trace in enumerate(logits_figure["data"]):
        offsets = decode(trace["x"]).astype(np.int64)
        for k, shown in list(zip(offsets, decode(trace["y"]), strict=True))[::37]:
            turned = [math.cos(k * theta[i]) if axis == 3 or owner[i] == axis else 1.0
                      for i in range(64)]
            assert shown == pytest.approx(sum(turned) / 64, abs=1e-6)
    at.number_input(key="text_before").set_value(4).run()  # the view's own control
    ids = decode(plotly_figures(at)[0]["data"][0]["z"]).reshape(3, -1)
    assert ids.shape == (3, 4 + 15 + 6) and ids[:, 4].tolist() == [4, 4, 4]


def test_the_selected_patch_is_a_control_of_the_views_that_draw_it():
    """grid_h, grid_w, d_model, base and cls_token are page-wide; the patch sits above the
    charts of tiles, halves and 2-D RoPE (a change reruns that view alone), is kept across
    views, and a patch off the grid is said in the view."""
    at = open_page(VIT_GRID, {"grid_h": "6", "grid_w": "10"})
    assert at.main.text_input(key="patch") and not at.sidebar.text_input
    at.text_input(key="patch").set_value("1,2").run()
    assert plotly_figures(at)[1]["layout"]["title"]["text"] == "Patch (1, 2) against every patch"
    at.radio(key="view").set_value("encoding").run()
    assert not at.text_input
    at.radio(key="view").set_value("rope").run()
    assert at.text_input(key="patch").value == "1,2"
    assert "Patch (1, 2)" in plotly_figures(at)[0]["layout"]["title"]["text"]
    at.text_input(key="patch").set_value("9,9").run()
    assert "patch=9,9 is outside the grid" in " ".join(w.value for w in at.warning)
    assert "Patch (3, 5)" in plotly_figures(at)[0]["layout"]["title"]["text"]  # the centre


@pytest.mark.parametrize(("grid", "centre"), [((14, 14), "7,7"), ((6, 10), "3,5")])
def test_an_empty_patch_box_shows_the_centre_it_stands_for(grid, centre):
    """The patch box is empty by default (the centre): its greyed placeholder names that patch,
    and typing it draws the same map."""
    query = {"grid_h": str(grid[0]), "grid_w": str(grid[1]), "view": "halves"}
    at = open_page(VIT_GRID, query)
    assert at.text_input(key="patch").value == ""
    assert at.text_input(key="patch").placeholder == centre
    typed = open_page(VIT_GRID, query | {"patch": centre})
    assert plotly_figures(typed) == plotly_figures(at)


# --- the selected patch follows the pointer (figures.vit_grid: live states of the patch box) ------
def captions(at) -> str:
    return "\n".join(c.value for c in at.caption)


def patch_states(figure: dict) -> dict:
    return figure["layout"].get("meta", {}).get("live", {}).get("patch", {"values": []})


def test_each_view_of_the_patch_carries_every_patchs_maps_for_the_pointer():
    """On a 6 x 10 grid every patch's maps go with the chart, named "row,col"; the one of
    (4, 0) is that patch's map from the table, and the pointer over a map previews them."""
    emb = core.sincos_2d_encoding(6, 10, 64)
    at = open_page(VIT_GRID, {"grid_h": "6", "grid_w": "10", "d_model": "64", "patch": "1,5"})
    _, patch = plotly_figures(at)
    states = patch_states(patch)
    assert states["values"] == [f"{r},{c}" for r in range(6) for c in range(10)]
    assert patch["layout"]["meta"]["hover"] == {"control": "patch", "traces": [0],
                                                "text": "{y},{x}"}
    data, layout, _ = states["updates"][states["values"].index("4,0")]
    np.testing.assert_allclose(decode(data["z"][0]).reshape(6, 10),
                               reference.patch_similarity_map(emb, 6, 10, 4, 0), atol=1e-12)
    assert layout["title.text"] == "Patch (4, 0) against every patch"
    assert "Hover over a patch to preview its map" in captions(at)
    assert "in steps of" not in captions(at)
    at.radio(key="view").set_value("halves").run()
    (halves,) = plotly_figures(at)
    data, _, _ = patch_states(halves)["updates"][patch_states(halves)["values"].index("4,0")]
    for shown, expected in zip(data["z"], reference.half_similarity_maps(emb, 6, 10, 4, 0),
                               strict=True):
        np.testing.assert_allclose(decode(shown).reshape(6, 10), expected, atol=1e-12)
    at.radio(key="view").set_value("rope").run()
    rope = plotly_figures(at)[0]
    assert len(patch_states(rope)["values"]) == 60
    data, _, _ = patch_states(rope)["updates"][patch_states(rope)["values"].index("4,0")]
    np.testing.assert_allclose(decode(data["z"][0]).reshape(6, 10),
                               reference.patch_similarity_map(emb, 6, 10, 4, 0), atol=1e-6)
    assert "Hover over a patch to preview its map" in captions(at)


def test_a_large_grid_previews_every_kth_patch_and_says_so():
    """64 x 64 patches: 9 maps of 4,096 cells fit the tiles view's budget (every 17th row and
    column through the centre); the 2-D RoPE view's four maps a patch fit none: a click
    selects."""
    at = open_page(VIT_GRID, {"grid_h": "64", "grid_w": "64"})
    assert patch_states(plotly_figures(at)[1])["values"] == [
        f"{r},{c}" for r in (15, 32, 49) for c in (15, 32, 49)]
    assert "the preview moves in steps of 17 rows and columns" in captions(at)
    at.radio(key="view").set_value("rope").run()
    assert patch_states(plotly_figures(at)[0])["values"] == []
    assert "Click a patch to select it" in captions(at)
    assert "Hover over a patch" not in captions(at)


@pytest.mark.parametrize("query", [{}, {"grid_h": "64", "grid_w": "64", "d_model": "1280",
                                        "d_head": "256"},
                                   {"grid_h": "14", "grid_w": "14", "d_model": "1280",
                                    "lang": "zh"}])
def test_the_previews_keep_each_rerun_within_its_bytes(query):
    at = open_page(VIT_GRID, query)
    for view in ("tiles", "halves", "rope"):
        at.radio(key="view").set_value(view).run()
        assert not at.exception, view
        sent = sum(len(chart.proto.spec) for chart in at.get("plotly_chart"))
        assert sent <= 1_500_000, (view, sent)  # issue 6: <= 1.5 MB per rerun
