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
