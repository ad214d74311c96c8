"""Extrapolation figures: one small panel per scheme, the training length marked on each."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.colors import sample_colorscale

from core.extrapolation import AlibiReach, LearnedReach, SinusoidNovelty
from core.rope import ContextExtension
from figures.alibi import head_colours
from figures.common import NEUTRAL, add_span, base_layout
from figures.rope import (
    BEYOND_COLOUR,
    PAIR_MARKERS,
    TARGET_COLOUR,
    TRAINED_COLOUR,
    beyond_trace,
    full_turn_trace,
    trained_trace,
)
from locales import Lang, message

PANEL_HEIGHT = 360
LEARNED_SHOWN_ROWS = 1.5  # the learned panel spans the table and half as much again
INTERPOLATED_COLOUR = "#2ca02c"  # green: neither the target's blue nor the red beyond


def _mark_training(fig: go.Figure, train_length: int, end: float) -> None:
    """Shade what lies past the training length and label the boundary."""
    if end > train_length:
        add_span(fig, "vrect", train_length, end, fillcolor=BEYOND_COLOUR, opacity=0.07,
                 line_width=0)
    add_span(fig, "vline", train_length, line={"dash": "dash", "color": TRAINED_COLOUR})
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
    add_span(fig, "hline", novelty.neighbour_spacing, line={"dash": "dot", "color": NEUTRAL},
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
    end = float(learned.positions[-1])
    drawn = slice(0, min(learned.positions.size, learned.rows))  # NaN past the rows: not sent
    fig = go.Figure(go.Scatter(
        x=learned.positions[drawn], y=np.asarray(learned.norms[drawn], dtype=np.float32),
        mode="lines", name="|P[p]|",
        hovertemplate="p = %{x}<br>|P[p]| = %{y:.3f}<extra></extra>",
    ))
    # The table's rows and half as much again of nothing: past that the panel would be a grey field
    # (at the defaults, 512 rows on an 8192-wide axis left 94% of it empty). L and T, if further
    # right, are named at the edge.
    shown = min(end, float(LEARNED_SHOWN_ROWS * learned.rows))
    if shown >= learned.rows:
        add_span(fig, "vrect", learned.rows - 0.5, shown, fillcolor=NEUTRAL, opacity=0.15,
                 line_width=0,
                 annotation_text=message("fig.extrapolation.learned_no_row", lang),
                 annotation_position="top left")
    if train_length <= shown:
        _mark_training(fig, train_length, shown)
    else:
        fig.add_annotation(
            x=1, xref="paper", xanchor="right", y=0.5, yref="paper", showarrow=False,
            text=message("fig.extrapolation.learned_further", lang, train=train_length,
                         target=int(end) + 1),
            font={"size": 11},
        )
    fig.update_xaxes(title_text=message("fig.extrapolation.position_p", lang),
                     range=[0, max(shown, 1)])
    fig.update_yaxes(title_text=message("fig.extrapolation.learned_y", lang))
    return base_layout(fig, message("fig.extrapolation.learned_title", lang, rows=learned.rows),
                       height=PANEL_HEIGHT)


def make_rope_reach_figure(extension: ContextExtension, *, lang: Lang = "en") -> go.Figure:
    """Per pair: the largest angle in training, at the target unscaled, and with interpolation."""
    pairs = extension.pairs
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        x=pairs, y=extension.target["none"], mode="lines+markers",
        name=message("fig.extrapolation.rope_unscaled", lang),
        line={"color": TARGET_COLOUR, "width": 1.5},
        marker={"size": 5, "maxdisplayed": PAIR_MARKERS},
        hovertemplate=message("fig.extrapolation.rope_target_hover", lang),
    ))
    fig.add_trace(beyond_trace(pairs, extension.target["none"], extension.beyond["none"],
                               lang=lang))
    fig.add_trace(trained_trace(pairs, extension.trained,
                                message("fig.extrapolation.rope_trained", lang), lang=lang))
    # Interpolated, the target's angles are the training's (up to 1/factor of a step): open
    # diamonds on the dashed training line show both.
    fig.add_trace(go.Scatter(
        x=pairs, y=extension.target["position_interpolation"], mode="markers",
        name=message("fig.extrapolation.rope_interpolated", lang, factor=extension.factor),
        marker={"symbol": "diamond-open", "size": 7, "color": INTERPOLATED_COLOUR,
                "maxdisplayed": 64},
        hovertemplate=message("fig.extrapolation.rope_target_hover", lang),
    ))
    fig.add_trace(full_turn_trace(pairs, lang=lang))
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
            line={"color": colours[h]}, showlegend=False,
            hovertemplate=message("fig.extrapolation.alibi_hover", lang, head=h + 1),
        ))
    fig.add_trace(_slope_scale(reach.slopes, lang))
    _mark_training(fig, train_length, float(reach.distances[-1]))
    fig.update_xaxes(title_text=message("fig.extrapolation.alibi_x", lang))
    fig.update_yaxes(title_text=message("fig.extrapolation.alibi_y", lang))
    return base_layout(fig, message("fig.extrapolation.alibi_title", lang), height=PANEL_HEIGHT)


def _slope_scale(slopes: np.ndarray, lang: Lang) -> go.Scatter:
    """The heads' colours as a colour bar of their slopes (1/2 ... 1/256, head_colours' log
    scale): beside the plot at any height, where a legend of eight "m = 0.00781" took rows
    under it (a slide's panel kept a 70 px strip of plot). A trace with no points: its marker
    scale alone is drawn."""
    logs = np.log2(slopes)  # (H,)
    low, high = float(logs.min()), float(logs.max())
    span = high - low or 1.0
    # head_colours: Plasma at 0.85 * (high - log) / span; the bar runs from low to high.
    scale = [[k / 10, colour] for k, colour in
             enumerate(sample_colorscale("Plasma", [0.85 * (1 - k / 10) for k in range(11)]))]
    ticks = sorted({round(high), round((high + low) / 2), round(low)}) if span >= 2 else \
        sorted({float(v) for v in logs})
    return go.Scatter(
        x=[None], y=[None], mode="markers", showlegend=False, hoverinfo="skip",
        marker={"color": [low], "cmin": low, "cmax": high, "colorscale": scale,
                "showscale": True,
                "colorbar": {"title": {"text": message("fig.extrapolation.alibi_slope", lang),
                                       "side": "right"},
                             "tickvals": ticks,
                             "ticktext": [_power_of_two(v) for v in ticks],
                             "thickness": 14}},
    )


def _power_of_two(log2: float) -> str:
    """2^log2 as people write a slope: 1/2, 1/16, 1/256 (or 2, 1)."""
    value = 2.0 ** log2
    return f"1/{round(1 / value):g}" if value < 1 else f"{value:g}"
