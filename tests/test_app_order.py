"""The order page: MiniLM run whole with and without its positions (core.minilm_forward), its
views, its facts computed from the model, and its URL parameters."""

from __future__ import annotations

import numpy as np
import pytest

from core import limits, minilm
from core.minilm_encoder import minilm_forward
from tests.apptest import (
    decode,
    figure_titled,
    metrics,
    notices,
    open_at_defaults,
    open_page,
    open_with_one_bad_value,
    show_section,
    zh,
)

ORDER = "app_pages/order.py"


def test_opens_at_its_defaults_with_every_heads_change_and_one_head_side_by_side():
    at = open_at_defaults(ORDER, charts=2)
    pair = figure_titled(at, "Layer 1, head 1")
    model = minilm.load_minilm()
    learned = minilm_forward(model, "The cat sat on the mat")
    blind = minilm_forward(model, "The cat sat on the mat", positions="none")
    np.testing.assert_allclose(decode(pair["data"][0]["z"]), learned.attentions[0, 0], atol=1e-6)
    np.testing.assert_allclose(decode(pair["data"][1]["z"]), blind.attentions[0, 0], atol=1e-6)
    assert pair["data"][0]["x"][:3] == ["[CLS]·0", "the·1", "cat·2"]
    change = figure_titled(at, "each head")
    assert np.asarray(decode(change["data"][0]["z"])).shape == (6, 12)


def test_a_views_layer_and_head_live_in_the_view_not_the_sidebar():
    at = open_page(ORDER, {"layer": "3", "head": "7"})
    assert {w.key for w in at.sidebar.slider} == set()
    assert {w.key for w in at.main.slider} >= {"layer", "head"}
    assert figure_titled(at, "Layer 3, head 7")


def test_the_facts_are_computed_not_written():
    """The article's sentence: without positions its two "the" are identical (0) and the
    reordered sentence has cosine 1; with positions neither holds."""
    at = show_section(open_page(ORDER), "facts")
    shown = metrics(at)
    assert shown["attention rows differ by (without)"] == "0"
    assert shown["outputs differ by (without)"] == "0"
    assert float(shown["outputs differ by (with positions)"]) > 0.1
    assert float(shown["cosine, without positions"]) == pytest.approx(1.0, abs=1e-5)
    assert float(shown["cosine, with positions"]) < 0.999
    # Three quantities, three panels: each its own axis (not one "difference" axis).
    facts = figure_titled(at, "What the positions change, measured")
    axes = {trace["yaxis"] for trace in facts["data"]}
    assert axes == {"y", "y2", "y3"} and len(facts["data"]) == 6
    titles = [a["text"] for a in facts["layout"]["annotations"]]
    assert titles == ["attention rows of the repeated word", "outputs of the repeated word",
                      "1 − cosine of the two sentences"]
    # A cosine near 1 with positions is said for what it is.
    cosine = float(shown["cosine, with positions"])
    assert any(f"Read the cosine with positions, {cosine:.3f}, as a real difference" in m.value
               for m in at.markdown)


def test_shuffle_gives_another_order_of_the_same_words():
    at = show_section(open_page(ORDER), "facts")
    at.button(key="shuffle").click().run()
    assert not at.exception
    other = at.text_input(key="other").value
    assert sorted(other.split()) == sorted(["The", "cat", "sat", "on", "the", "mat"])
    assert other != "The cat sat on the mat"
    assert float(metrics(at)["cosine, without positions"]) == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize(("name", "value"), [("layer", "0"), ("head", "13"), ("view", "x"),
                                             ("layer", "1e9")])
def test_an_unusable_url_value_gets_a_notice(name, value):
    open_with_one_bad_value(ORDER, name, value)


def test_a_sentence_past_the_cap_is_refused_with_a_message():
    at = open_page(ORDER, {"text": "cat " * limits.MAX_ORDER_TOKENS})
    assert not at.exception
    assert at.warning[0].value.startswith("The first sentence has ")
    assert "at most 64 are run here" in at.warning[0].value


@pytest.mark.parametrize(("lang", "said"), [("en", "The second sentence has no tokens"),
                                            ("zh", "第二句里没有")])
def test_an_empty_sentence_is_named_in_words(lang, said):
    at = open_page(ORDER, {"other": "\u200b", "lang": lang})  # characters the tokenizer drops
    assert not at.exception
    assert at.info[0].value.startswith(said)


def test_in_chinese():
    at = show_section(open_page(ORDER, {"lang": "zh"}), "facts")
    assert not at.exception and notices(at) == []
    assert zh("order.cosine_none") in metrics(at)


def test_nope_view_shows_the_causal_means_norm_against_one_over_the_root_of_p_plus_one():
    """NoPE's view draws 8 random sentences' causal means (core.nope): the numbers shown are
    the slow loop's (each prefix's mean summed vector by vector), and the view needs neither
    the model nor a usable sentence."""
    from tests.test_nope import loop_norms

    at = open_page(ORDER, {"view": "nope", "length": "40", "width": "16", "text": ""})
    assert not at.exception and not notices(at)
    shown = metrics(at)
    norms = np.array(loop_norms(40, 16, 8, 0))
    values = list(shown.values())
    assert float(values[0]) == pytest.approx(norms[:, -1].mean(), abs=5e-5)
    assert float(values[1]) == pytest.approx(1 / np.sqrt(40), abs=5e-5)
    assert float(values[2]) == pytest.approx(np.median(1 / norms[:, -1] ** 2 - 1), abs=0.05)
    fig = figure_titled(at, "No positions, a causal mask")
    assert len(fig["data"]) == 8 + 4
