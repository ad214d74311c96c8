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
    ],
)
def test_bad_url_value_gives_a_notice_naming_the_parameter(page, name, value):
    at = open_with_one_bad_value(page, name, value)
    assert len(plotly_figures(at)) >= 1  # the default section's chart
