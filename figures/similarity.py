"""Similarity page: PE·PE^T, the offset curve against a random table, distances, M_k."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from core.overview import Overview
from core.similarity import PairwiseSimilarity, RotatedPair
from figures.common import (
    DIVERGING,
    MAX_LIVE_NUMBERS,
    NEUTRAL,
    State,
    add_live_states,
    add_span,
    add_states_within_budget,
    base_layout,
    heaviest_state,
    live_values,
    state_weight,
    typed_array,
)
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


# --- live states (figures.common.add_live_states): what a drag draws before the release ------


def _rounded(values: np.ndarray) -> list:
    """Numbers of a state as JSON lists them: to a float32's 7 significant digits of the
    largest (what the figure's own float32 arrays hold), an exact 0 as 0 (M_k's window is
    mostly zeros: listed, it takes half the bytes of its float32 array)."""
    values = np.asarray(values, dtype=np.float64)
    largest = float(np.max(np.abs(values), initial=0.0))
    decimals = max(0, 6 - int(np.floor(np.log10(largest)))) if largest > 0 else 0
    rounded = np.round(values, decimals) + 0.0  # -0.0 -> 0.0
    listed = rounded.astype(object)
    listed[rounded == 0] = 0
    return listed.tolist()


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
    # Square cells at any size (a phone's tall chart, a slide's wide one): each diagonal at 45°,
    # the matrix's point. The plot shrinks to its square (constrain), the axes keep their range.
    fig.update_xaxes(constrain="domain")
    fig.update_yaxes(scaleanchor="x", scaleratio=1, constrain="domain")
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
                   name="Σ<sub>i</sub> cos(ω<sub>i</sub>k)",
                   hovertemplate="k = %{x}<br>%{y:.5f}<extra></extra>"),
        row=1, col=1,
    )
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
    # ±k: a trace of its own, drawn last (on top): dragging the offset or the anchor moves it
    # alone (`add_offset_mark_states`), the 4,000 points staying as drawn.
    half_span = float(np.max(np.abs(curve_offsets)))
    fig.add_trace(go.Scatter(**_offset_marks(offset, offset_value, anchor, positions, lang,
                                             half_span=half_span),
                             mode="markers+text",
                             marker={"symbol": "diamond", "size": 14, "color": NEUTRAL,
                                     "line": {"width": 0}},
                             name=message("fig.similarity.offset_marks", lang),
                             hoverinfo="skip", cliponaxis=False),
                  row=1, col=1)
    fig.update_xaxes(title_text=message("fig.similarity.offset_x_title", lang))
    fig.update_yaxes(title_text=METRIC_LABEL[metric], row=1, col=1)
    fig.update_layout(legend={"orientation": "h", "y": -0.22})
    return base_layout(fig, message("fig.similarity.offset_title", lang), height=500)


# A ±k label is written above its mark, away from the centre; once the mark is past this fraction
# of the axis's half, under it, toward the centre (a label naming q is ~170 px of the panel's ~430
# at 1440 x 900): the −k label at the left end no longer runs over the y axis's numbers and out of
# the chart, and it stays off the curve, which rises toward the centre.
INWARD_LABELS = 0.2


def _offset_marks(offset: int, height: float, anchor: int | None, positions: int | None,
                  lang: Lang, *, half_span: float | None = None) -> dict:
    """The ±k marks' x, y and labels, −k then +k, at `height`: given the anchor p (and the
    table's `positions`), each label names the position q = p ± k it pairs p with, or says
    that the table has no such position. Past INWARD_LABELS of the x axis's `half_span` the
    labels go under their marks, toward the centre, the right one a line lower (they may
    cross each other)."""
    inward = half_span is not None and abs(offset) > INWARD_LABELS * half_span
    xs, texts, places = [], [], []
    for sign, label in ((-1, f"−k = {-offset}"), (1, f"k = {offset}")):
        label = label.replace("-", "−")
        if anchor is not None:
            neighbour = anchor + sign * offset
            inside = 0 <= neighbour < (positions or neighbour + 1)
            label = message("fig.similarity.offset_mark_at" if inside
                            else "fig.similarity.offset_mark_outside", lang, k=label,
                            q=str(neighbour).replace("-", "−"))
        x = sign * offset
        on_left = x < 0 or (x == 0 and sign < 0)
        places.append(("bottom " if inward else "top ")
                      + ("right" if on_left == inward else "left"))
        if inward and not on_left:
            label = " <br>" + label  # an empty line over it lowers it
        xs.append(x)
        texts.append(label)
    return {"x": xs, "y": [height, height], "text": texts, "textposition": places}


def add_offset_mark_states(
    fig: go.Figure, *, curve_offsets: np.ndarray, curve: np.ndarray, offset: int,
    offset_value: float, anchor: int, positions: int, lang: Lang = "en",
) -> go.Figure:
    """The ±k marks of `make_offset_scatter_figure` (drawn at `offset`, at `offset_value`,
    and `anchor`) at every offset of the table (their height read off `curve` at
    `curve_offsets`) and labelled for every anchor, so that dragging the offset or the anchor
    slider moves them in the browser (`add_live_states`, animated: the marks' trace alone;
    evenly spaced values when they do not all fit)."""
    marks = len(fig.data) - 1  # the last trace
    half_span = float(np.max(np.abs(curve_offsets)))

    def state(at_offset: int, at_anchor: int) -> State:
        height = offset_value if at_offset == offset else float(
            curve[np.searchsorted(curve_offsets, at_offset)])
        drawn = _offset_marks(at_offset, height, at_anchor, positions, lang,
                              half_span=half_span)
        return {key: [value] for key, value in drawn.items()}, {}, [marks]

    last = positions - 1
    return add_states_within_budget(fig, {
        "offset": (lambda k: state(k, anchor), -last, last, offset),
        "anchor": (lambda p: state(offset, p), 0, last, anchor),
    }, animate=True)


def _anchor_texts(n: int, anchor: int, metric: str, zoom: int,
                  lang: Lang) -> tuple[int, int, dict[str, str]]:
    """The zoom's positions [low, high) around `anchor` and the texts that name the anchor."""
    low, high = max(0, anchor - zoom), min(n, anchor + zoom + 1)
    name = _metric_name(metric, lang)
    return low, high, {
        "hover": message("fig.similarity.anchor_hover", lang, metric=name, anchor=anchor),
        "zoom": message("fig.similarity.anchor_zoom", lang, low=low, high=high - 1),
        "y_title": message("fig.similarity.anchor_y_title", lang, metric=name, anchor=anchor),
        "title": message("fig.similarity.anchor_title", lang, anchor=anchor),
    }


