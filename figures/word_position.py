"""Word + position: token vectors, position vectors and their sums, projected (2-D or 3-D)."""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from figures.common import arrow_trace, base_layout, plot_text, segments
from locales import Lang, message

# Above this many tokens the points carry no text labels (they would cover each other); hover
# still names every point.
MAX_LABELLED_TOKENS = 40

TOKEN_COLOUR = "#1f77b4"
POSITION_COLOUR = "#7f7f7f"
SUM_COLOUR = "#d62728"


def _merge_coincident(points: np.ndarray, labels: list[str]) -> list[str]:
    """Points drawn at the same place (the article's X_the == X_mat) get one joined label
    ("the @4 = mat @5") on the first and none on the others, so the text stays readable."""
    merged = list(labels)
    scale = max(float(np.abs(points).max(initial=0.0)), 1.0)
    taken = np.zeros(len(points), dtype=bool)
    for i in range(len(points)):
        if taken[i]:
            continue
        # np.allclose(points[i], points[j], atol=1e-9 * scale) for every later j at once (one
        # allclose per pair took 20 s at 350 tokens; a whole pair matrix costs n^2 memory)
        later = points[i + 1:]
        close = np.all(np.abs(points[i] - later) <= 1e-9 * scale + 1e-5 * np.abs(later), axis=1)
        same = list(np.flatnonzero(close & ~taken[i + 1:]) + i + 1)
        if same:
            names = dict.fromkeys([labels[i]] + [labels[j] for j in same])  # unique, in order
            merged[i] = " = ".join(names)
            for j in same:
                merged[j] = ""
            taken[same] = True
    return merged


# Where a point's label may go, in order of preference, as (plotly textposition, the label
# box's centre offset from the point in text heights / widths).
LABEL_PLACES = (
    ("top center", (0.0, 0.9)), ("bottom center", (0.0, -0.9)),
    ("middle right", (0.62, 0.0)), ("middle left", (-0.62, 0.0)),
    ("top right", (0.6, 0.8)), ("top left", (-0.6, 0.8)),
    ("bottom right", (0.6, -0.8)), ("bottom left", (-0.6, -0.8)),
)
LABEL_FONT_PX = 17  # the label's size on a slide (the largest it is drawn): boxes as drawn there
PLOT_HEIGHT_PX = 420  # the 2-D plot's height (equal units: the y range sets the scale)
# On a phone (the chart element's NARROW_WIDTH) the plot is a square ~270 px wide, the labels
# 12 px (boxes taken as 13 px: room to spare): placed again for it, sent in layout.meta.narrow
# (ui/chart/fit.js `useNarrow`).
NARROW_PLOT_PX = 260
NARROW_FONT_PX = 13


def place_labels(
    groups: Sequence[tuple[np.ndarray, Sequence[str]]], *, plot_px: int = PLOT_HEIGHT_PX,
    font_px: int = LABEL_FONT_PX, square: bool = False,
) -> list[tuple[list, list]]:
    """Labels that do not cover each other or a point: for each group of (points (n, 2),
    labels), in order of priority, each label at the first of LABEL_PLACES where its box (as
    drawn at `font_px` on a `plot_px` tall plot of equal units) overlaps no label placed
    before and no other point; a label with no such place is left out (hover still names the
    point). `square`: the plot is as wide as it is tall (a phone's), its ranges the points'
    larger span, and a label must also stay inside them (plotly clips text at the axes).
    Returns per group (labels, textpositions)."""
    every = np.concatenate([np.asarray(points, dtype=np.float64) for points, _ in groups])
    low, high = every.min(axis=0), every.max(axis=0)
    span = max(float(high[1] - low[1]), float(high[0] - low[0]) * (1.0 if square else 0.4),
               1e-9)
    unit = span * 1.15 / plot_px  # data units per pixel
    line = font_px * 1.25 * unit
    boxes: list[tuple[float, float, float, float]] = []  # placed labels: x0, y0, x1, y1
    dot = 6 * unit  # a marker's half size
    centre, reach = (low + high) / 2, span / 2 + dot  # a square plot's ranges, about

    def free(box) -> bool:
        x0, y0, x1, y1 = box
        if square and (x0 < centre[0] - reach or x1 > centre[0] + reach
                       or y0 < centre[1] - reach or y1 > centre[1] + reach):
            return False
        if any(x0 < b[2] and b[0] < x1 and y0 < b[3] and b[1] < y1 for b in boxes):
            return False
        inside = ((every[:, 0] > x0 - dot) & (every[:, 0] < x1 + dot)
                  & (every[:, 1] > y0 - dot) & (every[:, 1] < y1 + dot))
        return not inside.any()

    placed = []
    for points, labels in groups:
        points = np.asarray(points, dtype=np.float64)
        labels = list(labels)
        # Points closer than a marker on screen share one label ("P1, P2, P3").
        for i in range(len(points)):
            if not labels[i]:
                continue
            for j in range(i + 1, len(points)):
                if labels[j] and np.abs(points[i] - points[j]).max() < 2 * dot:
                    labels[i] = f"{labels[i]}, {labels[j]}"
                    labels[j] = ""
        texts, where = [""] * len(labels), ["top center"] * len(labels)
        # The longest first (a shared label, "the @4 = mat @5", says most and fits least).
        for i in sorted(range(len(labels)), key=lambda i: -len(labels[i])):
            if not labels[i]:
                continue
            x, y = points[i]
            width = len(html.unescape(labels[i])) * font_px * (0.5 if square else 0.6) * unit
            for position, (dx, dy) in LABEL_PLACES:
                if square:  # as plotly places a small label: its edge a marker's half away
                    cx = x + np.sign(dx) * (width / 2 + dot + 2 * unit)
                    cy = y + np.sign(dy) * (line / 2 + dot)
                else:
                    cx, cy = x + dx * (width + 2 * dot), y + dy * (line + dot)
                box = (cx - width / 2, cy - line / 2, cx + width / 2, cy + line / 2)
                if free(box):
                    boxes.append(box)
                    texts[i], where[i] = labels[i], position
                    break
        placed.append((texts, where))
    return placed


