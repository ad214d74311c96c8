"""The vit-grid page through Streamlit's AppTest: it renders, its controls drive it, bad URL values
are explained, and the numbers shown are the right ones."""

from __future__ import annotations

import numpy as np
import pytest

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
    rows = decode(halves["data"][2]["z"])
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
]


@pytest.mark.parametrize("page, name, value", BAD_VALUES)
def test_bad_url_value_gives_a_notice_naming_the_parameter(page, name, value):
    at = open_with_one_bad_value(page, name, value)
    assert len(plotly_figures(at)) == 2  # the page still draws, with the default
