"""Why sines and cosines: the home page's three live pictures (`core.why_sinusoid`).

Each figure carries its own plotly slider whose steps hold every state's numbers, so dragging it
redraws in the browser with no round trip (the clocks' frames, restyle/update steps here)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from core.why_sinusoid import WhySinusoid
from figures.common import arrow_trace, base_layout, segments
from figures.similarity import CURVE_COLOR
from figures.wavelengths import make_clock_figure
from locales import Lang, message

HEIGHT = 480  # the clocks two a row in a third of a laptop page (ui/chart/tiles.js)
# No axes drawn: the circles take the width; the slider's room is below the plot, so that a
# narrow column (drawn with the plot as high as it is wide) keeps them whole.
_BARE_MARGIN = {"l": 10, "r": 10, "t": 60, "b": 110}


def _slider(label: str, values: np.ndarray, active: int, steps: list[dict], *,
            below_axis: bool = False) -> dict:
    # Under an axis title the slider's value line needs room of its own.
    return {"active": active, "currentvalue": {"prefix": label},
            "pad": {"t": 70 if below_axis else 30},
            "steps": [{"label": str(int(v)), **step} for v, step in zip(values, steps,
                                                                           strict=True)]}


def make_code_figure(why: WhySinusoid, *, start: int = 20, lang: Lang = "en") -> go.Figure:
    """Claim 1: a few (sin, cos) pairs as clock hands, one decade of wavelength apart; their
    angles together are the position's code. Two clocks a row: a third of a page is narrow."""
    # Under each clock its angle alone (the slider says the position): two a row in a third of
    # a page, "pos 20: 0.37π" under each ran into its neighbour's.
    fig = make_clock_figure(why.clocks, start=start, lang=lang, per_row=2,
                            angle_key="fig.why.clock_angle")
    # Each clock named by its wavelength in turns of 2π: the ladder 1, 10, 100, 1,000 reads.
    fig.data[1].text = [message("fig.why.clock_label", lang, turns=length / (2 * np.pi))
                        for length in why.clocks.wavelengths]
    slider = fig.layout.sliders[0]
    slider.update(x=0.0, len=1.0)  # no play button (the wavelengths page has it)
    fig.layout.updatemenus = ()
    fig.layout.meta = None  # two a row always: laid out again, a narrow column's went one a row
    fig.update_layout(title_text=message("fig.why.code_title", lang), height=HEIGHT,
                      margin=_BARE_MARGIN)
    return fig


def make_nearby_figure(why: WhySinusoid, *, anchor: int = 20, lang: Lang = "en") -> go.Figure:
    """Claim 2: PE(p) . PE(q) / (d / 2) against q for one anchor p; a slider moves p."""
    positions = why.positions
    anchor = min(max(anchor, 0), positions.size - 1)
    rows = np.round(why.cosine, 4)  # (n, n): sub-pixel, short JSON
    anchor_name = message("fig.why.anchor", lang)
    fig = go.Figure([
        go.Scatter(x=positions, y=rows[anchor], mode="lines+markers", line={"color": CURVE_COLOR},
                   marker={"size": 5}, name=message("fig.why.similarity", lang),
                   hovertemplate=message("fig.why.similarity_hover", lang)),
        go.Scatter(x=[anchor], y=[1.0], mode="markers", name=anchor_name,
                   marker={"size": 13, "symbol": "diamond", "color": "#1f77b4"},
                   hovertemplate=anchor_name + " p = %{x}<extra></extra>"),
    ])
    steps = [{"method": "restyle", "args": [{"x": [positions, [p]], "y": [rows[p], [1.0]]},
                                            [0, 1]]}
             for p in positions]
    fig.update_layout(
        sliders=[_slider(message("fig.why.anchor_slider", lang), positions, anchor, steps,
                         below_axis=True)],
        showlegend=False,
    )
    fig.update_xaxes(title_text=message("fig.why.position_q", lang),
                     range=[-1, positions.size])
    low = float(why.cosine.min())
    fig.update_yaxes(title_text=message("fig.why.similarity_axis", lang),
                     range=[min(low, 0.0) - 0.05, 1.08])
    return base_layout(fig, message("fig.why.nearby_title", lang), height=HEIGHT)


def _turn_text(why: WhySinusoid, k: int, lang: Lang) -> str:
    return message("fig.why.turn", lang, k=k, i=why.pair, angle=k * why.omega,
                   residual=float(why.residuals[k]))


def _one_turn(why: WhySinusoid) -> int:
    """The positions drawn on the circle: one turn of the pair (all, if it turns slower)."""
    return min(round(2 * np.pi / why.omega), why.positions.size - 1)


def shift_offsets(why: WhySinusoid) -> np.ndarray:
    """The shifts k the shift figure's slider reaches: those with every drawn p + k in the
    table. A caption quoting the figure's error takes its largest over these."""
    return why.offsets[: why.positions.size - _one_turn(why) + 1]  # (K,)


def make_shift_figure(why: WhySinusoid, *, offset: int = 1, lang: Lang = "en") -> go.Figure:
    """Claim 3: one pair's points (cos, sin)(p w_i) for one turn of positions, each joined to
    the point k positions on: every chord turns by the same angle k w_i; a slider moves k."""
    turn = _one_turn(why)
    shown = np.arange(turn)  # (m,) the positions drawn
    offsets = shift_offsets(why)
    offset = min(max(offset, 0), offsets.size - 1)
    points = np.round(why.circle, 4)  # (n, 2)
    theta = np.linspace(0, 2 * np.pi, 121)

    def chords(k: int) -> tuple[np.ndarray, np.ndarray]:
        return tuple(segments(points[shown], points[shown + k]))  # type: ignore[return-value]

    arrows = arrow_trace(points[shown], points[shown + offset], color=CURVE_COLOR, width=2,
                         name=message("fig.why.chord", lang), hoverinfo="skip")
    fig = go.Figure([
        go.Scatter(x=np.cos(theta), y=np.sin(theta), mode="lines", line={"color": "#bbbbbb"},
                   hoverinfo="skip", showlegend=False),
        arrows,
        go.Scatter(x=points[shown, 0], y=points[shown, 1], mode="markers+text",
                   text=[str(p) for p in shown], textposition="top center",
                   marker={"size": 9, "color": "#1f77b4"},
                   name=message("fig.why.points", lang, i=why.pair),
                   hovertemplate=message("fig.why.point_hover", lang)),
        go.Scatter(x=[0.0], y=[-1.5], mode="text", text=[_turn_text(why, offset, lang)],
                   hoverinfo="skip", showlegend=False),
    ])
    steps = []
    for k in offsets:
        x, y = chords(int(k))
        steps.append({"method": "restyle",
                      "args": [{"x": [x, [0.0]], "y": [y, [-1.5]],
                                "text": [None, [_turn_text(why, int(k), lang)]]}, [1, 3]]})
    fig.update_layout(
        sliders=[_slider(message("fig.why.offset_slider", lang), offsets, offset, steps)],
        showlegend=False,
    )
    fig.update_xaxes(visible=False, range=[-1.3, 1.3])
    fig.update_yaxes(visible=False, range=[-1.75, 1.4], scaleanchor="x", scaleratio=1)
    fig = base_layout(fig, message("fig.why.shift_title", lang), height=HEIGHT)
    fig.update_layout(margin=_BARE_MARGIN)
    return fig

