"""The wavelengths, similarity and vit-grid pages through Streamlit's AppTest: they render, their
controls drive them, bad URL values are explained, and the numbers shown are the right ones."""

from __future__ import annotations

import math

import numpy as np
import pytest

import core
from tests import reference
from tests.apptest import control, decode, notices, open_page, plotly_figures, set_control
from ui.pages import PAGE_PARAMS

WAVELENGTHS = "app_pages/wavelengths.py"
SIMILARITY = "app_pages/similarity.py"
VIT_GRID = "app_pages/vit_grid.py"


def markdown(at) -> str:
    return "\n".join(m.value for m in at.markdown)


@pytest.mark.parametrize(
    "page, charts", [(WAVELENGTHS, 2), (SIMILARITY, 1), (VIT_GRID, 2)]
)
def test_default_render(page, charts):
    at = open_page(page)
    assert not at.exception
    assert notices(at) == []
    assert len(plotly_figures(at)) == charts
    assert at.latex  # the formulas are next to the figures


# --- wavelengths -------------------------------------------------------------------------------
def test_wavelengths_default_dims_and_numbers():
    at = open_page(WAVELENGTHS, {"d_model": "512", "positions": "2048"})
    curves, _ = plotly_figures(at)  # one section at a time: curves and spectrum first
    names = [t["name"] for t in curves["data"]]
    assert [n.split(":")[0] for n in names] == [
        "dim 0", "dim 1", "dim 256", "dim 257", "dim 510", "dim 511"
    ]
    assert "λ=60,611.48" in names[-1]
    text = markdown(at)
    assert "**60,611.5**" in text and "**62,831.9**" in text
    assert "**95** of the 256 pairs" in text  # 2 pi 10000^(2i/512) > 2048 for i >= 161
    assert "**1.036633**" in text  # the ratio 10000^(2/512)
    at.radio(key="view").set_value("clocks").run()
    (clocks,) = plotly_figures(at)
    assert len(clocks["frames"]) == 400


def test_wavelengths_shows_both_timescale_conventions_side_by_side():
    """The formula's slowest wavelength (60,611.5 at d = 512) beside tensor2tensor's exact
    2 pi 10^4 (62,831.9); the control switches the curves to tensor2tensor's frequencies."""
    at = open_page(WAVELENGTHS, {"d_model": "512", "positions": "2048"})
    text = markdown(at)
    table = next(line for line in text.splitlines() if "longest" in line and "|" in line)
    assert "60,611.5" in table and "62,831.9" in table
    ratio = next(line for line in text.splitlines() if "ratio" in line and "|" in line)
    assert f"{10000 ** (2 / 512):.6f}" in ratio and f"{10000 ** (1 / 255):.6f}" in ratio
    at.radio(key="timescales").set_value("tensor2tensor").run()
    assert not at.exception
    curves, _ = plotly_figures(at)
    last = curves["data"][-1]  # dim 511: cos of the slowest pair
    assert "λ=62,831.85" in last["name"]
    expected = reference.t2t_get_timing_signal_1d(2048, 512)[:, 511]  # concatenated: cos 255
    np.testing.assert_allclose(decode(last["y"]), expected, atol=1e-9)
    assert "**62,831.9**" in markdown(at) and r"1/(d/2-1)" in at.latex[0].value


def test_wavelengths_dims_control_drives_the_curves():
    at = open_page(WAVELENGTHS, {"d_model": "64", "positions": "50"})
    at.text_input(key="dims").set_value("2, 3").run()
    curves = plotly_figures(at)[0]
    assert [t["name"].split(":")[0] for t in curves["data"]] == ["dim 2", "dim 3"]
    y = decode(curves["data"][0]["y"])
    w = 10000 ** (-2 / 64)
    np.testing.assert_allclose(y, np.sin(np.arange(50) * w), atol=1e-6)
    set_control(at, "positions", 80)
    assert decode(plotly_figures(at)[0]["data"][0]["y"]).shape == (80,)


def test_wavelengths_clock_starts_at_the_articles_position_7():
    at = open_page(WAVELENGTHS, {"d_model": "768", "positions": "100", "view": "clocks"})
    (clocks,) = plotly_figures(at)
    assert clocks["layout"]["sliders"][0]["active"] == 7
    assert clocks["data"][4]["text"][0] == "pos 7: 0.23π"


# --- similarity --------------------------------------------------------------------------------
def test_similarity_default_is_the_tf_tutorial_view():
    at = open_page(SIMILARITY)
    (matrix,) = plotly_figures(at)  # one section at a time: the matrix first
    assert decode(matrix["data"][0]["z"]).shape == (200, 200)
    assert "all 2048² = 4,194,304 entries" in markdown(at)
    at.radio(key="view").set_value("anchor").run()
    (profile,) = plotly_figures(at)
    y = decode(profile["data"][0]["y"])
    assert y.shape == (2048,) and int(np.argmax(y)) == 1000
    assert y[1000] == pytest.approx(1.0, abs=1e-6)


def test_similarity_every_view_draws_its_charts():
    charts = {"matrix": 1, "offset": 1, "anchor": 1, "distance": 1, "rotation": 2}
    for view, count in charts.items():
        at = open_page(SIMILARITY, {"positions": "300", "d_model": "64", "view": view})
        assert not at.exception, view
        assert len(plotly_figures(at)) == count, view