def make_anchor_profile_figure(
    profile: np.ndarray, *, anchor: int, metric: str, zoom: int = 50, lang: Lang = "en"
) -> go.Figure:
    """The TensorFlow tutorial's picture: similarity of every position to `anchor`, and a zoom."""
    n = profile.size
    low, high, texts = _anchor_texts(n, anchor, metric, zoom, lang)
    fig = make_subplots(
        rows=1, cols=2, column_widths=[0.62, 0.38], horizontal_spacing=0.08,
        subplot_titles=(message("fig.similarity.anchor_all", lang, n=n), texts["zoom"]),
    )
    positions = np.arange(n)
    for col, (a, b) in ((1, (0, n)), (2, (low, high))):
        fig.add_trace(
            go.Scatter(x=_f32(positions[a:b]), y=_f32(profile[a:b]),
                       mode="lines" if col == 1 else "lines+markers",
                       line={"color": SINUSOID_COLOR}, marker={"size": 4}, showlegend=False,
                       hovertemplate=texts["hover"]),
            row=1, col=col,
        )
        add_span(fig, "vline", anchor, panel=col - 1, line={"dash": "dot", "color": CURVE_COLOR})
    fig.update_xaxes(title_text=message("fig.similarity.anchor_x_title", lang))
    fig.update_yaxes(title_text=texts["y_title"], row=1, col=1)
    return base_layout(fig, texts["title"], height=420)


def add_anchor_profile_states(
    fig: go.Figure, similarity: np.ndarray, *, anchor: int, metric: str, zoom: int = 50,
    lang: Lang = "en",
) -> go.Figure:
    """`make_anchor_profile_figure` (drawn at `anchor`) at the anchors of the table, so that
    dragging the anchor slider draws each row in the browser (`add_live_states`). A row is
    `similarity` ``(2n - 1,)``, f(k) for k = -(n - 1) .. n - 1, read from k = -anchor: each
    state carries it (n numbers and the zoom's), so at large n evenly spaced anchors only."""
    n = (similarity.size + 1) // 2
    positions = _f32(np.arange(n))

    def state(at: int) -> State:
        profile = _f32(similarity[n - 1 - at : 2 * n - 1 - at])  # (n,) f(q - at), q = 0 .. n-1
        low, high, texts = _anchor_texts(n, at, metric, zoom, lang)
        # The figure's float32 arrays as it sends them (no more bytes than rounded decimals).
        # Trace i takes entry i of each list: the full curve's x (unchanged) is sent too.
        return (
            {"x": [typed_array(positions), typed_array(positions[low:high])],
             "y": [typed_array(profile), typed_array(profile[low:high])],
             "hovertemplate": texts["hover"]},
            {"title.text": texts["title"], "yaxis.title.text": texts["y_title"],
             "annotations[1].text": texts["zoom"], "shapes[0].x0": at, "shapes[0].x1": at,
             "shapes[1].x0": at, "shapes[1].x1": at},
            [0, 1],
        )

    return add_states_within_budget(fig, {"anchor": (state, 0, n - 1, anchor)})


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
                       name="√(d − 2 Σ<sub>i</sub> cos(ω<sub>i</sub>k))",
                       hovertemplate="k = %{x}<br>%{y:.5f}<extra></extra>"),
        ]
    )
    fig.update_xaxes(title_text="|p − q|")
    fig.update_yaxes(title_text="‖PE[p] − PE[q]‖", rangemode="tozero")
    fig.update_layout(legend={"orientation": "h", "y": -0.2})
    return base_layout(fig, message("fig.similarity.distance_title", lang), height=420)


