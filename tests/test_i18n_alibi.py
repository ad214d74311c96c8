"""The ALiBi page in Chinese (lang=zh) and English: its texts, notices, presentation mode and
figures."""

from __future__ import annotations

import pytest

from core import alibi
from figures.alibi import (
    make_alibi_bias_grid_figure,
    make_alibi_head_figure,
    make_alibi_reach_figure,
    make_alibi_slopes_figure,
)
from locales import message
from tests.apptest import figure_by_title, open_page, plotly_figures, show_section, texts

ALIBI = "app_pages/alibi.py"


ALIBI_SMALL = {"num_heads": "4", "positions": "32"}


ALIBI_SUBHEADERS = {"slopes": "alibi.slopes", "heads": "alibi.every_head",
                    "head": "alibi.one_head", "reach": "alibi.attention"}
OTHER_SUBHEADERS = {"t5": ["alibi.t5", "alibi.t5_matrix"], "xpos": ["alibi.xpos"]}


def test_alibi_page_in_chinese():
    at = open_page(ALIBI, {"lang": "zh", **ALIBI_SMALL})
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == message("alibi.title", "zh")
    assert at.radio(key="view").label == message("controls.show", "zh")
    assert at.radio(key="view").help == message("alibi.view_help", "zh")
    # Labels in the visitor's language; the value (and the URL's) stays the option's own.
    assert at.radio(key="view").options == [
        message(f"options.{view}", "zh") for view in (*ALIBI_SUBHEADERS, *OTHER_SUBHEADERS)]
    subheaders = {}

    assert at.radio(key="view").value == "slopes"  # the default section
    subheaders["slopes"] = [s.value for s in at.subheader]
    assert list(at.dataframe[0].value.columns) == [
        message(key, "zh") for key in ("alibi.column_head", "alibi.column_slope",
                                       "alibi.column_inverse", "alibi.column_mean_distance")
    ]
    slopes = figure_by_title(at, message("fig.alibi.slopes_title", "zh"))
    assert slopes["layout"]["xaxis"]["title"]["text"] == message("fig.alibi.slopes_x_title", "zh")
    assert slopes["layout"]["yaxis"]["title"]["text"] == message("fig.alibi.slopes_y_title", "zh")
    shown = texts(at)
    assert "adds **no position vector** to the input" not in shown
    assert message("alibi.intro", "zh") in shown

    show_section(at, "heads")
    subheaders["heads"] = [s.value for s in at.subheader]
    assert at.toggle(key="causal").label == message("alibi.causal", "zh")
    grid = figure_by_title(at, message("fig.alibi.grid_title", "zh"))
    assert grid["layout"]["coloraxis"]["colorbar"]["title"]["text"] == message(
        "fig.alibi.bias_colorbar", "zh")
    assert "Every row is the same line shifted" not in texts(at)

    show_section(at, "head")
    subheaders["head"] = [s.value for s in at.subheader]
    head = figure_by_title(at, message("fig.alibi.head_title", "zh", head=1, slope=0.25))
    assert head["layout"]["xaxis"]["title"]["text"] == message("fig.alibi.head_x_title", "zh")
    assert head["layout"]["yaxis"]["title"]["text"] == message("fig.alibi.head_y_title", "zh")
    assert "Every row is the same line shifted" not in texts(at)

    show_section(at, "reach")
    subheaders["reach"] = [s.value for s in at.subheader]
    reach = figure_by_title(at, message("fig.alibi.reach_title", "zh"))
    assert reach["layout"]["xaxis"]["title"]["text"] == message("fig.alibi.reach_x_title", "zh")
    shown = texts(at)
    assert "Steep heads look at the last few tokens only" not in shown
    assert message("alibi.intro", "zh") in shown  # above the switch, in every section

    assert subheaders == {view: [message(key, "zh")] for view, key in ALIBI_SUBHEADERS.items()}

    show_section(at, "t5")  # T5's buckets: its own intro instead of ALiBi's
    assert [s.value for s in at.subheader] == [message(k, "zh") for k in OTHER_SUBHEADERS["t5"]]
    shown = texts(at)
    assert message("alibi.t5_intro", "zh") in shown and message("alibi.intro", "zh") not in shown
    assert at.number_input(key="num_buckets").label == message("alibi.num_buckets", "zh")
    buckets = figure_by_title(at, message("fig.relative_bias.bucket_title", "zh", buckets=32,
                                          max_distance=128))
    assert buckets["layout"]["xaxis"]["title"]["text"] == message(
        "fig.relative_bias.bucket_x_title", "zh")
    assert [trace.get("name") for trace in buckets["data"][:2]] == [
        message("fig.relative_bias.encoder", "zh"), message("fig.relative_bias.decoder", "zh")]
    assert figure_by_title(at, message("fig.relative_bias.matrix_title_decoder", "zh",
                                       positions=32))

    show_section(at, "xpos")
    assert [s.value for s in at.subheader] == [message("alibi.xpos", "zh")]
    assert message("alibi.xpos_intro", "zh") in texts(at)
    decay = figure_by_title(at, message("fig.relative_bias.decay_title", "zh", d_head=64,
                                        gamma=0.4, scale_base=512))
    assert decay["layout"]["yaxis"]["title"]["text"] == message(
        "fig.relative_bias.decay_y_title", "zh")


