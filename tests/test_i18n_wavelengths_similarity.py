"""The wavelengths and similarity pages in Simplified Chinese and in presentation mode, and their
figures in both languages: titles, axes, notices and explanations come from the catalogues
(ui/locales/<lang>.wavelengths.toml, <lang>.similarity.toml)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import core
from core import similarity, wavelength_views
from figures.similarity import (
    METRIC_LABEL,
    make_anchor_profile_figure,
    make_distance_figure,
    make_rotation_figure,
    make_shift_matrix_figure,
    make_similarity_matrix_figure,
)
from figures.wavelengths import (
    make_clock_figure,
    make_dimension_curves_figure,
    make_spectrum_figure,
)
from tests.apptest import (
    axis_title,
    control,
    figure_by_title,
    has_cjk,
    notices,
    open_page,
    plotly_figures,
)
from ui.locales import message

WAVELENGTHS, SIMILARITY = "app_pages/wavelengths.py", "app_pages/similarity.py"
WAVELENGTHS_SMALL = {"d_model": "32", "positions": "64"}
SIMILARITY_SMALL = {"d_model": "32", "positions": "64", "anchor": "20", "offset": "3"}
SIMILARITY_VIEWS = ("matrix", "offset", "anchor", "distance", "rotation")
CHARTS = {"curves": 2, "clocks": 1, "matrix": 1, "offset": 1, "anchor": 1, "distance": 1,
          "rotation": 2}

WAVELENGTHS_INTRO = "The paper ([Vaswani et al. 2017](https://arxiv.org/abs/1706.03762), §3.5)"
SIMILARITY_INTRO = "The dot product of two position vectors depends only"


def texts(at: AppTest) -> str:
    """Every markdown, caption, info and subheader on the page, main area and sidebar."""
    return "\n".join(
        [m.value for m in at.markdown] + [c.value for c in at.caption]
        + [i.value for i in at.info] + [s.value for s in at.subheader]
    )


# --- wavelengths ---------------------------------------------------------------------------------
def test_wavelengths_curves_in_chinese():
    at = open_page(WAVELENGTHS, {"lang": "zh", "view": "curves", **WAVELENGTHS_SMALL})
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == message("wavelengths.title", "zh")
    assert control(at, "d_model").label == message("wavelengths.d_model", "zh")
    assert at.text_input(key="dims").label == message("wavelengths.dims", "zh")
    assert at.radio(key="view").help == message("wavelengths.view_help", "zh")
    curves = figure_by_title(at, message("fig.wavelengths.curves_title", "zh"))
    assert axis_title(curves, "xaxis") == message("fig.wavelengths.curves_x_title", "zh")
    assert curves["layout"]["legend"]["title"]["text"] == message(
        "fig.wavelengths.curves_legend", "zh")
    assert curves["data"][0]["name"].startswith("维度 0：sin")
    spectrum = figure_by_title(at, message("fig.wavelengths.spectrum_title", "zh"))
    assert axis_title(spectrum, "xaxis") == message("fig.wavelengths.spectrum_x_title", "zh")
    assert axis_title(spectrum, "yaxis") == message("fig.wavelengths.spectrum_y_title", "zh")
    assert [t["name"] for t in spectrum["data"]] == [
        message("fig.wavelengths.spectrum_complete", "zh"),
        message("fig.wavelengths.spectrum_incomplete", "zh"),
    ]
    shown = texts(at)
    assert message("wavelengths.intro", "zh") in shown
    assert message("wavelengths.progression", "zh") in shown
    assert WAVELENGTHS_INTRO not in shown
    assert "have a wavelength longer than the sequence" not in shown
    assert "shortest:" not in shown and "最短" in shown


def test_wavelengths_clocks_in_chinese():
    at = open_page(WAVELENGTHS, {"lang": "zh", "view": "clocks", **WAVELENGTHS_SMALL})
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == message("wavelengths.title", "zh")
    clocks = figure_by_title(at, message("fig.wavelengths.clock_title", "zh"))
    assert clocks["layout"]["sliders"][0]["currentvalue"]["prefix"] == message(
        "fig.wavelengths.clock_slider", "zh")
    buttons = [b["label"] for b in clocks["layout"]["updatemenus"][0]["buttons"]]
    assert buttons == [message("fig.wavelengths.clock_play", "zh"),
                       message("fig.wavelengths.clock_pause", "zh")]
    assert clocks["data"][4]["text"][0] == "位置 7：0.23π"
    shown = texts(at)
    assert message("wavelengths.clocks", "zh") in shown
    assert message("wavelengths.clocks_text", "zh") in shown
    assert "Each $(\\sin, \\cos)$ pair is a point" not in shown
    assert "Clocks: pairs" not in shown and "时钟：频率对" in shown


@pytest.mark.parametrize("dims", ["0,99999", "0,1,2,3,4,5,6,7,8,9,10,11,12,13", "<b>x</b>"])
def test_wavelengths_dims_notice_in_both_languages(dims):
    """A `dims` that parse_dims refuses: the English notice is the core error as before; the
    Chinese one says the same in Chinese, and both name the parameter."""
    default = ", ".join(map(str, wavelength_views.default_dims(32)))
    with pytest.raises(ValueError) as raised:
        wavelength_views.parse_dims(dims, 32)
    english = open_page(WAVELENGTHS, {"dims": dims, **WAVELENGTHS_SMALL})
    assert not english.exception
    assert notices(english) == [f"URL parameter {raised.value}. Using the default, {default}."]
    chinese = open_page(WAVELENGTHS, {"lang": "zh", "dims": dims, **WAVELENGTHS_SMALL})
    assert not chinese.exception
    (notice,) = notices(chinese)
    assert notice.startswith("URL 参数 dims") and has_cjk(notice)
    assert notice.endswith(f"改用默认值 {default}。")
    assert len(plotly_figures(chinese)) == CHARTS["curves"]


@pytest.mark.parametrize("view", ["curves", "clocks"])
def test_wavelengths_presentation_mode_hides_the_explanations(view):
    query = {"view": view, **WAVELENGTHS_SMALL}
    normal = open_page(WAVELENGTHS, query)
    present = open_page(WAVELENGTHS, {"present": "true", **query})
    assert not normal.exception and not present.exception
    explanation = {"curves": WAVELENGTHS_INTRO, "clocks": "Press **play**"}[view]
    assert explanation in texts(normal)
    assert explanation not in texts(present)
    assert WAVELENGTHS_INTRO not in texts(present)
    assert len(plotly_figures(present)) == len(plotly_figures(normal)) == CHARTS[view]
    assert present.latex  # the formula stays
    if view == "curves":  # the numbers stay
        assert message("wavelengths.progression", "en") in texts(present)
        assert "- shortest:" in texts(present)


def test_wavelengths_figures_in_chinese_and_english():
    curves = wavelength_views.dimension_curves(20, 32, (0, 1))
    spectrum = wavelength_views.wavelength_spectrum(32, 64)
    frames = wavelength_views.clock_frames(30, 32, (0, 5, 15))
    for lang in ("en", "zh"):
        fig = make_dimension_curves_figure(curves, lang=lang)
        assert fig.layout.xaxis.title.text == message("fig.wavelengths.curves_x_title", lang)
        assert fig.layout.title.text == message("fig.wavelengths.curves_title", lang)
        fig = make_spectrum_figure(spectrum, lang=lang)
        assert fig.layout.xaxis.title.text == message("fig.wavelengths.spectrum_x_title", lang)
        assert fig.layout.yaxis.title.text == message("fig.wavelengths.spectrum_y_title", lang)
        fig = make_clock_figure(frames, lang=lang)
        assert fig.layout.title.text == message("fig.wavelengths.clock_title", lang)
    assert has_cjk(make_spectrum_figure(spectrum, lang="zh").layout.yaxis.title.text)
    assert make_spectrum_figure(spectrum).layout.xaxis.title.text == (
        "frequency pair i (dimensions 2i, 2i+1)")
    long_frames = wavelength_views.clock_frames(1000, 32, (0,))
    assert make_clock_figure(long_frames, lang="zh").layout.title.text == message(
        "fig.wavelengths.clock_title_truncated", "zh", last=wavelength_views.MAX_CLOCK_FRAMES - 1)


# --- similarity ----------------------------------------------------------------------------------
def similarity_zh_figures(view: str) -> list[tuple[str, dict[str, str]]]:
    """(figure title, {axis: title}) expected on each view for SIMILARITY_SMALL, cosine."""
    zh = "zh"
    return {
        "matrix": [(message("fig.similarity.matrix_title", zh, label=METRIC_LABEL["cosine"]),
                    {"xaxis": message("fig.similarity.matrix_x_title", zh),
                     "yaxis": message("fig.similarity.matrix_y_title", zh)})],
        "offset": [(message("fig.similarity.offset_title", zh),
                    {"xaxis": message("fig.similarity.offset_x_title", zh)})],
        "anchor": [(message("fig.similarity.anchor_title", zh, anchor=20),
                    {"xaxis": message("fig.similarity.anchor_x_title", zh),
                     "yaxis": message("fig.similarity.anchor_y_title", zh, anchor=20,
                                      metric=message("fig.similarity.metric_cosine", zh))})],
        "distance": [(message("fig.similarity.distance_title", zh), {})],
        "rotation": [(message("fig.similarity.shift_title", zh, offset=3),
                      {"xaxis": message("fig.similarity.shift_x_title", zh),
                       "yaxis": message("fig.similarity.shift_y_title", zh)}),
                     (message("fig.similarity.rotation_title", zh, i=0),
                      {"xaxis": message("fig.similarity.rotation_x_title", zh, i=0, dim=1)})],
    }[view]


# A distinctive sentence of each view's explanation, in English.
SIMILARITY_EXPLANATIONS = {
    "matrix": "The cosine is the dot product over",
    "offset": "The sinusoid's points fall on one curve",
    "anchor": "The TensorFlow tutorial's picture",
    "distance": "so the distance is a function of the dot product",
    "rotation": "states, without a derivation",
}


@pytest.mark.parametrize("view", SIMILARITY_VIEWS)
def test_similarity_views_in_chinese(view):
    at = open_page(SIMILARITY, {"lang": "zh", "view": view, **SIMILARITY_SMALL})
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == message("similarity.title", "zh")
    assert at.radio(key="metric").label == message("similarity.metric", "zh")
    assert at.radio(key="metric").help == message("similarity.metric_help", "zh")
    assert control(at, "anchor").label == message("similarity.anchor", "zh")
    figures = plotly_figures(at)
    assert len(figures) == CHARTS[view]
    for title, axes in similarity_zh_figures(view):
        figure = figure_by_title(at, title)
        assert has_cjk(title)
        for axis, expected in axes.items():
            assert axis_title(figure, axis) == expected
    shown = texts(at)
    assert message("similarity.intro", "zh", positions=64, d_model=32, base=10000) in shown
    assert SIMILARITY_INTRO not in shown
    assert SIMILARITY_EXPLANATIONS[view] not in shown
    assert "positions x" not in shown


def test_similarity_clamp_infos_in_chinese():
    at = open_page(SIMILARITY, {"lang": "zh", "positions": "40", "d_model": "16", "anchor": "500",
                            "offset": "-300", "pair": "30", "view": "rotation"})
    assert not at.exception
    infos = [i.value for i in at.info]
    assert infos == [
        message("similarity.anchor_clamped", "zh", anchor=500, last=39),
        message("similarity.offset_clamped", "zh", offset=-300, k=-39),
        message("similarity.pair_clamped", "zh", pair=30, d_model=16, last=7),
    ]
    assert all(has_cjk(info) for info in infos)


def test_similarity_results_in_chinese():
    """The numbers that are a section's point read in Chinese too."""
    at = open_page(SIMILARITY, {"lang": "zh", "view": "offset", **SIMILARITY_SMALL})
    value = core.offset_dot_product(3, 32) / 16
    shown = texts(at)
    assert f"与位置 23 为 **{value:.6f}**，与位置 17 为 **{value:.6f}**" in shown
    assert message("similarity.metric_cosine", "zh") in shown
    at = open_page(SIMILARITY, {"lang": "zh", "view": "rotation", **SIMILARITY_SMALL})
    assert "在 float32 表上验证" in texts(at)


