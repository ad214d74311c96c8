"""The learned-vs-sinusoidal page in Chinese (lang=zh) and English: its texts, notices,
presentation mode and figures."""

from __future__ import annotations

import numpy as np
import pytest

from core import learned_vs_sinusoidal as lvs
from core import minilm
from figures.learned_vs_sinusoidal import (
    make_dimensions_figure,
    make_extent_figure,
    make_offset_figure,
    make_similarity_figure,
    make_table_heatmap_figure,
    make_trajectory_figure,
)
from locales import message
from tests.apptest import (
    axis_title,
    control,
    figure_by_title,
    has_cjk,
    open_page,
    plotly_figures,
    texts,
)

LEARNED = "app_pages/learned_vs_sinusoidal.py"
LEARNED_SMALL = {"positions": "64", "anchor": "10"}


# Figures each section of the learned page draws.
VIEWS = {"tables": 2, "similarity": 2, "offset": 1, "space": 2, "extent": 1}


def _minilm_available() -> bool:
    try:
        minilm.load_minilm()
    except Exception:
        return False
    return True


MINILM = _minilm_available()
needs_minilm = pytest.mark.skipif(not MINILM, reason="the MiniLM package is not installed")


# A distinctive English sentence of each section's explanation, and of the page's intro.
LEARNED_ENGLISH = {
    "tables": "99.5% of the entries fit",
    "similarity": "constant along every diagonal",
    "offset": "every anchor gives the same curve",
    "space": "Nobody told the model",
    "extent": "no vector at all",
}
LEARNED_INTRO = "BERT-style models do not compute their position vectors"


@needs_minilm
@pytest.mark.parametrize("view", list(VIEWS))
def test_learned_page_in_chinese(view):
    at = open_page(LEARNED, {"lang": "zh", "view": view, **LEARNED_SMALL})
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == message("learned-vs-sinusoidal.title", "zh")
    assert control(at, "positions").label == message("learned-vs-sinusoidal.positions",
                                                             "zh")
    # Labels in the visitor's language; the value (and the URL's) stays the option's own.
    assert at.radio(key="metric").options == [message(f"options.{v}", "zh")
                                              for v in ("cosine", "dot")]
    assert at.radio(key="metric").value == "cosine"
    assert at.radio(key="view").help == message("learned-vs-sinusoidal.view_help", "zh")
    subheaders = [s.value for s in at.subheader]
    assert subheaders[0] == message("learned-vs-sinusoidal.numbers", "zh")
    metric_labels = [m.label for m in at.metric]
    assert message("learned-vs-sinusoidal.neighbour_mean", "zh",
                   metric=message("learned-vs-sinusoidal.metric_cosine", "zh")) in metric_labels

    shown = texts(at)
    assert LEARNED_INTRO not in shown and LEARNED_ENGLISH[view] not in shown
    assert "positions" not in " ".join(m.value for m in at.markdown if m.value.startswith("**"))
    assert any(has_cjk(m.value) for m in at.markdown)
    assert len(plotly_figures(at)) == VIEWS[view]

    zh = {key: message(key, "zh") for key in (
        "fig.learned.dimension", "fig.learned.position", "fig.learned.position_i",
        "fig.learned.position_j", "fig.learned.offset_x", "fig.learned.extent_y",
    )}
    cosine = message("fig.learned.metric_cosine", "zh")
    if view == "tables":
        assert subheaders[1] == message("learned-vs-sinusoidal.tables", "zh")
        for key in ("learned-vs-sinusoidal.table_learned",
                    "learned-vs-sinusoidal.table_sinusoidal"):
            figure = figure_by_title(at, message(key, "zh"))
            assert axis_title(figure, "xaxis") == zh["fig.learned.dimension"]
            assert axis_title(figure, "yaxis") == zh["fig.learned.position"]
            colour_bar = figure["data"][0]["colorbar"]["title"]["text"]
            assert colour_bar == message("fig.learned.value", "zh")
            assert figure["data"][0]["hovertemplate"].startswith(zh["fig.learned.position"])
    elif view == "similarity":
        assert subheaders[1] == message("learned-vs-sinusoidal.similarity_cosine", "zh")
        figure = figure_by_title(
            at, message("learned-vs-sinusoidal.similarity_learned", "zh",
                        metric=message("learned-vs-sinusoidal.metric_cosine", "zh"))
        )
        assert axis_title(figure, "xaxis") == zh["fig.learned.position_j"]
        assert axis_title(figure, "yaxis") == zh["fig.learned.position_i"]
        assert figure["data"][0]["colorbar"]["title"]["text"] == cosine
    elif view == "offset":
        figure = figure_by_title(at, message("fig.learned.offset_title", "zh", metric=cosine))
        assert axis_title(figure, "xaxis") == zh["fig.learned.offset_x"]
        assert axis_title(figure, "yaxis") == message("fig.learned.offset_y", "zh", metric=cosine)
        panels = [a["text"] for a in figure["layout"]["annotations"]]
        assert panels == [message("fig.learned.panel_learned", "zh"),
                          message("fig.learned.panel_sinusoidal", "zh")]
        anchor = int(figure["data"][0]["hovertemplate"].split("<br>")[0].split()[-1])
        assert figure["data"][0]["name"] == message(
            "fig.learned.offset_trace", "zh", name=panels[0], anchor=anchor
        )
    elif view == "space":
        figure = figure_by_title(at, message("fig.learned.trajectory_title", "zh"))
        assert axis_title(figure, "xaxis").startswith("PC1（")
        assert has_cjk(axis_title(figure, "xaxis"))
        dimensions = figure_by_title(
            at, message("learned-vs-sinusoidal.dimensions_title", "zh", count=4)
        )
        assert axis_title(dimensions, "xaxis") == zh["fig.learned.position"]
        assert axis_title(dimensions, "yaxis") == message("fig.learned.value", "zh")
        assert dimensions["data"][0]["name"].startswith("第 ")
    else:
        figure = figure_by_title(at, message("fig.learned.extent_title", "zh"))
        assert axis_title(figure, "xaxis") == zh["fig.learned.position"]
        assert axis_title(figure, "yaxis") == zh["fig.learned.extent_y"]
        assert [a["text"] for a in figure["layout"]["annotations"]] == [
            message("fig.learned.extent_no_row", "zh", rows=512)
        ]


