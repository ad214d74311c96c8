"""Similarity page: PE·PE^T, the offset curve against a random table, distances, M_k."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from core.overview import Overview
from core.similarity import PairwiseSimilarity, RotatedPair
from figures.common import DIVERGING, NEUTRAL, base_layout
from figures.heatmap import make_pe_heatmap_figure
from locales import Lang, message

METRIC_LABEL = {"dot": "PE[p]·PE[q]", "cosine": "cos(PE[p], PE[q])"}  # notation: any language
SINUSOID_COLOR = "#1f77b4"
RANDOM_COLOR = "#7f7f7f"
CURVE_COLOR = "#c0392b"


def _f32(values: np.ndarray) -> np.ndarray:
    """Curves and points go to the browser as float32: half the bytes, far below a pixel."""
    return np.asarray(values, dtype=np.float32)


def _metric_name(metric: str, lang: Lang) -> str:
    """The metric's short name in hover texts and colour bars ("dot", "cosine" in English)."""
    return {
        "dot": message("fig.similarity.metric_dot", lang),
        "cosine": message("fig.similarity.metric_cosine", lang),
    }[metric]


def make_similarity_matrix_figure(
    result: PairwiseSimilarity, *, metric: str, d_model: int, lang: Lang = "en"
) -> go.Figure:
    """The (n, n) similarity matrix as a heatmap (block means when n is large)."""
    overview = result.overview
    fig = make_pe_heatmap_figure(
        overview,
        title=message("fig.similarity.matrix_title", lang, label=METRIC_LABEL[metric]),
        x_title=message("fig.similarity.matrix_x_title", lang),
        y_title=message("fig.similarity.matrix_y_title", lang),
        lang=lang,
    )
    name = _metric_name(metric, lang)
    limit = d_model / 2 if metric == "dot" else 1.0  # |PE|^2 = d/2: the diagonal's value
    if overview.exact:
        hover = message("fig.similarity.matrix_hover_exact", lang, metric=name)
    else:
        block = overview.row_edges[-1] / overview.values.shape[0]
        hover = message("fig.similarity.matrix_hover_block", lang, block=block, metric=name)
    fig.update_traces(
        zmin=-limit, zmax=limit, zmid=0.0, colorbar={"title": {"text": name}},
        hovertemplate=hover,
    )
    if not overview.exact:
        rows, cols = overview.values.shape
        side = overview.row_edges[-1]
        fig.layout.annotations[0].text = message(
            "fig.similarity.matrix_overview", lang, side=side, rows=rows, cols=cols
        )
    return fig


def make_offset_scatter_figure(
    *,
    curve_offsets: np.ndarray,
    curve: np.ndarray,
    sinusoid_points: tuple[np.ndarray, np.ndarray],
    random_points: tuple[np.ndarray, np.ndarray],
    random_envelope: tuple[np.ndarray, np.ndarray, np.ndarray],
    offset: int,
    offset_value: float,
    metric: str,
    anchor: int | None = None,
    positions: int | None = None,
    lang: Lang = "en",
) -> go.Figure:
    """Left: sinusoid pairs (x = q - p, y = similarity) on the curve sum_i cos(w_i k), with
    +-k marked; right: the same pairs of a random table, with the min-max band over all pairs.
    Given an `anchor` p (and the table's `positions`), each mark names the position it pairs p
    with, q = p +- k, when the table has it: the two pairs the text below reads off the table."""
    fig = make_subplots(
        rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.04,
        subplot_titles=(message("fig.similarity.offset_left_title", lang),
                        message("fig.similarity.offset_right_title", lang)),
    )
    fig.add_trace(
        go.Scatter(x=_f32(sinusoid_points[0]), y=_f32(sinusoid_points[1]), mode="markers",
                   marker={"size": 4, "color": SINUSOID_COLOR, "opacity": 0.5},
                   name=message("fig.similarity.offset_sinusoid_points", lang),
                   hovertemplate="q − p = %{x}<br>%{y:.4f}<extra></extra>"),
        row=1, col=1,
    )
    fig.add_trace(
        go.Scatter(x=curve_offsets, y=curve, mode="lines",
                   line={"color": CURVE_COLOR, "width": 1.5},
                   name="Σ_i cos(ω_i k)",
                   hovertemplate="k = %{x}<br>%{y:.5f}<extra></extra>"),
        row=1, col=1,
    )
    # +-k are marks of the layout, not a trace: moving them leaves the 2,000 points as drawn
    # (ui/plotly_react.js keeps an unchanged trace's arrays, so plotly.js redraws the marks alone).
    marks = ((-1, f"−k = {-offset}"), (1, f"k = {offset}"))
    legend = (message("fig.similarity.offset_marks", lang) if anchor is None
              else message("fig.similarity.offset_marks_anchor", lang, anchor=anchor))
    for sign, label in ((sign, label.replace("-", "−")) for sign, label in marks):
        neighbour = None if anchor is None else anchor + sign * offset
        if neighbour is not None and 0 <= neighbour < (positions or neighbour + 1):
            label = message("fig.similarity.offset_mark_at", lang, k=label, q=neighbour)
        fig.add_shape(type="path", path="M 0,7 L 7,0 L 0,-7 L -7,0 Z", xref="x", yref="y",
                      xsizemode="pixel", ysizemode="pixel", xanchor=sign * offset,
                      yanchor=offset_value, fillcolor=NEUTRAL, line={"width": 0}, opacity=1,
                      layer="above", showlegend=sign > 0, name=legend)
        fig.add_annotation(x=sign * offset, y=offset_value, xref="x", yref="y", text=label,
                           showarrow=False, xanchor="left" if sign > 0 else "right",
                           yanchor="bottom", xshift=5 * sign, yshift=5)
    envelope_k, low, high = random_envelope
    fig.add_trace(
        go.Scatter(x=_f32(np.concatenate([envelope_k, envelope_k[::-1]])),
                   y=_f32(np.concatenate([low, high[::-1]])), fill="toself", mode="lines",
                   line={"width": 0}, fillcolor="rgba(127,127,127,0.25)",
                   name=message("fig.similarity.offset_envelope", lang), hoverinfo="skip"),
        row=1, col=2,
    )
    fig.add_trace(
        go.Scatter(x=_f32(random_points[0]), y=_f32(random_points[1]), mode="markers",
                   marker={"size": 4, "color": RANDOM_COLOR, "opacity": 0.5},
                   name=message("fig.similarity.offset_random_points", lang),
                   hovertemplate="q − p = %{x}<br>%{y:.4f}<extra></extra>"),
        row=1, col=2,
    )
    fig.update_xaxes(title_text=message("fig.similarity.offset_x_title", lang))
    fig.update_yaxes(title_text=METRIC_LABEL[metric], row=1, col=1)
    fig.update_layout(legend={"orientation": "h", "y": -0.22})
    return base_layout(fig, message("fig.similarity.offset_title", lang), height=500)


