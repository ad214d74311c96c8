"""The RoPE and ALiBi pages in Simplified Chinese and in presentation mode, and their figures in
both languages: titles, axes and explanations come from the catalogues (core/locales)."""

from __future__ import annotations

import numpy as np
import pytest

from core import alibi, rope
from figures.alibi import (
    make_alibi_bias_grid_figure,
    make_alibi_head_figure,
    make_alibi_reach_figure,
    make_alibi_slopes_figure,
)
from figures.rope import (
    METHOD_NAMES,
    make_context_extension_figure,
    make_rope_decay_figure,
    make_rope_logits_figure,
    make_rope_rotation_figure,
    method_names,
)
from tests.apptest import control, figure_by_title, has_cjk, open_page, plotly_figures
from ui.locales import message

ROPE, ALIBI = "app_pages/rope.py", "app_pages/alibi.py"
ROPE_SMALL = {"d_head": "16", "positions": "64"}
ALIBI_SMALL = {"num_heads": "4", "positions": "32"}


def texts(at) -> str:
    """Every markdown and caption on the page, main area and sidebar."""
    return "\n".join([m.value for m in at.markdown] + [c.value for c in at.caption])


# --- RoPE ----------------------------------------------------------------------------------------
def show(at, view: str):
    """Switch the page to the section `view` (the `view` radio, as a visitor does)."""
    at.radio(key="view").set_value(view).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


ROPE_SUBHEADERS = {"rotation": "rope.rotation", "relative": "rope.relative",
                   "decay": "rope.decay", "extension": "rope.extension"}


def test_rope_page_in_chinese():
    at = open_page(ROPE, {"lang": "zh", **ROPE_SMALL})
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == message("rope.title", "zh")
    assert control(at, "d_head").label == message("rope.d_head", "zh")
    assert at.radio(key="scaling").options == ["none", "position_interpolation", "ntk_aware"]
    assert at.radio(key="view").label == message("controls.show", "zh")
    assert at.radio(key="view").help == message("rope.view_help", "zh")
    # The config view (a model's config.json) is tested in tests/test_rope_config_pages.py.
    assert at.radio(key="view").options == [*ROPE_SUBHEADERS, "config"]
    subheaders = {}

    assert at.radio(key="view").value == "rotation"  # the default section
    subheaders["rotation"] = [s.value for s in at.subheader]
    rotation = figure_by_title(at, message("fig.rope.rotation_title", "zh"))
    assert rotation["layout"]["xaxis"]["title"]["text"] == message("fig.rope.rotation_x_title",
                                                                   "zh")
    panel_titles = [a["text"] for a in rotation["layout"]["annotations"]]
    assert any(title.startswith("第 0 对（" + message("rope.pair_fast", "zh"))
               for title in panel_titles)
    shown = texts(at)
    assert "RoFormer (Su et al. 2021) instead" not in shown
    assert "The unit vector on the pair's first column" not in shown
    assert message("rope.intro", "zh") in shown

    show(at, "relative")
    subheaders["relative"] = [s.value for s in at.subheader]
    logits = figure_by_title(at, message("fig.rope.logits_title", "zh"))
    assert logits["layout"]["xaxis"]["title"]["text"] == message("fig.rope.logits_x_title", "zh")
    assert logits["data"][0]["name"] == message("rope.query_at", "zh", m=63)
    shown = texts(at)
    assert "the logit depends on m − n only" not in shown
    assert message("rope.intro", "zh") in shown  # above the switch, in every section
    assert "最大差值" in shown  # the logits caption, with its number

    show(at, "decay")
    subheaders["decay"] = [s.value for s in at.subheader]
    decay = figure_by_title(at, message("fig.rope.decay_title", "zh"))
    assert decay["layout"]["xaxis"]["title"]["text"] == message("fig.rope.decay_x_title", "zh")

    show(at, "extension")
    subheaders["extension"] = [s.value for s in at.subheader]
    extension = figure_by_title(
        at, message("fig.rope.extension_title", "zh", factor=4, train=2048, target=8192)
    )
    assert extension["layout"]["yaxis"]["title"]["text"] == message("fig.rope.extension_y_title",
                                                                    "zh")
    panels = {a["text"] for a in extension["layout"]["annotations"]}
    method = message("fig.rope.method_position_interpolation", "zh")
    assert f"<b>{method}</b><br>8 对中有 0 对超出" in panels

    assert subheaders == {view: [message(key, "zh")] for view, key in ROPE_SUBHEADERS.items()}


def test_rope_page_in_chinese_names_the_scaling():
    at = open_page(ROPE, {"lang": "zh", "scaling": "position_interpolation", **ROPE_SMALL})
    assert not at.exception
    assert at.radio(key="scaling").value == "position_interpolation"
    assert "缩放：**位置插值** ×4。" in texts(at)


ROPE_EXPLANATIONS = {
    "rotation": "The unit vector on the pair's first column",
    "relative": "largest difference",
    "decay": "RoFormer §3.4.3",
    "extension": "Trained on positions 0 to",
}


@pytest.mark.parametrize("view", list(ROPE_EXPLANATIONS))
def test_rope_presentation_mode_hides_the_explanations(view):
    normal = open_page(ROPE, {"view": view, **ROPE_SMALL})
    assert message("rope.intro", "en") in texts(normal)
    at = open_page(ROPE, {"present": "true", "view": view, **ROPE_SMALL})
    assert not at.exception, [e.value for e in at.exception]
    shown = texts(at)
    for gone in ("The sinusoid pages add", ROPE_EXPLANATIONS[view]):
        assert gone in texts(normal)
        assert gone not in shown
    assert len(plotly_figures(at)) == 1
    assert [s.value for s in at.subheader] == [s.value for s in normal.subheader]
    assert len(at.latex) == (2 if view == "decay" else 1)  # the formulas stay
    assert len(at.latex) == len(normal.latex)