def projection_axis_titles(projection, lang: Lang = "en", *,
                           pair: tuple[str, int, int] | None = None) -> tuple[str, ...]:
    """Axis titles for a `core.word_position.Projection` in `lang`: "dimension 0" for raw
    coordinates, "PC1 (42.0% of variance)" for principal components; a "contrast" projection's
    last axis names its repeated word's two positions, `pair` (token, first, second)."""
    if projection.method == "raw":
        return tuple(message("fig.word_position.axis_dimension", lang, i=i)
                     for i in range(projection.coordinates.shape[1]))
    ratios = projection.explained_variance_ratio
    if projection.method == "contrast" and pair is not None:
        token, first, second = pair
        return (*(message("fig.word_position.axis_pc", lang, number=i + 1, ratio=ratio)
                  for i, ratio in enumerate(ratios[:-1])),
                message("fig.word_position.axis_pair", lang, token=plot_text(token),
                        first=first, second=second, ratio=ratios[-1]))
    return tuple(message("fig.word_position.axis_pc", lang, number=i + 1, ratio=ratio)
                 for i, ratio in enumerate(ratios))


def make_word_position_figure(
    coordinates: np.ndarray,
    tokens: Sequence[str],
    positions: Sequence[int],
    *,
    axis_titles: Sequence[str],
    title: str,
    sum_label: str | None = None,
    lang: Lang = "en",
) -> go.Figure:
    """The projected points: token embeddings (blue), position vectors (grey), sums (red), and an
    arrow from each token to its sum (what adding the position did to it).

    `coordinates` is ``(3n, k)`` with k = 2 or 3: rows [0, n) tokens, [n, 2n) positions,
    [2n, 3n) sums, as `core.word_position.project_word_position` returns them. `sum_label`
    names the sums (default: "token + position" in `lang`).
    """
    if sum_label is None:
        sum_label = message("fig.word_position.sum_name", lang)
    arrow_name = message("fig.word_position.arrow_name", lang)
    token_name = message("fig.word_position.token_name", lang)
    position_name = message("fig.word_position.position_name", lang)
    n = len(tokens)
    coordinates = np.asarray(coordinates, dtype=np.float64)
    if coordinates.ndim != 2 or coordinates.shape[0] != 3 * n or coordinates.shape[1] not in (2, 3):
        raise ValueError(
            f"coordinates must have shape (3 * {n}, 2 or 3), got {coordinates.shape}"
        )
    token_xy, position_xy, sum_xy = coordinates[:n], coordinates[n : 2 * n], coordinates[2 * n :]
    names = [plot_text(t) for t in tokens]
    at = [f"{name} @{p}" for name, p in zip(names, positions, strict=True)]
    labelled = n <= MAX_LABELLED_TOKENS
    mode = "markers+text" if labelled else "markers"
    three_d = coordinates.shape[1] == 3
    scatter = go.Scatter3d if three_d else go.Scatter

    def xyz(points: np.ndarray) -> dict:
        axes = {"x": points[:, 0], "y": points[:, 1]}
        if three_d:
            axes["z"] = points[:, 2]
        return axes

    token_text = _merge_coincident(token_xy, names)
    position_text = _merge_coincident(position_xy, [f"P{p}" for p in positions])
    sum_text = _merge_coincident(sum_xy, at)
    token_where = position_where = sum_where = None
    narrow = None
    if labelled and not three_d:  # 2-D: labels placed apart (3-D turns: plotly places them)
        groups = [(sum_xy, sum_text), (token_xy, token_text), (position_xy, position_text)]
        (sum_text, sum_where), (token_text, token_where), (position_text, position_where) = (
            place_labels(groups))
        # The traces' labels as placed for a phone's square plot (sums, tokens, positions are
        # traces 3, 1, 2): the chart element puts them in place of these there.
        phone = place_labels(groups, plot_px=NARROW_PLOT_PX, font_px=NARROW_FONT_PX,
                             square=True)
        narrow = {"data": {str(index): {"text": text, "textposition": where}
                           for index, (text, where) in zip((3, 1, 2), phone, strict=True)}}
    fig = go.Figure()
    if three_d:
        line_x, line_y, line_z = segments(token_xy, sum_xy)
        fig.add_trace(go.Scatter3d(
            x=line_x, y=line_y, z=line_z, mode="lines", name=arrow_name, hoverinfo="skip",
            line={"color": SUM_COLOUR, "width": 3},
        ))
    else:
        fig.add_trace(arrow_trace(token_xy, sum_xy, color=SUM_COLOUR, name=arrow_name,
                                  hoverinfo="skip"))
    fig.add_trace(scatter(
        **xyz(token_xy), mode=mode, name=token_name,
        text=token_text if labelled else None,
        textposition=token_where or "bottom center",
        marker={"color": TOKEN_COLOUR, "size": 7 if three_d else 10, "symbol": "circle"},
        customdata=np.array(at, dtype=object),
        hovertemplate=message("fig.word_position.token_hover", lang, name=token_name),
    ))
    fig.add_trace(scatter(
        **xyz(position_xy), mode=mode, name=position_name,
        text=position_text if labelled else None,
        textposition=position_where or "top center",
        # WebGL (3-D) draws markers as font glyphs; "x" has none in common fonts: a square.
        marker={"color": POSITION_COLOUR, "size": 5 if three_d else 8,
                "symbol": "square" if three_d else "x"},
        customdata=np.asarray(positions),
        hovertemplate=message("fig.word_position.position_hover", lang, name=position_name),
    ))
    fig.add_trace(scatter(
        **xyz(sum_xy), mode=mode, name=sum_label,
        text=sum_text if labelled else None,
        textposition=sum_where or "top center",
        marker={"color": SUM_COLOUR, "size": 6 if three_d else 10, "symbol": "diamond"},
        customdata=np.array(at, dtype=object),
        hovertemplate=f"%{{customdata}}<extra>{plot_text(sum_label)}</extra>",
    ))
    if three_d:
        fig.update_layout(scene={
            "xaxis": {"title": {"text": axis_titles[0]}},
            "yaxis": {"title": {"text": axis_titles[1]}},
            "zaxis": {"title": {"text": axis_titles[2]}},
            "aspectmode": "data",  # equal units on every axis: distances are not distorted
        })
    else:
        # Equal units on both axes, so lengths and angles on screen are the real ones; the plot
        # narrows to the data rather than the x range widening past it on a wide screen.
        fig.update_xaxes(title_text=axis_titles[0], constrain="domain")
        fig.update_yaxes(title_text=axis_titles[1], scaleanchor="x", scaleratio=1)
    fig.update_layout(legend={"orientation": "h", "y": -0.12})
    if narrow:
        fig.update_layout(meta={"narrow": narrow})
    return base_layout(fig, title, height=620)