def _shift_title(offset: int, size: int, d_model: int, lang: Lang) -> str:
    if size == d_model:
        return message("fig.similarity.shift_title", lang, offset=offset)
    return message("fig.similarity.shift_title_window", lang, offset=offset, size=size,
                   d_model=d_model)


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
    fig = make_pe_heatmap_figure(
        window, title=_shift_title(offset, size, d_model, lang),
        x_title=message("fig.similarity.shift_x_title", lang),
        y_title=message("fig.similarity.shift_y_title", lang), lang=lang,
    )
    fig.update_traces(
        colorscale=DIVERGING, colorbar={"title": {"text": "M<sub>k</sub>"}},
        hovertemplate=message("fig.similarity.shift_hover", lang),
    )
    fig.update_xaxes(constrain="domain")  # with scaleanchor: shrink the plot, do not pad
    fig.update_yaxes(scaleanchor="x", scaleratio=1, constrain="domain")
    fig.update_layout(height=480)
    return fig


ARC_POINTS = 60  # the arc of w_i k: smooth at any angle
ARC_RADIUS = 0.35


def _rotation_parts(rotated: RotatedPair, position: int, offset: int,
                    lang: Lang) -> dict[str, object]:
    """What `make_rotation_figure` draws of pair i at `position` and `position + offset`:
    the arc of w_i k, each vector's end (cos, sin), the traces' names and the titles."""
    start = np.arctan2(rotated.before[1], rotated.before[0])
    # The angle swept, w_i k, drawn modulo a full turn (the vector cannot show whole turns).
    wrapped = float(np.mod(rotated.rotation + np.pi, 2 * np.pi) - np.pi)  # in [-pi, pi)
    arc = start + np.linspace(0, wrapped, ARC_POINTS)
    i = rotated.pair
    if abs(wrapped - rotated.rotation) < 1e-9:
        arc_name = message("fig.similarity.rotation_arc", lang, i=i, rotation=rotated.rotation)
    else:
        arc_name = message("fig.similarity.rotation_arc_wrapped", lang, i=i,
                           rotation=rotated.rotation, wrapped=wrapped)
    return {
        "arc": (ARC_RADIUS * np.cos(arc), ARC_RADIUS * np.sin(arc)),
        "ends": [(float(x), float(y)) for x, y in (rotated.before, rotated.after,
                                                   rotated.rotated)],
        "names": [arc_name,
                  message("fig.similarity.rotation_pair", lang, i=i, position=position),
                  message("fig.similarity.rotation_pair", lang, i=i, position=position + offset),
                  message("fig.similarity.rotation_moved", lang, position=position)],
        "x_title": message("fig.similarity.rotation_x_title", lang, i=i, dim=2 * i + 1),
        "y_title": message("fig.similarity.rotation_y_title", lang, i=i, dim=2 * i),
        "title": message("fig.similarity.rotation_title", lang, i=i),
    }


