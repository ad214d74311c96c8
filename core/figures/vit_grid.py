"""ViT grid page: the ViT paper's similarity tiles, one patch's map, the two halves, the table."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from core.figures.common import base_layout, heatmap_smoothing
from core.figures.heatmap import make_pe_heatmap_figure
from core.overview import Overview
from core.vit_tiles import SimilarityTiles

SELECTED = {"symbol": "square-open", "size": 14, "color": "white", "line": {"width": 2}}
# Sequential, as in the ViT paper's figure: the similarities of a 2-D sin-cos grid are mostly
# positive (0.4 .. 1 for d = 768), so a diverging scale around 0 would show one flat red.
SIMILARITY_SCALE = "Viridis"


def _similarity_range(*maps: np.ndarray) -> dict:
    """The colour range shared by some maps: their lowest value up to 1 (a patch with itself)."""
    low = min(float(np.nanmin(m)) for m in maps)
    return {"zmin": min(low, 0.999), "zmax": 1.0, "colorscale": SIMILARITY_SCALE}


def make_tiles_figure(tiles: SimilarityTiles) -> go.Figure:
    """One tile per (shown) patch, laid out as the grid: the tile at (r, c) is the cosine
    similarity of patch (r, c)'s encoding with every patch's."""
    mosaic = tiles.mosaic()  # (th * (h + 1), tw * (w + 1)) with NaN gaps
    th, tw, h, w = tiles.tiles.shape
    fig = go.Figure(
        go.Heatmap(
            z=mosaic,
            **_similarity_range(mosaic),
            colorbar={"title": {"text": "cosine"}, "thickness": 12},
            hoverongaps=False,
            hovertemplate="cosine = %{z:.3f}<extra></extra>",
            zsmooth=heatmap_smoothing(mosaic),
        )
    )
    fig.update_xaxes(
        title_text="patch column (tile)",
        tickvals=np.arange(tw) * (w + 1) + (w - 1) / 2,
        ticktext=[str(c) for c in tiles.tile_cols],
        showgrid=False,
        zeroline=False,
        constrain="domain",  # with scaleanchor: shrink the plot, do not pad the range
    )
    fig.update_yaxes(
        title_text="patch row (tile)",
        tickvals=np.arange(th) * (h + 1) + (h - 1) / 2,
        ticktext=[str(r) for r in tiles.tile_rows],
        autorange="reversed",
        scaleanchor="x",
        scaleratio=1,
        showgrid=False,
        zeroline=False,
        constrain="domain",
    )
    if tiles.every_patch:
        shown = f"all {tiles.grid_h} x {tiles.grid_w} patches"
    else:
        shown = (
            f"{th} x {tw} of the {tiles.grid_h} x {tiles.grid_w} patches (evenly spread; "
            "any patch can be selected with the patch control)"
        )
    if not tiles.exact:
        shown += f", each tile averaged to {h} x {w} cells"
    fig.add_annotation(
        text=f"Showing {shown}.", xref="paper", yref="paper", x=0, y=1.0, yanchor="bottom",
        showarrow=False, font={"size": 11},
    )
    aspect = mosaic.shape[0] / mosaic.shape[1]  # rows per column: a wide grid needs less height
    height = int(np.clip(160 + 560 * aspect, 340, 720))
    return base_layout(fig, "Position-embedding similarity tiles (ViT paper, Fig. 7 centre)",
                       height=height)


def _grid_heatmap(values: np.ndarray, colors: dict, *, showscale: bool = True) -> go.Heatmap:
    return go.Heatmap(
        z=values,
        **colors,
        showscale=showscale,
        colorbar={"title": {"text": "cosine"}},
        hovertemplate="row %{y}, col %{x}<br>cosine = %{z:.4f}<extra></extra>",
    )


def make_patch_map_figure(similarity: np.ndarray, *, row: int, col: int) -> go.Figure:
    """The selected patch's similarity with every patch ``(H, W)``, large, with hover values."""
    fig = go.Figure(_grid_heatmap(similarity, _similarity_range(similarity)))
    fig.add_trace(go.Scatter(x=[col], y=[row], mode="markers", marker=SELECTED,
                             name=f"patch ({row}, {col})", hoverinfo="skip"))
    fig.update_xaxes(title_text="patch column (x)", showgrid=False, zeroline=False)
    fig.update_xaxes(constrain="domain")
    fig.update_yaxes(title_text="patch row (y)", autorange="reversed", scaleanchor="x",
                     scaleratio=1, showgrid=False, zeroline=False, constrain="domain")
    fig.update_layout(showlegend=False)
    return base_layout(fig, f"Patch ({row}, {col}) against every patch", height=520)


