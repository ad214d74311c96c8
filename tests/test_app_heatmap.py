"""The heatmap page through Streamlit's AppTest: renders, controls drive it, bad URLs explained."""

from __future__ import annotations

import numpy as np
import pytest

from tests import reference
from tests.apptest import control, decode, notices, open_page, plotly_figures, set_control

PAGE = "app_pages/heatmap.py"


def test_default_render_has_no_exception_and_two_charts():
    at = open_page(PAGE)
    assert not at.exception
    assert notices(at) == []
    figures = plotly_figures(at)
    assert len(figures) == 2  # the table and the exact zoom window
    z = decode(figures[0]["data"][0]["z"])
    assert z.shape == (128, 128)


def test_deep_link_sets_the_table_and_it_matches_the_article():
    at = open_page(PAGE, {"d_model": "4", "positions": "5"})
    assert control(at, "d_model").value == 4
    z = decode(plotly_figures(at)[0]["data"][0]["z"])
    np.testing.assert_allclose(z, reference.loop_interleaved(5, 4), atol=1e-6)


def test_changing_controls_changes_the_figure():
    at = open_page(PAGE, {"d_model": "8", "positions": "6"})
    before = decode(plotly_figures(at)[0]["data"][0]["z"])
    at.radio(key="layout").set_value("concatenated").run()
    after = decode(plotly_figures(at)[0]["data"][0]["z"])
    np.testing.assert_allclose(after, reference.loop_concatenated(6, 8), atol=1e-6)
    assert not np.allclose(before, after)
    set_control(at, "positions", 9)
    assert decode(plotly_figures(at)[0]["data"][0]["z"]).shape == (9, 8)


def test_worked_example_shows_the_articles_number():
    # 000_07ab17f223f31f63.txt: PE(1, 2) = sin(1 / 10000^(2/4)) = sin(1/100) ~ 0.01
    at = open_page(PAGE, {"d_model": "4", "pos": "1", "dim": "2"})
    formula = at.latex[0].value
    assert r"\frac{1}{10000^{2\cdot 1/4}}" in formula
    assert r"\sin(0.01) = 0.010000" in formula  # sin(0.01) = 0.0099998 to 6 decimals
    at = open_page(PAGE, {"d_model": "4", "pos": "3", "dim": "1"})
    assert "= -0.989992" in at.latex[0].value  # the article: cos(3) ~ -0.9899


def test_large_table_is_a_resampled_overview():
    at = open_page(PAGE, {"d_model": "4096", "positions": "8192"})
    assert not at.exception
    heatmap = plotly_figures(at)[0]
    z = decode(heatmap["data"][0]["z"])
    assert z.shape == (256, 512)
    notes = " ".join(a["text"] for a in heatmap["layout"]["annotations"])
    assert "Overview" in notes and "never a sine with a cosine" in notes
    assert "change faster than one cell" in notes


def test_tensorflow_tutorial_size_keeps_every_dimension_and_names_the_fast_ones():
    """/heatmap?d_model=512&positions=2048: 512 columns, and the figure says which columns are
    too fast for the rows (drawn grey), with a dotted line where they end."""
    at = open_page(PAGE, {"d_model": "512", "positions": "2048"})
    heatmap = plotly_figures(at)[0]
    z = decode(heatmap["data"][0]["z"])
    assert z.shape[1] == 512
    notes = " ".join(a["text"] for a in heatmap["layout"]["annotations"])
    omega = 10000.0 ** (-np.arange(0, 512, 2) / 512)
    fast_pairs = int(np.sum(omega > np.pi * z.shape[0] / 2048))
    assert f"Columns 0–{2 * fast_pairs - 1} change faster than one cell" in notes
    lines = [s for s in heatmap["layout"]["shapes"] if s["type"] == "line"]
    assert [s["x0"] for s in lines] == [2 * fast_pairs - 0.5]


def test_tensor2tensor_timescales_control_changes_the_table_and_the_formula():
    at = open_page(PAGE, {"d_model": "4", "positions": "5", "timescales": "tensor2tensor",
                          "layout": "concatenated", "pos": "3", "dim": "1"})
    assert not at.exception and at.radio(key="timescales").value == "tensor2tensor"
    z = decode(plotly_figures(at)[0]["data"][0]["z"])
    np.testing.assert_allclose(z, reference.t2t_get_timing_signal_1d(5, 4), atol=1e-6)
    formula = at.latex[0].value
    assert r"10000^{1/1}" in formula  # pair 1 of 2: exponent i/(d/2 - 1) = 1
    assert r"\sin(0.0003) = 0.000300" in formula


@pytest.mark.parametrize(
    "name, value",
    [
        ("d_model", "7"),
        ("d_model", "-4"),
        ("d_model", "abc"),
        ("d_model", "1e308"),
        ("positions", "0"),
        ("positions", "NaN"),
        ("positions", "99999"),
        ("base", "1"),
        ("base", "nan"),
        ("base", "1e308"),
        ("base", "-inf"),
        ("layout", "diagonal"),
        ("zoom_size", "100000"),
    ],
)
def test_bad_url_value_gives_a_notice_naming_the_parameter(name, value):
    at = open_page(PAGE, {name: value})
    assert not at.exception
    messages = notices(at)
    assert len(messages) == 1
    assert messages[0].startswith(f"URL parameter {name}=")
    assert "Using the default" in messages[0]
    assert len(plotly_figures(at)) == 2  # the page still draws, with the default


