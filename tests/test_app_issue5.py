"""The RoPE, ALiBi and extrapolation pages through Streamlit's AppTest.

Each page renders without exception, controls (by key) change what is drawn, the numbers drawn
equal independent references, and a bad URL value gives a notice naming the parameter.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.apptest import control, decode, notices, open_page, plotly_figures, set_control
from tests.test_alibi import REFERENCE_12
from tests.test_rope import hf_apply_rotary, loop_interleaved_rotate

ROPE, ALIBI, EXTRAPOLATION = "app_pages/rope.py", "app_pages/alibi.py", "app_pages/extrapolation.py"


def _minilm_available() -> bool:
    try:
        from core import load_minilm

        load_minilm()
    except Exception:
        return False
    return True


def figure_titled(at, words: str) -> dict:
    for figure in plotly_figures(at):
        if words in figure["layout"]["title"]["text"]:
            return figure
    raise AssertionError(f"no figure titled with {words!r}")


@pytest.mark.parametrize(
    "page, charts",
    [(ROPE, 1), (ALIBI, 1), (EXTRAPOLATION, 4 if _minilm_available() else 3)],
)
def test_default_render_has_no_exception(page, charts):
    at = open_page(page)
    assert not at.exception
    assert notices(at) == []
    assert len(plotly_figures(at)) == charts


# --- sections: one at a time, in the URL as `view` -----------------------------------------------
SECTIONS = {
    ROPE: {"rotation": ["rotation_chart"], "relative": ["logits_chart"],
           "decay": ["decay_chart"], "extension": ["extension_chart"],
           "config": ["config_wavelengths_chart", "config_angles_chart", "config_logits_chart"]},
    ALIBI: {"slopes": ["slopes_chart"], "heads": ["bias_grid_chart"], "head": ["head_chart"],
            "reach": ["reach_chart"]},
}
DEFAULT_SECTION = {ROPE: ("rotation", ["rotation_chart"]), ALIBI: ("slopes", ["slopes_chart"])}


def chart_keys(at) -> list[str]:
    return [chart.key for chart in at.get("plotly_chart")]


@pytest.mark.parametrize(
    "page, view, keys",
    [(page, view, keys) for page, views in SECTIONS.items() for view, keys in views.items()],
)
def test_a_link_with_view_opens_that_section_and_only_its_charts(page, view, keys):
    at = open_page(page, {"view": view})
    assert not at.exception, [e.value for e in at.exception]
    assert notices(at) == []
    assert at.radio(key="view").value == view
    assert chart_keys(at) == keys
    assert len(plotly_figures(at)) == len(keys)
    assert len(at.latex) >= 1  # the page's formula stays above the switch


@pytest.mark.parametrize("page", list(SECTIONS))
def test_switching_sections_draws_each_sections_charts(page):
    at = open_page(page)
    view, keys = DEFAULT_SECTION[page]
    assert at.radio(key="view").value == view and chart_keys(at) == keys  # a link without view
    assert at.radio(key="view").options == list(SECTIONS[page])
    for view, keys in SECTIONS[page].items():
        at.radio(key="view").set_value(view).run()
        assert not at.exception, view
        assert chart_keys(at) == keys, view


@pytest.mark.parametrize("page", list(SECTIONS))
def test_a_bad_view_gives_a_notice_and_the_default_section(page):
    at = open_page(page, {"view": "everything"})
    assert not at.exception
    assert notices(at) == [
        f"URL parameter view=everything is not allowed: view must be one of "
        f"{', '.join(SECTIONS[page])}. Using the default, {DEFAULT_SECTION[page][0]}."
    ]
    view, keys = DEFAULT_SECTION[page]
    assert at.radio(key="view").value == view and chart_keys(at) == keys


# --- rope ---------------------------------------------------------------------------------------
def seeded_q_k(d_head: int) -> tuple[np.ndarray, np.ndarray]:
    q, k = np.random.default_rng(0).standard_normal((2, d_head))  # the page's seed 0
    return q, k


def test_rope_logit_curve_equals_hugging_face_formula_and_both_anchors_agree():
    at = open_page(ROPE, {"d_head": "16", "positions": "30", "layout": "half_split",
                          "view": "relative"})
    assert control(at, "d_head").value == 16
    figure = figure_titled(at, "Attention logit")
    first, second = (decode(trace["y"]) for trace in figure["data"])
    q, k = seeded_q_k(16)
    m = 29
    for offset in (0, 1, 5, 29):
        expected = hf_apply_rotary(q[None], [m], 1e4)[0] @ hf_apply_rotary(k[None], [m - offset],
                                                                             1e4)[0]
        assert first[offset] == pytest.approx(expected, abs=1e-9)
    np.testing.assert_allclose(first, second, atol=1e-9)
    assert "largest difference" in at.caption[0].value


def test_rope_changing_layout_changes_the_curve_to_the_per_pair_loop():
    at = open_page(ROPE, {"d_head": "8", "positions": "12", "view": "relative"})
    before = decode(figure_titled(at, "Attention logit")["data"][0]["y"])
    at.radio(key="layout").set_value("half_split").run()
    after = decode(figure_titled(at, "Attention logit")["data"][0]["y"])
    assert not np.allclose(before, after)
    q, k = seeded_q_k(8)
    expected = [
        loop_interleaved_rotate(q[None], [11], 1e4)[0]
        @ loop_interleaved_rotate(k[None], [11 - r], 1e4)[0]
        for r in range(12)
    ]
    np.testing.assert_allclose(before, expected, atol=1e-9)


def test_rope_rotation_points_are_the_sinusoid_pairs():
    at = open_page(ROPE, {"d_head": "8", "positions": "20", "base": "100"})
    figure = figure_titled(at, "One pair")
    points = [t for t in figure["data"] if t.get("mode") == "markers"]
    assert len(points) == 3  # pairs 0, 2 and 3 of d_head = 8
    for trace, pair in zip(points, (0, 2, 3), strict=True):
        x, y = decode(trace["x"]), decode(trace["y"])
        angles = np.arange(20) * 100.0 ** (-2 * pair / 8)
        np.testing.assert_allclose(x, np.cos(angles), atol=1e-12)
        np.testing.assert_allclose(y, np.sin(angles), atol=1e-12)


def test_rope_rotation_caption_counts_the_points_drawn():
    """Long sequences draw a sample of positions: the caption says how many, and that many are
    drawn on each circle, each at its exact rotation (first and last position included)."""
    at = open_page(ROPE, {"d_head": "8", "positions": "8192", "base": "100"})
    figure = figure_titled(at, "One pair")
    points = [t for t in figure["data"] if t.get("mode") == "markers"]
    drawn = {len(decode(trace["x"])) for trace in points}
    assert drawn == {128}
    caption = " ".join(c.value for c in at.caption)
    assert "128 of 8192 positions drawn" in caption
    positions = decode(points[0]["customdata"])
    assert positions[0] == 0 and positions[-1] == 8191
    np.testing.assert_allclose(decode(points[0]["x"]), np.cos(positions * 1.0), atol=1e-9)


def test_rope_base_preset_button_sets_llama3_base():
    at = open_page(ROPE, {"view": "decay"})
    at.button(key="base_preset_500000").click().run()
    assert control(at, "base").value == 500000.0
    decay = figure_titled(at, "Long-term decay")
    assert {t["name"] for t in decay["data"]} == {"base 500000", "base 10000"}


def test_rope_context_extension_counts_follow_the_factor():
    at = open_page(ROPE, {"d_head": "128", "factor": "4", "view": "extension"})
    titles = [a["text"] for a in figure_titled(at, "Context extension")["layout"]["annotations"]]
    assert "<b>no scaling</b><br>23 of 64 pairs beyond" in titles
    assert "<b>position interpolation</b><br>0 of 64 pairs beyond" in titles
    set_control(at, "factor", 1)
    titles = [a["text"] for a in figure_titled(at, "Context extension")["layout"]["annotations"]]
    assert "<b>no scaling</b><br>0 of 64 pairs beyond" in titles


def test_rope_scaling_keeps_the_relative_property():
    at = open_page(ROPE, {"scaling": "ntk_aware", "factor": "8", "positions": "64",
                          "view": "relative"})
    assert not at.exception
    assert at.radio(key="scaling").value == "ntk_aware"
    first, second = (decode(t["y"]) for t in figure_titled(at, "Attention logit")["data"])
    np.testing.assert_allclose(first, second, atol=1e-9)


# --- alibi --------------------------------------------------------------------------------------
def test_alibi_table_shows_the_reference_slopes():
    at = open_page(ALIBI, {"num_heads": "12", "positions": "100"})
    table = at.dataframe[0].value
    assert [float(v) for v in table["slope m"]] == pytest.approx(REFERENCE_12, rel=1e-5)
    assert [float(v) for v in table["1/m"]] == pytest.approx(
        [1 / m for m in REFERENCE_12], rel=1e-3
    )
    slope_chart = figure_titled(at, "Slopes")
    np.testing.assert_allclose(decode(slope_chart["data"][0]["y"]), REFERENCE_12, rtol=1e-15)
    at.radio(key="view").set_value("reach").run()
    reach = figure_titled(at, "Attention from the bias alone")
    weights = decode(reach["data"][0]["y"])
    raw = np.exp(-0.5 * np.arange(100))
    expected = raw / raw.sum()
    shown = ~np.isnan(weights)
    np.testing.assert_allclose(weights[shown], expected[shown], rtol=1e-6)  # sent as float32


def test_alibi_at_its_largest_stays_within_the_payload_budget():
    at = open_page(ALIBI, {"num_heads": "64", "positions": "2048"})
    assert not at.exception
    for view in ("slopes", "heads", "head", "reach"):  # every section, each one a rerun
        at.radio(key="view").set_value(view).run()
        assert not at.exception, view
        sent = sum(len(chart.proto.spec) for chart in at.get("plotly_chart"))
        assert sent <= 1_500_000, view  # issue 6: <= 1.5 MB per rerun at any setting
    reach = figure_titled(at, "Attention from the bias alone")
    weights = decode(reach["data"][-1]["y"])  # the shallowest head: 2048 distances, 512 shown
    distances = decode(reach["data"][-1]["x"])
    assert weights.size == 512 and distances[0] == 0 and distances[-1] == 2047
    slope = 2.0 ** (-8 * 64 / 64)
    raw = np.exp(-slope * np.arange(2048))
    np.testing.assert_allclose(weights, (raw / raw.sum())[distances], rtol=1e-6)


def test_alibi_toggling_causal_fills_the_upper_triangle():
    at = open_page(ALIBI, {"num_heads": "4", "positions": "6", "head": "2", "view": "head"})
    z = decode(figure_titled(at, "Head 2")["data"][0]["z"])
    assert np.isnan(z[0, 5]) and z[5, 0] == pytest.approx(-0.0625 * 5)  # m_2 = 2^(-4) for n = 4
    at.toggle(key="causal").set_value(False).run()
    z = decode(figure_titled(at, "Head 2")["data"][0]["z"])
    assert z[0, 5] == pytest.approx(-0.0625 * 5)
    at.radio(key="view").set_value("heads").run()
    grid = figure_titled(at, "Bias of every head")
    assert len(grid["data"]) == 4


def test_alibi_many_heads_stays_within_the_cell_budget():
    at = open_page(ALIBI, {"num_heads": "64", "positions": "2048", "head": "64",
                           "view": "heads"})
    assert not at.exception
    grid = figure_titled(at, "Bias of every head")
    cells = sum(decode(t["z"]).size for t in grid["data"])
    at.radio(key="view").set_value("head").run()
    large = decode(figure_titled(at, "Head 64")["data"][0]["z"]).size
    assert len(grid["data"]) == 64 and cells <= 80_000 and large <= 256 * 256


def test_alibi_head_beyond_num_heads_is_explained():
    at = open_page(ALIBI, {"num_heads": "4", "head": "9", "view": "head"})
    assert "head 9 does not exist with 4 heads" in at.info[0].value
    assert figure_titled(at, "Head 4")


# --- extrapolation ------------------------------------------------------------------------------
def test_extrapolation_panels_say_what_happens():
    at = open_page(EXTRAPOLATION, {"train_length": "2048", "target_length": "8192",
                                   "d_model": "128"})
    text = "\n".join(m.value for m in at.markdown)
    assert "23 of the 64 pairs" in text
    assert "down to -4096 for the steepest head at distance 8191" in text  # 0.5 * 8191
    assert "up to 5.3× further away" in text
    alibi_figure = figure_titled(at, "ALiBi")
    assert decode(alibi_figure["data"][0]["y"]).min() == pytest.approx(-0.5 * 8191)
    if _minilm_available():
        assert "lookup table of 512 rows" in text
        learned = decode(figure_titled(at, "Learned")["data"][0]["y"])
        assert np.isnan(learned[512:]).all() and np.isfinite(learned[:512]).all()
    else:
        assert "could not be loaded" in at.info[0].value


def test_extrapolation_changing_d_model_changes_the_sinusoid_panel():
    at = open_page(EXTRAPOLATION, {"train_length": "100", "target_length": "400", "d_model": "8"})
    before = decode(figure_titled(at, "Sinusoid")["data"][0]["y"])
    set_control(at, "d_model", 64)
    after = decode(figure_titled(at, "Sinusoid")["data"][0]["y"])
    assert before.shape == after.shape == (400,)
    assert not np.allclose(before, after)
    assert np.all(after[:100] == 0)


def test_extrapolation_without_extrapolating_says_so():
    at = open_page(EXTRAPOLATION, {"train_length": "500", "target_length": "400"})
    assert any("is not beyond train_length" in i.value for i in at.info)
    assert not at.exception


# --- bad URL values -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "page, name, value",
    [
        (ROPE, "d_head", "7"),
        (ROPE, "d_head", "4096"),
        (ROPE, "base", "1"),
        (ROPE, "base", "nan"),
        (ROPE, "layout", "concatenated"),
        (ROPE, "positions", "0"),
        (ROPE, "scaling", "yarn"),
        (ROPE, "factor", "0"),
        (ROPE, "factor", "1e9"),
        (ROPE, "view", "all"),
        (ALIBI, "num_heads", "0"),
        (ALIBI, "num_heads", "65"),
        (ALIBI, "positions", "99999"),
        (ALIBI, "causal", "maybe"),
        (ALIBI, "head", "-1"),
        (ALIBI, "view", "bias"),
        (EXTRAPOLATION, "train_length", "abc"),
        (EXTRAPOLATION, "target_length", "100000"),
        (EXTRAPOLATION, "d_model", "3"),
    ],
)
def test_bad_url_value_gives_a_notice_naming_the_parameter(page, name, value):
    at = open_page(page, {name: value})
    assert not at.exception
    messages = notices(at)
    assert len(messages) == 1, messages
    assert messages[0].startswith(f"URL parameter {name}=")
    assert "Using the default" in messages[0] or "as by default" in messages[0]
    # The page still draws, with the default (RoPE and ALiBi: their default section's chart).
    assert len(plotly_figures(at)) >= (1 if page in SECTIONS else 3)


def test_notice_for_base_mentions_value_and_rule():
    at = open_page(ROPE, {"base": "0.5"})
    assert "base=0.5 is not allowed" in notices(at)[0]
    assert math.isclose(control(at, "base").value, 10000.0)
