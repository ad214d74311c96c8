"""The similarity page through Streamlit's AppTest: it renders, its controls drive it, bad URL
values are explained, and the numbers shown are the right ones."""

from __future__ import annotations

import math

import numpy as np
import pytest

import core
from tests.apptest import (
    decode,
    markdown,
    open_at_defaults,
    open_page,
    open_with_one_bad_value,
    plotly_figures,
    set_control,
)

SIMILARITY = "app_pages/similarity.py"


def test_default_render():
    at = open_at_defaults(SIMILARITY, charts=1)
    assert at.latex  # the formulas are next to the figures


def test_similarity_opens_at_a_table_whose_diagonals_read():
    """128 positions x 128: every pair is a cell of its own (no resampling), and the anchor
    sits in the middle of the table."""
    at = open_page(SIMILARITY)
    (matrix,) = plotly_figures(at)  # one section at a time: the matrix first
    assert decode(matrix["data"][0]["z"]).shape == (128, 128)
    assert "all 128² = 16,384 entries" in markdown(at)
    at.radio(key="view").set_value("anchor").run()
    (profile,) = plotly_figures(at)
    y = decode(profile["data"][0]["y"])
    assert y.shape == (128,) and int(np.argmax(y)) == 64


def test_a_link_to_the_tf_tutorials_view_keeps_its_sizes():
    """The TensorFlow tutorial's 2048 positions x 512, anchored at position 1000, named by the
    link (as the anchor view's text links it)."""
    at = open_page(SIMILARITY, {"positions": "2048", "d_model": "512", "anchor": "1000",
                                "view": "anchor"})
    (profile,) = plotly_figures(at)
    y = decode(profile["data"][0]["y"])
    assert y.shape == (2048,) and int(np.argmax(y)) == 1000
    assert y[1000] == pytest.approx(1.0, abs=1e-6)
    assert "./similarity?view=anchor&positions=2048&d_model=512&anchor=1000" in markdown(at)


def test_similarity_every_view_draws_its_charts():
    charts = {"matrix": 1, "offset": 1, "anchor": 1, "distance": 1, "rotation": 2}
    for view, count in charts.items():
        at = open_page(SIMILARITY, {"positions": "300", "d_model": "64", "view": view})
        assert not at.exception, view
        assert len(plotly_figures(at)) == count, view


def test_the_distance_view_has_no_control_that_changes_nothing():
    """The distance is the same whatever the similarity metric: the view shows no metric
    control (the matrix view does), and a link's metric leaves its chart as it is."""
    drawn = []
    for metric in ("dot", "cosine"):
        at = open_page(SIMILARITY, {"positions": "300", "d_model": "64", "view": "distance",
                                    "metric": metric})
        assert not at.exception
        assert [r.key for r in at.radio if r.key == "metric"] == []
        drawn.append(plotly_figures(at)[0]["data"])
    assert drawn[0] == drawn[1]
    at = open_page(SIMILARITY, {"view": "matrix"})
    assert [r.key for r in at.radio if r.key == "metric"] == ["metric"]


def test_similarity_curve_and_residual_numbers():
    query = {"positions": "300", "d_model": "64", "metric": "dot", "offset": "5",
             "anchor": "100", "view": "offset"}
    at = open_page(SIMILARITY, query)
    assert not at.exception
    scatter = plotly_figures(at)[0]
    curve = next(t for t in scatter["data"] if t.get("name", "").startswith("Σ<sub>i</sub> cos"))
    k = decode(curve["x"])
    np.testing.assert_allclose(decode(curve["y"]), core.offset_dot_product(k, 64), atol=1e-9)
    text = markdown(at)
    # direction blindness, from the table: PE[100].PE[105] = PE[100].PE[95]
    expected = core.offset_dot_product(5, 64)
    assert f"position 105: **{expected:.6f}**" in text
    assert f"position 95: **{expected:.6f}**" in text
    at.radio(key="view").set_value("rotation").run()
    written = markdown(at).split("(295 of them) is **")[1].split("**")[0]  # 1.46×10⁻⁷
    mantissa, power = written.split("×10")
    residual = float(mantissa) * 10 ** int(power.translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹",
                                                                         "-0123456789")))
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
    assert shift["layout"]["title"]["text"] == "Mₖ for k = 7"  # d = 32: the whole matrix
    z = decode(shift["data"][0]["z"])
    assert z[0, 0] == pytest.approx(math.cos(7), abs=1e-6)
    set_control(at, "pair", 3)
    rotation = plotly_figures(at)[1]
    assert rotation["layout"]["title"]["text"] == "Pair 3 rotated by ω<sub>3</sub>·k"


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