def test_alibi_head_beyond_num_heads_is_explained_in_chinese():
    at = open_page(ALIBI, {"lang": "zh", **ALIBI_SMALL, "head": "9", "view": "head"})
    assert not at.exception
    notice = at.info[0].value
    assert notice == message("alibi.no_such_head", "zh", head=9, num_heads=4)
    assert "head 9" in notice  # names the parameter
    assert figure_by_title(at, message("fig.alibi.head_title", "zh", head=4, slope=2.0 ** -8))


ALIBI_EXPLANATIONS = {
    "slopes": ("1/m: the distance at which the bias reaches −1", "the paper's reference code"),
    "heads": ("Every row is the same line shifted",),
    "head": ("Every row is the same line shifted",),
    "reach": ("Steep heads look at the last few tokens only",),
}


@pytest.mark.parametrize("view", list(ALIBI_EXPLANATIONS))
def test_alibi_presentation_mode_hides_the_explanations(view):
    normal = open_page(ALIBI, {"view": view, **ALIBI_SMALL})
    at = open_page(ALIBI, {"present": "true", "view": view, **ALIBI_SMALL})
    assert not at.exception, [e.value for e in at.exception]
    shown = texts(at)
    for gone in ("adds **no position vector** to the input", *ALIBI_EXPLANATIONS[view]):
        assert gone in texts(normal)
        assert gone not in shown
    assert len(plotly_figures(at)) == 1
    # The slopes table is a result: it stays (in its section).
    assert len(at.dataframe) == len(normal.dataframe) == (1 if view == "slopes" else 0)
    assert [s.value for s in at.subheader] == [s.value for s in normal.subheader]


def test_alibi_figures_in_chinese():
    slopes = alibi.alibi_slopes(4)
    fig = make_alibi_slopes_figure(slopes, lang="zh")
    assert fig.layout.xaxis.title.text == message("fig.alibi.slopes_x_title", "zh")
    assert fig.layout.yaxis.title.text == message("fig.alibi.slopes_y_title", "zh")

    exact = alibi.alibi_bias_overview(4, 6)
    fig = make_alibi_bias_grid_figure(exact, slopes, highlight=1, lang="zh")
    assert fig.layout.title.text == message("fig.alibi.grid_title", "zh")
    assert fig.data[1].hovertemplate.startswith("第 2 个头<br>query i = %{y}")

    blocks = alibi.alibi_bias_overview(4, 200, max_side=20)
    assert not blocks.exact
    fig = make_alibi_head_figure(blocks, 1, slopes, lang="zh")
    assert fig.layout.xaxis.title.text == message("fig.alibi.head_x_title", "zh")
    assert fig.layout.yaxis.title.text == message("fig.alibi.head_y_title", "zh")
    assert fig.layout.title.text == "第 2 个头：偏置 −0.0625·(i − j)"
    assert fig.layout.annotations[0].text.startswith("概览：每个格子是每约 10 x 10 个元素")
    assert fig.data[0].hovertemplate.startswith("query 约 %{y:.0f}（每格约 10 个）")

    fig = make_alibi_reach_figure(alibi.alibi_attention_reach(4, 50), lang="zh")
    assert fig.layout.xaxis.title.text == message("fig.alibi.reach_x_title", "zh")
    assert fig.layout.yaxis.title.text == message("fig.alibi.reach_y_title", "zh")
    assert fig.data[0].hovertemplate.endswith("<extra>第 1 个头</extra>")
