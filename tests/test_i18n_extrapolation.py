"""The extrapolation page in Chinese (lang=zh) and English: its texts, notices, presentation mode
and figures."""

from __future__ import annotations

import numpy as np

from core import extrapolation, minilm, rope
from figures.extrapolation import (
    make_alibi_reach_line_figure,
    make_learned_reach_figure,
    make_rope_reach_figure,
    make_sinusoid_novelty_figure,
)
from locales import message
from tests.apptest import axis_title, control, figure_by_title, open_page, plotly_figures, texts

EXTRAPOLATION = "app_pages/extrapolation.py"


EXTRAPOLATION_SMALL = {"train_length": "100", "target_length": "400", "d_model": "8"}


def _minilm_available() -> bool:
    try:
        minilm.load_minilm()
    except Exception:
        return False
    return True


MINILM = _minilm_available()


EXTRAPOLATION_ENGLISH = (
    "What does each way of encoding position hand it",
    "defined at every position, but past L",
    "never completed a turn in training",
    "the same straight line at any distance",
)


def test_extrapolation_page_in_chinese():
    at = open_page(EXTRAPOLATION, {"lang": "zh", **EXTRAPOLATION_SMALL})
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == message("extrapolation.title", "zh")
    assert control(at, "train_length").label == message("extrapolation.train_length",
                                                                "zh")
    assert control(at, "d_model").help == message("extrapolation.d_model_help", "zh")
    shown = texts(at)
    for sentence in EXTRAPOLATION_ENGLISH:
        assert sentence not in shown
    assert message("extrapolation.intro", "zh", train_length=100, target_length=400) in shown
    assert len(plotly_figures(at)) == (4 if MINILM else 3)

    position = message("fig.extrapolation.position_p", "zh")
    sinusoid = figure_by_title(at, message("fig.extrapolation.sinusoid_title", "zh"))
    assert axis_title(sinusoid, "xaxis") == position
    assert axis_title(sinusoid, "yaxis") == message("fig.extrapolation.sinusoid_y", "zh")
    assert sinusoid["data"][0]["name"] == message("fig.extrapolation.sinusoid_trace", "zh")
    rope_figure = figure_by_title(at, message("fig.extrapolation.rope_title", "zh"))
    assert axis_title(rope_figure, "xaxis") == message("fig.extrapolation.rope_x", "zh")
    assert axis_title(rope_figure, "yaxis") == message("fig.extrapolation.rope_y", "zh")
    assert {t["name"] for t in rope_figure["data"]} >= {
        message("fig.extrapolation.rope_trained", "zh"),
        message("fig.extrapolation.rope_unscaled", "zh"),
        message("fig.rope.extension_beyond", "zh"),
        message("fig.rope.extension_two_pi", "zh"),
    }
    alibi_figure = figure_by_title(at, message("fig.extrapolation.alibi_title", "zh"))
    assert axis_title(alibi_figure, "xaxis") == message("fig.extrapolation.alibi_x", "zh")
    assert axis_title(alibi_figure, "yaxis") == message("fig.extrapolation.alibi_y", "zh")
    if MINILM:
        learned = figure_by_title(at, message("fig.extrapolation.learned_title", "zh", rows=512))
        assert axis_title(learned, "xaxis") == position
        assert axis_title(learned, "yaxis") == message("fig.extrapolation.learned_y", "zh")
        assert message("extrapolation.learned_text", "zh", rows=512) in shown


def test_extrapolation_notice_in_chinese():
    at = open_page(EXTRAPOLATION, {"lang": "zh", "train_length": "500", "target_length": "400",
                                   "d_model": "8"})
    assert not at.exception
    notice = message("extrapolation.not_extrapolating", "zh", train_length=500, target_length=400)
    assert [i.value for i in at.info] == [notice]
    assert "target_length" in notice and "train_length" in notice
    assert message("extrapolation.rope_seen", "zh", d_model=8) in texts(at)


def test_extrapolation_presentation_mode():
    normal = open_page(EXTRAPOLATION, EXTRAPOLATION_SMALL)
    assert all(sentence in texts(normal) for sentence in EXTRAPOLATION_ENGLISH)
    at = open_page(EXTRAPOLATION, {"present": "true", **EXTRAPOLATION_SMALL})
    assert not at.exception, [e.value for e in at.exception]
    shown = texts(at)
    for sentence in EXTRAPOLATION_ENGLISH:
        assert sentence not in shown
    assert len(plotly_figures(at)) == len(plotly_figures(normal)) == (4 if MINILM else 3)
    assert at.title[0].value == "Extrapolation: past the training length"


def test_extrapolation_figures_in_chinese():
    novelty = extrapolation.sinusoid_novelty(10, 30, 8)
    fig = make_sinusoid_novelty_figure(novelty, 10, lang="zh")
    assert fig.layout.xaxis.title.text == message("fig.extrapolation.position_p", "zh")
    assert fig.layout.yaxis.title.text == message("fig.extrapolation.sinusoid_y", "zh")
    assert fig.layout.title.text == message("fig.extrapolation.sinusoid_title", "zh")

    learned = extrapolation.learned_reach(np.ones((5, 2)), 9)
    fig = make_learned_reach_figure(learned, 4, lang="zh")
    assert fig.layout.yaxis.title.text == message("fig.extrapolation.learned_y", "zh")
    assert fig.layout.title.text == message("fig.extrapolation.learned_title", "zh", rows=5)
    assert message("fig.extrapolation.learned_no_row", "zh") in [
        a.text for a in fig.layout.annotations
    ]

    ext = rope.rope_context_extension(16, 100, 400)
    fig = make_rope_reach_figure(ext, lang="zh")
    assert fig.layout.xaxis.title.text == message("fig.extrapolation.rope_x", "zh")
    assert fig.layout.yaxis.title.text == message("fig.extrapolation.rope_y", "zh")
    assert message("fig.extrapolation.rope_interpolated", "zh", factor=ext.factor) in [
        trace.name for trace in fig.data]

    fig = make_alibi_reach_line_figure(extrapolation.alibi_reach(10, 40), 10, lang="zh")
    assert fig.layout.xaxis.title.text == message("fig.extrapolation.alibi_x", "zh")
    assert fig.layout.yaxis.title.text == message("fig.extrapolation.alibi_y", "zh")
    assert fig.data[0].hovertemplate.endswith("<extra>第 1 个头</extra>")
    english = make_alibi_reach_line_figure(extrapolation.alibi_reach(10, 40), 10)
    assert english.layout.title.text == "ALiBi: the same line, only longer"
    assert english.data[0].hovertemplate == "distance %{x}<br>bias %{y:.2f}<extra>head 1</extra>"


def test_extrapolation_without_the_model_in_both_languages(minilm_unavailable):
    """The learned panel says why it is missing, in the visitor's language (the error is not
    cached, so the next visitor gets theirs); the other three panels are drawn."""
    from core.minilm import INSTALL_HINT

    for lang in ("zh", "en"):
        at = open_page(EXTRAPOLATION, {"lang": lang})
        assert not at.exception
        problem = message("minilm.not_installed", lang, hint=INSTALL_HINT)
        expected = message("extrapolation.learned_unavailable", lang, problem=problem)
        assert [i.value for i in at.info] == [expected]
        assert len(plotly_figures(at)) == 3
