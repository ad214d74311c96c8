"""The RoPE page in Chinese (lang=zh) and English: its texts, notices, presentation mode and
figures."""

from __future__ import annotations

import numpy as np
import pytest

from core import rope
from figures.rope import (
    METHOD_NAMES,
    make_context_extension_figure,
    make_rope_decay_figure,
    make_rope_logits_figure,
    make_rope_rotation_figure,
    method_names,
)
from locales import message
from tests.apptest import (
    control,
    figure_by_title,
    has_cjk,
    open_page,
    plotly_figures,
    show_section,
    texts,
)

ROPE = "app_pages/rope.py"
ROPE_SMALL = {"d_head": "16", "positions": "64"}


ROPE_SUBHEADERS = {"rotation": "rope.rotation", "relative": "rope.relative",
                   "decay": "rope.decay", "extension": "rope.extension"}


def test_rope_page_in_chinese():
    at = open_page(ROPE, {"lang": "zh", **ROPE_SMALL})
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == message("rope.title", "zh")
    assert control(at, "d_head").label == message("rope.d_head", "zh")
    # Options show their labels in the visitor's language; the values (the URL's) stay.
    assert at.radio(key="scaling").options == [
        message(f"options.{v}", "zh") for v in ("none", "position_interpolation", "ntk_aware")]
    assert at.radio(key="view").label == message("controls.show", "zh")
    assert at.radio(key="view").help == message("rope.view_help", "zh")
    # The config view (a model's config.json) is tested in tests/test_rope_config_pages.py.
    assert at.radio(key="view").options == [
        message(f"options.{v}", "zh") for v in (*ROPE_SUBHEADERS, "config")]
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

    show_section(at, "relative")
    subheaders["relative"] = [s.value for s in at.subheader]
    logits = figure_by_title(at, message("fig.rope.logits_title", "zh"))
    assert logits["layout"]["xaxis"]["title"]["text"] == message("fig.rope.logits_x_title", "zh")
    assert logits["data"][0]["name"] == message("rope.query_at", "zh", m=63)
    shown = texts(at)
    assert "the logit depends on m − n only" not in shown
    assert message("rope.intro", "zh") in shown  # above the switch, in every section
    assert "最大差值" in shown  # the logits caption, with its number

    show_section(at, "decay")
    subheaders["decay"] = [s.value for s in at.subheader]
    decay = figure_by_title(at, message("fig.rope.decay_title", "zh"))
    assert decay["layout"]["xaxis"]["title"]["text"] == message("fig.rope.decay_x_title", "zh")

    show_section(at, "extension")
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
