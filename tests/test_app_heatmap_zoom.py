"""The heatmap page's zoom window through AppTest: its corner's sliders span the table, and the
states the zoom chart carries for them (previewed while a slider is dragged) are the windows
the page draws when that value is released."""

from __future__ import annotations

import numpy as np
import pytest

from tests.apptest import control, decode, open_page, plotly_figures, set_control

PAGE = "app_pages/heatmap.py"


def zoom_figure(at) -> dict:
    (zoom,) = [f for f in plotly_figures(at) if f["layout"]["title"]["text"].endswith("(exact)")]
    return zoom


def paper_table(first_pos: int, rows: int, first_dim: int, cols: int, d_model: int):
    """PE(pos, dim) by the paper's formula in float64: sin at even columns, cos at odd."""
    pos = np.arange(first_pos, first_pos + rows)[:, None]
    dims = np.arange(first_dim, first_dim + cols)[None, :]
    angle = pos / 10000.0 ** (2 * (dims // 2) / d_model)
    return np.where(dims % 2 == 0, np.sin(angle), np.cos(angle))


def test_corner_sliders_span_the_corners_the_table_has():
    at = open_page(PAGE, {"positions": "50", "d_model": "16", "zoom_size": "8"})
    assert control(at, "zoom_pos").options == [str(v) for v in range(43)]  # 50 - 8 + 1
    assert control(at, "zoom_dim").options == [str(v) for v in range(9)]  # 16 - 8 + 1


def test_a_links_corner_past_the_end_is_kept_and_drawn_at_the_end():
    at = open_page(PAGE, {"positions": "50", "d_model": "16", "zoom_size": "8",
                          "zoom_pos": "500"})
    assert not at.exception and control(at, "zoom_pos").value == 500
    assert control(at, "zoom_pos").options[-2:] == ["42", "500"]
    np.testing.assert_array_equal(decode(zoom_figure(at)["data"][0]["y"]), np.arange(42, 50))


@pytest.mark.parametrize(("name", "value"), [("zoom_pos", 37), ("zoom_dim", 6)])
def test_each_state_is_the_window_drawn_on_release(name, value):
    query = {"positions": "50", "d_model": "16", "zoom_size": "8", "zoom_pos": "5",
             "zoom_dim": "2"}
    at = open_page(PAGE, query)
    live = zoom_figure(at)["layout"]["meta"]["live"][name]
    assert live["values"] == [str(v) for v in range(43 if name == "zoom_pos" else 9)]
    data, layout, traces = live["updates"][live["values"].index(str(value))]
    assert (layout, traces) == ({}, [0])
    state_z = decode(data["z"][0])
    corner = {"zoom_pos": 5, "zoom_dim": 2, name: value}
    np.testing.assert_allclose(state_z, paper_table(corner["zoom_pos"], 8, corner["zoom_dim"],
                                                    8, 16), atol=2e-7)
    released = zoom_figure(set_control(at, name, value))["data"][0]
    np.testing.assert_array_equal(state_z, decode(released["z"]))  # the very float32 numbers
    assert data["x"][0] == decode(released["x"]).tolist()
    assert data["y"][0] == decode(released["y"]).tolist()


def test_the_caption_says_when_a_drag_previews_fewer_corners_than_the_slider_has():
    # The defaults: 32 x 32 windows of a 128 x 128 table, 97 corners a slider, 18 states each.
    at = open_page(PAGE)
    live = zoom_figure(at)["layout"]["meta"]["live"]
    assert [len(live[name]["values"]) for name in ("zoom_pos", "zoom_dim")] == [18, 18]
    assert any("previewed every ~6 steps" in c.value for c in at.caption)
    # 4 x 4 windows of a 16 x 16 table: every corner has its state, and nothing is said.
    at = open_page(PAGE, {"positions": "16", "d_model": "16", "zoom_size": "4"})
    live = zoom_figure(at)["layout"]["meta"]["live"]
    assert [len(live[name]["values"]) for name in ("zoom_pos", "zoom_dim")] == [13, 13]
    assert not any("previewed" in c.value for c in at.caption)


def test_a_window_too_large_to_preview_follows_on_release_alone():
    at = open_page(PAGE, {"positions": "512", "d_model": "512", "zoom_size": "256"})
    assert "live" not in (zoom_figure(at)["layout"].get("meta") or {})
    assert not any("previewed" in c.value for c in at.caption)
