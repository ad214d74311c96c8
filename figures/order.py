"""Order in a real model: one head's attention with and without the learned positions, side by
side on one colour scale, and every head's change (bertviz's model view, as one matrix)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from figures.common import MAX_LIVE_NUMBERS, add_live_states, base_layout, plot_text
from locales import Lang, message, number_text

ATTENTION_SCALE = "Blues"
CHANGE_SCALE = "Oranges"


def token_labels(tokens: Sequence[str]) -> list[str]:
    """Tick labels that tell equal tokens apart: "the·1" and "the·5" (the position)."""
    return [f"{plot_text(token)}·{index}" for index, token in enumerate(tokens)]


def attention_top(learned: np.ndarray, blind: np.ndarray) -> float:
    """The top of the attention pair's colour scale: the largest weight in `learned` and
    `blind` (any shape: one head's pair, or every layer's and head's)."""
    return float(max(np.max(learned), np.max(blind), 1e-6))


def make_attention_pair_figure(
    tokens: Sequence[str], learned: np.ndarray, blind: np.ndarray, *, layer: int, head: int,
    top: float | None = None, lang: Lang = "en",
) -> go.Figure:
    """Layer `layer`, head `head` (1-based): `learned` and `blind` are ``(T, T)`` attentions
    (query rows, key columns) with the model's positions and without them, on one colour
    scale from 0 to `top`: the page gives every layer's and head's largest weight
    (`attention_top`), so that heads compare and a head's live state keeps the scale;
    by default the pair's own largest."""
    labels = token_labels(tokens)
    top = attention_top(learned, blind) if top is None else float(top)
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.12, subplot_titles=(
        message("fig.order.with_positions", lang), message("fig.order.without_positions", lang)))
    hover = message("fig.order.attention_hover", lang)
    for column, values in ((1, learned), (2, blind)):
        fig.add_trace(go.Heatmap(
            z=np.asarray(values, dtype=np.float32), x=labels, y=labels, coloraxis="coloraxis",
            hovertemplate=hover,
        ), row=1, col=column)
    fig.update_layout(coloraxis={"colorscale": ATTENTION_SCALE, "cmin": 0, "cmax": top,
                                 "colorbar": {"title": {"text": message("fig.order.weight",
                                                                        lang)}}})
    fig.update_yaxes(autorange="reversed", title_text=message("fig.order.query", lang), col=1)
    fig.update_yaxes(autorange="reversed", col=2)
    fig.update_xaxes(title_text=message("fig.order.key", lang), tickangle=-45)
    return base_layout(fig, message("fig.order.pair_title", lang, layer=layer, head=head),
                       height=520)


def add_attention_pair_states(fig: go.Figure, learned: np.ndarray, blind: np.ndarray, *,
                              layer: int, head: int, lang: Lang = "en") -> go.Figure:
    """The attention pair at every head of layer `layer` and every layer of head `head`
    (`learned`, `blind`: ``(layers, heads, T, T)``), so that dragging the head or layer slider
    draws each in the browser (`add_live_states`): the cells and the title, on the figure's
    colour scale (`attention_top` of them all, which every state keeps: the browser draws the
    cells alone). None for a sentence so long that they would weigh more than
    MAX_LIVE_NUMBERS (the chart then follows on release)."""
    layers, heads, tokens, _ = learned.shape
    if 2 * (layers + heads) * tokens * tokens > MAX_LIVE_NUMBERS:
        return fig

    def state(at_layer: int, at_head: int) -> tuple[dict, dict, list[int]]:
        a, b = learned[at_layer - 1, at_head - 1], blind[at_layer - 1, at_head - 1]  # (T, T)
        return ({"z": [np.round(a, 4).tolist(), np.round(b, 4).tolist()]},
                {"title.text": message("fig.order.pair_title", lang, layer=at_layer,
                                       head=at_head)},
                [0, 1])

    add_live_states(fig, "head", [(h, *state(layer, h)) for h in range(1, heads + 1)])
    return add_live_states(fig, "layer", [(ly, *state(ly, head)) for ly in range(1, layers + 1)])


def _outline(layer: int, head: int) -> dict:
    """The closed path around the head map's cell of (`layer`, `head`)."""
    left, right, top, bottom = head - 0.5, head + 0.5, layer - 0.5, layer + 0.5
    return {"x": [left, right, right, left, left], "y": [top, top, bottom, bottom, top]}


def add_head_outline_states(fig: go.Figure, *, layers: int, heads: int, layer: int,
                            head: int) -> go.Figure:
    """The head map's outline (its last trace) at every head of this layer and every layer of
    this head: it follows the sliders while they are dragged (`add_live_states`, animated: the
    outline alone is drawn again, not the map)."""
    outline = len(fig.data) - 1

    def state(at_layer: int, at_head: int) -> tuple[dict, dict, list[int]]:
        return {key: [value] for key, value in _outline(at_layer, at_head).items()}, {}, [outline]

    add_live_states(fig, "head", [(h, *state(layer, h)) for h in range(1, heads + 1)],
                    animate=True)
    return add_live_states(fig, "layer", [(ly, *state(ly, head)) for ly in range(1, layers + 1)],
                           animate=True)


