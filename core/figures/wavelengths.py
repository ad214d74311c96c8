"""Wavelengths page: each dimension's sinusoid, the wavelength spectrum, the clocks."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from core.figures.common import base_layout
from core.wavelength_views import ClockFrames, DimensionCurves, Spectrum

CLOCKS_PER_ROW = 8  # 16 clocks in two rows: the figure stays wide and short


def _wavelength_text(length: float) -> str:
    return f"{length:,.2f}" if length < 1e5 else f"{length:.4g}"


def make_dimension_curves_figure(curves: DimensionCurves) -> go.Figure:
    """PE(pos, dim) against pos, one line per dimension, labelled with its wavelength."""
    fig = go.Figure()
    for j, dim in enumerate(curves.dims):
        function = "sin" if curves.is_sin[j] else "cos"
        fig.add_trace(
            go.Scatter(
                x0=int(curves.positions[0]),  # positions are consecutive: send no x array
                dx=1,
                y=curves.values[:, j].astype(np.float32),  # float32: half the bytes
                mode="lines",
                name=(
                    f"dim {dim}: {function}, i={curves.pairs[j]}, "
                    f"λ={_wavelength_text(curves.wavelengths[j])}"
                ),
                hovertemplate=f"dim {dim}<br>pos %{{x}}<br>PE = %{{y:.6f}}<extra></extra>",
            )
        )
    fig.update_xaxes(title_text="position (pos)")
    fig.update_yaxes(title_text="PE(pos, dim)", range=[-1.1, 1.1])
    fig.update_layout(legend={"title": {"text": "dimension (λ = 2π·base^(2i/d))"}})
    return base_layout(fig, "Each dimension is a sinusoid of its own wavelength", height=440)


def make_spectrum_figure(spectrum: Spectrum) -> go.Figure:
    """Wavelength against pair index i on a log axis, with the paper's value and the sequence."""
    lengths = spectrum.wavelengths  # (d/2,)
    pairs = np.arange(lengths.size)
    longer = lengths > spectrum.num_positions
    fig = go.Figure()
    for mask, name, color in (
        (~longer, "completes a cycle within the sequence", "#1f77b4"),
        (longer, "never completes a cycle within the sequence", "#c0392b"),
    ):
        fig.add_trace(
            go.Scatter(
                x=pairs[mask],
                y=lengths[mask],
                mode="markers",
                marker={"size": 5, "color": color},
                name=name,
                hovertemplate="pair i = %{x}<br>λ = %{y:,.3f} positions<extra></extra>",
            )
        )
    lines = (
        (spectrum.paper_longest, f"paper's rounded {spectrum.base:g}·2π = "
         f"{spectrum.paper_longest:,.1f}", "dot", "#7f7f7f"),
        (float(spectrum.num_positions), f"sequence length n = {spectrum.num_positions}",
         "dash", "#2ca02c"),
        (2 * math.pi, "2π ≈ 6.283 (pair 0)", "dot", "#7f7f7f"),
    )
    for y, label, dash, color in lines:
        fig.add_hline(y=y, line={"dash": dash, "color": color, "width": 1.5})
        # On a log axis an annotation's y is log10 of the value (add_hline's own label is not).
        fig.add_annotation(x=0, xref="paper", xanchor="left", y=math.log10(y), yanchor="bottom",
                           text=label, showarrow=False, font={"size": 11, "color": color})
    fig.add_annotation(
        x=pairs[-1],
        y=math.log10(spectrum.longest),
        text=f"last pair: 2π·base^((d−2)/d) = {spectrum.longest:,.1f}",
        showarrow=True,
        ax=-40,
        ay=40,
        xanchor="right",
    )
    fig.update_xaxes(title_text="frequency pair i (dimensions 2i, 2i+1)")
    fig.update_yaxes(title_text="wavelength λ_i (positions, log scale)", type="log")
    fig.update_layout(legend={"orientation": "h", "y": -0.2})
    return base_layout(fig, "Wavelengths: a geometric progression from 2π", height=460)


