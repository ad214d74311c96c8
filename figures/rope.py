"""RoPE figures: pairs turning, logits by offset, the long-term decay, context extension."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from core.rope import ContextExtension
from figures.common import NEUTRAL, arrow_trace, base_layout, grid_axes, grid_layout, grid_refs
from locales import Lang, message


def method_names(lang: Lang = "en") -> dict[str, str]:
    """The context-extension methods as a reader sees them, by their URL value."""
    return {
        "none": message("fig.rope.method_none", lang),
        "position_interpolation": message("fig.rope.method_position_interpolation", lang),
        "ntk_aware": message("fig.rope.method_ntk_aware", lang),
        "yarn": message("fig.rope.method_yarn", lang),
        "dynamic": message("fig.rope.method_dynamic", lang),
        "llama3": message("fig.rope.method_llama3", lang),
    }


METHOD_NAMES = method_names("en")  # English, for callers that name no language
TRAINED_COLOUR = "#7f7f7f"  # grey: what training saw
BEYOND_COLOUR = "#c0392b"  # the app's accent red: never seen in training
TARGET_COLOUR = "#1f77b4"
MAX_ROTATION_POINTS = 128  # points per circle in the rotation figure
EXTENSION_COLUMNS = 3  # context-extension panels per row
# Markers drawn per trace, evenly spread (plotly's maxdisplayed; those hover): a marker is a
# styled SVG node, and past this many pairs they touch anyway. A context-extension panel is a
# third of the width (~230 px at 1440): 64 pairs there are ~3.5 px apart, d_head 1024's 512
# pairs under half a pixel, whose ~3,500 markers in six panels took plotly.js ~105 ms a redraw
# against ~50 ms with 64 a trace. A chart half the page wide or more (the extrapolation page's,
# the config view's) is ~420 px and up: 128, as far apart.
EXTENSION_MARKERS = 64
PAIR_MARKERS = 128


# The context-extension charts (this page's and the extrapolation page's) share their lines:
# the target drawn first, the pairs past training in red over it, the training line on top,
# dashed (with position interpolation the target lies on it, and must show through), and 2π as
# a legend entry rather than a label that lands on the lines.
def trained_trace(pairs: np.ndarray, trained: np.ndarray, name: str, *, lang: Lang = "en",
                  showlegend: bool = True) -> go.Scatter:
    """Each pair's largest angle in training: grey, dashed, drawn above the targets."""
    return go.Scatter(
        x=pairs, y=trained, mode="lines", name=name,
        line={"color": TRAINED_COLOUR, "width": 2.5, "dash": "dash"},
        showlegend=showlegend, legendgroup="trained",
        hovertemplate=message("fig.rope.extension_trained_hover", lang),
    )


def beyond_trace(pairs: np.ndarray, angles: np.ndarray, beyond: np.ndarray, *,
                 lang: Lang = "en", showlegend: bool = True,
                 markers: int = PAIR_MARKERS) -> go.Scatter:
    """The pairs whose angle at the target length exceeds any seen in training: red markers
    (at most `markers` drawn), with their own legend entry."""
    return go.Scatter(
        x=pairs[beyond], y=angles[beyond], mode="markers",
        name=message("fig.rope.extension_beyond", lang),
        marker={"size": 6, "color": BEYOND_COLOUR, "maxdisplayed": markers},
        showlegend=showlegend, legendgroup="beyond",
        hovertemplate=message("fig.rope.extension_beyond_hover", lang),
    )


def full_turn_trace(pairs: np.ndarray, *, lang: Lang = "en",
                    showlegend: bool = True) -> go.Scatter:
    """2π across the panel: a pair whose trained angle is above it has turned fully."""
    return go.Scatter(
        x=[float(pairs[0]), float(pairs[-1])], y=[2 * np.pi, 2 * np.pi], mode="lines",
        name=message("fig.rope.extension_two_pi", lang),
        line={"color": NEUTRAL, "width": 1, "dash": "dot"},
        showlegend=showlegend, legendgroup="two_pi", hoverinfo="skip",
    )


