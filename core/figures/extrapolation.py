"""Extrapolation figures: one small panel per scheme, the training length marked on each."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from core.extrapolation import AlibiReach, LearnedReach, SinusoidNovelty
from core.figures.alibi import head_colours
from core.figures.common import NEUTRAL, base_layout
from core.figures.rope import BEYOND_COLOUR, TRAINED_COLOUR
from core.i18n import Lang, message
from core.rope import ContextExtension

PANEL_HEIGHT = 360


def _mark_training(fig: go.Figure, train_length: int, end: float) -> None:
    """Shade what lies past the training length and label the boundary."""
    if end > train_length:
        fig.add_vrect(x0=train_length, x1=end, fillcolor=BEYOND_COLOUR, opacity=0.07, line_width=0)
    fig.add_vline(x=train_length, line={"dash": "dash", "color": TRAINED_COLOUR})
    fig.add_annotation(x=train_length, y=1, yref="paper", text=f"L = {train_length}",
                       showarrow=False, xanchor="left", yanchor="bottom", font={"size": 10})


def make_sinusoid_novelty_figure(
    novelty: SinusoidNovelty, train_length: int, *, lang: Lang = "en"
) -> go.Figure:
    """Distance from PE[p] to the nearest trained encoding, with the spacing of neighbours."""
    fig = go.Figure(go.Scatter(
        # float32: a curve needs no more, and it halves what the browser receives.
        x=novelty.positions, y=np.asarray(novelty.nearest_distance, dtype=np.float32),
        mode="lines", name=message("fig.extrapolation.sinusoid_trace", lang),
        hovertemplate=message("fig.extrapolation.sinusoid_hover", lang),
    ))
    fig.add_hline(y=novelty.neighbour_spacing, line={"dash": "dot", "color": NEUTRAL},
                  annotation_text="|PE[p+1] − PE[p]|", annotation_position="top left")
    _mark_training(fig, train_length, float(novelty.positions[-1]))
    fig.update_xaxes(title_text=message("fig.extrapolation.position_p", lang))
    fig.update_yaxes(title_text=message("fig.extrapolation.sinusoid_y", lang))
    return base_layout(fig, message("fig.extrapolation.sinusoid_title", lang),
                       height=PANEL_HEIGHT)


def make_learned_reach_figure(
    learned: LearnedReach, train_length: int, *, lang: Lang = "en"
) -> go.Figure:
    """Norm of each learned row; past the last row there is nothing to draw."""
    fig = go.Figure(go.Scatter(
        x=learned.positions, y=np.asarray(learned.norms, dtype=np.float32), mode="lines",
        name="|P[p]|",
        hovertemplate="p = %{x}<br>|P[p]| = %{y:.3f}<extra></extra>",
    ))
    end = float(learned.positions[-1])
    if end >= learned.rows:
        fig.add_vrect(x0=learned.rows - 0.5, x1=end, fillcolor=NEUTRAL, opacity=0.15,
                      line_width=0,
                      annotation_text=message("fig.extrapolation.learned_no_row", lang),
                      annotation_position="top left")
    _mark_training(fig, train_length, end)
    fig.update_xaxes(title_text=message("fig.extrapolation.position_p", lang),
                     range=[0, max(end, 1)])
    fig.update_yaxes(title_text=message("fig.extrapolation.learned_y", lang))
    return base_layout(fig, message("fig.extrapolation.learned_title", lang, rows=learned.rows),
                       height=PANEL_HEIGHT)


def make_rope_reach_figure(extension: ContextExtension, *, lang: Lang = "en") -> go.Figure:
    """Per pair: the largest angle in training, at the target unscaled, and with interpolation."""
    pairs = extension.pairs
    beyond = extension.beyond["none"]
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        x=pairs, y=extension.trained, mode="lines",
        name=message("fig.extrapolation.rope_trained", lang),
        line={"color": TRAINED_COLOUR, "width": 3},
        hovertemplate=message("fig.extrapolation.rope_trained_hover", lang),
    ))
    fig.add_trace(go.Scatter(
        x=pairs, y=extension.target["none"], mode="lines+markers",
        name=message("fig.extrapolation.rope_unscaled", lang),
        line={"color": "#1f77b4"},
        marker={"size": 5, "color": np.where(beyond, BEYOND_COLOUR, "#1f77b4")},
        hovertemplate=message("fig.extrapolation.rope_target_hover", lang),
    ))
    fig.add_trace(go.Scatter(
        x=pairs, y=extension.target["position_interpolation"], mode="lines",
        name=message("fig.extrapolation.rope_interpolated", lang, factor=extension.factor),
        line={"dash": "dot"},
        hovertemplate=message("fig.extrapolation.rope_target_hover", lang),
    ))
    fig.add_hline(y=2 * np.pi, line={"dash": "dot", "color": NEUTRAL, "width": 1})
    # Placed by hand: add_hline's own label lands at the raw value on a log axis.
    fig.add_annotation(text="2π", x=1, xref="paper", xanchor="right", y=np.log10(2 * np.pi),
                       yref="y", yanchor="bottom", showarrow=False, font={"size": 11})
    fig.update_xaxes(title_text=message("fig.extrapolation.rope_x", lang))
    fig.update_yaxes(type="log", dtick=1, title_text=message("fig.extrapolation.rope_y", lang))
    fig.update_layout(legend={"orientation": "h", "y": -0.3})
    return base_layout(fig, message("fig.extrapolation.rope_title", lang), height=PANEL_HEIGHT)


def make_alibi_reach_line_figure(
    reach: AlibiReach, train_length: int, *, lang: Lang = "en"
) -> go.Figure:
    """Each head's bias -m_h d against distance d: one straight line through L and beyond."""
    fig = go.Figure()
    colours = head_colours(reach.slopes)
    for h, slope in enumerate(reach.slopes):
        fig.add_trace(go.Scatter(
            x=reach.distances, y=reach.bias[h], mode="lines", name=f"m = {slope:.3g}",
            line={"color": colours[h]},
            hovertemplate=message("fig.extrapolation.alibi_hover", lang, head=h + 1),
        ))
    _mark_training(fig, train_length, float(reach.distances[-1]))
    fig.update_xaxes(title_text=message("fig.extrapolation.alibi_x", lang))
    fig.update_yaxes(title_text=message("fig.extrapolation.alibi_y", lang))
    return base_layout(fig, message("fig.extrapolation.alibi_title", lang), height=PANEL_HEIGHT)
