"""RoPE figures: pairs turning, logits by offset, the long-term decay, context extension."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from core.figures.common import base_layout
from core.rope import ContextExtension

METHOD_NAMES = {
    "none": "no scaling",
    "position_interpolation": "position interpolation",
    "ntk_aware": "NTK-aware",
}
TRAINED_COLOUR = "#7f7f7f"  # grey: what training saw
BEYOND_COLOUR = "#c0392b"  # the app's accent red: never seen in training
MAX_ROTATION_POINTS = 128  # points per circle in the rotation figure


def make_rope_rotation_figure(
    positions: np.ndarray,
    trajectories: Sequence[np.ndarray],
    titles: Sequence[str],
) -> go.Figure:
    """One unit circle per pair: the rotated pair at each position (points coloured by position),
    arrows to the first and the last position.

    `positions` ``(P,)``; each trajectory ``(P, 2)``: (first, second) coordinate of the pair.
    """
    fig = make_subplots(rows=1, cols=len(trajectories), subplot_titles=list(titles))
    circle = np.linspace(0, 2 * np.pi, 181)  # (181,) a smooth unit circle
    last = len(positions) - 1
    # Every position up to MAX_ROTATION_POINTS, else evenly spread ones (first and last kept): each
    # point is a styled SVG node in the browser, and a few hundred already show the circle.
    shown = np.unique(np.linspace(0, last, min(len(positions), MAX_ROTATION_POINTS)).round()
                      .astype(int))  # (S,)
    for col, points in enumerate(trajectories, start=1):
        fig.add_trace(
            go.Scatter(x=np.cos(circle), y=np.sin(circle), mode="lines",
                       line={"color": "#cccccc", "width": 1}, hoverinfo="skip", showlegend=False),
            row=1, col=col,
        )
        fig.add_trace(
            go.Scatter(
                x=points[shown, 0], y=points[shown, 1], mode="markers",
                marker={"size": 5, "color": positions[shown], "colorscale": "Viridis",
                        "cmin": 0, "cmax": max(positions[-1], 1), "showscale": col == 1,
                        "colorbar": {"title": {"text": "position p"}, "x": 1.02}},
                customdata=positions[shown],
                hovertemplate="p = %{customdata}<br>(%{x:.4f}, %{y:.4f})<extra></extra>",
                name="rotated pair", showlegend=False,
            ),
            row=1, col=col,
        )
        for index, colour in ((0, TRAINED_COLOUR), (last, BEYOND_COLOUR)):
            fig.add_annotation(
                x=points[index, 0], y=points[index, 1], ax=0, ay=0, xref=f"x{col}",
                yref=f"y{col}", axref=f"x{col}", ayref=f"y{col}", showarrow=True,
                arrowhead=2, arrowwidth=2, arrowcolor=colour, text="",
            )
        fig.update_xaxes(range=[-1.25, 1.25], title_text="first coordinate (cos pθ)",
                         row=1, col=col, constrain="domain")
        fig.update_yaxes(range=[-1.25, 1.25], scaleanchor=f"x{col}", row=1, col=col,
                         title_text="second coordinate (sin pθ)" if col == 1 else None)
    fig.update_annotations(font={"size": 12})
    base_layout(fig, "One pair of a query, rotated to each position", height=460)
    fig.update_layout(margin={"t": 110})  # room for the two-line panel titles
    return fig


def make_rope_logits_figure(offsets: np.ndarray, curves: Mapping[str, np.ndarray]) -> go.Figure:
    """q_m . k_n against m - n, one trace per anchor m (they coincide: only m - n matters)."""
    fig = go.Figure()
    # The first curve wide and pale, the second dashed on top: both visible where they coincide.
    styles = [
        {"mode": "lines", "line": {"width": 7, "color": "rgba(31, 119, 180, 0.35)"}},
        {"mode": "lines", "line": {"width": 2, "dash": "dash", "color": BEYOND_COLOUR}},
    ]
    for index, (label, values) in enumerate(curves.items()):
        style = styles[index % len(styles)]
        fig.add_trace(go.Scatter(
            x=offsets, y=values, name=label,
            hovertemplate="m - n = %{x}<br>q·k = %{y:.4f}<extra>" + label + "</extra>",
            **style,
        ))
    fig.update_xaxes(title_text="relative position m − n (key n is m − n positions back)")
    fig.update_yaxes(title_text="logit (R_m q) · (R_n k)")
    fig.update_layout(legend={"orientation": "h", "y": -0.2})
    return base_layout(fig, "Attention logit against m − n, from two places in the sequence",
                       height=420)


def make_rope_decay_figure(distances: np.ndarray, bounds: Mapping[str, np.ndarray]) -> go.Figure:
    """RoFormer's relative upper bound against distance, one line per base."""
    fig = go.Figure()
    for label, values in bounds.items():
        fig.add_trace(go.Scatter(
            x=distances, y=values, mode="lines", name=label,
            hovertemplate="distance %{x}<br>bound %{y:.3f}<extra>" + label + "</extra>",
        ))
    fig.update_xaxes(title_text="relative distance m − n")
    fig.update_yaxes(title_text="(1/(d/2)) Σ_j |S_j|")
    fig.update_layout(legend={"orientation": "h", "y": -0.2})
    return base_layout(fig, "Long-term decay: RoFormer's relative upper bound", height=420)


