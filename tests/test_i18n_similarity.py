"""The similarity page in Chinese (lang=zh) and English: its texts, notices, presentation mode and
figures."""

from __future__ import annotations

import numpy as np
import pytest

import core
from core import similarity
from figures.similarity import (
    METRIC_LABEL,
    make_anchor_profile_figure,
    make_distance_figure,
    make_rotation_figure,
    make_shift_matrix_figure,
    make_similarity_matrix_figure,
)
from locales import message
from tests.apptest import (
    WITH_NOTICES,
    axis_title,
    figure_by_title,
    has_cjk,
    open_page,
    plotly_figures,
    texts,
)

SIMILARITY = "app_pages/similarity.py"


SIMILARITY_SMALL = {"d_model": "32", "positions": "64", "anchor": "20", "offset": "3"}
SIMILARITY_VIEWS = ("matrix", "offset", "anchor", "distance", "rotation")
CHARTS = {"curves": 2, "clocks": 1, "matrix": 1, "offset": 1, "anchor": 1, "distance": 1,
          "rotation": 2}


SIMILARITY_INTRO = "The dot product of two position vectors depends only"


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
    "matrix": "The cosine is the dot product divided by",
    "offset": "The sinusoid's points fall on one curve",
    "anchor": "The TensorFlow tutorial's picture",
    "distance": "so the distance is a function of the dot product",
    "rotation": "states, without a derivation",
}


VIEW_CONTROLS = {"matrix": {"metric"}, "offset": {"metric", "anchor", "offset"},
                 "anchor": {"metric", "anchor"}, "distance": set(),
                 "rotation": {"anchor", "offset", "pair"}}


@pytest.mark.parametrize("view", SIMILARITY_VIEWS)
def test_similarity_views_in_chinese(view):
    at = open_page(SIMILARITY, {"lang": "zh", "view": view, **SIMILARITY_SMALL})
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == message("similarity.title", "zh")
    # each view's own controls, in its row above the charts (the others are not made)
    own = VIEW_CONTROLS[view]
    if "metric" in own:
        assert at.main.radio(key="metric").label == message("similarity.metric", "zh")
        assert at.radio(key="metric").help == message("similarity.metric_help", "zh")
    else:
        assert "metric" not in [w.key for w in at.radio]
    for name in ("anchor", "offset", "pair"):
        if name in own:
            assert at.main.slider(key=name).label == message(f"similarity.{name}", "zh")
        else:
            assert name not in [w.key for w in at.slider]
    figures = plotly_figures(at)
    assert len(figures) == CHARTS[view]
    for title, axes in similarity_zh_figures(view):
        figure = figure_by_title(at, title)
        assert has_cjk(title)
        for axis, expected in axes.items():
            assert axis_title(figure, axis) == expected
    shown = texts(at, WITH_NOTICES)
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
    shown = texts(at, WITH_NOTICES)
    assert f"与位置 23 为 **{value:.6f}**，与位置 17 为 **{value:.6f}**" in shown
    assert message("similarity.metric_cosine", "zh") in shown
    at = open_page(SIMILARITY, {"lang": "zh", "view": "rotation", **SIMILARITY_SMALL})
    assert "在 float32 表上验证" in texts(at, WITH_NOTICES)


@pytest.mark.parametrize("view", SIMILARITY_VIEWS)
def test_similarity_presentation_mode_hides_the_explanations(view):
    query = {"view": view, **SIMILARITY_SMALL}
    normal = open_page(SIMILARITY, query)
    present = open_page(SIMILARITY, {"present": "true", **query})
    assert not normal.exception and not present.exception
    for sentence in (SIMILARITY_INTRO, SIMILARITY_EXPLANATIONS[view]):
        assert sentence in texts(normal, WITH_NOTICES)
        assert sentence not in texts(present, WITH_NOTICES)
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
        "Pair 1 rotated by ω<sub>1</sub>·k")
