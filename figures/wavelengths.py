"""Wavelengths page: each dimension's sinusoid, the wavelength spectrum, the clocks."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from core.wavelength_views import ClockFrames, DimensionCurves, Spectrum
from figures.common import add_span, base_layout
from locales import Lang, message

CLOCKS_PER_ROW = 8  # 16 clocks in two rows: the figure stays wide and short


def _wavelength_text(length: float) -> str:
    return f"{length:,.2f}" if length < 1e5 else f"{length:.4g}"


def _clock_wavelength_text(length: float) -> str:
    """A clock's wavelength, short enough for a row of clocks (its hover has two decimals)."""
    if length < 100:
        return f"{length:.2f}"
    return f"{length:,.0f}" if length < 1e5 else f"{length:.3g}"


def make_dimension_curves_figure(curves: DimensionCurves, *, lang: Lang = "en") -> go.Figure:
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
                # A pair's sin and cos are told apart by more than their shade: cos dashed.
                line={"dash": "solid" if curves.is_sin[j] else "dash"},
                name=message(
                    "fig.wavelengths.curve_name", lang, dim=dim, function=function,
                    pair=curves.pairs[j], wavelength=_wavelength_text(curves.wavelengths[j]),
                ),
                hovertemplate=message("fig.wavelengths.curve_hover", lang, dim=dim),
            )
        )
    fig.update_xaxes(title_text=message("fig.wavelengths.curves_x_title", lang))
    fig.update_yaxes(title_text="PE(pos, dim)", range=[-1.1, 1.1])
    fig.update_layout(legend={"title": {"text": message("fig.wavelengths.curves_legend", lang)}})
    return base_layout(fig, message("fig.wavelengths.curves_title", lang), height=440)


def _clear_of_markers(lengths: np.ndarray, y: float) -> dict:
    """Where a horizontal line's label sits clear of the spectrum's markers. The markers rise
    from the lower left to the upper right and cross the line once, at pair i*: left of i* they
    are below the line, right of it above. So a line crossed in the right half keeps its label
    above the line at the left edge, one crossed in the left half below the line at the right
    edge (2π, crossed at pair 0: below, right; the paper's 2π·base, above every pair: above,
    left)."""
    crossing = float(np.mean(lengths < y * (1 - 1e-9)))  # i* / (d/2)
    if crossing >= 0.5:
        return {"x": 0, "xref": "paper", "xanchor": "left", "yanchor": "bottom"}
    return {"x": 1, "xref": "paper", "xanchor": "right", "yanchor": "top"}


MAX_SPECTRUM_MARKERS = 256  # markers drawn per spectrum trace (d_model = 4096 has 2048 pairs)


def make_spectrum_figure(spectrum: Spectrum, *, lang: Lang = "en") -> go.Figure:
    """Wavelength against pair index i on a log axis, with the paper's value and the sequence."""
    lengths = spectrum.wavelengths  # (d/2,)
    pairs = np.arange(lengths.size)
    longer = lengths > spectrum.num_positions
    fig = go.Figure()
    for mask, name, color in (
        (~longer, message("fig.wavelengths.spectrum_complete", lang), "#1f77b4"),
        (longer, message("fig.wavelengths.spectrum_incomplete", lang), "#c0392b"),
    ):
        fig.add_trace(
            go.Scatter(
                x=pairs[mask],
                y=lengths[mask],
                mode="markers",
                # At most MAX_SPECTRUM_MARKERS are drawn, evenly spread (plotly's maxdisplayed),
                # and those hover: each marker is a styled SVG node, 2048 made the chart draw 4x
                # slower, and pairs that close are under a pixel apart anyway.
                marker={"size": 5, "color": color, "maxdisplayed": MAX_SPECTRUM_MARKERS},
                name=name,
                hovertemplate=message("fig.wavelengths.spectrum_hover", lang),
            )
        )
    lines = (
        (spectrum.paper_longest,
         message("fig.wavelengths.spectrum_paper", lang, base=spectrum.base,
                 length=spectrum.paper_longest), "dot", "#7f7f7f"),
        (float(spectrum.num_positions),
         message("fig.wavelengths.spectrum_sequence", lang, n=spectrum.num_positions),
         "dash", "#2ca02c"),
        (2 * math.pi, message("fig.wavelengths.spectrum_shortest", lang), "dot", "#7f7f7f"),
    )
    for y, label, dash, color in lines:
        add_span(fig, "hline", y, line={"dash": dash, "color": color, "width": 1.5})
        # On a log axis an annotation's y is log10 of the value (add_hline's own label is not).
        fig.add_annotation(y=math.log10(y), text=label, showarrow=False,
                           font={"size": 11, "color": color}, **_clear_of_markers(lengths, y))
    # The last pair's value below the curve's right end: the markers climb from the lower left,
    # so the region under them to the right is empty. A decade and a half below it (in the
    # axis's units, not pixels: 70 px put the label on the markers at slide type), where the
    # markers are a third of the pairs to the left.
    fig.add_annotation(
        x=pairs[-1],
        y=math.log10(spectrum.longest),
        text=message("fig.wavelengths.spectrum_last", lang, pair=int(pairs[-1]),
                     length=spectrum.longest),
        showarrow=True,
        arrowhead=2,
        ax=0,
        ayref="y",
        ay=math.log10(spectrum.longest) - 1.5,
        xanchor="right",
        yanchor="top",
        font={"size": 11},
    )
    fig.update_xaxes(title_text=message("fig.wavelengths.spectrum_x_title", lang))
    # Labels at powers of ten only: plotly's default log ticks also label 2 and 5 of every
    # decade, a column of "5, 2, 5, 2" that reads as data.
    fig.update_yaxes(title_text=message("fig.wavelengths.spectrum_y_title", lang), type="log",
                     dtick=1)
    fig.update_layout(legend={"orientation": "h", "y": -0.2})
    return base_layout(fig, message("fig.wavelengths.spectrum_title", lang), height=460)