def make_context_extension_figure(extension: ContextExtension) -> go.Figure:
    """One panel per method: each pair's largest angle in training (grey) and at the target length;
    pairs that meet angles never seen in training are red. Log angle axis, 2π marked."""
    methods = list(extension.target)
    titles = [
        f"<b>{METHOD_NAMES.get(m, m)}</b><br>{int(extension.beyond[m].sum())} of "
        f"{extension.trained.size} pairs beyond" for m in methods
    ]
    fig = make_subplots(rows=1, cols=len(methods), subplot_titles=titles, shared_yaxes=True)
    pairs = extension.pairs
    for col, method in enumerate(methods, start=1):
        angles = extension.target[method]  # (d/2,)
        beyond = extension.beyond[method]  # (d/2,)
        fig.add_trace(go.Scatter(
            x=pairs, y=extension.trained, mode="lines", name=f"training: 0 .. "
            f"{extension.train_length - 1}", line={"color": TRAINED_COLOUR, "width": 3},
            showlegend=col == 1, legendgroup="trained",
            hovertemplate="pair %{x}<br>trained max %{y:.4g} rad<extra></extra>",
        ), row=1, col=col)
        fig.add_trace(go.Scatter(
            x=pairs, y=angles, mode="lines+markers", name=f"target: 0 .. "
            f"{extension.target_length - 1}", line={"color": "#1f77b4"},
            marker={"size": 5, "color": np.where(beyond, BEYOND_COLOUR, "#1f77b4")},
            showlegend=col == 1, legendgroup="target",
            hovertemplate="pair %{x}<br>target max %{y:.4g} rad<extra></extra>",
        ), row=1, col=col)
        fig.add_hline(y=2 * np.pi, line={"dash": "dot", "color": "black", "width": 1},
                      row=1, col=col)
        fig.update_xaxes(title_text="pair i", row=1, col=col)
    # Every panel (shared_yaxes matches ranges, not axis types); ticks at powers of ten only.
    fig.update_yaxes(type="log", dtick=1)
    fig.update_yaxes(title_text="largest angle p·θ_i (radians)", row=1, col=1)
    fig.add_annotation(text="2π: above it a pair has turned fully in training", xref="paper",
                       x=0, y=np.log10(2 * np.pi), yref="y", showarrow=False, yanchor="bottom",
                       xanchor="left", font={"size": 10})
    fig.update_layout(legend={"orientation": "h", "y": -0.25})
    fig.update_annotations(font={"size": 12})
    base_layout(
        fig,
        f"Context extension ×{extension.factor:g}: {extension.train_length} → "
        f"{extension.target_length} positions (red: angles never seen in training)",
        height=480,
    )
    fig.update_layout(margin={"t": 110})  # room for the two-line panel titles
    return fig
