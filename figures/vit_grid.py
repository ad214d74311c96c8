"""ViT grid page: the ViT paper's similarity tiles, one patch's map, the two halves, the table."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from core.overview import Overview
from core.vit_grid import SimilarityTiles
from figures.common import (
    add_live_states,
    add_note,
    base_layout,
    grid_axes,
    grid_layout,
    grid_refs,
    heatmap_smoothing,
    typed_array,
)
from figures.heatmap import make_pe_heatmap_figure
from locales import Lang, message

SELECTED = {"symbol": "square-open", "size": 14, "color": "white", "line": {"width": 2}}
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
    tiles: list[tuple[str, SimilarityTiles]], *, lang: Lang = "en",
) -> go.Figure:
    """The ViT paper's tiles of MAE's table and of each rotation, 2 x 2 on one colour range:
    `tiles` is (panel title, tiles) for each scheme, all of one grid."""
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
    # One colour axis: a head's state sets its range with one key (`add_rope_2d_tiles_states`).
    layout["coloraxis"] = _colour_axis(similarity_range(*(mosaic for _, mosaic in mosaics)),
                                       _tiles_colorbar(lang))
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
    fig = base_layout(fig, message("fig.vit_grid.rope_tiles_title", lang),
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


def make_patch_map_figure(
    similarity: np.ndarray, *, row: int, col: int, colours: dict | None = None,
    lang: Lang = "en",
) -> go.Figure:
    """The selected patch's similarity with every patch ``(H, W)``, large, with hover values."""
    fig = go.Figure(_grid_heatmap(similarity, colours or similarity_range(similarity),
                                  lang=lang))
    fig.add_trace(go.Scatter(x=[col], y=[row], mode="markers", marker=SELECTED,
                             name=message("fig.vit_grid.patch_name", lang, row=row, col=col),
                             hoverinfo="skip"))
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
        fig.add_trace(go.Scatter(x=[col], y=[row], mode="markers", marker=SELECTED,
                                 hoverinfo="skip", showlegend=False), row=1, col=c)
    fig.update_xaxes(title_text=message("fig.vit_grid.x_title", lang), showgrid=False,
                     zeroline=False)
    fig.update_yaxes(autorange="reversed", showgrid=False, zeroline=False)
    fig.update_yaxes(title_text=message("fig.vit_grid.y_title", lang), row=1, col=1)
    return base_layout(fig, message("fig.vit_grid.halves_title", lang), height=460)


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
    fig.add_vline(x=split, line={"color": "black", "width": 1.5, "dash": "dash"})
    for x, text in ((d_model / 4, message("fig.vit_grid.x_code", lang)),
                    (3 * d_model / 4, message("fig.vit_grid.y_code", lang))):
        # Above the table: below it, the labels sat on the x axis's tick labels once the type
        # grew (presentation mode).
        fig.add_annotation(x=x, y=1, yref="paper", yanchor="bottom", text=text, showarrow=False,
                           yshift=2, font={"size": 11})
    if cls_token:
        fig.add_hrect(y0=-0.5, y1=0.5, line={"color": "black", "width": 2},
                      fillcolor="rgba(0,0,0,0)")
        # Inside the table under row 0, on a box of its own: above it sat on the halves'
        # labels, right of the plot it would be cut off.
        fig.add_annotation(x=d_model - 0.5, y=0, text=message("fig.vit_grid.cls_note", lang),
                           showarrow=True, ax=-40, ay=36, xanchor="right", yanchor="top",
                           bgcolor="rgba(255,255,255,0.9)", font={"color": "#222222"},
                           arrowcolor="#222222")
    return fig


