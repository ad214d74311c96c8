"""ALiBi figures: the slopes, every head's bias (small multiples and one large), the reach."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.colors import sample_colorscale

from core.alibi import AttentionReach
from core.overview import Overview
from figures.common import (
    add_live_states,
    add_note,
    base_layout,
    grid_axes,
    grid_layout,
    grid_refs,
    heatmap_smoothing,
    scaled_array,
    symlog,
)
from locales import Lang, message

# Sequential: the bias is <= 0 everywhere; 0 (no penalty) light, the steepest penalty dark.
BIAS_SCALE = "Viridis"
HIGHLIGHT = "#c0392b"  # the app's accent red: the head the head control names
# Log-2 ticks for slopes: every slope of a power-of-two head count is 2^-k.
SLOPE_TICKS = [2.0**-k for k in range(0, 9)]


def head_colours(slopes: np.ndarray) -> list[str]:
    """One colour per head by its slope on a log scale: steep dark, shallow light (for any head
    count, although the slopes of a non-power-of-two count are not sorted)."""
    logs = np.log2(slopes)  # (H,)
    span = float(logs.max() - logs.min()) or 1.0
    return sample_colorscale("Plasma", list(0.85 * (logs.max() - logs) / span))


MAX_CURVE_POINTS = 512  # points per line of the attention-reach figure


def _bias_hover(overview: Overview, lang: Lang = "en") -> tuple[np.ndarray, np.ndarray, str]:
    """x, y and hover template of a bias heatmap: exact entries, or block means named by the
    block's centre and size (per-cell ranges as customdata were 680 KB at 64 heads)."""
    if overview.exact:
        hover = message("fig.alibi.hover_exact", lang)
        return overview.col_edges[:-1], overview.row_edges[:-1], hover
    hover = message("fig.alibi.hover_block", lang, rows=overview.rows_per_cell,
                    cols=overview.cols_per_cell)
    return overview.col_centers, overview.row_centers, hover


def make_alibi_slopes_figure(slopes: np.ndarray, *, lang: Lang = "en") -> go.Figure:
    """Slope m_h of each head h = 1..H on a log-2 axis (a power of two: a straight line)."""
    heads = np.arange(1, slopes.size + 1)
    fig = go.Figure(go.Scatter(
        x=heads, y=slopes, mode="lines+markers", marker={"size": 8},
        hovertemplate=message("fig.alibi.slopes_hover", lang),
    ))
    fig.update_xaxes(title_text=message("fig.alibi.slopes_x_title", lang),
                     dtick=1 if slopes.size <= 16 else None)
    fig.update_yaxes(type="log", title_text=message("fig.alibi.slopes_y_title", lang),
                     tickvals=SLOPE_TICKS, ticktext=["1"] + [f"1/{2**k}" for k in range(1, 9)])
    return base_layout(fig, message("fig.alibi.slopes_title", lang), height=380)