@pytest.mark.parametrize("view", SIMILARITY_VIEWS)
def test_similarity_presentation_mode_hides_the_explanations(view):
    query = {"view": view, **SIMILARITY_SMALL}
    normal = open_page(SIMILARITY, query)
    present = open_page(SIMILARITY, {"present": "true", **query})
    assert not normal.exception and not present.exception
    for sentence in (SIMILARITY_INTRO, SIMILARITY_EXPLANATIONS[view]):
        assert sentence in texts(normal)
        assert sentence not in texts(present)
    assert len(plotly_figures(present)) == len(plotly_figures(normal)) == CHARTS[view]
    assert [s.value for s in present.subheader] == [s.value for s in normal.subheader]
    assert present.latex  # the formulas stay


def test_similarity_figures_in_chinese_and_english():
    table = core.sinusoidal_encoding(40, 16)
    pairs = similarity.pairwise_similarity(table, metric="dot")
    profile = similarity.anchor_profile(table, 10)
    sample = similarity.pair_sample(table, count=50)
    k = np.arange(40)
    rotated = similarity.rotated_pair(5, 3, 1, 16)
    for lang in ("en", "zh"):
        fig = make_similarity_matrix_figure(pairs, metric="dot", d_model=16, lang=lang)
        assert fig.layout.xaxis.title.text == message("fig.similarity.matrix_x_title", lang)
        assert fig.data[0].colorbar.title.text == message("fig.similarity.metric_dot", lang)
        fig = make_anchor_profile_figure(profile, anchor=10, metric="cosine", lang=lang)
        assert fig.layout.xaxis.title.text == message("fig.similarity.anchor_x_title", lang)
        fig = make_distance_figure(sample_gaps=np.abs(sample.offsets),
                                   sample_distances=sample.distance, curve_offsets=k,
                                   curve=similarity.offset_distance(k, 16), lang=lang)
        assert fig.layout.title.text == message("fig.similarity.distance_title", lang)
        fig = make_shift_matrix_figure(core.shift_matrix(3, 16), offset=3, d_model=16, lang=lang)
        assert fig.layout.yaxis.title.text == message("fig.similarity.shift_y_title", lang)
        fig = make_rotation_figure(rotated, position=5, offset=3, lang=lang)
        assert fig.layout.xaxis.title.text == message("fig.similarity.rotation_x_title", lang,
                                                      i=1, dim=3)
    zh = make_shift_matrix_figure(core.shift_matrix(3, 16), offset=3, d_model=16, lang="zh")
    assert has_cjk(zh.layout.xaxis.title.text) and has_cjk(zh.layout.title.text)
    assert make_rotation_figure(rotated, position=5, offset=3).layout.title.text == (
        "Pair 1 rotated by ω_1·k")


def test_download_file_names_say_what_and_with_which_parameters():
    """The modebar's PNG and the Export menu's files are named after the chart's parameters."""
    def names(at: AppTest) -> list[str]:
        return [json.loads(chart.proto.config)["toImageButtonOptions"]["filename"]
                for chart in at.get("plotly_chart")]

    at = open_page(WAVELENGTHS, {"dims": "2,3", **WAVELENGTHS_SMALL})
    assert names(at) == ["pe-wavelength-curves_d32_pos64_dims2-3",
                         "pe-wavelength-spectrum_d32_pos64"]
    at = open_page(SIMILARITY, {"lang": "zh", "metric": "dot", "base": "500", **SIMILARITY_SMALL})
    assert names(at) == ["pe-similarity-matrix_d32_pos64_base500_dot"]
    at = open_page(SIMILARITY, {"view": "rotation", **SIMILARITY_SMALL})
    assert names(at) == ["pe-similarity-shift-matrix_d32_k3",
                         "pe-similarity-rotation_d32_pair0_p20_k3"]