def _clock_centres(count: int) -> tuple[np.ndarray, np.ndarray]:
    index = np.arange(count)
    return index % CLOCKS_PER_ROW * 2.6, -(index // CLOCKS_PER_ROW) * 3.4  # (m,), (m,)


def _with_gaps(*columns: np.ndarray) -> list[float | None]:
    """Interleave columns and None: one scatter trace draws many separate segments."""
    out: list[float | None] = []
    for values in zip(*columns, strict=True):
        out.extend(round(float(v), 4) for v in values)  # 4 decimals: sub-pixel, short JSON
        out.append(None)
    return out


def _hands(frames: ClockFrames, f: int, cx: np.ndarray, cy: np.ndarray) -> dict:
    x, y = np.round(cx + frames.x[f], 4), np.round(cy + frames.y[f], 4)  # (m,) tips
    return {
        "hand_x": _with_gaps(cx, x),
        "hand_y": _with_gaps(cy, y),
        "tip_x": x,
        "tip_y": y,
        "text": [f"pos {frames.positions[f]}: {t:.2f}π" for t in frames.turns_in_pi[f]],
    }


def make_clock_figure(frames: ClockFrames, *, start: int = 0) -> go.Figure:
    """Each (sin, cos) pair as a hand on the unit circle (x = cos, y = sin), turning w_i per
    position; a slider and a play button move every clock at once (client-side frames)."""
    m = len(frames.pairs)
    cx, cy = _clock_centres(m)
    theta = np.linspace(0, 2 * np.pi, 73)
    circle_x: list[float | None] = []
    circle_y: list[float | None] = []
    for x0, y0 in zip(cx, cy, strict=True):
        circle_x.extend([*(x0 + np.cos(theta)).tolist(), None])
        circle_y.extend([*(y0 + np.sin(theta)).tolist(), None])
    start = min(max(start, 0), frames.positions.size - 1)
    hands = _hands(frames, start, cx, cy)
    labels = [
        f"i={i}, λ={_wavelength_text(length)}"
        for i, length in zip(frames.pairs, frames.wavelengths, strict=True)
    ]
    fig = go.Figure(
        [
            go.Scatter(x=circle_x, y=circle_y, mode="lines", line={"color": "#bbbbbb"},
                       hoverinfo="skip", showlegend=False),
            go.Scatter(x=cx, y=cy + 1.25, mode="text", text=labels, hoverinfo="skip",
                       showlegend=False, textfont={"size": 12}),
            go.Scatter(x=hands["hand_x"], y=hands["hand_y"], mode="lines",
                       line={"color": "#c0392b", "width": 3}, hoverinfo="skip", showlegend=False),
            go.Scatter(x=hands["tip_x"], y=hands["tip_y"], mode="markers",
                       marker={"size": 9, "color": "#c0392b"}, showlegend=False,
                       text=labels, hovertemplate="%{text}<extra></extra>"),
            go.Scatter(x=cx, y=cy - 1.3, mode="text", text=hands["text"], hoverinfo="skip",
                       showlegend=False, textfont={"size": 11, "color": "#555555"}),
        ]
    )
    animated = [2, 3, 4]  # hands, tips, angle texts
    frame_list = []
    for f, pos in enumerate(frames.positions):
        h = _hands(frames, f, cx, cy)
        frame_list.append(
            go.Frame(
                name=str(pos),
                data=[
                    go.Scatter(x=h["hand_x"], y=h["hand_y"]),
                    go.Scatter(x=h["tip_x"], y=h["tip_y"]),
                    go.Scatter(text=h["text"]),
                ],
                traces=animated,
            )
        )
    fig.frames = frame_list
    step_options = {"mode": "immediate", "frame": {"duration": 0, "redraw": False},
                    "transition": {"duration": 0}}
    fig.update_layout(
        sliders=[{
            "active": start,
            "currentvalue": {"prefix": "position: "},
            "x": 0.22,  # the play and pause buttons sit to the left of the slider
            "len": 0.78,
            "pad": {"t": 30},
            "steps": [
                {"label": str(pos), "method": "animate", "args": [[str(pos)], step_options]}
                for pos in frames.positions
            ],
        }],
        updatemenus=[{
            "type": "buttons",
            "direction": "left",
            "x": 0.0,
            "y": 0.0,
            "xanchor": "left",
            "yanchor": "top",
            "pad": {"t": 60, "r": 10},
            "buttons": [
                {"label": "▶ play", "method": "animate",
                 "args": [None, {"mode": "immediate", "fromcurrent": True,
                                 "frame": {"duration": 120, "redraw": False},
                                 "transition": {"duration": 0}}]},
                {"label": "❚❚ pause", "method": "animate", "args": [[None], step_options]},
            ],
        }],
    )
    fig.update_xaxes(visible=False, range=[cx.min() - 1.4, cx.max() + 1.4])
    fig.update_yaxes(visible=False, range=[cy.min() - 1.6, 1.6], scaleanchor="x", scaleratio=1)
    rows = -(-m // CLOCKS_PER_ROW)
    title = "Clocks: pair i turns ω_i = base^(−2i/d) radians per position (x = cos, y = sin)"
    if frames.truncated:
        title += f" — positions 0 to {frames.positions[-1]}"
    return base_layout(fig, title, height=230 + 130 * rows)