def make_alibi_bias_grid_figure(
    overview: Overview, slopes: np.ndarray, *, highlight: int | None = None,
    columns: int = 8, lang: Lang = "en",
) -> go.Figure:
    """Every head's bias as a small heatmap, one shared colour scale (so slopes compare), at
    most `columns` to a row (a page's wide row; a slide's squarer grid takes fewer).

    `highlight` (0-based) outlines one head's title, in the accent colour. Masked (future)
    cells are blank.
    """
    heads = overview.values.shape[0]
    cols = min(heads, columns)
    rows = math.ceil(heads / cols)
    titles = [message("fig.alibi.grid_panel", lang, head=h + 1, slope=slopes[h])
              for h in range(heads)]
    # One layout dict and one figure: plotly's per-panel updates cost ~4 ms a head (64 heads
    # took 270 ms a rerun, the heads view's head control included).
    layout = grid_layout(rows, cols, titles=titles, horizontal_spacing=0.02,
                         vertical_spacing=0.3 / rows)
    x, y, hover = _bias_hover(overview, lang)
    # One colour scale for every head, logarithmic in the penalty: on a linear scale the
    # shallow heads (m = 1/32 .. 1/256 reach -8 .. -1 where head 1 reaches -128) were one flat
    # yellow. Colours follow -log10(1 + |bias|/m_min); the hover shows the bias itself.
    floor = float(np.min(slopes))  # the smallest penalty of any head: m_min at distance 1
    traces = []
    for h in range(heads):
        values = overview.values[h]
        refs = grid_refs(h)
        traces.append(
            go.Heatmap(z=symlog(values, floor).astype(np.float32), x=x, y=y,
                       customdata=values.astype(np.float32),
                       hovertemplate=message("fig.alibi.grid_hover_head", lang, head=h + 1)
                       + hover.replace("%{z", "%{customdata"), coloraxis="coloraxis",
                       zsmooth=heatmap_smoothing(values), **refs),
        )
        layout[grid_axes(h)[1]]["scaleanchor"] = refs["xaxis"]  # square cells
    for index in range(rows * cols):  # no ticks, the empty panels' axes included
        x_axis, y_axis = grid_axes(index)
        layout[x_axis].update(showticklabels=False, showgrid=False, zeroline=False, ticks="",
                              constrain="domain")
        # A panel taller than wide (a slide's) shrinks to its square under its title.
        layout[y_axis].update(showticklabels=False, showgrid=False, zeroline=False, ticks="",
                              autorange="reversed", constrain="domain", constraintoward="top")
    layout["coloraxis"] = _bias_colour_axis(overview, slopes, lang, short=rows == 1)
    # The highlight changes a border's colour alone: plotly.js redraws a title's box without
    # computing the figure again (a bold title, a new text, is a new layout: ~200 ms at 64 heads
    # for each change of the head control). Every title has the same border, so none moves.
    # (The text keeps the layout's colour: accent-red text is too dark for the dark theme,
    # figures.contrast gave it the theme's colour anyway.)
    for h, annotation in enumerate(layout.get("annotations", [])):
        annotation.update(font={"size": 10}, borderwidth=1.5, borderpad=1,
                          bordercolor=_title_border(h == highlight))
    fig = go.Figure(data=traces, layout=layout)
    height = 150 + 150 * rows
    base_layout(fig, message("fig.alibi.grid_title", lang), height=height)
    fig.update_layout(margin={"t": 100})  # the two-line panel titles under the figure's title
    return fig


def _bias_colour_axis(overview: Overview, slopes: np.ndarray, lang: Lang, *,
                      short: bool = False) -> dict:
    """The colour axis every head's bias is drawn on (`symlog` of it, from the steepest
    head's largest penalty in `overview` to 0), its bar labelled with the bias itself: 0 and
    every decade of penalty from 10 m_min. A `short` bar (a one-row grid's, ~100 px) labels
    every second decade."""
    floor = float(np.min(slopes))
    lowest = float(np.nanmin(overview.values)) if np.isfinite(overview.values).any() else -1.0
    lowest = min(lowest, -floor)
    # From 10 m_min: nearer 0 its label would sit on 0's.
    ticks = [0.0] + [-(10.0 ** k) for k in range(math.ceil(math.log10(10 * floor)),
                                                math.floor(math.log10(-lowest)) + 1)]
    if short and len(ticks) > 4:
        ticks = [0.0, *ticks[1:][::-1][::2][::-1]]
    colorbar = {
        "title": {"text": message("fig.alibi.bias_colorbar", lang)},
        "tickvals": [float(symlog(np.float64(t), floor)) for t in ticks],
        "ticktext": ["0"] + [f"−{-t:g}" for t in ticks[1:]],
    }
    return {"colorscale": BIAS_SCALE, "cmin": float(symlog(np.float64(lowest), floor)),
            "cmax": 0, "colorbar": colorbar}


def _title_border(chosen: bool) -> str | None:
    """A grid panel title's border colour: the accent for the head the head control names,
    plotly's default (transparent) for the others."""
    return HIGHLIGHT if chosen else None


def add_bias_grid_head_states(fig: go.Figure, heads: int) -> go.Figure:
    """The grid's outlined title at every head 1..`heads` (the first `heads` annotations are
    the panel titles), so that dragging the head slider moves the outline in the browser
    (`add_live_states`). A state sets every title's border: states are applied one after
    another while the thumb moves, so each must undo whichever came before (at 64 heads,
    64 x 64 borders: ~140 KB of JSON, beside the grid's 1.2 MB)."""
    def outlined(chosen: int) -> dict:
        return {f"annotations[{h}].bordercolor": _title_border(h == chosen)
                for h in range(heads)}

    return add_live_states(fig, "head", [(h + 1, {}, outlined(h), []) for h in range(heads)])


