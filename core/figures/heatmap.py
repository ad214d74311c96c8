"""The PE table as a heatmap (exact, or an area-averaged overview)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from core.figures.common import DIVERGING, base_layout, heatmap_smoothing
from core.overview import Overview


def make_pe_heatmap_figure(
    overview: Overview,
    *,
    title: str,
    x_title: str = "dimension (column of PE)",
    y_title: str = "position (pos)",
) -> go.Figure:
    """Positions down, dimensions across, fixed diverging scale [-1, 1] centred on zero.

    Exact overviews hover with the exact entry; averaged ones say so, on the figure and in the
    hover text, and hover with the block's range and mean.
    """
    values = overview.values  # (R, C) float32
    if overview.exact:
        x = overview.col_edges[:-1]
        y = overview.row_edges[:-1]
        hover = "position %{y}<br>dimension %{x}<br>PE = %{z:.6f}<extra></extra>"
    else:
        # Bin centres, and the bin sizes in the hover text: per-cell range arrays would triple
        # what the browser receives.
        x = overview.col_centers
        y = overview.row_centers
        rows_per_bin = np.diff(overview.row_edges).mean()
        cols_per_bin = np.diff(overview.col_edges).mean()
        hover = (
            f"positions around %{{y:.0f}} (block of ~{rows_per_bin:.0f})<br>"
            f"dimensions around %{{x:.0f}} (block of ~{cols_per_bin:.0f})<br>"
            "block mean = %{z:.4f}<extra></extra>"
        )
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
    fig.update_yaxes(title_text=y_title, autorange="reversed")
    fig.update_xaxes(title_text=x_title)
    if not overview.exact:
        rows, cols = values.shape
        fig.add_annotation(
            text=(
                f"Overview: each cell is the mean of a block of about "
                f"{np.diff(overview.row_edges).mean():.0f} positions x "
                f"{np.diff(overview.col_edges).mean():.0f} dimensions "
                f"({rows} x {cols} cells). Use the zoom window for exact values."
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