def test_odd_d_model_in_url_resets_the_widget_to_the_default():
    at = open_page(PAGE, {"d_model": "7"})
    assert control(at, "d_model").value == 128
    assert decode(plotly_figures(at)[0]["data"][0]["z"]).shape[1] == 128


@pytest.mark.parametrize(("lang", "layout", "title"), [
    ("en", "interleaved", "Sinusoidal PE (interleaved)"),
    ("zh", "interleaved", "正弦位置编码（交错）"),
    ("zh", "concatenated", "正弦位置编码（拼接）"),
])
def test_the_heatmaps_title_names_the_layout_in_the_visitors_language(lang, layout, title):
    at = open_page("app_pages/heatmap.py", {"lang": lang, "layout": layout, "d_model": "16",
                                            "positions": "8"})
    assert plotly_figures(at)[0]["layout"]["title"]["text"] == title


# --- the worked entry on the heatmap: each cell's formula in its hover, the entry outlined ------
def outline(figure: dict) -> tuple | None:
    """The worked entry's outline on the heatmap (x0, x1, y0, y1), if drawn."""
    rects = [s for s in figure["layout"].get("shapes", []) if s["type"] == "rect"]
    return None if not rects else tuple(rects[0][k] for k in ("x0", "x1", "y0", "y1"))


def test_default_heatmap_hovers_the_formula_and_outlines_the_worked_entry():
    at = open_page(PAGE, {"pos": "5", "dim": "4"})
    heatmap = plotly_figures(at)[0]
    trace = heatmap["data"][0]
    assert trace["hovertemplate"].startswith("PE(%{y:d}, %{x:d}) = %{x}(")
    assert trace["customdata"]["shape"] == "128, 128, 2"
    assert heatmap["layout"]["xaxis"]["labelalias"]["0004"] == "sin"
    assert outline(heatmap) == (3.5, 4.5, 4.5, 5.5)
    # The hover of that cell and the worked example write the same numbers: PE(5, 4) =
    # sin(5 / 10000^(4/128)) = sin(5 / 1.33352) = sin(3.74947) = -0.571127.
    denominator, angle = decode(trace["customdata"])[5, 4]
    assert (f"{denominator:.6g}", f"{angle:.6g}") == ("1.33352", "3.74947")
    assert f"{decode(trace['z'])[5, 4]:.6f}" == "-0.571127"
    assert r"\frac{5}{1.33352}" in at.latex[0].value
    assert r"\sin(3.74947) = -0.571127" in at.latex[0].value
    captions = [c.value for c in at.caption]
    assert "Hover a cell for its formula, worked; click it to work it below." in captions


def test_an_entry_past_the_table_is_not_outlined_and_a_dimension_past_it_is_the_last():
    at = open_page(PAGE, {"positions": "16", "d_model": "8", "pos": "16", "dim": "3"})
    assert outline(plotly_figures(at)[0]) is None  # positions 0-15 are drawn
    at = open_page(PAGE, {"positions": "16", "d_model": "8", "pos": "2", "dim": "9"})
    assert next(i.value for i in at.info).startswith("dimension 9 does not exist")
    assert outline(plotly_figures(at)[0]) == (6.5, 7.5, 1.5, 2.5)  # dimension 7, as worked


def test_larger_tables_keep_todays_hover_and_outline_the_block():
    at = open_page(PAGE, {"positions": "256", "d_model": "512", "pos": "100"})  # exact, 131,072
    trace = plotly_figures(at)[0]["data"][0]
    assert "customdata" not in trace and trace["hovertemplate"].startswith("position %{y}")
    assert ("Click a cell to work its entry below (a block of the overview: its first entry)."
            in [c.value for c in at.caption])
    at = open_page(PAGE, {"positions": "4096", "pos": "100"})  # 512 rows of 8 positions
    heatmap = plotly_figures(at)[0]
    assert "smoothed value" in heatmap["data"][0]["hovertemplate"]
    assert outline(heatmap) == (1.5, 2.5, 95.5, 103.5)  # the block of positions 96-103


def test_the_worked_example_writes_numbers_as_the_hover_does():
    # tensor2tensor at base 1e8, d_model 4: pair 1's denominator is 1e8 itself, and PE(1, 3)
    # = cos(1 / 1e8) = cos(1e-8) = 1.000000, written as d3's ".6~g" writes them (no "1e-08").
    at = open_page(PAGE, {"d_model": "4", "base": "1e8", "timescales": "tensor2tensor",
                          "pos": "1", "dim": "3"})
    formula = at.latex[0].value
    assert r"\frac{1}{1e+8}" in formula and r"\cos(1e-8) = 1.000000" in formula