def make_anchor_profile_figure(
    profile: np.ndarray, *, anchor: int, metric: str, zoom: int = 50, lang: Lang = "en"
) -> go.Figure:
    """The TensorFlow tutorial's picture: similarity of every position to `anchor`, and a zoom."""
    n = profile.size
    low, high = max(0, anchor - zoom), min(n, anchor + zoom + 1)
    fig = make_subplots(
        rows=1, cols=2, column_widths=[0.62, 0.38], horizontal_spacing=0.08,
        subplot_titles=(message("fig.similarity.anchor_all", lang, n=n),
                        message("fig.similarity.anchor_zoom", lang, low=low, high=high - 1)),
    )
    positions = np.arange(n)
    name = _metric_name(metric, lang)
    hover = message("fig.similarity.anchor_hover", lang, metric=name, anchor=anchor)
    for col, (a, b) in ((1, (0, n)), (2, (low, high))):
        fig.add_trace(
            go.Scatter(x=_f32(positions[a:b]), y=_f32(profile[a:b]),
                       mode="lines" if col == 1 else "lines+markers",
                       line={"color": SINUSOID_COLOR}, marker={"size": 4}, showlegend=False,
                       hovertemplate=hover),
            row=1, col=col,
        )
        fig.add_vline(x=anchor, line={"dash": "dot", "color": CURVE_COLOR}, row=1, col=col)
    fig.update_xaxes(title_text=message("fig.similarity.anchor_x_title", lang))
    fig.update_yaxes(title_text=message("fig.similarity.anchor_y_title", lang, metric=name,
                                        anchor=anchor), row=1, col=1)
    return base_layout(fig, message("fig.similarity.anchor_title", lang, anchor=anchor),
                       height=420)


def make_distance_figure(
    *,
    sample_gaps: np.ndarray,
    sample_distances: np.ndarray,
    curve_offsets: np.ndarray,
    curve: np.ndarray,
    lang: Lang = "en",
) -> go.Figure:
    """Euclidean distance |PE[p] - PE[q]| against |p - q|: sampled pairs on sqrt(d - 2 f(k))."""
    fig = go.Figure(
        [
            go.Scatter(x=_f32(sample_gaps), y=_f32(sample_distances), mode="markers",
                       marker={"size": 4, "color": SINUSOID_COLOR, "opacity": 0.5},
                       name=message("fig.similarity.distance_points", lang),
                       hovertemplate=message("fig.similarity.distance_hover", lang)),
            go.Scatter(x=curve_offsets, y=curve, mode="lines",
                       line={"color": CURVE_COLOR, "width": 1.5},
                       name="√(d − 2 Σ_i cos(ω_i k))",
                       hovertemplate="k = %{x}<br>%{y:.5f}<extra></extra>"),
        ]
    )
    fig.update_xaxes(title_text="|p − q|")
    fig.update_yaxes(title_text="‖PE[p] − PE[q]‖", rangemode="tozero")
    fig.update_layout(legend={"orientation": "h", "y": -0.2})
    return base_layout(fig, message("fig.similarity.distance_title", lang), height=420)


