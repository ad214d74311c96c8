"""The vit-grid page in Chinese (lang=zh) and English: its texts, notices, presentation mode and
figures."""

from __future__ import annotations

import pytest

from core import vit_grid
from figures.vit_grid import (
    make_halves_figure,
    make_patch_map_figure,
    make_tiles_figure,
    make_vit_encoding_figure,
)
from locales import message
from tests.apptest import (
    EVERY_TEXT,
    control,
    has_cjk,
    notices,
    open_page,
    plotly_figures,
    texts,
    zh,
)

VIT_GRID = "app_pages/vit_grid.py"


SMALL_GRID = {"grid_h": "4", "grid_w": "5", "d_model": "32"}


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
    shown = texts(at, EVERY_TEXT)
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
    shown = texts(at, EVERY_TEXT)
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
    shown = texts(at, EVERY_TEXT)
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
    assert explanation in texts(normal, EVERY_TEXT)
    assert "MAE's code ([`util/pos_embed.py`]" in texts(normal, EVERY_TEXT)
    assert explanation not in texts(present, EVERY_TEXT)
    assert "MAE's code ([`util/pos_embed.py`]" not in texts(present, EVERY_TEXT)
    assert len(plotly_figures(normal)) == len(plotly_figures(present)) == charts
    assert present.title[0].value == "2-D grids for ViT"
    assert [s.value for s in present.subheader] == [s.value for s in normal.subheader]


def test_vit_grid_figures_in_chinese():
    tiles = make_tiles_figure(vit_grid.sincos_similarity_tiles(6, 10, 32), lang="zh")
    assert tiles.layout.xaxis.title.text == zh("fig.vit_grid.tiles_x_title")
    assert tiles.layout.yaxis.title.text == zh("fig.vit_grid.tiles_y_title")
    assert tiles.layout.title.text == zh("fig.vit_grid.tiles_title")
    crowded = make_tiles_figure(vit_grid.sincos_similarity_tiles(64, 40, 32), lang="zh")
    note = crowded.layout.annotations[0].text
    assert has_cjk(note) and "Showing" not in note and "64 x 40" in note
    sim = vit_grid.sincos_patch_map(6, 10, 32, 2, 7)
    patch = make_patch_map_figure(sim, row=2, col=7, lang="zh")
    assert patch.layout.xaxis.title.text == zh("fig.vit_grid.x_title")
    assert patch.layout.yaxis.title.text == zh("fig.vit_grid.y_title")
    assert patch.layout.shapes[0].name == zh("fig.vit_grid.patch_name", row=2, col=7)
    columns, rows = vit_grid.sincos_half_maps(6, 10, 32, 2, 7)
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


def test_the_2d_rope_views_controls_are_one_fold_when_presenting():
    """Presenting, the 2-D RoPE view's two rows of controls (the patch; d_head and the mixed
    head) are under one "Controls" fold, not one fold each."""
    present = open_page(VIT_GRID, {**SMALL_GRID, "view": "rope", "present": "1"})
    assert not present.exception
    folds = [e for e in present.expander if e.label == message("controls.view_controls", "en")]
    assert len(folds) == 1
    fold = folds[0]
    assert [w.key for w in fold.text_input] == ["patch"]
    assert {w.key for w in (*fold.slider, *fold.select_slider)} == {"d_head", "head"}