def make_halves_figure(
    column_half: np.ndarray, row_half: np.ndarray, *, row: int, col: int, d_model: int
) -> go.Figure:
    """The selected patch's map from each half of the channels alone, side by side."""
    half = d_model // 2
    fig = make_subplots(
        rows=1, cols=2, horizontal_spacing=0.08,
        subplot_titles=(f"channels [0, {half}): the column code (x)",
                        f"channels [{half}, {d_model}): the row code (y)"),
    )
    colors = _similarity_range(column_half, row_half)
    for c, values in ((1, column_half), (2, row_half)):
        fig.add_trace(_grid_heatmap(values, colors, showscale=c == 2), row=1, col=c)
        fig.add_trace(go.Scatter(x=[col], y=[row], mode="markers", marker=SELECTED,
                                 hoverinfo="skip", showlegend=False), row=1, col=c)
    fig.update_xaxes(title_text="patch column (x)", showgrid=False, zeroline=False)
    fig.update_yaxes(autorange="reversed", showgrid=False, zeroline=False)
    fig.update_yaxes(title_text="patch row (y)", row=1, col=1)
    return base_layout(fig, "The two halves: one depends only on the column, one only on the row",
                       height=460)


def make_vit_encoding_figure(overview: Overview, *, d_model: int, cls_token: bool) -> go.Figure:
    """The full (tokens, d_model) table; the cls row and the x | y channel split marked."""
    fig = make_pe_heatmap_figure(
        overview,
        title="The full 2-D encoding: one row per token",
        x_title="channel",
        y_title="token (cls first, then patches row by row)" if cls_token
        else "token (patches row by row)",
    )
    if overview.exact:
        hover = "token %{y}<br>channel %{x}<br>value = %{z:.6f}<extra></extra>"
    else:
        hover = "token around %{y:.0f}<br>channel around %{x:.0f}<br>block mean = %{z:.4f}"
        hover += "<extra></extra>"
    fig.update_traces(hovertemplate=hover)
    if not overview.exact:
        rows, cols = overview.values.shape
        fig.layout.annotations[0].text = (
            f"Overview: {overview.row_edges[-1]} tokens x {d_model} channels shown as {rows} x "
            f"{cols} block means" + (" (the cls row kept on its own)" if cls_token else "")
        )
    fig.update_xaxes(range=[-0.5, d_model - 0.5])
    fig.update_yaxes(range=[overview.row_edges[-1] - 0.5, -0.5], autorange=False)
    split = d_model / 2 - 0.5
    fig.add_vline(x=split, line={"color": "black", "width": 1.5, "dash": "dash"})
    for x, text in ((d_model / 4, "x (column) code"), (3 * d_model / 4, "y (row) code")):
        fig.add_annotation(x=x, y=0, yref="paper", yanchor="top", text=text, showarrow=False,
                           yshift=-28, font={"size": 11})
    if cls_token:
        fig.add_hrect(y0=-0.5, y1=0.5, line={"color": "black", "width": 2},
                      fillcolor="rgba(0,0,0,0)")
        fig.add_annotation(x=d_model - 0.5, y=0, text="cls token (all zeros)", showarrow=True,
                           ax=40, ay=-30, xanchor="left")
    return fig
