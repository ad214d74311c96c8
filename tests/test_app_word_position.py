"""The word-position page through Streamlit's AppTest: it renders, its controls drive it, bad URL
values are explained, and the numbers shown are the right ones."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import core
from locales import message
from tests.apptest import decode, metrics, notices, open_page, plotly_figures, unescape
from tests.test_controls import _keys_in_hidden_blocks as keys_in_hidden_blocks

WORD = "app_pages/word_position.py"


XSS = "<img src=x onerror=alert(1)>"


def chips(at) -> str:
    """The markdown line of token chips (badge directives)."""
    return next(m.value for m in at.markdown if m.value.startswith(":blue-badge["))


ARTICLE_W = [[0.1, 0.2], [0.3, 0.4], [0.5, 0.6], [0.7, 0.8], [0.9, 1.0], [1.1, 1.2]]
ARTICLE_X = [[0.1, 1.2], [1.1, 1.0], [1.0, 1.4], [0.9, 1.7], [1.8, 1.4], [1.8, 1.4]]


def projected_sums(at) -> np.ndarray:
    sums = next(t for t in plotly_figures(at)[0]["data"] if t["name"] == "token + position")
    return np.c_[decode(sums["x"]), decode(sums["y"])]


def test_word_position_default_is_the_articles_table():
    at = open_page(WORD)
    assert not at.exception
    assert not [n for n in notices(at) if n.startswith("URL parameter")]
    assert chips(at).split("] ")[0] == ":blue-badge[The · 0"
    assert len(plotly_figures(at)) == 1
    # 001_f180268f58001bd4.txt's table, drawn as it is (2-D vectors need no PCA) ...
    np.testing.assert_allclose(projected_sums(at), ARTICLE_X, atol=1e-12)
    figure = plotly_figures(at)[0]
    assert figure["layout"]["xaxis"]["title"]["text"] == "dimension 0"
    sums = next(t for t in figure["data"] if t["name"] == "token + position")
    assert "the @4 = mat @5" in sums["text"]  # one point, two words
    # ... in its table, and said in words.
    article, real = (el.value for el in at.dataframe[:2])
    np.testing.assert_allclose(article[["W[0]", "W[1]"]].to_numpy(), ARTICLE_W, atol=1e-15)
    np.testing.assert_allclose(article[["X[0]", "X[1]"]].to_numpy(), ARTICLE_X, atol=1e-12)
    np.testing.assert_allclose(real[["P[0]", "P[1]"]].to_numpy()[:3],
                               [[0, 1], [0.8415, 0.5403], [0.9093, -0.4161]], atol=1e-4)
    collision = [i.value for i in at.info if "same point" in i.value]
    assert len(collision) == 1 and "[1.8, 1.4]" in collision[0]


def test_article_with_the_real_sinusoid():
    at = open_page(WORD, {"encoding": "sinusoidal"})
    expected = np.add(ARTICLE_W, [[math.sin(p), math.cos(p)] for p in range(6)])
    np.testing.assert_allclose(projected_sums(at), expected, atol=1e-12)
    assert not [i.value for i in at.info if "same point" in i.value]


def test_deep_link_minilm_3d():
    at = open_page(WORD, {"embedding": "minilm", "projection": "3-D"})
    assert not at.exception and notices(at) == []
    figure = plotly_figures(at)[0]
    assert {t["type"] for t in figure["data"]} == {"scatter3d"}
    scene = figure["layout"]["scene"]  # across, the words; up, the two "the"
    assert scene["xaxis"]["title"]["text"].startswith("PC1 (")
    assert scene["yaxis"]["title"]["text"].startswith("PC2 (")
    assert scene["zaxis"]["title"]["text"].startswith("“the” @1 → @5 (")
    assert "[CLS]" not in {text for trace in figure["data"] for text in trace.get("text") or ()}
    presented = open_page(WORD, {"embedding": "minilm", "present": "true"})  # said on a slide too
    assert any(c.value.startswith("[CLS], [SEP] and their positions are left out")
               for c in presented.caption)
    line = chips(at)
    assert ":blue-badge[\\[CLS\\] · 0]" in line and ":blue-badge[the · 5]" in line
    assert line.count("the · ") == 2  # "The" and "the" are both WordPiece `the`


def test_changing_controls_changes_the_output():
    at = open_page(WORD, {"embedding": "random", "d_model": "16"})
    before = plotly_figures(at)[0]
    at.radio(key="projection").set_value("3-D").run()
    assert {t["type"] for t in plotly_figures(at)[0]["data"]} == {"scatter3d"}
    at.radio(key="projection").set_value("2-D").run()
    at.toggle(key="scale").set_value(True).run()
    assert "Convention: scaled" in " ".join(m.value for m in at.markdown)
    assert plotly_figures(at)[0] != before
    at.text_input(key="sentence").set_value("dogs bark loudly").run()
    assert chips(at).startswith(":blue-badge[dogs · 0] :blue-badge[bark · 1]")
    assert not at.exception


def test_numbers_match_an_independent_computation(weights):
    at = open_page(WORD, {"embedding": "minilm", "encoding": "learned"})
    ids = [101, 1996, 4937, 2938, 2006, 1996, 13523, 102]  # [CLS] the cat sat on the mat [SEP]
    token = np.linalg.norm(weights["embeddings.word_embeddings.weight"][ids], axis=1)
    position = np.linalg.norm(weights["embeddings.position_embeddings.weight"][:8], axis=1)
    shown = metrics(at)
    assert shown["mean |token|"] == f"{token.mean():.4f}"
    assert shown["mean |position|"] == f"{position.mean():.4f}"
    assert shown["|token| / |position|"] == f"{token.mean() / position.mean():.3f}"
    table = at.dataframe[0].value
    np.testing.assert_allclose(table["|token|/|position|"], token / position, rtol=1e-6)


def test_bert_input_shows_layer_norm_output(weights):
    at = open_page(WORD, {"embedding": "minilm", "bert_input": "true", "encoding": "sinusoidal"})
    assert not at.exception
    assert any("do not apply" in i.value for i in at.info)  # it forces learned, unscaled
    table = at.dataframe[0].value
    ids = [101, 1996, 4937, 2938, 2006, 1996, 13523, 102]
    x = (weights["embeddings.word_embeddings.weight"][ids].astype(np.float64)
         + weights["embeddings.position_embeddings.weight"][:8]
         + weights["embeddings.token_type_embeddings.weight"][0])
    x = (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-12)
    x = x * weights["embeddings.LayerNorm.weight"] + weights["embeddings.LayerNorm.bias"]
    np.testing.assert_allclose(table["|bert_input|"], np.linalg.norm(x, axis=1), rtol=1e-5)
    assert "BERT input (LayerNorm)" in [t["name"] for t in plotly_figures(at)[0]["data"]]


def test_csv_download_has_every_row():
    at = open_page(WORD, {"embedding": "random", "sentence": "=1+2 cat"})
    assert not at.exception
    assert any(b.label == "Download the table (CSV)" for b in at.get("download_button"))


@pytest.mark.parametrize("sentence", [XSS, "**x**", "[link](javascript:alert(1))", "$x$ :smile:"])
def test_user_text_is_shown_literally(sentence):
    at = open_page(WORD, {"embedding": "random", "sentence": sentence})
    assert not at.exception
    contents = re.findall(r":blue-badge\[((?:\\.|[^\]\\])*)\]", chips(at))
    tokens = core.word_position.word_tokens(sentence)
    assert [unescape(c) for c in contents] == [f"{t} · {i}" for i, t in enumerate(tokens)]
    for content in contents:
        # Every markdown character is escaped: nothing can become a tag, link, maths or style.
        assert re.search(r"(?<!\\)[<>*\[\]()$:`_]", content) is None, content


def test_chinese_and_emoji_explain_unknown_tokens():
    at = open_page(WORD, {"embedding": "minilm", "sentence": "猫坐在垫子上 😀"})
    assert not at.exception
    text = " ".join(notices(at))
    assert "5 of 9 tokens are [UNK]" in text and "Chinese" in text


def test_more_than_512_tokens_is_cut_with_a_notice():
    at = open_page(WORD, {"embedding": "minilm", "sentence": "a " * 999})
    assert not at.exception
    assert any("only the first 512 are used" in n for n in notices(at))
    assert len(at.dataframe[0].value) == 512


def test_empty_sentence_asks_for_one():
    at = open_page(WORD, {"embedding": "random", "sentence": ""})
    assert not at.exception
    assert any("Type a sentence" in i.value for i in at.info)
    assert plotly_figures(at) == []


@pytest.mark.parametrize(
    "name, value",
    [
        ("embedding", "bogus"),
        ("encoding", "<b>x</b>"),
        ("projection", "4-D"),
        ("seed", "-1"),
        ("d_model", "7"),
        ("scale", "maybe"),
        ("sentence", "x" * 10_000),
    ],
)
def test_bad_url_value_gives_a_notice_naming_the_parameter(name, value):
    at = open_page(WORD, {name: value})
    assert not at.exception
    messages = [m for m in notices(at) if m.startswith("URL parameter")]
    assert len(messages) == 1
    assert messages[0].startswith(f"URL parameter {name}")
    assert len(plotly_figures(at)) == 1


def test_the_projection_lives_above_the_chart_and_keeps_its_value():
    """The chart's own control: in the page (its fragment), not the sidebar; a link's value is
    drawn, and a change redraws the chart while the tokens and the table stay."""
    at = open_page(WORD, {"embedding": "random", "d_model": "16", "projection": "3-D"})
    assert "projection" not in {w.key for w in at.sidebar.radio}
    assert at.main.radio(key="projection").value == "3-D"
    assert {t["type"] for t in plotly_figures(at)[0]["data"]} == {"scatter3d"}
    table = at.dataframe[0].value
    at.main.radio(key="projection").set_value("2-D").run()
    assert {t["type"] for t in plotly_figures(at)[0]["data"]} == {"scatter"}
    assert at.main.radio(key="projection").value == "2-D"
    assert at.dataframe[0].value.equals(table)


def test_the_projection_is_not_shown_for_a_two_dimensional_table():
    """The article's table has d = 2: 2-D and 3-D draw the same points, so the control is not
    shown (made hidden: its link value kept) and the caption says why; a wider table shows it."""
    at = open_page(WORD, {"projection": "3-D"})
    assert at.main.radio(key="projection").value == "3-D"
    assert "projection" in keys_in_hidden_blocks(at)
    assert any("no third axis" in c.value for c in at.caption)
    assert {t["type"] for t in plotly_figures(at)[0]["data"]} == {"scatter"}
    at = open_page(WORD, {"embedding": "random", "d_model": "4", "projection": "3-D"})
    assert "projection" not in keys_in_hidden_blocks(at)
    assert {t["type"] for t in plotly_figures(at)[0]["data"]} == {"scatter3d"}


@pytest.mark.parametrize(("query", "shown"), [
    ({}, {"embedding", "encoding", "scale"}),  # the article's 2-D preset: its own sentence
    ({"embedding": "random"}, {"embedding", "sentence", "encoding", "scale", "seed"}),
    ({"embedding": "random", "encoding": "sinusoidal"},
     {"embedding", "sentence", "encoding", "layout", "d_model", "scale", "seed"}),
    ({"embedding": "minilm"},
     {"embedding", "sentence", "encoding", "scale", "special_tokens", "bert_input"}),
    ({"embedding": "minilm", "bert_input": "true"},  # BERT's input: learned, unscaled
     {"embedding", "sentence", "special_tokens", "bert_input"}),
])
def test_the_sidebar_shows_the_controls_that_change_the_vectors(query, shown):
    """Each control is shown where it changes the vectors; the others are made hidden, their
    values and links kept (tests/test_browser_control_effects.py changes each one shown)."""
    at = open_page(WORD, query)
    assert not at.exception
    sidebar = {"embedding", "sentence", "encoding", "layout", "d_model", "scale",
               "special_tokens", "bert_input", "seed"}
    assert sidebar - keys_in_hidden_blocks(at) == shown


def test_a_width_a_link_names_is_said_replaced_by_the_learned_tables():
    """Random words with MiniLM's learned positions are 384-wide: a link's d_model=16 is said
    replaced; the default width, nobody's choice and not shown there, is not."""
    note = "d_model is 384 here"
    at = open_page(WORD, {"embedding": "random", "d_model": "16"})
    assert [i.value for i in at.info if note in i.value]
    at = open_page(WORD, {"embedding": "random"})
    assert not [i.value for i in at.info if note in i.value]


def test_the_repeated_tokens_are_named_by_their_own_labels():
    """The caption names the points it means by what only they carry, their label "token
    @position" (every token + position point is a diamond of the same colour), and PCA's "% of
    variance" is said in words beside the picture."""
    at = open_page(WORD, {"embedding": "minilm", "sentence": "the cat saw the dog"})
    assert not at.exception
    figure = plotly_figures(at)[0]  # the projection (then the positions' own path)
    caption = unescape(next(c.value for c in at.caption if "Same token" in c.value))
    example = caption.split("such as “")[1].split("”")[0]
    assert example == "the @4"  # its second "the" (positions from 1: [CLS] is 0)
    tokens, positions, sums = (figure["data"][i].get("text") or [] for i in (1, 2, 3))
    assert any(example in label for label in sums)
    assert not any(example in label for label in [*tokens, *positions])
    assert message("word-position.variance_help", "en") in [c.value for c in at.caption]