def make_rotation_figure(
    rotated: RotatedPair, *, position: int, offset: int, lang: Lang = "en"
) -> go.Figure:
    """One frequency pair as a vector (cos, sin) on the unit circle: M_k turns it by w_i k."""
    theta = np.linspace(0, 2 * np.pi, 181)
    parts = _rotation_parts(rotated, position, offset, lang)
    arc_x, arc_y = parts["arc"]
    before, after, moved = parts["ends"]
    arc_name, before_name, after_name, moved_name = parts["names"]
    fig = go.Figure(
        [
            go.Scatter(x=np.cos(theta), y=np.sin(theta), mode="lines",
                       line={"color": "#bbbbbb"}, hoverinfo="skip", showlegend=False),
            go.Scatter(x=arc_x, y=arc_y, mode="lines", line={"color": "#2ca02c", "width": 2},
                       name=arc_name, hoverinfo="skip"),
            go.Scatter(x=[0, before[0]], y=[0, before[1]], mode="lines+markers",
                       line={"color": "#1f77b4", "width": 3}, marker={"size": [0, 10]},
                       name=before_name,
                       hovertemplate="(cos, sin) = (%{x:.5f}, %{y:.5f})<extra></extra>"),
            go.Scatter(x=[0, after[0]], y=[0, after[1]], mode="lines+markers",
                       line={"color": CURVE_COLOR, "width": 3}, marker={"size": [0, 10]},
                       name=after_name,
                       hovertemplate="(cos, sin) = (%{x:.5f}, %{y:.5f})<extra></extra>"),
            go.Scatter(x=[moved[0]], y=[moved[1]], mode="markers",
                       marker={"size": 16, "symbol": "circle-open", "color": NEUTRAL,
                               "line": {"width": 2}},
                       name=moved_name,
                       hovertemplate="(cos, sin) = (%{x:.5f}, %{y:.5f})<extra></extra>"),
        ]
    )
    fig.update_xaxes(title_text=parts["x_title"], range=[-1.25, 1.25])
    fig.update_yaxes(title_text=parts["y_title"], range=[-1.25, 1.25], scaleanchor="x",
                     scaleratio=1)
    fig.update_layout(legend={"orientation": "h", "y": -0.25})
    return base_layout(fig, parts["title"], height=480)


def add_rotation_view_states(
    shift: go.Figure, rotation: go.Figure, *, window_at: Callable[[int], np.ndarray],
    rotation_at: Callable[[int, int, int], tuple[int, RotatedPair]], anchor: int,
    offset: int, pair: int, positions: int, d_model: int, lang: Lang = "en",
) -> tuple[go.Figure, go.Figure]:
    """The rotation view's two charts (`make_shift_matrix_figure`, `make_rotation_figure`,
    drawn at `anchor`, `offset`, `pair`) at the values of the table, so that dragging a slider
    draws them in the browser (`add_live_states`): M_k's window (`window_at(k)`) at each
    offset; the pair (`rotation_at(anchor, offset, pair)` -> its position and the pair) at
    each anchor, offset and pair. Both charts preview the same offsets: as many as M_k's
    window (up to 32 x 32 numbers a state) can carry, and half the rotation's budget."""
    def shift_state(k: int) -> State:
        window = window_at(k)  # (size, size)
        # The drawn one as the figure sends it (a float32 array); the others in fewer bytes.
        z = typed_array(window.astype(np.float32)) if k == offset else _rounded(window)
        return ({"z": [z]},
                {"title.text": _shift_title(k, window.shape[0], d_model, lang)}, [0])

    def rotation_state(at_anchor: int, at_offset: int, at_pair: int, *,
                       titles: bool = False) -> State:
        position, rotated = rotation_at(at_anchor, at_offset, at_pair)
        parts = _rotation_parts(rotated, position, at_offset, lang)
        arc_x, arc_y = parts["arc"]
        ends = parts["ends"]
        # The titles name the pair alone: only its states carry them (a tenth of a state).
        layout = {"title.text": parts["title"], "xaxis.title.text": parts["x_title"],
                  "yaxis.title.text": parts["y_title"]} if titles else {}
        # The arc in float32 (a thousandth of a pixel; fewer bytes than decimals), the drawn
        # one's the figure's own float64. The ends are exact.
        drawn = (at_anchor, at_offset, at_pair) == (anchor, offset, pair)
        arc_x, arc_y = (typed_array(a if drawn else a.astype(np.float32)) for a in (arc_x, arc_y))
        return (
            {"x": [arc_x, *([0, x] for x, _ in ends[:2]), [ends[2][0]]],
             "y": [arc_y, *([0, y] for _, y in ends[:2]), [ends[2][1]]],
             "name": parts["names"]},
            layout,
            [1, 2, 3, 4],
        )

    last = positions - 1
    # The offsets both charts preview: as many as M_k's window allows, and at most half of the
    # rotation's budget (weighed at its longest texts). They depend on the offset alone: a
    # change of the anchor or the pair leaves M_k's figure as it was, not drawn again.
    count = min(MAX_LIVE_NUMBERS // heaviest_state(shift_state, -last, last, offset),
                MAX_LIVE_NUMBERS // 2 // state_weight(rotation_state(last, last, d_model // 2 - 1)))
    offsets = live_values(-last, last, drawn=offset, per_state=1, most=count - 1)  # weighed
    if offsets:
        add_live_states(shift, "offset", [(k, *shift_state(k)) for k in offsets])
    add_states_within_budget(rotation, {
        "anchor": (lambda p: rotation_state(p, offset, pair), 0, last, anchor),
        "offset": (lambda k: rotation_state(anchor, k, pair), -last, last, offset),
        "pair": (lambda i: rotation_state(anchor, offset, i, titles=True), 0, d_model // 2 - 1,
                 pair),
    }, fixed={"offset": offsets})
    return shift, rotation
