"""The wavelengths page in Chinese (lang=zh) and English: its texts, notices, presentation mode and
figures."""

from __future__ import annotations

import pytest

from core import wavelength_views
from figures.wavelengths import (
    make_clock_figure,
    make_dimension_curves_figure,
    make_spectrum_figure,
)
from locales import message
from tests.apptest import (
    WITH_NOTICES,
    axis_title,
    control,
    figure_by_title,
    has_cjk,
    notices,
    open_page,
    plotly_figures,
    texts,
)

WAVELENGTHS = "app_pages/wavelengths.py"
WAVELENGTHS_SMALL = {"d_model": "32", "positions": "64"}


CHARTS = {"curves": 2, "clocks": 1, "matrix": 1, "offset": 1, "anchor": 1, "distance": 1,
          "rotation": 2}

WAVELENGTHS_INTRO = "The paper ([Vaswani et al. 2017](https://arxiv.org/abs/1706.03762), §3.5)"


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
    shown = texts(at, WITH_NOTICES)
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
    shown = texts(at, WITH_NOTICES)
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
    assert explanation in texts(normal, WITH_NOTICES)
    assert explanation not in texts(present, WITH_NOTICES)
    assert WAVELENGTHS_INTRO not in texts(present, WITH_NOTICES)
    assert len(plotly_figures(present)) == len(plotly_figures(normal)) == CHARTS[view]
    assert present.latex  # the formula stays
    if view == "curves":  # the numbers stay
        assert message("wavelengths.progression", "en") in texts(present, WITH_NOTICES)
        assert "- shortest:" in texts(present, WITH_NOTICES)


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
