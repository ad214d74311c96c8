"""What every figure shares: the diverging scale and the base layout."""

from __future__ import annotations

import plotly.graph_objects as go

# Diverging, centred on zero, readable on light and dark backgrounds; reversed so +1 is red.
DIVERGING = "RdBu_r"
FIGURE_HEIGHT = 520


def base_layout(fig: go.Figure, title: str, height: int = FIGURE_HEIGHT) -> go.Figure:
    """Title at the top left, a fixed height, margins that leave room for axis titles."""
    fig.update_layout(
        title={"text": title, "x": 0.0, "xanchor": "left"},
        height=height,
        margin={"l": 70, "r": 20, "t": 60, "b": 60},
    )
    return fig


# Above this many cells a heatmap is drawn as one image, a pixel per cell scaled up by the browser
# (plotly's zsmooth="fast"), instead of one canvas rectangle per cell: measured in Chromium, a
# 300 x 300 heatmap repaints in 1.1x the floor app's time instead of 1.55x. Small exact heatmaps
# (the zoom window, M_k) keep per-cell drawing.
FAST_HEATMAP_CELLS = 2500


def heatmap_smoothing(values) -> str | bool:
    """plotly's `zsmooth` for a heatmap of `values` (any array with a `.size`)."""
    return "fast" if values.size > FAST_HEATMAP_CELLS else False