def make_rope_rotation_figure(
    positions: np.ndarray,
    trajectories: Sequence[np.ndarray],
    titles: Sequence[str],
    *,
    lang: Lang = "en",
) -> go.Figure:
    """One unit circle per pair: the rotated pair at each position (points coloured by position),
    arrows to the first and the last position.

    `positions` ``(P,)``; each trajectory ``(P, 2)``: (first, second) coordinate of the pair.
    """
    # One layout dict and one figure (figures.common.grid_layout).
    layout = grid_layout(1, len(trajectories), titles=list(titles),
                         horizontal_spacing=0.2 / len(trajectories), vertical_spacing=0.3)
    circle = np.linspace(0, 2 * np.pi, 181)  # (181,) a smooth unit circle
    last = len(positions) - 1
    # Every position up to MAX_ROTATION_POINTS, else evenly spread ones (first and last kept): each
    # point is a styled SVG node in the browser, and a few hundred already show the circle.
    shown = np.unique(np.linspace(0, last, min(len(positions), MAX_ROTATION_POINTS)).round()
                      .astype(int))  # (S,)
    traces = []
    for col, points in enumerate(trajectories, start=1):
        x_key, y_key = grid_axes(col - 1)
        axes = grid_refs(col - 1)
        traces.append(go.Scatter(x=np.cos(circle), y=np.sin(circle), mode="lines",
                                 line={"color": "#cccccc", "width": 1}, hoverinfo="skip",
                                 showlegend=False, **axes))
        traces.append(go.Scatter(
            x=points[shown, 0], y=points[shown, 1], mode="markers",
            marker={"size": 5, "color": positions[shown], "colorscale": "Viridis",
                    "cmin": 0, "cmax": max(positions[-1], 1), "showscale": col == 1,
                    "colorbar": {"title": {"text": message("fig.rope.rotation_colorbar", lang)},
                                 "x": 1.02}},
            customdata=positions[shown],
            hovertemplate=message("fig.rope.rotation_hover", lang),
            name=message("fig.rope.rotation_trace", lang), showlegend=False, **axes,
        ))
        for index, colour in ((0, TRAINED_COLOUR), (last, BEYOND_COLOUR)):  # from the origin
            traces.append(arrow_trace(np.zeros((1, 2)), points[[index]], color=colour, width=2,
                                      head=12, hoverinfo="skip", showlegend=False).update(axes))
        layout[x_key].update(range=[-1.25, 1.25], constrain="domain",
                             title={"text": message("fig.rope.rotation_x_title", lang)})
        layout[y_key].update(range=[-1.25, 1.25], scaleanchor=axes["xaxis"])
        if col == 1:
            layout[y_key]["title"] = {"text": message("fig.rope.rotation_y_title", lang)}
    for annotation in layout.get("annotations", []):
        annotation["font"] = {"size": 12}
    fig = go.Figure(data=traces, layout=layout)
    base_layout(fig, message("fig.rope.rotation_title", lang), height=460)
    fig.update_layout(margin={"t": 110})  # room for the two-line panel titles
    return fig


def make_rope_logits_figure(
    offsets: np.ndarray, curves: Mapping[str, np.ndarray], *, lang: Lang = "en"
) -> go.Figure:
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
            hovertemplate=message("fig.rope.logits_hover", lang, label=label),
            **style,
        ))
    fig.update_xaxes(title_text=message("fig.rope.logits_x_title", lang))
    fig.update_yaxes(title_text=message("fig.rope.logits_y_title", lang))
    fig.update_layout(legend={"orientation": "h", "y": -0.2})
    return base_layout(fig, message("fig.rope.logits_title", lang), height=420)