def test_similarity_curve_and_residual_numbers():
    query = {"positions": "300", "d_model": "64", "metric": "dot", "offset": "5",
             "anchor": "100", "view": "offset"}
    at = open_page(SIMILARITY, query)
    assert not at.exception
    scatter = plotly_figures(at)[0]
    curve = next(t for t in scatter["data"] if "offset_dot_product" in t.get("name", ""))
    k = decode(curve["x"])
    np.testing.assert_allclose(decode(curve["y"]), core.offset_dot_product(k, 64), atol=1e-9)
    text = markdown(at)
    # direction blindness, from the table: PE[100].PE[105] = PE[100].PE[95]
    expected = core.offset_dot_product(5, 64)
    assert f"position 105: **{expected:.6f}**" in text
    assert f"position 95: **{expected:.6f}**" in text
    at.radio(key="view").set_value("rotation").run()
    residual = float(markdown(at).split("(295 of them) is **")[1].split("**")[0])
    assert residual < 1e-6  # float32 rounding only


def test_similarity_controls_drive_the_page():
    at = open_page(SIMILARITY, {"positions": "200", "d_model": "32", "anchor": "50"})
    before = decode(plotly_figures(at)[0]["data"][0]["z"])
    at.radio(key="metric").set_value("dot").run()
    after = decode(plotly_figures(at)[0]["data"][0]["z"])
    np.testing.assert_allclose(after, before * 16, rtol=1e-4, atol=1e-4)  # |PE|^2 = d/2 = 16
    at.radio(key="view").set_value("rotation").run()
    set_control(at, "offset", 7)
    shift = plotly_figures(at)[0]
    assert shift["layout"]["title"]["text"] == "M_k for k = 7"  # d = 32: the whole matrix
    z = decode(shift["data"][0]["z"])
    assert z[0, 0] == pytest.approx(math.cos(7), abs=1e-6)
    set_control(at, "pair", 3)
    rotation = plotly_figures(at)[1]
    assert rotation["layout"]["title"]["text"] == "Pair 3 rotated by ω_3·k"


def test_similarity_clamps_anchor_and_offset_with_an_info():
    """In the view that uses them (rotation: anchor, offset and pair); the matrix view, which
    uses none of them, says nothing about them."""
    query = {"positions": "100", "d_model": "16", "anchor": "500", "offset": "-300",
             "pair": "30"}
    at = open_page(SIMILARITY, {**query, "view": "rotation"})
    assert not at.exception
    infos = [i.value for i in at.info]
    assert "anchor 500 is past the last position (99): using 99." in infos
    assert "offset -300 is longer than the table allows: using -99." in infos
    assert "pair 30 does not exist for d_model = 16: using 7." in infos
    at = open_page(SIMILARITY, query)
    assert not at.exception and [i.value for i in at.info] == []


# --- vit-grid ----------------------------------------------------------------------------------
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
    (WAVELENGTHS, "d_model", "7"),
    (WAVELENGTHS, "positions", "0"),
    (WAVELENGTHS, "base", "nan"),
    (WAVELENGTHS, "dims", "0,99999"),
    (WAVELENGTHS, "dims", "<b>x</b>"),
    (SIMILARITY, "d_model", "2048"),
    (SIMILARITY, "positions", "5000"),
    (SIMILARITY, "metric", "euclid"),
    (SIMILARITY, "offset", "abc"),
    (SIMILARITY, "anchor", "-1"),
    (VIT_GRID, "grid_h", "65"),
    (VIT_GRID, "grid_w", "0"),
    (VIT_GRID, "d_model", "6"),
    (VIT_GRID, "cls_token", "maybe"),
    (VIT_GRID, "patch", "3;4;5"),
    (VIT_GRID, "patch", "20,20"),
]


@pytest.mark.parametrize("page, name, value", BAD_VALUES)
def test_bad_url_value_gives_a_notice_naming_the_parameter(page, name, value):
    at = open_page(page, {name: value})
    assert not at.exception
    messages = notices(at)
    assert len(messages) == 1, messages
    assert messages[0].startswith(f"URL parameter {name}")
    assert "Using the default" in messages[0] or "as by default" in messages[0]
    charts = {WAVELENGTHS: 2, SIMILARITY: 1, VIT_GRID: 2}[page]
    assert len(plotly_figures(at)) == charts


def test_every_url_parameter_of_the_contract_is_a_control():
    expected = {
        "wavelengths": {"d_model", "positions", "base", "dims"},
        "similarity": {"d_model", "positions", "base", "anchor", "offset", "metric"},
        "vit-grid": {"grid_h", "grid_w", "d_model", "base", "cls_token", "patch"},
    }
    for page, names in expected.items():
        assert names <= {p.name for p in PAGE_PARAMS[page]}
    at = open_page(VIT_GRID)
    keys = {w.key for w in at.number_input} | {w.key for w in at.text_input}
    keys |= {w.key for w in at.toggle} | {w.key for w in at.slider}
    keys |= {w.key for w in at.select_slider}
    assert {"grid_h", "grid_w", "d_model", "base", "cls_token", "patch"} <= keys
