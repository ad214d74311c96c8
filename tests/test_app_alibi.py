"""The ALiBi page through Streamlit's AppTest: it renders, its controls drive it, bad URL values
are explained, and the numbers shown are the right ones."""

from __future__ import annotations

import numpy as np
import pytest

from tests.apptest import (
    decode,
    figure_titled,
    open_at_defaults,
    open_page,
    open_with_one_bad_value,
    plotly_figures,
)
from tests.test_alibi import REFERENCE_12

ALIBI = "app_pages/alibi.py"


def test_default_render():
    open_at_defaults(ALIBI, charts=1)


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
    for view in ("t5", "xpos", "slopes", "heads", "head", "reach"):  # each one a rerun
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
    # The bias, as the hover reads it (the cells are coloured by its log: the grid's scale).
    bias = decode(figure_titled(at, "Head 2")["data"][0]["customdata"])
    assert np.isnan(bias[0, 5]) and bias[5, 0] == pytest.approx(-0.0625 * 5)  # m_2 = 2^(-4), n = 4
    at.toggle(key="causal").set_value(False).run()
    bias = decode(figure_titled(at, "Head 2")["data"][0]["customdata"])
    assert bias[0, 5] == pytest.approx(-0.0625 * 5)
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


# --- bad URL values -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "page, name, value",
    [
        (ALIBI, "num_heads", "0"),
        (ALIBI, "num_heads", "65"),
        (ALIBI, "positions", "99999"),
        (ALIBI, "causal", "maybe"),
        (ALIBI, "head", "-1"),
        (ALIBI, "view", "bias"),
        (ALIBI, "num_buckets", "33"),
        (ALIBI, "max_distance", "0"),
        (ALIBI, "gamma", "nan"),
        (ALIBI, "scale_base", "1e9"),
        (ALIBI, "d_head", "3"),
    ],
)
def test_bad_url_value_gives_a_notice_naming_the_parameter(page, name, value):
    at = open_with_one_bad_value(page, name, value)
    assert len(plotly_figures(at)) >= 1  # the default section's chart


def hf_t5_bucket(relative: np.ndarray, *, bidirectional: bool, num_buckets: int,
                 max_distance: int) -> np.ndarray:
    """Hugging Face's T5Attention._relative_position_bucket (the reference)."""
    import torch
    from transformers.models.t5.modeling_t5 import T5Attention

    return T5Attention._relative_position_bucket(
        torch.tensor(relative), bidirectional=bidirectional, num_buckets=num_buckets,
        max_distance=max_distance).numpy()


def test_t5_view_draws_hugging_faces_buckets_with_its_own_controls():
    at = open_page(ALIBI, {"view": "t5", "positions": "300", "num_buckets": "16",
                           "max_distance": "64", "causal": "false"})
    assert not at.exception, [e.value for e in at.exception]
    # the view's own controls are above its chart, not in the sidebar (a change reruns the view)
    assert at.main.number_input(key="num_buckets") and not at.sidebar.number_input
    assert "max_distance" not in [w.key for w in at.sidebar.select_slider]
    chart = figure_titled(at, "T5's buckets: 16 buckets, max_distance 64")
    for trace, bidirectional in zip(chart["data"][:2], (True, False), strict=True):
        relative = decode(trace["x"]).astype(np.int64)
        assert relative[0] == -299 and relative[-1] == 299
        np.testing.assert_array_equal(
            decode(trace["y"]),
            hf_t5_bucket(relative, bidirectional=bidirectional, num_buckets=16, max_distance=64))
    matrix = figure_titled(at, "Bucket of each query and key (encoder, 300 positions)")
    cells = decode(matrix["data"][0]["z"]).reshape(300, 300)
    index = np.arange(300)
    np.testing.assert_array_equal(cells, hf_t5_bucket(
        index[None, :] - index[:, None], bidirectional=True, num_buckets=16, max_distance=64))
    # a max_distance the log-spaced buckets cannot use: said, and the nearest usable one shown
    at.number_input(key="num_buckets").set_value(128).run()
    assert "max_distance 64 must exceed num_buckets / 2 = 64" in at.info[0].value
    assert figure_titled(at, "T5's buckets: 128 buckets, max_distance 65")
    at.radio(key="view").set_value("slopes").run()
    at.radio(key="view").set_value("t5").run()
    assert at.number_input(key="num_buckets").value == 128  # kept while another view was shown


def test_xpos_view_draws_torchscales_decay_beside_rope():
    at = open_page(ALIBI, {"view": "xpos", "positions": "1000", "d_head": "32",
                           "gamma": "0.4", "scale_base": "256"})
    assert not at.exception, [e.value for e in at.exception]
    assert at.main.number_input(key="gamma") and not at.sidebar.number_input
    chart = figure_titled(at, "q·k with distance: d_head 32, γ 0.4, B 256")
    rope, xpos, envelope = (decode(trace["y"]) for trace in chart["data"])
    distances = decode(chart["data"][0]["x"]).astype(np.int64)
    assert distances[0] == 0 and distances[-1] == 999
    # torchscale's XPOS written as loops: scale_i = (2i + 0.4 d) / (1.4 d), q_n . k_m carries
    # scale_i ** ((n - m) / B) on top of RoPE's cos((n - m) theta_i), theta_i = 10000^(-2i/d)
    for k, shown_rope, shown_xpos, shown_envelope in zip(distances[::97], rope[::97],
                                                          xpos[::97], envelope[::97],
                                                          strict=True):
        pairs = [(((2 * i) + 0.4 * 32) / (1.4 * 32), 10000.0 ** (-2 * i / 32)) for i in range(16)]
        assert shown_rope == pytest.approx(
            sum(np.cos(k * theta) for _, theta in pairs) / 16, abs=1e-6)
        assert shown_xpos == pytest.approx(
            sum(zeta ** (k / 256) * np.cos(k * theta) for zeta, theta in pairs) / 16, abs=1e-6)
        assert shown_envelope == pytest.approx(
            sum(zeta ** (k / 256) for zeta, _ in pairs) / 16, rel=1e-6)
    assert envelope[-1] < envelope[0] == pytest.approx(1.0)


def test_each_view_keeps_its_own_controls_above_its_chart():
    """num_heads and positions are page-wide (sidebar); causal and the head to enlarge belong
    to the bias views, in their rows: a change there reruns the view alone, and a value set
    in one view is kept while another is shown."""
    at = open_page(ALIBI, {"view": "heads", "num_heads": "4", "positions": "32"})
    assert [w.key for w in at.sidebar.slider] == ["num_heads"]
    assert at.main.toggle(key="causal") and at.main.slider(key="head")
    assert "causal" not in [w.key for w in at.sidebar.toggle]
    at.toggle(key="causal").set_value(False).run()
    at.slider(key="head").set_value(3).run()
    at.radio(key="view").set_value("reach").run()
    assert "causal" not in [w.key for w in at.toggle]  # reach: no control of its own
    at.radio(key="view").set_value("head").run()
    assert at.toggle(key="causal").value is False and at.slider(key="head").value == 3
    assert figure_titled(at, "Head 3: bias")
    assert at.slider(key="head").max == 4  # the track spans the heads there are
    at.slider(key="num_heads").set_value(2).run()  # fewer heads: said in the view, head 2 drawn
    assert "head 3 does not exist with 2 heads" in at.info[0].value
    assert figure_titled(at, "Head 2: bias") and at.slider(key="head").value == 3