def make_rope_2d_figure(
    maps: list[tuple[str, np.ndarray]], *, row: int, col: int, lang: Lang = "en",
) -> go.Figure:
    """The selected patch against every patch under each scheme, side by side on one colour
    range: `maps` is (panel title, (H, W) similarity) for MAE's table and the RoPE variants."""
    # One layout dict and one figure (figures.common.grid_layout): ~24 -> ~8 ms a rerun.
    layout = grid_layout(1, len(maps), titles=[title for title, _ in maps],
                         horizontal_spacing=0.04, vertical_spacing=0.3)
    # One colour axis: a head's state sets its range with one key (`add_rope_2d_states`).
    layout["coloraxis"] = _colour_axis(
        similarity_range(*(values for _, values in maps)),
        {"title": {"text": message("fig.vit_grid.cosine", lang)}})
    traces = []
    for index, (_, values) in enumerate(maps):
        x_key, y_key = grid_axes(index)
        axes = grid_refs(index)
        traces.append(go.Heatmap(z=values, coloraxis="coloraxis",
                                 hovertemplate=message("fig.vit_grid.grid_hover", lang), **axes))
        traces.append(go.Scatter(x=[col], y=[row], mode="markers", marker=SELECTED,
                                 hoverinfo="skip", showlegend=False, **axes))
        layout[x_key].update(title={"text": message("fig.vit_grid.x_title", lang)},
                             showgrid=False, zeroline=False, constrain="domain")
        # Square patches in every panel.
        layout[y_key].update(autorange="reversed", showgrid=False, zeroline=False,
                             constrain="domain", scaleanchor=axes["xaxis"], scaleratio=1)
    layout["yaxis"]["title"] = {"text": message("fig.vit_grid.y_title", lang)}
    fig = go.Figure(data=traces, layout=layout)
    return base_layout(fig, message("fig.vit_grid.rope_title", lang, row=row, col=col),
                       height=420)


def add_rope_2d_states(fig: go.Figure, maps: list[tuple[str, np.ndarray]],
                       last: Mapping[int, tuple[str, np.ndarray]]) -> go.Figure:
    """`make_rope_2d_figure(maps)` with its last panel (RoPE-Mixed's head) as `last` gives it
    at each head, (panel title, (H, W) similarity), so that dragging the head slider draws it
    in the browser (`add_live_states`): the panel's cells and title, and the colour range the
    panels share. None for fewer than two heads."""
    if len(last) < 2:
        return fig
    fixed = [values for _, values in maps[:-1]]
    panel = len(maps) - 1

    def state(title: str, values: np.ndarray) -> tuple[dict, dict, list[int]]:
        colours = similarity_range(*fixed, values)
        return ({"z": [typed_array(values)]},
                {"coloraxis.cmin": colours["zmin"], "coloraxis.cmax": colours["zmax"],
                 f"annotations[{panel}].text": title},
                [2 * panel])  # each panel: its heatmap, then its patch's marker

    return add_live_states(fig, "head", [(head, *state(*shown)) for head, shown in last.items()])


def add_rope_2d_tiles_states(fig: go.Figure, tiles: list[tuple[str, SimilarityTiles]],
                             last: Mapping[int, tuple[str, SimilarityTiles]]) -> go.Figure:
    """`make_rope_2d_tiles_figure(tiles)` with its last panel as `last` gives it at each head,
    (panel title, tiles of the same grid), so that dragging the head slider draws it in the
    browser: the panel's mosaic and title, and the shared colour range. None for fewer than
    two heads."""
    if len(last) < 2:
        return fig
    fixed = [shown.mosaic() for _, shown in tiles[:-1]]
    panel = len(tiles) - 1

    def state(title: str, shown: SimilarityTiles) -> tuple[dict, dict, list[int]]:
        mosaic = shown.mosaic()
        colours = similarity_range(*fixed, mosaic)
        return ({"z": [typed_array(mosaic)]},
                {"coloraxis.cmin": colours["zmin"], "coloraxis.cmax": colours["zmax"],
                 f"annotations[{panel}].text": title},
                [panel])

    return add_live_states(fig, "head", [(head, *state(*shown)) for head, shown in last.items()])


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
    fig.add_vrect(x0=image_start - 0.5, x1=image_start + image_tokens - 0.5,
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