def test_rope_figures_in_chinese():
    positions = np.arange(10)
    trajectories = [rope.rope_pair_trajectory(i, positions, 8) for i in (0, 3)]
    fig = make_rope_rotation_figure(positions, trajectories, ["a", "b"], lang="zh")
    assert fig.layout.xaxis.title.text == message("fig.rope.rotation_x_title", "zh")
    assert fig.layout.yaxis.title.text == message("fig.rope.rotation_y_title", "zh")
    assert has_cjk(fig.layout.title.text)

    offsets = np.arange(5)
    fig = make_rope_logits_figure(offsets, {"m=4": np.ones(5)}, lang="zh")
    assert fig.layout.xaxis.title.text == message("fig.rope.logits_x_title", "zh")
    assert fig.data[0].hovertemplate.endswith("<extra>m=4</extra>")
    assert "%{x}" in fig.data[0].hovertemplate  # plotly's field, the braces single again

    fig = make_rope_decay_figure(offsets, {"base 10000": np.ones(5)}, lang="zh")
    assert fig.layout.xaxis.title.text == message("fig.rope.decay_x_title", "zh")
    assert fig.data[0].hovertemplate.startswith("距离 %{x}")

    ext = rope.rope_context_extension(128, 2048, 8192)
    fig = make_context_extension_figure(ext, lang="zh")
    assert fig.layout.xaxis.title.text == message("fig.rope.extension_x_title", "zh")
    assert fig.layout.yaxis.title.text == message("fig.rope.extension_y_title", "zh")
    titles = [a.text for a in fig.layout.annotations]
    assert "<b>不缩放</b><br>64 对中有 23 对超出" in titles
    assert fig.layout.title.text.startswith("上下文扩展 ×4：2048 → 8192")
    # English stays the default, and the English names stay importable.
    assert make_context_extension_figure(ext).layout.xaxis.title.text == "pair i"
    assert method_names("en") == METHOD_NAMES
    assert set(method_names("zh")) == set(METHOD_NAMES)


# --- ALiBi ---------------------------------------------------------------------------------------
ALIBI_SUBHEADERS = {"slopes": "alibi.slopes", "heads": "alibi.every_head",
                    "head": "alibi.one_head", "reach": "alibi.attention"}


def test_alibi_page_in_chinese():
    at = open_page(ALIBI, {"lang": "zh", **ALIBI_SMALL})
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == message("alibi.title", "zh")
    assert at.toggle(key="causal").label == message("alibi.causal", "zh")
    assert at.radio(key="view").label == message("controls.show", "zh")
    assert at.radio(key="view").help == message("alibi.view_help", "zh")
    assert at.radio(key="view").options == list(ALIBI_SUBHEADERS)
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

    show(at, "heads")
    subheaders["heads"] = [s.value for s in at.subheader]
    grid = figure_by_title(at, message("fig.alibi.grid_title", "zh"))
    assert grid["layout"]["coloraxis"]["colorbar"]["title"]["text"] == message(
        "fig.alibi.bias_colorbar", "zh")
    assert "Every row is the same line shifted" not in texts(at)

    show(at, "head")
    subheaders["head"] = [s.value for s in at.subheader]
    head = figure_by_title(at, message("fig.alibi.head_title", "zh", head=1, slope=0.25))
    assert head["layout"]["xaxis"]["title"]["text"] == message("fig.alibi.head_x_title", "zh")
    assert head["layout"]["yaxis"]["title"]["text"] == message("fig.alibi.head_y_title", "zh")
    assert "Every row is the same line shifted" not in texts(at)

    show(at, "reach")
    subheaders["reach"] = [s.value for s in at.subheader]
    reach = figure_by_title(at, message("fig.alibi.reach_title", "zh"))
    assert reach["layout"]["xaxis"]["title"]["text"] == message("fig.alibi.reach_x_title", "zh")
    shown = texts(at)
    assert "Steep heads look at the last few tokens only" not in shown
    assert message("alibi.intro", "zh") in shown  # above the switch, in every section

    assert subheaders == {view: [message(key, "zh")] for view, key in ALIBI_SUBHEADERS.items()}


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
    fig = make_alibi_head_figure(blocks, 1, float(slopes[1]), lang="zh")
    assert fig.layout.xaxis.title.text == message("fig.alibi.head_x_title", "zh")
    assert fig.layout.yaxis.title.text == message("fig.alibi.head_y_title", "zh")
    assert fig.layout.title.text == "第 2 个头：偏置 −0.0625·(i − j)"
    assert fig.layout.annotations[0].text.startswith("概览：每个格子是每约 10 x 10 个元素")
    assert fig.data[0].hovertemplate.startswith("query 约 %{y:.0f}（每格约 10 个）")

    fig = make_alibi_reach_figure(alibi.alibi_attention_reach(4, 50), lang="zh")
    assert fig.layout.xaxis.title.text == message("fig.alibi.reach_x_title", "zh")
    assert fig.layout.yaxis.title.text == message("fig.alibi.reach_y_title", "zh")
    assert fig.data[0].hovertemplate.endswith("<extra>第 1 个头</extra>")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_numbers_in_figure_text_are_the_same_in_both_languages(lang):
    """The catalogues' format specs, not the code, round the numbers: both languages agree."""
    fig = make_alibi_head_figure(alibi.alibi_bias_overview(2, 4), 0, 0.0625, lang=lang)
    assert "−0.0625·(i − j)" in fig.layout.title.text
    ext = rope.rope_context_extension(8, 10, 40, factor=4)
    assert "×4: 10 → 40" in make_context_extension_figure(ext, lang=lang).layout.title.text.replace(
        "：", ": ")