@needs_minilm
def test_learned_page_notices_in_chinese():
    at = open_page(LEARNED, {"lang": "zh", "positions": "1000", "anchor": "50", "view": "extent"})
    assert not at.exception
    assert [i.value for i in at.info] == [
        message("learned-vs-sinusoidal.past_learned_rows", "zh", positions=1000, last=511)
    ]
    at = open_page(LEARNED, {"lang": "zh", "positions": "20", "anchor": "100", "view": "offset"})
    assert [i.value for i in at.info] == [
        message("learned-vs-sinusoidal.anchor_clamped", "zh", anchor=100, rows=20, last=19)
    ]
    assert "anchor" in at.info[0].value  # a notice names its parameter
    at = open_page(LEARNED, {"lang": "zh", "positions": "8", "view": "space"})
    assert message("learned-vs-sinusoidal.too_few_for_waves", "zh") in [c.value for c in at.caption]


@needs_minilm
@pytest.mark.parametrize("view", list(VIEWS))
def test_learned_page_presentation_mode(view):
    normal = open_page(LEARNED, {"view": view, **LEARNED_SMALL})
    assert LEARNED_INTRO in texts(normal) and LEARNED_ENGLISH[view] in texts(normal)
    at = open_page(LEARNED, {"present": "true", "view": view, **LEARNED_SMALL})
    assert not at.exception, [e.value for e in at.exception]
    shown = texts(at)
    assert LEARNED_INTRO not in shown and LEARNED_ENGLISH[view] not in shown
    assert "The sinusoid has the same norm" not in shown
    assert len(plotly_figures(at)) == VIEWS[view]
    assert at.title[0].value == "Learned vs sinusoidal"
    assert len(at.subheader) == 2 and len(at.metric) == 6  # numbers and headings stay