def make_alibi_head_figure(
    overview: Overview, head: int, slopes: np.ndarray, *, lang: Lang = "en"
) -> go.Figure:
    """One head's bias matrix, large (`head` is 0-based; the title numbers from 1), on the
    grid's colour scale for every head (`make_alibi_bias_grid_figure`): heads compare, and
    dragging the head slider shows the penalty fading with the slope (`add_alibi_head_states`
    changes the cells alone). The hover shows the bias itself."""
    x, y, hover = _bias_hover(overview, lang)
    values = overview.values[head]
    fig = go.Figure(go.Heatmap(
        z=symlog(values, float(np.min(slopes))).astype(np.float32), x=x, y=y,
        customdata=values.astype(np.float32), hovertemplate=hover.replace("%{z", "%{customdata"),
        coloraxis="coloraxis", zsmooth=heatmap_smoothing(values),
    ))
    fig.update_layout(coloraxis=_bias_colour_axis(overview, slopes, lang))
    # Square cells (scaleanchor) by shrinking the plot, not by padding the key axis: padded, a
    # wide chart ran its x axis from -100 to 350 around 256 keys.
    fig.update_xaxes(title_text=message("fig.alibi.head_x_title", lang), constrain="domain")
    fig.update_yaxes(title_text=message("fig.alibi.head_y_title", lang), autorange="reversed",
                     scaleanchor="x", constrain="domain")
    if not overview.exact:
        add_note(fig, message("fig.alibi.head_overview_note", lang,
                              rows=overview.rows_per_cell, cols=overview.cols_per_cell),
                 xanchor="auto", align="center")
    return base_layout(fig, message("fig.alibi.head_title", lang, head=head + 1,
                                    slope=float(slopes[head])), height=520)


def add_alibi_head_states(fig: go.Figure, head: int, slopes: np.ndarray, *,
                          lang: Lang = "en") -> go.Figure:
    """The enlarged head (`make_alibi_head_figure` at `head`, 0-based) at every head, so that
    dragging the head slider draws it in the browser (`add_live_states`): its cells and its
    title, the rest (the colour scale included) is the same at every head. Head k's bias is
    m_k / m_h times the drawn head h's (one distance matrix, scaled per head: the block means
    of an overview too), so a state is that one number (`scaled_array`): the browser scales
    the figure's own bias (customdata) and colours it as the figure does (`symlog`). Every head
    at any size (256 x 256 cells a head were 65,536 numbers a state: none was sent). None for
    one head."""
    if slopes.size < 2:
        return fig
    floor = float(np.min(slopes))
    drawn = float(slopes[head])
    return add_live_states(fig, "head", [
        (h + 1, {"z": [scaled_array("customdata", slope / drawn, symlog_floor=floor)],
                 "customdata": [scaled_array("customdata", slope / drawn)]},
         {"title.text": message("fig.alibi.head_title", lang, head=h + 1, slope=float(slope))},
         [0])
        for h, slope in enumerate(slopes)])


def make_alibi_reach_figure(reach: AttentionReach, *, lang: Lang = "en") -> go.Figure:
    """Softmax weight of the key d positions back, for equal raw scores, one line per head."""
    fig = go.Figure()
    floor = 1e-6  # weights below this are invisible on the log axis: cut there
    colours = head_colours(reach.slopes)
    # At most MAX_CURVE_POINTS distances per line (every k-th, the last kept), float32: 64 heads
    # x 2048 distances in float64 were 2.9 MB per rerun, and the curves are smooth.
    keep = np.unique(np.linspace(0, reach.distances.size - 1,
                                 min(reach.distances.size, MAX_CURVE_POINTS)).round().astype(int))
    distances = reach.distances[keep].astype(np.int32)
    for h, (slope, weights) in enumerate(zip(reach.slopes, reach.weights, strict=True)):
        shown = weights[keep]
        fig.add_trace(go.Scatter(
            x=distances, y=np.where(shown >= floor, shown, np.nan).astype(np.float32),
            mode="lines",
            name=message("fig.alibi.reach_trace", lang, head=h + 1, slope=slope),
            line={"color": colours[h]},
            hovertemplate=message("fig.alibi.reach_hover", lang, head=h + 1),
        ))
    fig.update_xaxes(title_text=message("fig.alibi.reach_x_title", lang))
    fig.update_yaxes(type="log", range=[-6, 0], dtick=1,
                     title_text=message("fig.alibi.reach_y_title", lang))
    return base_layout(fig, message("fig.alibi.reach_title", lang), height=440)
