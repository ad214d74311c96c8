"""The PE table as a heatmap (exact, or an area-averaged overview)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from core.figures.common import DIVERGING, base_layout, heatmap_smoothing
from core.i18n import Lang, message
from core.overview import Overview


def make_pe_heatmap_figure(
    overview: Overview,
    *,
    title: str,
    x_title: str | None = None,
    y_title: str | None = None,
    lang: Lang = "en",
) -> go.Figure:
    """Positions down, dimensions across, fixed diverging scale [-1, 1] centred on zero.

    Exact overviews hover with the exact entry; averaged ones say so, on the figure and in the
    hover text, and hover with the block's range and mean.
    """
    values = overview.values  # (R, C) float32
    if overview.exact:
        x = overview.col_edges[:-1]
        y = overview.row_edges[:-1]
        hover = message("fig.heatmap.hover_exact", lang)
    else:
        # Bin centres, and the bin sizes in the hover text: per-cell range arrays would triple
        # what the browser receives.
        x = overview.col_centers
        y = overview.row_centers
        rows_per_bin = np.diff(overview.row_edges).mean()
        cols_per_bin = np.diff(overview.col_edges).mean()
        hover = message("fig.heatmap.hover_block", lang, rows=rows_per_bin, cols=cols_per_bin)
    fig = go.Figure(
        go.Heatmap(
            z=values,
            x=x,
            y=y,
            zmin=-1.0,
            zmax=1.0,
            zmid=0.0,
            colorscale=DIVERGING,
            colorbar={"title": {"text": "PE"}},
            hovertemplate=hover,
            zsmooth=heatmap_smoothing(values),
        )
    )
    fig.update_yaxes(title_text=y_title or message("fig.heatmap.y_title", lang),
                     autorange="reversed")
    fig.update_xaxes(title_text=x_title or message("fig.heatmap.x_title", lang))
    if not overview.exact:
        rows, cols = values.shape
        fig.add_annotation(
            text=message(
                "fig.heatmap.overview_note", lang, rows=np.diff(overview.row_edges).mean(),
                cols=np.diff(overview.col_edges).mean(), cells_rows=rows, cells_cols=cols,
            ),
            xref="paper",
            yref="paper",
            x=0,
            y=1.0,
            yanchor="bottom",
            showarrow=False,
            font={"size": 11},
        )
    return base_layout(fig, title)