def test_learned_page_missing_model_in_chinese(minilm_unavailable):
    at = open_page(LEARNED, {"lang": "zh"})
    assert not at.exception
    error = at.error[0].value.replace("\\", "")
    assert has_cjk(error) and "pip install gt" in error
    assert at.info[0].value == message("learned-vs-sinusoidal.other_pages_work", "zh")


# --- the figures on their own --------------------------------------------------------------------
def test_learned_figures_in_chinese():
    rng = np.random.default_rng(0)
    table = rng.normal(size=(24, 8))
    overview = lvs.table_overview(table, 256, 192)
    fig = make_table_heatmap_figure(overview, zmax=1.0, title="t", lang="zh")
    assert fig.layout.xaxis.title.text == message("fig.learned.dimension", "zh")
    assert fig.layout.yaxis.title.text == message("fig.learned.position", "zh")
    assert fig.data[0].hovertemplate == message(
        "fig.learned.hover_exact", "zh", x=message("fig.learned.dimension", "zh"),
        y=message("fig.learned.position", "zh"), value=message("fig.learned.value", "zh"),
    )
    # An averaged overview: its note and hover are this page's, in Chinese.
    big = lvs.table_overview(rng.normal(size=(600, 8)), 256, 192)
    fig = make_table_heatmap_figure(big, zmax=1.0, title="t", lang="zh")
    assert fig.layout.annotations[0].text.startswith("概览")
    assert "平滑后的" in fig.data[0].hovertemplate

    sim = make_similarity_figure(lvs.table_overview(np.eye(4), 256, 256), metric="dot", zmax=1,
                                 title="s", lang="zh")
    assert sim.layout.xaxis.title.text == message("fig.learned.position_j", "zh")
    assert sim.layout.yaxis.title.text == message("fig.learned.position_i", "zh")
    assert sim.data[0].colorbar.title.text == message("fig.learned.metric_dot", "zh")

    curves = {"learned": lvs.offset_similarity_curves(table, [0, 10], 5),
              "sinusoidal": lvs.offset_similarity_curves(table, [0, 10], 5)}
    offsets = make_offset_figure(curves, metric="cosine", lang="zh")
    assert offsets.layout.xaxis.title.text == message("fig.learned.offset_x", "zh")
    assert has_cjk(offsets.layout.yaxis.title.text) and has_cjk(offsets.layout.title.text)
    assert offsets.layout.annotations[0].text == message("fig.learned.panel_learned", "zh")

    path = make_trajectory_figure(
        {"learned": (table[:, :2], ("a", "b")), "sinusoidal": (table[:, :2], ("c", "d"))},
        lang="zh",
    )
    assert path.layout.title.text == message("fig.learned.trajectory_title", "zh")
    assert path.data[0].name == message("fig.learned.panel_learned", "zh")

    dims = make_dimensions_figure(table, [1, 2], title="t", lang="zh")
    assert dims.layout.xaxis.title.text == message("fig.learned.position", "zh")
    assert dims.layout.yaxis.title.text == message("fig.learned.value", "zh")
    assert dims.data[0].name == message("fig.learned.dimension_trace", "zh", dim=1)

    extent = make_extent_figure(np.ones(512), np.ones(768), learned_rows=512, lang="zh")
    assert extent.layout.xaxis.title.text == message("fig.learned.position", "zh")
    assert extent.layout.yaxis.title.text == message("fig.learned.extent_y", "zh")
    assert extent.layout.title.text == message("fig.learned.extent_title", "zh")
    assert extent.layout.annotations[0].text == message("fig.learned.extent_no_row", "zh",
                                                        rows=512)
    # English stays the default.
    english = make_extent_figure(np.ones(512), np.ones(768), learned_rows=512)
    assert english.layout.yaxis.title.text == "norm |P<sub>p</sub>| (log scale)"
    assert english.layout.title.text == "Where each table stops"