CLOCK_DX, CLOCK_DY = 2.6, 3.4  # clock centres apart, in the unit circle's radii


def _clock_centres(count: int, per_row: int) -> tuple[np.ndarray, np.ndarray]:
    index = np.arange(count)
    return index % per_row * CLOCK_DX, -(index // per_row) * CLOCK_DY  # (m,), (m,)


def _with_gaps(*columns: np.ndarray) -> list[float | None]:
    """Interleave columns and None: one scatter trace draws many separate segments."""
    out: list[float | None] = []
    for values in zip(*columns, strict=True):
        out.extend(round(float(v), 4) for v in values)  # 4 decimals: sub-pixel, short JSON
        out.append(None)
    return out


def _hands(frames: ClockFrames, f: int, cx: np.ndarray, cy: np.ndarray, lang: Lang,
           angle_key: str = "fig.wavelengths.clock_angle") -> dict:
    x, y = np.round(cx + frames.x[f], 4), np.round(cy + frames.y[f], 4)  # (m,) tips
    return {
        "hand_x": _with_gaps(cx, x),
        "hand_y": _with_gaps(cy, y),
        "tip_x": x,
        "tip_y": y,
        "text": [message(angle_key, lang, position=frames.positions[f],
                         turns=t) for t in frames.turns_in_pi[f]],
    }


def make_clock_figure(frames: ClockFrames, *, start: int = 0, lang: Lang = "en",
                      per_row: int = CLOCKS_PER_ROW,
                      angle_key: str = "fig.wavelengths.clock_angle") -> go.Figure:
    """Each (sin, cos) pair as a hand on the unit circle (x = cos, y = sin), turning w_i per
    position; a slider and a play button move every clock at once (client-side frames)."""
    m = len(frames.pairs)
    cx, cy = _clock_centres(m, per_row)
    theta = np.linspace(0, 2 * np.pi, 73)
    circle_x: list[float | None] = []
    circle_y: list[float | None] = []
    for x0, y0 in zip(cx, cy, strict=True):
        circle_x.extend([*(x0 + np.cos(theta)).tolist(), None])
        circle_y.extend([*(y0 + np.sin(theta)).tolist(), None])
    start = min(max(start, 0), frames.positions.size - 1)
    hands = _hands(frames, start, cx, cy, lang, angle_key)
    labels = [
        message("fig.wavelengths.clock_label", lang, pair=i,
                wavelength=_clock_wavelength_text(length))
        for i, length in zip(frames.pairs, frames.wavelengths, strict=True)
    ]
    hovers = [
        message("fig.wavelengths.clock_label", lang, pair=i, wavelength=_wavelength_text(length))
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
                       text=hovers, hovertemplate="%{text}<extra></extra>"),
            go.Scatter(x=cx, y=cy - 1.3, mode="text", text=hands["text"], hoverinfo="skip",
                       showlegend=False, textfont={"size": 11, "color": "#555555"}),
        ]
    )
    animated = [2, 3, 4]  # hands, tips, angle texts
    frame_list = []
    for f, pos in enumerate(frames.positions):
        h = _hands(frames, f, cx, cy, lang, angle_key)
        frame_list.append({
            "name": str(pos),
            "data": [{"type": "scatter", "x": h["hand_x"], "y": h["hand_y"]},
                     {"type": "scatter", "x": h["tip_x"], "y": h["tip_y"]},
                     {"type": "scatter", "text": h["text"]}],
            "traces": animated,
        })
    # Plain dicts, checked once as the figure takes them: go.Frame and go.Scatter objects were
    # checked twice, and 400 frames took ~400 ms a rerun.
    fig.frames = frame_list
    step_options = {"mode": "immediate", "frame": {"duration": 0, "redraw": False},
                    "transition": {"duration": 0}}
    fig.update_layout(
        sliders=[{
            "active": start,
            "currentvalue": {"prefix": message("fig.wavelengths.clock_slider", lang)},
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
                {"label": message("fig.wavelengths.clock_play", lang), "method": "animate",
                 "args": [None, {"mode": "immediate", "fromcurrent": True,
                                 "frame": {"duration": 120, "redraw": False},
                                 "transition": {"duration": 0}}]},
                {"label": message("fig.wavelengths.clock_pause", lang), "method": "animate",
                 "args": [[None], step_options]},
            ],
        }],
    )
    fig.update_xaxes(visible=False, range=[cx.min() - 1.4, cx.max() + 1.4])
    fig.update_yaxes(visible=False, range=[cy.min() - 1.6, 1.6], scaleanchor="x", scaleratio=1)
    # The chart element lays the clocks out again with fewer to a row where their labels would
    # not fit (a phone): ui/chart/tiles.js `fitTiles`.
    fig.update_layout(meta={"tiles": {"count": m, "columns": min(m, per_row),
                                      "dx": CLOCK_DX, "dy": CLOCK_DY}})
    rows = -(-m // per_row)
    if frames.truncated:
        title = message("fig.wavelengths.clock_title_truncated", lang, last=frames.positions[-1])
    else:
        title = message("fig.wavelengths.clock_title", lang)
    return base_layout(fig, title, height=230 + 130 * rows)