def make_rope_decay_figure(
    distances: np.ndarray, bounds: Mapping[str, np.ndarray], *, lang: Lang = "en"
) -> go.Figure:
    """RoFormer's relative upper bound against distance, one line per base."""
    fig = go.Figure()
    for label, values in bounds.items():
        fig.add_trace(go.Scatter(
            x=distances, y=values, mode="lines", name=label,
            hovertemplate=message("fig.rope.decay_hover", lang, label=label),
        ))
    fig.update_xaxes(title_text=message("fig.rope.decay_x_title", lang))
    fig.update_yaxes(title_text=message("fig.rope.decay_y_title", lang))
    fig.update_layout(legend={"orientation": "h", "y": -0.2})
    return base_layout(fig, message("fig.rope.decay_title", lang), height=420)


def make_context_extension_figure(extension: ContextExtension, *, lang: Lang = "en") -> go.Figure:
    """One panel per method: each pair's largest angle in training (grey) and at the target length;
    pairs that meet angles never seen in training are red. Log angle axis, 2π marked."""
    methods = list(extension.target)
    names = method_names(lang)
    titles = [
        message("fig.rope.extension_panel", lang, method=names.get(m, m),
                beyond=int(extension.beyond[m].sum()), pairs=extension.trained.size)
        for m in methods
    ]
    cols = min(len(methods), EXTENSION_COLUMNS)
    rows = -(-len(methods) // cols)
    # One layout dict and one figure (figures.common.grid_layout): ~34 -> ~10 ms a rerun.
    layout = grid_layout(rows, cols, titles=titles, shared_yaxes=True,
                         horizontal_spacing=0.2 / cols, vertical_spacing=0.22 if rows > 1 else 0.0)
    pairs = extension.pairs
    # The red markers' legend entry comes from a panel that has some.
    red_legend = next((m for m in methods if extension.beyond[m].any()), methods[0])
    traces = []
    for index, method in enumerate(methods):
        row = index // cols + 1
        x_key = grid_axes(index)[0]
        axes = grid_refs(index)
        first = index == 0  # one legend entry per kind of line
        traces += [
            go.Scatter(
                x=pairs, y=extension.target[method], mode="lines+markers",
                name=message("fig.rope.extension_target", lang, last=extension.target_length - 1),
                line={"color": TARGET_COLOUR, "width": 1.5},
                marker={"size": 5, "maxdisplayed": EXTENSION_MARKERS},
                showlegend=first, legendgroup="target",
                hovertemplate=message("fig.rope.extension_target_hover", lang), **axes),
            beyond_trace(pairs, extension.target[method], extension.beyond[method],
                         lang=lang, showlegend=method == red_legend,
                         markers=EXTENSION_MARKERS).update(axes),
            trained_trace(pairs, extension.trained,
                          message("fig.rope.extension_trained", lang,
                                  last=extension.train_length - 1),
                          lang=lang, showlegend=first).update(axes),
            full_turn_trace(pairs, lang=lang, showlegend=first).update(axes),
        ]
        if row == rows:  # the pair axis named once, under the last row
            layout[x_key]["title"] = {"text": message("fig.rope.extension_x_title", lang)}
    # Every panel (shared_yaxes matches ranges, not axis types); ticks at powers of ten only.
    for index in range(rows * cols):
        layout[grid_axes(index)[1]].update(type="log", dtick=1)
    for row in range(rows):
        layout[grid_axes(row * cols)[1]]["title"] = {
            "text": message("fig.rope.extension_y_title", lang)}
    for index in range(1, len(methods)):  # one angle range in every panel, rows included
        layout[grid_axes(index)[1]]["matches"] = "y"
    fig = go.Figure(data=traces, layout=layout)
    fig.update_layout(legend={"orientation": "h", "y": -0.25 / rows})
    fig.update_annotations(font={"size": 12})
    base_layout(
        fig,
        message("fig.rope.extension_title", lang, factor=extension.factor,
                train=extension.train_length, target=extension.target_length),
        height=480 + (rows - 1) * 340,
    )
    fig.update_layout(margin={"t": 110})  # room for the two-line panel titles
    return fig
