"""The extrapolation page through Streamlit's AppTest: it renders, its controls drive it, bad URL
values are explained, and the numbers shown are the right ones."""

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
    set_control,
)

EXTRAPOLATION = "app_pages/extrapolation.py"


def _minilm_available() -> bool:
    try:
        from core import load_minilm

        load_minilm()
    except Exception:
        return False
    return True


def test_default_render():
    open_at_defaults(EXTRAPOLATION, charts=4 if _minilm_available() else 3)


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
        (EXTRAPOLATION, "train_length", "abc"),
        (EXTRAPOLATION, "target_length", "100000"),
        (EXTRAPOLATION, "d_model", "3"),
    ],
)
def test_bad_url_value_gives_a_notice_naming_the_parameter(page, name, value):
    at = open_with_one_bad_value(page, name, value)
    assert len(plotly_figures(at)) >= 3  # the page still draws, with the default


def test_the_rope_rows_config_lives_above_it_and_the_lengths_stay_page_wide():
    """config, compare and factor are the RoPE row's own (in the page, its fragment); the lengths
    and d_model stay in the sidebar. A config chosen there draws its panel and keeps the
    sinusoid's as it was."""
    at = open_page(EXTRAPOLATION, {"train_length": "100", "target_length": "400"})
    sidebar = {w.key for w in [*at.sidebar.radio, *at.sidebar.slider, *at.sidebar.select_slider]}
    assert {"train_length", "target_length", "d_model"} <= sidebar
    assert not {"config", "compare", "factor"} & sidebar
    sinusoid = decode(figure_titled(at, "Sinusoid")["data"][0]["y"])
    at.main.radio(key="config").set_value("llama-3.1-8b").run()
    assert not at.exception
    assert figure_titled(at, "Llama 3.1 8B")
    assert at.main.slider(key="factor").value == 8  # the config's own factor
    np.testing.assert_array_equal(decode(figure_titled(at, "Sinusoid")["data"][0]["y"]),
                                  sinusoid)


def test_with_a_config_each_panel_says_which_lengths_it_draws():
    """The RoPE panels take a config's own L and T (Llama 3.1: 8192 and 131072, Mistral:
    32768 twice), the other panels the page's: the caption says both, so the page never mixes
    two contexts silently; without a config, one context and no caption."""
    at = open_page(EXTRAPOLATION, {"train_length": "2048", "target_length": "8192",
                                   "config": "llama-3.1-8b", "compare": "mistral-7b"})
    assert not at.exception
    [note] = [c.value for c in at.caption if "Two contexts" in c.value]
    assert "L = 2048, T = 8192" in note
    assert "L = 8192, T = 131072" in note and "L = 32768, T = 32768" in note
    plain = open_page(EXTRAPOLATION, {"train_length": "2048", "target_length": "8192"})
    assert not [c for c in plain.caption if "Two contexts" in c.value]