def make_shift_matrix_figure(
    matrix: np.ndarray, *, offset: int, d_model: int, lang: Lang = "en"
) -> go.Figure:
    """The top-left window of M_k (exact entries): 2x2 rotation blocks down the diagonal."""
    size = matrix.shape[0]
    window = Overview(
        values=matrix.astype(np.float32),
        row_edges=np.arange(size + 1),
        col_edges=np.arange(size + 1),
        exact=True,
    )
    if size == d_model:
        title = message("fig.similarity.shift_title", lang, offset=offset)
    else:
        title = message("fig.similarity.shift_title_window", lang, offset=offset, size=size,
                        d_model=d_model)
    fig = make_pe_heatmap_figure(
        window, title=title, x_title=message("fig.similarity.shift_x_title", lang),
        y_title=message("fig.similarity.shift_y_title", lang), lang=lang,
    )
    fig.update_traces(
        colorscale=DIVERGING, colorbar={"title": {"text": "M_k"}},
        hovertemplate=message("fig.similarity.shift_hover", lang),
    )
    fig.update_xaxes(constrain="domain")  # with scaleanchor: shrink the plot, do not pad
    fig.update_yaxes(scaleanchor="x", scaleratio=1, constrain="domain")
    fig.update_layout(height=480)
    return fig


def make_rotation_figure(
    rotated: RotatedPair, *, position: int, offset: int, lang: Lang = "en"
) -> go.Figure:
    """One frequency pair as a vector (cos, sin) on the unit circle: M_k turns it by w_i k."""
    theta = np.linspace(0, 2 * np.pi, 181)
    start = np.arctan2(rotated.before[1], rotated.before[0])
    # The angle swept, w_i k, drawn modulo a full turn (the vector cannot show whole turns).
    wrapped = float(np.mod(rotated.rotation + np.pi, 2 * np.pi) - np.pi)  # in [-pi, pi)
    arc = start + np.linspace(0, wrapped, 60)
    arc_radius = 0.35
    i = rotated.pair
    if abs(wrapped - rotated.rotation) < 1e-9:
        arc_name = message("fig.similarity.rotation_arc", lang, i=i, rotation=rotated.rotation)
    else:
        arc_name = message("fig.similarity.rotation_arc_wrapped", lang, i=i,
                           rotation=rotated.rotation, wrapped=wrapped)
    fig = go.Figure(
        [
            go.Scatter(x=np.cos(theta), y=np.sin(theta), mode="lines",
                       line={"color": "#bbbbbb"}, hoverinfo="skip", showlegend=False),
            go.Scatter(x=arc_radius * np.cos(arc), y=arc_radius * np.sin(arc), mode="lines",
                       line={"color": "#2ca02c", "width": 2},
                       name=arc_name, hoverinfo="skip"),
            go.Scatter(x=[0, rotated.before[0]], y=[0, rotated.before[1]], mode="lines+markers",
                       line={"color": "#1f77b4", "width": 3}, marker={"size": [0, 10]},
                       name=message("fig.similarity.rotation_pair", lang, i=i, position=position),
                       hovertemplate="(cos, sin) = (%{x:.5f}, %{y:.5f})<extra></extra>"),
            go.Scatter(x=[0, rotated.after[0]], y=[0, rotated.after[1]], mode="lines+markers",
                       line={"color": CURVE_COLOR, "width": 3}, marker={"size": [0, 10]},
                       name=message("fig.similarity.rotation_pair", lang, i=i,
                                    position=position + offset),
                       hovertemplate="(cos, sin) = (%{x:.5f}, %{y:.5f})<extra></extra>"),
            go.Scatter(x=[rotated.rotated[0]], y=[rotated.rotated[1]], mode="markers",
                       marker={"size": 16, "symbol": "circle-open", "color": NEUTRAL,
                               "line": {"width": 2}},
                       name=message("fig.similarity.rotation_moved", lang, position=position),
                       hovertemplate="(cos, sin) = (%{x:.5f}, %{y:.5f})<extra></extra>"),
        ]
    )
    fig.update_xaxes(title_text=message("fig.similarity.rotation_x_title", lang, i=i,
                                        dim=2 * i + 1), range=[-1.25, 1.25])
    fig.update_yaxes(title_text=message("fig.similarity.rotation_y_title", lang, i=i, dim=2 * i),
                     range=[-1.25, 1.25], scaleanchor="x", scaleratio=1)
    fig.update_layout(legend={"orientation": "h", "y": -0.25})
    return base_layout(fig, message("fig.similarity.rotation_title", lang, i=i), height=480)