# --- the sliders' tracks: the table's values (ui.controls.PageControls.slider) -----------------
def track(at, key: str) -> tuple[int, int, int]:
    slider = at.slider(key=key)
    return slider.min, slider.max, slider.value


def test_the_view_sliders_span_the_table():
    """128 positions x 128: anchor 0 .. 127, offset -127 .. 127, pair 0 .. 63 (the parameters
    allow 4095, 4095 and 511: the rest of the track would draw the last value)."""
    at = open_page(SIMILARITY, {"view": "rotation"})
    assert not at.exception
    assert track(at, "anchor") == (0, 127, 64)
    assert track(at, "offset") == (-127, 127, 3)
    assert track(at, "pair") == (0, 63, 0)
    set_control(at, "d_model", 16)
    assert track(at, "pair") == (0, 7, 0)


def test_a_link_past_the_table_widens_the_track_and_is_clamped_with_a_note():
    """anchor=3000 with 128 positions: the slider shows 3000 (on a track that reaches it), the
    page draws position 127 and says so; the link keeps 3000."""
    at = open_page(SIMILARITY, {"view": "anchor", "anchor": "3000", "positions": "128"})
    assert not at.exception
    assert track(at, "anchor") == (0, 3000, 3000)
    assert "anchor 3000 is past the last position (127): using 127." in [i.value for i in at.info]
    (profile,) = plotly_figures(at)
    assert int(np.argmax(decode(profile["data"][0]["y"]))) == 127
    assert at.query_params["anchor"] == "3000"
    # Moved into the table, the track is the table's again and the value stays where it was put.
    set_control(at, "anchor", 10)
    assert track(at, "anchor") == (0, 127, 10)
    assert [i.value for i in at.info] == []
    (profile,) = plotly_figures(at)
    assert int(np.argmax(decode(profile["data"][0]["y"]))) == 10


def test_a_shorter_table_keeps_the_anchor_and_says_it_is_clamped():
    """Anchor 100 of 128 positions; 64 positions: the anchor stays 100 on the track it had,
    drawn as 63 with a note; 128 again: 100, drawn as 100, no note."""
    at = open_page(SIMILARITY, {"view": "anchor", "anchor": "100"})
    assert track(at, "anchor") == (0, 127, 100)
    set_control(at, "positions", 64)
    assert not at.exception
    assert track(at, "anchor") == (0, 127, 100)
    assert "anchor 100 is past the last position (63): using 63." in [i.value for i in at.info]
    set_control(at, "positions", 128)
    assert track(at, "anchor") == (0, 127, 100)
    assert [i.value for i in at.info] == []
    (profile,) = plotly_figures(at)
    assert int(np.argmax(decode(profile["data"][0]["y"]))) == 100
    # the offset too: -100 of 128 positions, then 64; moved back into the table, the track is
    # the table's (until then it holds: a new track is a new widget, which loses the focus)
    at.radio(key="view").set_value("offset").run()
    set_control(at, "offset", -100)
    set_control(at, "positions", 64)
    assert track(at, "offset") == (-127, 127, -100)
    assert "offset -100 is longer than the table allows: using -63." in [i.value for i in at.info]
    set_control(at, "offset", -90)
    assert track(at, "offset") == (-127, 127, -90)
    set_control(at, "offset", -20)
    assert track(at, "offset") == (-63, 63, -20)
    assert [i.value for i in at.info] == [  # the view's anchor is still past it
        "anchor 100 is past the last position (63): using 63."]


def test_one_pair_still_has_a_track():
    """d_model = 2 has pair 0 alone: a slider needs two ends, the second is clamped."""
    at = open_page(SIMILARITY, {"view": "rotation", "d_model": "2"})
    assert not at.exception
    assert track(at, "pair") == (0, 1, 0)


# --- bad URL values: a notice naming the parameter, the page still draws -----------------------
BAD_VALUES = [
    (SIMILARITY, "d_model", "2048"),
    (SIMILARITY, "positions", "5000"),
    (SIMILARITY, "metric", "euclid"),
    (SIMILARITY, "offset", "abc"),
    (SIMILARITY, "anchor", "-1"),
]


@pytest.mark.parametrize("page, name, value", BAD_VALUES)
def test_bad_url_value_gives_a_notice_naming_the_parameter(page, name, value):
    at = open_with_one_bad_value(page, name, value)
    assert len(plotly_figures(at)) == 1  # the page still draws, with the default
