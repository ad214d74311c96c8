"""The other relative schemes beside ALiBi: T5's buckets and xPos's decay."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from core.bias_curves import T5Buckets, XposDecay
from figures.common import base_layout
from locales import Lang, message

ENCODER_COLOUR = "#0072b2"
DECODER_COLOUR = "#d55e00"
MARK_COLOUR = "#7f7f7f"


def _vertical_lines(xs: list[float], low: float, high: float) -> tuple[list, list]:
    """x and y of vertical segments at `xs` from `low` to `high`, as one line trace draws them."""
    x: list = []
    y: list = []
    for position in xs:
        x += [position, position, None]
        y += [low, high, None]
    return x, y


def make_t5_buckets_figure(buckets: T5Buckets, *, lang: Lang = "en") -> go.Figure:
    """Bucket against key - query, the encoder's (both directions) and the decoder's (the past
    only) as steps; dotted: where one bucket per distance gives way to log-spaced buckets;
    dashed: max_distance, past which every distance shares the last bucket."""
    fig = go.Figure()
    for values, name, colour in (
        (buckets.bidirectional, message("fig.relative_bias.encoder", lang), ENCODER_COLOUR),
        (buckets.causal, message("fig.relative_bias.decoder", lang), DECODER_COLOUR),
    ):
        fig.add_trace(go.Scatter(
            x=buckets.relative.astype(np.int32), y=values.astype(np.int32), mode="lines",
            line={"shape": "hv", "color": colour, "width": 2}, name=name,
            hovertemplate=message("fig.relative_bias.bucket_hover", lang, name=name),
        ))
    top = buckets.num_buckets - 1
    reach = int(buckets.relative.max())
    exact = [x for x in (-buckets.exact_bidirectional, buckets.exact_bidirectional,
                         -buckets.exact_causal) if abs(x) <= reach]
    x, y = _vertical_lines(exact, 0, top)
    fig.add_trace(go.Scatter(x=x, y=y, mode="lines", hoverinfo="skip",
                             line={"color": MARK_COLOUR, "dash": "dot", "width": 1.5},
                             name=message("fig.relative_bias.exact_edge", lang)))
    if buckets.max_distance <= reach:
        x, y = _vertical_lines([-buckets.max_distance, buckets.max_distance], 0, top)
        fig.add_trace(go.Scatter(x=x, y=y, mode="lines", hoverinfo="skip",
                                 line={"color": MARK_COLOUR, "dash": "dash", "width": 1.5},
                                 name=message("fig.relative_bias.max_distance", lang)))
    fig.update_xaxes(title_text=message("fig.relative_bias.bucket_x_title", lang))
    fig.update_yaxes(title_text=message("fig.relative_bias.bucket_y_title", lang),
                     range=[-0.5, top + 0.5])
    fig.update_layout(legend={"orientation": "h", "y": -0.22, "x": 0})
    base_layout(fig, message("fig.relative_bias.bucket_title", lang,
                             buckets=buckets.num_buckets, max_distance=buckets.max_distance),
                height=460)
    fig.update_layout(margin={"b": 120})
    return fig


def make_t5_matrix_figure(matrix: np.ndarray, *, bidirectional: bool,
                          lang: Lang = "en") -> go.Figure:
    """The bucket of every (query i, key j): a head adds its learned scalar for that bucket, so
    every diagonal shares one bias and far distances share a few."""
    positions = matrix.shape[0]
    fig = go.Figure(go.Heatmap(
        z=matrix, x=np.arange(positions, dtype=np.int32), y=np.arange(positions, dtype=np.int32),
        colorscale="Cividis", zmin=0,
        colorbar={"title": {"text": message("fig.relative_bias.bucket_colorbar", lang)}},
        hovertemplate=message("fig.relative_bias.matrix_hover", lang),
    ))
    fig.update_xaxes(title_text=message("fig.alibi.head_x_title", lang), constrain="domain")
    fig.update_yaxes(title_text=message("fig.alibi.head_y_title", lang), autorange="reversed",
                     scaleanchor="x", constrain="domain")
    title = "fig.relative_bias.matrix_title_encoder" if bidirectional else (
        "fig.relative_bias.matrix_title_decoder")
    return base_layout(fig, message(title, lang, positions=positions), height=520)


MAX_CURVE_POINTS = 1024  # points per line: the curves are smooth at this spacing


def make_xpos_figure(decay: XposDecay, *, d_head: int, gamma: float, scale_base: int,
                     lang: Lang = "en") -> go.Figure:
    """q.k against distance: RoPE's oscillation stays, xPos's is damped by its envelope."""
    keep = np.unique(np.linspace(0, decay.distances.size - 1,
                                 min(decay.distances.size, MAX_CURVE_POINTS)).round().astype(int))
    x = decay.distances[keep].astype(np.int32)
    fig = go.Figure()
    for values, key, colour, dash in (
        (decay.rope, "fig.relative_bias.rope", ENCODER_COLOUR, "solid"),
        (decay.xpos, "fig.relative_bias.xpos", DECODER_COLOUR, "solid"),
        (decay.envelope, "fig.relative_bias.envelope", MARK_COLOUR, "dash"),
    ):
        name = message(key, lang)
        fig.add_trace(go.Scatter(
            x=x, y=values[keep].astype(np.float32), mode="lines", name=name,
            line={"color": colour, "dash": dash, "width": 2},
            hovertemplate=message("fig.relative_bias.decay_hover", lang, name=name),
        ))
    fig.update_xaxes(title_text=message("fig.relative_bias.decay_x_title", lang))
    fig.update_yaxes(title_text=message("fig.relative_bias.decay_y_title", lang))
    fig.update_layout(legend={"orientation": "h", "y": -0.22, "x": 0})
    base_layout(fig, message("fig.relative_bias.decay_title", lang, d_head=d_head, gamma=gamma,
                             scale_base=scale_base), height=460)
    fig.update_layout(margin={"b": 120})
    return fig