def make_head_change_figure(
    change: np.ndarray, *, layer: int, head: int, marked: Sequence[tuple[int, int]],
    lang: Lang = "en",
) -> go.Figure:
    """Every head's change, ``(layers, heads)``: the largest |A_with - A_without| of its
    attention. `marked` (1-based (layer, head)) get a star; the head shown is outlined."""
    change = np.asarray(change, dtype=np.float64)
    layers, heads = change.shape
    fig = go.Figure(go.Heatmap(
        z=change, x=list(range(1, heads + 1)), y=list(range(1, layers + 1)),
        colorscale=CHANGE_SCALE, zmin=0,
        colorbar={"title": {"text": message("fig.order.change", lang)}},
        hovertemplate=message("fig.order.change_hover", lang),
    ))
    for mark_layer, mark_head in marked:
        fig.add_annotation(x=mark_head, y=mark_layer, text="★", showarrow=False,
                           font={"size": 16, "color": "#000000"})
    # A trace, not a shape: a drag moves it alone (`add_head_outline_states`).
    fig.add_trace(go.Scatter(**_outline(layer, head), mode="lines",
                             line={"color": "#0072B2", "width": 3}, hoverinfo="skip",
                             showlegend=False, cliponaxis=False))
    fig.update_xaxes(title_text=message("fig.order.head", lang), dtick=1)
    fig.update_yaxes(title_text=message("fig.order.layer", lang), dtick=1, autorange="reversed")
    return base_layout(fig, message("fig.order.change_title", lang), height=360)


def make_facts_figure(measures: Sequence[tuple[str, float, float]], *,
                      lang: Lang = "en") -> go.Figure:
    """The facts side by side, one panel per measure on an axis of its own (they are different
    quantities: a distance between attention rows, one between outputs, 1 - cosine): for each
    (label, with positions, without), two bars. Without positions the order-blind measures
    are 0."""
    count = max(len(measures), 1)
    fig = make_subplots(rows=1, cols=count, subplot_titles=[label for label, _, _ in measures],
                        horizontal_spacing=0.12 if count > 1 else 0.2)
    names = (message("fig.order.with_positions", lang),
             message("fig.order.without_positions", lang))
    for column, (_, learned, blind) in enumerate(measures, start=1):
        for name, value, colour in ((names[0], learned, "#0072B2"), (names[1], blind, "#E69F00")):
            fig.add_trace(go.Bar(x=[name], y=[value], marker_color=colour, name=name,
                                 legendgroup=name, showlegend=column == 1,
                                 # written for people: 7.47×10⁻⁸, not plotly's 7.47e-8
                                 text=[number_text(value)], texttemplate="%{text}",
                                 textposition="outside"),
                          row=1, col=column)
        top = max(learned, blind)
        fig.update_yaxes(range=[0, top * 1.25 + 1e-9], row=1, col=column)
        fig.update_xaxes(showticklabels=False, row=1, col=column)
    fig.update_layout(barmode="group", legend={"orientation": "h", "y": -0.12})
    return base_layout(fig, message("fig.order.facts_title", lang), height=420)


def make_causal_mean_figure(norms: np.ndarray, expected: np.ndarray, read: np.ndarray, *,
                            width: int, lang: Lang = "en") -> go.Figure:
    """NoPE (core.nope): left, |m_p| of each random sentence (`norms`, ``(draws, length)``) and
    1 / sqrt(p + 1) (`expected`) on log-log axes; right, the position read back from them
    (`read`: 10th, 50th, 90th percentiles, ``(3, length)``) against the true one."""
    norms = np.asarray(norms, dtype=np.float64)
    draws, length = norms.shape
    positions = np.arange(length)
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.12, subplot_titles=(
        message("fig.order.nope_norm_title", lang), message("fig.order.nope_read_title", lang)))
    hover = message("fig.order.nope_norm_hover", lang)
    for draw in range(draws):
        fig.add_trace(go.Scatter(
            x=positions + 1, y=norms[draw], mode="lines", line={"color": "#56B4E9", "width": 1},
            name=message("fig.order.nope_draws", lang), legendgroup="draws",
            showlegend=draw == 0, customdata=positions, hovertemplate=hover,
        ), row=1, col=1)
    fig.add_trace(go.Scatter(
        x=positions + 1, y=expected, mode="lines",
        line={"color": "#D55E00", "width": 3, "dash": "dash"},
        name=message("fig.order.nope_expected", lang), customdata=positions, hovertemplate=hover,
    ), row=1, col=1)
    low, middle, high = read
    fig.add_trace(go.Scatter(
        x=np.concatenate([positions, positions[::-1]]), y=np.concatenate([high, low[::-1]]),
        fill="toself", fillcolor="rgba(0, 114, 178, 0.18)", line={"width": 0},
        name=message("fig.order.nope_spread", lang), hoverinfo="skip",
    ), row=1, col=2)
    fig.add_trace(go.Scatter(
        x=positions, y=middle, mode="lines", line={"color": "#0072B2", "width": 2},
        name=message("fig.order.nope_read", lang),
        hovertemplate=message("fig.order.nope_read_hover", lang),
    ), row=1, col=2)
    fig.add_trace(go.Scatter(
        x=[0, length - 1], y=[0, length - 1], mode="lines",
        line={"color": "#8C8C8C", "width": 1, "dash": "dot"},
        name=message("fig.order.nope_truth", lang), hoverinfo="skip",
    ), row=1, col=2)
    fig.update_xaxes(type="log", title_text=message("fig.order.nope_count", lang), row=1, col=1)
    fig.update_yaxes(type="log", title_text=message("fig.order.nope_norm", lang), row=1, col=1)
    fig.update_xaxes(title_text=message("fig.order.nope_position", lang), row=1, col=2)
    fig.update_yaxes(title_text=message("fig.order.nope_read_axis", lang), row=1, col=2,
                     range=[-0.05 * length, 1.6 * length])
    fig.update_layout(legend={"orientation": "h", "y": -0.2})
    return base_layout(fig, message("fig.order.nope_title", lang, width=width), height=460)
