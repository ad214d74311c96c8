"""The wavelengths page through Streamlit's AppTest: it renders, its controls drive it, bad URL
values are explained, and the numbers shown are the right ones."""

from __future__ import annotations

import numpy as np
import pytest

from tests import reference
from tests.apptest import (
    decode,
    markdown,
    open_at_defaults,
    open_page,
    open_with_one_bad_value,
    plotly_figures,
    set_control,
)

WAVELENGTHS = "app_pages/wavelengths.py"


def test_default_render():
    at = open_at_defaults(WAVELENGTHS, charts=2)
    assert at.latex  # the formulas are next to the figures


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


# --- bad URL values: a notice naming the parameter, the page still draws -----------------------
BAD_VALUES = [
    (WAVELENGTHS, "d_model", "7"),
    (WAVELENGTHS, "positions", "0"),
    (WAVELENGTHS, "base", "nan"),
    (WAVELENGTHS, "dims", "0,99999"),
    (WAVELENGTHS, "dims", "<b>x</b>"),
]


@pytest.mark.parametrize("page, name, value", BAD_VALUES)
def test_bad_url_value_gives_a_notice_naming_the_parameter(page, name, value):
    at = open_with_one_bad_value(page, name, value)
    assert len(plotly_figures(at)) == 2  # the page still draws, with the default


def test_the_dimensions_are_the_curves_and_clocks_own_control():
    """d_model, positions, base and timescales are page-wide; the dimensions drawn sit above
    the curves (the spectrum beside them does not depend on them) and above the clocks."""
    at = open_page(WAVELENGTHS, {"d_model": "64"})
    assert at.main.text_input(key="dims") and not at.sidebar.text_input
    at.text_input(key="dims").set_value("0,1,20").run()
    assert not at.exception
    at.radio(key="view").set_value("clocks").run()
    assert at.text_input(key="dims").value == "0,1,20"
    at.text_input(key="dims").set_value("999").run()  # off the table: said in the view
    assert "dims=999" in " ".join(w.value for w in at.warning)
    assert plotly_figures(at)  # the default dimensions drawn


@pytest.mark.parametrize("d_model", ["128", "512"])
def test_an_empty_dims_box_shows_the_dimensions_it_stands_for(d_model):
    """The dims box is empty by default (the fastest, a middle and the slowest pair): its
    greyed placeholder lists those columns, and typing them draws the same curves."""
    at = open_page(WAVELENGTHS, {"d_model": d_model})
    half = int(d_model) // 2
    pairs = [0, half // 2, half - 1]  # the article's three: fastest, middle, slowest
    columns = ", ".join(str(c) for i in pairs for c in (2 * i, 2 * i + 1))
    assert at.text_input(key="dims").value == ""
    assert at.text_input(key="dims").placeholder == columns
    typed = open_page(WAVELENGTHS, {"d_model": d_model, "dims": columns})
    assert plotly_figures(typed)[0] == plotly_figures(at)[0]
