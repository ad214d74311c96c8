"""ViT grid page: the ViT paper's similarity tiles, one patch's map, the two halves, the table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from core.overview import Overview
from core.vit_grid import SimilarityTiles
from figures.common import (
    MAX_LIVE_NUMBERS,
    add_live_states,
    add_note,
    add_span,
    base_layout,
    grid_axes,
    grid_layout,
    grid_refs,
    heatmap_smoothing,
    typed_array,
)
from figures.heatmap import make_pe_heatmap_figure
from locales import Lang, message

# The selected patch's mark: an open square 14 px a side, a mark of the layout (a shape drawn in
# pixels at the patch), not a trace: a patch's live state moves it with a layout key beside the
# heatmaps' new cells (one Plotly.update sets one set of keys on all the traces it names).
SELECTED_PATH = "M -7,-7 H 7 V 7 H -7 Z"
SELECTED_LINE = {"color": "white", "width": 2}
# Sequential, as in the ViT paper's figure: the similarities of a 2-D sin-cos grid are mostly
# positive (0.4 .. 1 for d = 768), so a diverging scale around 0 would show one flat red.
SIMILARITY_SCALE = "Viridis"


# Plot heights (pixels) of the two square charts, chosen so that their squares are bound by the
# height, not the width, at 1280 px and wider with the sidebar open: then the colour bar (as tall
# as the plot area) is as tall as the square.
TILES_SIDE = 600
PATCH_SIDE = 280
MARGINS = 120  # base_layout's top + bottom


def similarity_range(*maps: np.ndarray) -> dict:
    """The colour range shared by some maps: their lowest value up to 1 (a patch with itself)."""
    low = min(float(np.nanmin(m)) for m in maps)
    return {"zmin": min(low, 0.999), "zmax": 1.0, "colorscale": SIMILARITY_SCALE}


def _colour_axis(colours: dict, colorbar: dict) -> dict:
    """A layout's shared colour axis from `similarity_range`'s colours: panels that share it
    change their range with one layout key (a live state's), not one per trace."""
    return {"colorscale": colours["colorscale"], "cmin": colours["zmin"],
            "cmax": colours["zmax"], "colorbar": colorbar}


def make_tiles_figure(
    tiles: SimilarityTiles, *, colours: dict | None = None, lang: Lang = "en"
) -> go.Figure:
    """One tile per (shown) patch, laid out as the grid: the tile at (r, c) is the cosine
    similarity of patch (r, c)'s encoding with every patch's. `colours` (from
    `similarity_range`) shares a colour range with another chart."""
    mosaic = tiles.mosaic()  # (th * (h + 1), tw * (w + 1)) with NaN gaps
    fig = go.Figure(_tiles_heatmap(mosaic, colours or similarity_range(mosaic), lang=lang))
    x_axis, y_axis = _tiles_axes(tiles, lang)
    fig.update_xaxes(**x_axis)
    fig.update_yaxes(**y_axis, scaleanchor="x", scaleratio=1)
    add_note(fig, _tiles_shown(tiles, lang), xanchor="auto", align="center")
    aspect = mosaic.shape[0] / mosaic.shape[1]  # rows per column: a wide grid needs less height
    height = MARGINS + int(TILES_SIDE * min(1.0, aspect))
    return base_layout(fig, message("fig.vit_grid.tiles_title", lang), height=height)


def _tiles_shown(tiles: SimilarityTiles, lang: Lang) -> str:
    """Which patches have a tile, and how far each tile is averaged."""
    th, tw, h, w = tiles.tiles.shape
    if tiles.every_patch:
        shown = message("fig.vit_grid.tiles_all", lang, grid_h=tiles.grid_h, grid_w=tiles.grid_w)
    else:
        shown = message("fig.vit_grid.tiles_some", lang, th=th, tw=tw, grid_h=tiles.grid_h,
                        grid_w=tiles.grid_w)
    averaged = "" if tiles.exact else message("fig.vit_grid.tiles_averaged", lang, h=h, w=w)
    return message("fig.vit_grid.tiles_shown", lang, shown=shown, averaged=averaged)


def _tiles_colorbar(lang: Lang) -> dict:
    return {"title": {"text": message("fig.vit_grid.cosine", lang)}, "thickness": 12}


def _tiles_heatmap(mosaic: np.ndarray, colours: dict | None, *, lang: Lang) -> go.Heatmap:
    """A mosaic's heatmap on `colours` (`similarity_range`'s) with its colour bar, or with
    None on the layout's colour axis (`_colour_axis`)."""
    colouring = ({"coloraxis": "coloraxis"} if colours is None
                 else {**colours, "colorbar": _tiles_colorbar(lang)})
    return go.Heatmap(
        z=mosaic,
        **colouring,
        hoverongaps=False,
        hovertemplate=message("fig.vit_grid.tiles_hover", lang),
        zsmooth=heatmap_smoothing(mosaic),
    )


def _tiles_axes(tiles: SimilarityTiles, lang: Lang) -> tuple[dict, dict]:
    """The x and y axes of a mosaic: a tick at each tile's centre naming its patch (at every
    few tiles along a tile's short side, when the tiles are far from square: the labels there
    stay at least 0.6 of the long side's spacing apart)."""
    th, tw, h, w = tiles.tiles.shape
    step_x = -(-3 * (h + 1) // (5 * (w + 1)))  # ceil(0.6 (h + 1) / (w + 1)): 1 unless tall
    step_y = -(-3 * (w + 1) // (5 * (h + 1)))  # 1 unless the tiles are wide
    common = {"showgrid": False, "zeroline": False,
              "constrain": "domain"}  # with scaleanchor: shrink the plot, do not pad the range
    return (
        {"title": {"text": message("fig.vit_grid.tiles_x_title", lang)},
         "tickvals": (np.arange(tw) * (w + 1) + (w - 1) / 2)[::step_x],
         "ticktext": [str(c) for c in tiles.tile_cols[::step_x]], **common},
        {"title": {"text": message("fig.vit_grid.tiles_y_title", lang)},
         "tickvals": (np.arange(th) * (h + 1) + (h - 1) / 2)[::step_y],
         "ticktext": [str(r) for r in tiles.tile_rows[::step_y]], "autorange": "reversed",
         **common},
    )


ROPE_TILES_SIDE = 360  # plot height of each of the 2 x 2 panels
ROPE_TILES_GAP = 56  # px at least between the panel rows: the upper ticks, the lower titles


def make_rope_2d_tiles_figure(
    tiles: list[tuple[str, SimilarityTiles]], *, head: int, colours: dict | None = None,
    lang: Lang = "en",
) -> go.Figure:
    """The ViT paper's tiles of MAE's table and of each rotation, 2 x 2 on one colour range:
    `tiles` is (panel title, tiles) for each scheme, all of one grid, the last RoPE-Mixed's
    head `head` (the title names it). `colours` (`similarity_range`'s) is the range, by default
    the tiles' own; the page gives every scheme's at every offset, the same at every head (a
    head's live state then changes the cells alone, `add_rope_2d_tiles_states`)."""
    mosaics = [(title, t.mosaic()) for title, t in tiles]
    cols = 2
    rows = -(-len(tiles) // cols)
    aspect = mosaics[0][1].shape[0] / mosaics[0][1].shape[1]
    plot = int(rows * ROPE_TILES_SIDE * min(1.0, aspect)) + ROPE_TILES_GAP  # panels and gap
    # A fixed fraction of a wide grid's short plot crowded the upper panels' ticks into the lower
    # titles: at least ROPE_TILES_GAP px, in hundredths (few layouts for grid_layout's cache).
    spacing = max(0.1, -(-100 * ROPE_TILES_GAP // plot) / 100)
    # One layout dict and one figure (figures.common.grid_layout): ~35 -> ~10 ms a rerun.
    layout = grid_layout(rows, cols, titles=[title for title, _ in mosaics],
                         horizontal_spacing=0.08, vertical_spacing=spacing)
    layout["coloraxis"] = _colour_axis(
        colours or similarity_range(*(mosaic for _, mosaic in mosaics)), _tiles_colorbar(lang))
    traces = []
    for index, ((_, mosaic), (_, shown)) in enumerate(zip(mosaics, tiles, strict=True)):
        row, col = divmod(index, cols)
        x_key, y_key = grid_axes(index)
        refs = grid_refs(index)
        traces.append(_tiles_heatmap(mosaic, None, lang=lang).update(refs))
        x_axis, y_axis = _tiles_axes(shown, lang)
        layout[x_key].update(x_axis)
        layout[y_key].update(y_axis, scaleanchor=refs["xaxis"], scaleratio=1)
        if col:  # the row titles once, at the left
            layout[y_key].pop("title")
        if row + 1 < rows:  # the column titles once, at the bottom
            layout[x_key].pop("title")
    fig = go.Figure(data=traces, layout=layout)
    add_note(fig, _tiles_shown(tiles[0][1], lang), yshift=24, xanchor="auto", align="center")
    fig = base_layout(fig, message("fig.vit_grid.rope_tiles_title", lang, head=head),
                      height=MARGINS + 28 + plot)
    fig.update_layout(margin_t=fig.layout.margin.t + 28)  # the note, above the panel titles
    return fig


def _grid_heatmap(
    values: np.ndarray, colors: dict, *, lang: Lang, showscale: bool = True
) -> go.Heatmap:
    return go.Heatmap(
        z=values,
        **colors,
        showscale=showscale,
        colorbar={"title": {"text": message("fig.vit_grid.cosine", lang)}},
        hovertemplate=message("fig.vit_grid.grid_hover", lang),
    )


def _selected_mark(row: int, col: int, panel: int = 0, *, name: str | None = None) -> dict:
    """The selected patch's square on panel `panel` (its axes `grid_refs(panel)`)."""
    refs = grid_refs(panel)
    return {"type": "path", "path": SELECTED_PATH, "xref": refs["xaxis"],
            "yref": refs["yaxis"], "xsizemode": "pixel", "ysizemode": "pixel", "xanchor": col,
            "yanchor": row, "line": SELECTED_LINE, "layer": "above", "name": name}


def _mark_moved(row: int, col: int, panels: int) -> dict:
    """A state's layout keys that put the marks of `panels` panels (shapes 0 ..) at a patch."""
    moved = {}
    for panel in range(panels):
        moved[f"shapes[{panel}].xanchor"] = col
        moved[f"shapes[{panel}].yanchor"] = row
    return moved


def make_patch_map_figure(
    similarity: np.ndarray, *, row: int, col: int, colours: dict | None = None,
    lang: Lang = "en",
) -> go.Figure:
    """The selected patch's similarity with every patch ``(H, W)``, large, with hover values."""
    fig = go.Figure(_grid_heatmap(similarity, colours or similarity_range(similarity),
                                  lang=lang))
    fig.add_shape(_selected_mark(row, col,
                                 name=message("fig.vit_grid.patch_name", lang, row=row, col=col)))
    fig.update_xaxes(title_text=message("fig.vit_grid.x_title", lang), showgrid=False,
                     zeroline=False)
    fig.update_xaxes(constrain="domain")
    fig.update_yaxes(title_text=message("fig.vit_grid.y_title", lang), autorange="reversed",
                     scaleanchor="x", scaleratio=1, showgrid=False, zeroline=False,
                     constrain="domain")
    fig.update_layout(showlegend=False)
    aspect = similarity.shape[0] / similarity.shape[1]
    return base_layout(fig, message("fig.vit_grid.patch_title", lang, row=row, col=col),
                       height=MARGINS + int(PATCH_SIDE * min(1.0, aspect)))


def make_halves_figure(
    column_half: np.ndarray, row_half: np.ndarray, *, row: int, col: int, d_model: int,
    lang: Lang = "en",
) -> go.Figure:
    """The selected patch's map from each half of the channels alone, side by side."""
    half = d_model // 2
    fig = make_subplots(
        rows=1, cols=2, horizontal_spacing=0.08,
        subplot_titles=(message("fig.vit_grid.halves_column", lang, half=half),
                        message("fig.vit_grid.halves_row", lang, half=half, d_model=d_model)),
    )
    colors = similarity_range(column_half, row_half)
    for c, values in ((1, column_half), (2, row_half)):
        fig.add_trace(_grid_heatmap(values, colors, lang=lang, showscale=c == 2), row=1, col=c)
        fig.add_shape(_selected_mark(row, col, c - 1))
    fig.update_xaxes(title_text=message("fig.vit_grid.x_title", lang), showgrid=False,
                     zeroline=False)
    fig.update_yaxes(autorange="reversed", showgrid=False, zeroline=False)
    fig.update_yaxes(title_text=message("fig.vit_grid.y_title", lang), row=1, col=1)
    return base_layout(fig, message("fig.vit_grid.halves_title", lang), height=460)


# --- the selected patch follows the pointer -----------------------------------------------------
# A chart of the selected patch's maps carries them at other patches as live states of the
# page's patch box (figures.common.add_live_states), each named "row,col" as the link writes it;
# ui/chart/hover.js draws the state of the patch under the pointer (`layout.meta.hover`) on
# every chart that carries it, and the server's figure again when the pointer leaves.
PATCH_CONTROL = "patch"


def patch_text(row: int, col: int) -> str:
    """A patch as the patch box and the link write it, and as its live state is named."""
    return f"{row},{col}"


def patch_lattice(grid_h: int, grid_w: int, *, row: int, col: int, per_state: int,
                  budget: int = MAX_LIVE_NUMBERS) -> tuple[list[int], list[int], int]:
    """The rows and columns of the patches a chart carries states for, each state weighing
    `per_state` numbers: every patch when they fit in `budget`, else every `step`-th row and
    column, `step` the smallest that fits, through (row, col) (the selected patch previews
    itself), or from row and column 0 where only that makes two (a patch between them
    previews the nearest). ``(rows, cols, step)``; none and step 0 when two never fit."""
    for step in range(1, max(grid_h, grid_w) + 1):
        for first_row, first_col in ((row % step, col % step), (0, 0)):
            rows, cols = range(first_row, grid_h, step), range(first_col, grid_w, step)
            if 2 <= len(rows) * len(cols) <= budget // max(per_state, 1):
                return list(rows), list(cols), step
    return [], [], 0


def _follow_pointer(fig: go.Figure, traces: list[int]) -> go.Figure:
    """The pointer over a cell of `traces` (patch maps: x the column, y the row) previews that
    patch (ui/chart/hover.js's hover previews)."""
    meta = fig.layout.meta if isinstance(fig.layout.meta, dict) else {}
    fig.layout.meta = {**meta, "hover": {"control": PATCH_CONTROL, "traces": traces,
                                         "text": "{y},{x}"}}
    return fig


def _floor(shared: np.ndarray | None) -> tuple[np.ndarray, ...]:
    """What of a chart sharing the colour range (`similarity_range`) moves its floor: its
    lowest value, once (not a 300 x 300 mosaic scanned again for every state)."""
    return () if shared is None else (np.array([np.nanmin(shared)]),)


def add_patch_map_states(fig: go.Figure, maps: Mapping[tuple[int, int], np.ndarray], *,
                         shared: np.ndarray | None = None, lang: Lang = "en") -> go.Figure:
    """`make_patch_map_figure` at each patch (row, col) of `maps`, its ``(H, W)`` map there, so
    that the pointer over the map previews that patch (and a slide of the patch box would):
    the cells, the colour range (shared with `shared`'s, the tiles', when the figure was made
    with both), the square and the title. None for fewer than two patches."""
    if len(maps) < 2:
        return fig
    floor = _floor(shared)

    def state(row: int, col: int, values: np.ndarray) -> tuple[dict, dict, list[int]]:
        colours = similarity_range(values, *floor)
        return ({"z": [typed_array(values)], "zmin": [colours["zmin"]]},
                {"title.text": message("fig.vit_grid.patch_title", lang, row=row, col=col),
                 "shapes[0].name": message("fig.vit_grid.patch_name", lang, row=row, col=col),
                 **_mark_moved(row, col, 1)},
                [0])

    add_live_states(fig, PATCH_CONTROL, [(patch_text(*patch), *state(*patch, values))
                                         for patch, values in maps.items()])
    return _follow_pointer(fig, [0])


# A colour range's floor moved by less than this moves no colour: the tiles (float32) of a grid
# they show whole hold every map's lowest value rounded, ~1e-8 above the map's own (float64), and
# 196 states of it would redraw the 210 x 210 mosaic under every move of the pointer.
TILES_RANGE_TOLERANCE = 1e-6


def add_tiles_range_states(fig: go.Figure, mosaic: np.ndarray,
                           maps: Mapping[tuple[int, int], np.ndarray]) -> go.Figure:
    """`make_tiles_figure(colours=similarity_range(mosaic, map))` at each patch of `maps`: the
    tiles follow a previewed patch's colour range (a corner's map can dip below averaged
    tiles'). None when it is the same at every patch, to within TILES_RANGE_TOLERANCE."""
    floor = _floor(mosaic)
    lows = {patch: similarity_range(values, *floor)["zmin"] for patch, values in maps.items()}
    if not lows or max(lows.values()) - min(lows.values()) < TILES_RANGE_TOLERANCE:
        return fig
    return add_live_states(fig, PATCH_CONTROL, [(patch_text(*patch), {"zmin": [low]}, {}, [0])
                                                for patch, low in lows.items()])


def add_halves_states(fig: go.Figure,
                      halves: Mapping[tuple[int, int], tuple[np.ndarray, np.ndarray]]) -> go.Figure:
    """`make_halves_figure` at each patch (row, col) of `halves`, its (column half, row half)
    there, so that the pointer over either half previews that patch: both halves' cells and
    colour range and the squares. None for fewer than two patches."""
    if len(halves) < 2:
        return fig

    def state(row: int, col: int, column_half: np.ndarray,
              row_half: np.ndarray) -> tuple[dict, dict, list[int]]:
        low = similarity_range(column_half, row_half)["zmin"]
        return ({"z": [typed_array(column_half), typed_array(row_half)], "zmin": [low, low]},
                _mark_moved(row, col, 2), [0, 1])

    add_live_states(fig, PATCH_CONTROL, [(patch_text(*patch), *state(*patch, *shown))
                                         for patch, shown in halves.items()])
    return _follow_pointer(fig, [0, 1])


def make_vit_encoding_figure(
    overview: Overview, *, d_model: int, cls_token: bool, lang: Lang = "en"
) -> go.Figure:
    """The full (tokens, d_model) table; the cls row and the x | y channel split marked."""
    fig = make_pe_heatmap_figure(
        overview,
        title=message("fig.vit_grid.encoding_title", lang),
        x_title=message("fig.vit_grid.encoding_x_title", lang),
        y_title=message("fig.vit_grid.encoding_y_title_cls", lang) if cls_token
        else message("fig.vit_grid.encoding_y_title", lang),
        lang=lang,
    )
    if overview.exact:
        hover = message("fig.vit_grid.encoding_hover_exact", lang)
    else:
        hover = message("fig.vit_grid.encoding_hover_block", lang)
    fig.update_traces(hovertemplate=hover)
    if not overview.exact:
        rows, cols = overview.values.shape
        values = {"tokens": overview.row_edges[-1], "d_model": d_model, "rows": rows,
                  "cols": cols}
        fig.layout.annotations[0].text = (
            message("fig.vit_grid.encoding_overview_cls", lang, **values) if cls_token
            else message("fig.vit_grid.encoding_overview", lang, **values)
        )
    fig.update_xaxes(range=[-0.5, d_model - 0.5])
    fig.update_yaxes(range=[overview.row_edges[-1] - 0.5, -0.5], autorange=False)
    split = d_model / 2 - 0.5
    add_span(fig, "vline", split, line={"color": "black", "width": 1.5, "dash": "dash"})
    for x, text in ((d_model / 4, message("fig.vit_grid.x_code", lang)),
                    (3 * d_model / 4, message("fig.vit_grid.y_code", lang))):
        # Above the table: below it, the labels sat on the x axis's tick labels once the type
        # grew (presentation mode).
        fig.add_annotation(x=x, y=1, yref="paper", yanchor="bottom", text=text, showarrow=False,
                           yshift=2, font={"size": 11})
    if cls_token:
        add_span(fig, "hrect", -0.5, 0.5, line={"color": "black", "width": 2},
                 fillcolor="rgba(0,0,0,0)")
        # Inside the table under row 0, on a box of its own: above it sat on the halves'
        # labels, right of the plot it would be cut off.
        fig.add_annotation(x=d_model - 0.5, y=0, text=message("fig.vit_grid.cls_note", lang),
                           showarrow=True, ax=-40, ay=36, xanchor="right", yanchor="top",
                           bgcolor="rgba(255,255,255,0.9)", font={"color": "#222222"},
                           arrowcolor="#222222")
    return fig


def rope_2d_title(row: int, col: int, head: int, lang: Lang = "en") -> str:
    """`make_rope_2d_figure`'s title: the patch, and RoPE-Mixed's head."""
    return message("fig.vit_grid.rope_title", lang, row=row, col=col, head=head)


def make_rope_2d_figure(
    maps: list[tuple[str, np.ndarray]], *, row: int, col: int, head: int,
    colours: dict | None = None, lang: Lang = "en",
) -> go.Figure:
    """The selected patch against every patch under each scheme, side by side on one colour
    range: `maps` is (panel title, (H, W) similarity) for MAE's table and the RoPE variants,
    the last RoPE-Mixed's head `head` (the title names it, with the patch). `colours`
    (`similarity_range`'s) is the range, by default the maps' own; the page gives every
    scheme's at every offset: the same at every patch and head, so that their live states
    change the cells alone (`add_rope_2d_states`, `add_rope_2d_patch_states`)."""
    # One layout dict and one figure (figures.common.grid_layout): ~24 -> ~8 ms a rerun.
    layout = grid_layout(1, len(maps), titles=[title for title, _ in maps],
                         horizontal_spacing=0.04, vertical_spacing=0.3)
    layout["coloraxis"] = _colour_axis(
        colours or similarity_range(*(values for _, values in maps)),
        {"title": {"text": message("fig.vit_grid.cosine", lang)}})
    traces = []
    for index, (_, values) in enumerate(maps):
        x_key, y_key = grid_axes(index)
        axes = grid_refs(index)
        traces.append(go.Heatmap(z=values, coloraxis="coloraxis",
                                 hovertemplate=message("fig.vit_grid.grid_hover", lang), **axes))
        layout[x_key].update(title={"text": message("fig.vit_grid.x_title", lang)},
                             showgrid=False, zeroline=False, constrain="domain")
        # Square patches in every panel.
        layout[y_key].update(autorange="reversed", showgrid=False, zeroline=False,
                             constrain="domain", scaleanchor=axes["xaxis"], scaleratio=1)
    layout["yaxis"]["title"] = {"text": message("fig.vit_grid.y_title", lang)}
    layout["shapes"] = [_selected_mark(row, col, index) for index in range(len(maps))]
    fig = go.Figure(data=traces, layout=layout)
    return base_layout(fig, rope_2d_title(row, col, head, lang), height=420)


def add_rope_2d_states(fig: go.Figure, last: Mapping[int, np.ndarray], *, row: int, col: int,
                       lang: Lang = "en") -> go.Figure:
    """`make_rope_2d_figure` of patch (`row`, `col`) with its last panel (RoPE-Mixed's head)
    at each head of `last`, its (H, W) similarity, so that dragging the head slider draws it in
    the browser (`add_live_states`): the panel's cells and the title (the colour range is the
    figure's, the same at every head). None for fewer than two heads."""
    if len(last) < 2:
        return fig
    panel = len(fig.data) - 1  # each panel's heatmap: trace `panel`
    return add_live_states(fig, "head", [
        (head, {"z": [typed_array(values)]}, {"title.text": rope_2d_title(row, col, head, lang)},
         [panel])
        for head, values in last.items()])


def add_rope_2d_patch_states(fig: go.Figure,
                             maps: Mapping[tuple[int, int], Sequence[np.ndarray]], *,
                             head: int, lang: Lang = "en") -> go.Figure:
    """`make_rope_2d_figure` (RoPE-Mixed at head `head`) at each patch (row, col) of `maps`,
    every panel's ``(H, W)`` map there (in the figure's order), so that the pointer over any
    panel previews that patch: the cells of every panel, the squares and the title (the colour
    range is the figure's). None for fewer than two patches."""
    if len(maps) < 2:
        return fig

    def state(row: int, col: int, panels: Sequence[np.ndarray]) -> tuple[dict, dict, list[int]]:
        return ({"z": [typed_array(values) for values in panels]},
                {"title.text": rope_2d_title(row, col, head, lang),
                 **_mark_moved(row, col, len(panels))},
                list(range(len(panels))))

    add_live_states(fig, PATCH_CONTROL, [(patch_text(*patch), *state(*patch, panels))
                                         for patch, panels in maps.items()])
    return _follow_pointer(fig, list(range(len(next(iter(maps.values()))))))


def add_rope_2d_tiles_states(fig: go.Figure, last: Mapping[int, SimilarityTiles], *,
                             lang: Lang = "en") -> go.Figure:
    """`make_rope_2d_tiles_figure` with its last panel at each head of `last` (tiles of the
    same grid), so that dragging the head slider draws it in the browser: the panel's mosaic
    and the title (the colour range is the figure's, the same at every head). None for fewer
    than two heads."""
    if len(last) < 2:
        return fig
    panel = len(fig.data) - 1
    return add_live_states(fig, "head", [
        (head, {"z": [typed_array(shown.mosaic())]},
         {"title.text": message("fig.vit_grid.rope_tiles_title", lang, head=head)}, [panel])
        for head, shown in last.items()])


MROPE_AXIS_COLOURS = ("#0072b2", "#d55e00", "#009e73", "#7f7f7f")  # time, height, width, text


def make_mrope_ids_figure(ids: np.ndarray, *, image_start: int, image_tokens: int,
                          lang: Lang = "en") -> go.Figure:
    """The (t, h, w) position ids of every token of a text + image + text sequence, one row
    per axis: text tokens count up on all three rows, the image's tokens read its grid."""
    tokens = ids.shape[1]
    labels = [message(f"fig.vit_grid.mrope_axis_{axis}", lang) for axis in ("t", "h", "w")]
    fig = go.Figure(go.Heatmap(
        z=ids.astype(np.int32), x=np.arange(tokens, dtype=np.int32), y=labels,
        colorscale="Cividis", colorbar={"title": {"text": message("fig.vit_grid.mrope_id", lang)}},
        hovertemplate=message("fig.vit_grid.mrope_ids_hover", lang),
    ))
    add_span(fig, "vrect", image_start - 0.5, image_start + image_tokens - 0.5,
             line={"color": "#000000", "width": 2}, fillcolor="rgba(0,0,0,0)")
    fig.update_xaxes(title_text=message("fig.vit_grid.mrope_token", lang))
    fig.update_yaxes(autorange="reversed")
    return base_layout(fig, message("fig.vit_grid.mrope_ids_title", lang, tokens=tokens,
                                    image=image_tokens), height=300)


def make_mrope_logits_figure(offsets: np.ndarray, logits: np.ndarray, *, d_head: int,
                             section: tuple[int, ...], lang: Lang = "en") -> go.Figure:
    """q.k against the offset along each axis alone (time, height, width) and along all three
    (two text tokens): `logits` is ``(4, len(offsets))``."""
    fig = go.Figure()
    ends = np.cumsum((0, *section))
    for axis, (key, colour) in enumerate(zip(("t", "h", "w", "text"), MROPE_AXIS_COLOURS,
                                             strict=True)):
        if axis < 3:  # the pairs this axis drives, counted over every chunk that takes it
            pairs = [f"{ends[k]}–{ends[k + 1] - 1}" for k in range(len(section)) if k % 3 == axis]
            name = message(f"fig.vit_grid.mrope_line_{key}", lang, pairs=", ".join(pairs))
        else:
            name = message("fig.vit_grid.mrope_line_text", lang)
        fig.add_trace(go.Scatter(
            x=offsets.astype(np.int32), y=logits[axis].astype(np.float32), mode="lines",
            name=name, line={"color": colour, "width": 2, "dash": "dot" if axis == 3 else "solid"},
            hovertemplate=message("fig.vit_grid.mrope_logit_hover", lang, name=name),
        ))
    fig.update_xaxes(title_text=message("fig.vit_grid.mrope_offset", lang))
    fig.update_yaxes(title_text=message("fig.vit_grid.mrope_logit", lang, d_head=d_head))
    fig.update_layout(legend={"orientation": "h", "y": -0.25, "x": 0})
    base_layout(fig, message("fig.vit_grid.mrope_logits_title", lang), height=460)
    fig.update_layout(margin={"b": 130})
    return fig
