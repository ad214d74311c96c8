"""Extrapolation figures: one small panel per scheme, the training length marked on each."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from core.extrapolation import AlibiReach, LearnedReach, SinusoidNovelty
from core.figures.alibi import head_colours
from core.figures.common import base_layout
from core.figures.rope import BEYOND_COLOUR, TRAINED_COLOUR
from core.rope import ContextExtension

PANEL_HEIGHT = 360


def _mark_training(fig: go.Figure, train_length: int, end: float) -> None:
    """Shade what lies past the training length and label the boundary."""
    if end > train_length:
        fig.add_vrect(x0=train_length, x1=end, fillcolor=BEYOND_COLOUR, opacity=0.07, line_width=0)
    fig.add_vline(x=train_length, line={"dash": "dash", "color": TRAINED_COLOUR})
    fig.add_annotation(x=train_length, y=1, yref="paper", text=f"L = {train_length}",
                       showarrow=False, xanchor="left", yanchor="bottom", font={"size": 10})


def make_sinusoid_novelty_figure(novelty: SinusoidNovelty, train_length: int) -> go.Figure:
    """Distance from PE[p] to the nearest trained encoding, with the spacing of neighbours."""
    fig = go.Figure(go.Scatter(
        # float32: a curve needs no more, and it halves what the browser receives.
        x=novelty.positions, y=np.asarray(novelty.nearest_distance, dtype=np.float32),
        mode="lines", name="nearest trained",
        hovertemplate="p = %{x}<br>distance %{y:.3f}<extra></extra>",
    ))
    fig.add_hline(y=novelty.neighbour_spacing, line={"dash": "dot", "color": "black"},
                  annotation_text="|PE[p+1] − PE[p]|", annotation_position="top left")
    _mark_training(fig, train_length, float(novelty.positions[-1]))
    fig.update_xaxes(title_text="position p")
    fig.update_yaxes(title_text="min over q < L of |PE[p] − PE[q]|")
    return base_layout(fig, "Sinusoid: defined everywhere, new past L", height=PANEL_HEIGHT)


def make_learned_reach_figure(learned: LearnedReach, train_length: int) -> go.Figure:
    """Norm of each learned row; past the last row there is nothing to draw."""
    fig = go.Figure(go.Scatter(
        x=learned.positions, y=np.asarray(learned.norms, dtype=np.float32), mode="lines",
        name="|P[p]|",
        hovertemplate="p = %{x}<br>|P[p]| = %{y:.3f}<extra></extra>",
    ))
    end = float(learned.positions[-1])
    if end >= learned.rows:
        fig.add_vrect(x0=learned.rows - 0.5, x1=end, fillcolor="black", opacity=0.08,
                      line_width=0, annotation_text="no row: no value",
                      annotation_position="top left")
    _mark_training(fig, train_length, end)
    fig.update_xaxes(title_text="position p", range=[0, max(end, 1)])
    fig.update_yaxes(title_text="norm of the learned row |P[p]|")
    return base_layout(fig, f"Learned (MiniLM): a table of {learned.rows} rows",
                       height=PANEL_HEIGHT)


def make_rope_reach_figure(extension: ContextExtension) -> go.Figure:
    """Per pair: the largest angle in training, at the target unscaled, and with interpolation."""
    pairs = extension.pairs
    beyond = extension.beyond["none"]
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        x=pairs, y=extension.trained, mode="lines", name="training",
        line={"color": TRAINED_COLOUR, "width": 3},
        hovertemplate="pair %{x}<br>trained max %{y:.4g} rad<extra></extra>",
    ))
    fig.add_trace(go.Scatter(
        x=pairs, y=extension.target["none"], mode="lines+markers", name="target, unscaled",
        line={"color": "#1f77b4"},
        marker={"size": 5, "color": np.where(beyond, BEYOND_COLOUR, "#1f77b4")},
        hovertemplate="pair %{x}<br>max %{y:.4g} rad<extra></extra>",
    ))
    fig.add_trace(go.Scatter(
        x=pairs, y=extension.target["position_interpolation"], mode="lines",
        name=f"target, interpolated ×{extension.factor:.3g}", line={"dash": "dot"},
        hovertemplate="pair %{x}<br>max %{y:.4g} rad<extra></extra>",
    ))
    fig.add_hline(y=2 * np.pi, line={"dash": "dot", "color": "black", "width": 1})
    # Placed by hand: add_hline's own label lands at the raw value on a log axis.
    fig.add_annotation(text="2π", x=1, xref="paper", xanchor="right", y=np.log10(2 * np.pi),
                       yref="y", yanchor="bottom", showarrow=False, font={"size": 11})
    fig.update_xaxes(title_text="pair i (fast → slow)")
    fig.update_yaxes(type="log", dtick=1, title_text="largest angle p·θ_i (radians)")
    fig.update_layout(legend={"orientation": "h", "y": -0.3})
    return base_layout(fig, "RoPE: slow pairs turn further than in training",
                       height=PANEL_HEIGHT)


def make_alibi_reach_line_figure(reach: AlibiReach, train_length: int) -> go.Figure:
    """Each head's bias -m_h d against distance d: one straight line through L and beyond."""
    fig = go.Figure()
    colours = head_colours(reach.slopes)
    for h, slope in enumerate(reach.slopes):
        fig.add_trace(go.Scatter(
            x=reach.distances, y=reach.bias[h], mode="lines", name=f"m = {slope:.3g}",
            line={"color": colours[h]},
            hovertemplate="distance %{x}<br>bias %{y:.2f}<extra>" + f"head {h + 1}</extra>",
        ))
    _mark_training(fig, train_length, float(reach.distances[-1]))
    fig.update_xaxes(title_text="distance i − j")
    fig.update_yaxes(title_text="bias −m·(i − j)")
    return base_layout(fig, "ALiBi: the same line, only longer", height=PANEL_HEIGHT)