def make_position_path_figure(coordinates: np.ndarray, positions: Sequence[int],
                              steps: Sequence[float], *, ratios: Sequence[float],
                              d_model: int, lang: Lang = "en") -> go.Figure:
    """The sentence's position vectors alone, projected on their own (`coordinates` ``(m, 2)``,
    `core.word_position.project_positions`), joined in order P1 -> P2 -> ...: where one
    picture with the words draws them a few pixels apart, each here is its own point. `steps`
    ``(m - 1,)`` are |P_{k+1} - P_k| in all `d_model` dimensions (the hover says them)."""
    coordinates = np.asarray(coordinates, dtype=np.float64)
    labels = [f"P{p}" for p in positions]
    hovers = [message("fig.word_position.path_first", lang, label=labels[0])] + [
        message("fig.word_position.path_step", lang, label=label, previous=previous,
                distance=float(step), d=d_model)
        for label, previous, step in zip(labels[1:], labels[:-1], steps, strict=True)]
    fig = go.Figure(go.Scatter(
        x=coordinates[:, 0], y=coordinates[:, 1], mode="lines+markers+text",
        text=labels, textposition="top center",
        line={"color": POSITION_COLOUR, "width": 1.5, "dash": "dot"},
        marker={"color": POSITION_COLOUR, "size": 10, "symbol": "x"},
        customdata=hovers, hovertemplate="%{customdata}<extra></extra>",
        name=message("fig.word_position.position_name", lang), showlegend=False,
    ))
    fig.update_xaxes(title_text=message("fig.word_position.axis_pc", lang, number=1,
                                        ratio=float(ratios[0])), constrain="domain")
    fig.update_yaxes(title_text=message("fig.word_position.axis_pc", lang, number=2,
                                        ratio=float(ratios[1])), scaleanchor="x", scaleratio=1)
    return base_layout(fig, message("fig.word_position.path_title", lang), height=420)
