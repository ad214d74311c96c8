"""Learned vs sinusoidal position tables: heatmaps, similarity, offsets, trajectories, extent."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from core.overview import Overview
from figures.common import NEUTRAL, add_live_states, add_span, base_layout, live_values
from figures.heatmap import make_pe_heatmap_figure
from locales import Lang, message

LEARNED_COLOUR = "#d62728"
SINUSOID_COLOUR = "#1f77b4"


def _metric_name(metric: str, lang: Lang) -> str:
    """"cosine" / "dot" (the URL values) as the figure says them."""
    return {
        "cosine": message("fig.learned.metric_cosine", lang),
        "dot": message("fig.learned.metric_dot", lang),
    }.get(metric, metric)


def _panel_name(name: str, lang: Lang) -> str:
    """A table's name ("learned", "sinusoidal": the panels' keys) as the figure says it."""
    return {
        "learned": message("fig.learned.panel_learned", lang),
        "sinusoidal": message("fig.learned.panel_sinusoidal", lang),
    }.get(name, name)


def _light(
    fig: go.Figure, overview: Overview, value: str, x: str, y: str, lang: Lang = "en"
) -> go.Figure:
    """Drop the per-cell hover ranges of an averaged heatmap (4 ints a cell, 4x the payload of
    the values): a page with four heatmaps could not afford them. Hover gives the bin centres."""
    if not overview.exact:
        # The heatmap page's note names its zoom window, which this page does not have.
        rows = np.diff(overview.row_edges).mean()
        cols = np.diff(overview.col_edges).mean()
        fig.update_annotations(
            text=message("fig.learned.overview_note", lang, rows=rows, cols=cols)
        )
        fig.update_traces(
            customdata=None,
            hovertemplate=message("fig.learned.hover_block", lang, x=x, y=y, value=value),
        )
    else:
        fig.update_traces(
            hovertemplate=message("fig.learned.hover_exact", lang, x=x, y=y, value=value)
        )
    return fig


def make_table_heatmap_figure(
    overview: Overview, *, zmax: float, title: str, lang: Lang = "en"
) -> go.Figure:
    """A position table (positions down, dimensions across) on the scale [-zmax, zmax]: the
    heatmap page's figure with a range that fits the table (learned entries are far below 1)."""
    dimension = message("fig.learned.dimension", lang)
    position = message("fig.learned.position", lang)
    value = message("fig.learned.value", lang)
    fig = make_pe_heatmap_figure(
        overview, title=title, x_title=dimension, y_title=position, lang=lang
    )
    fig.update_traces(zmin=-zmax, zmax=zmax, colorbar={"title": {"text": value}})
    return _light(fig, overview, value, dimension, position, lang)


def make_similarity_figure(
    overview: Overview, *, metric: str, zmax: float, title: str, lang: Lang = "en"
) -> go.Figure:
    """S[i, j] between positions i (down) and j (across): a Toeplitz matrix is constant along
    every diagonal."""
    x_title = message("fig.learned.position_j", lang)
    y_title = message("fig.learned.position_i", lang)
    name = _metric_name(metric, lang)
    fig = make_pe_heatmap_figure(
        overview, title=title, x_title=x_title, y_title=y_title, lang=lang
    )
    fig.update_traces(zmin=-zmax, zmax=zmax, colorbar={"title": {"text": name}})
    return _light(fig, overview, name, x_title, y_title, lang)


LEGEND_RANKS_PER_PANEL = 10_000  # above any anchor (the learned table has 512 rows)


def _anchor_line(name: str, col: int, anchor: int, values, *, metric: str,
                 ranked: bool, lang: Lang) -> dict:
    """What a line of the offset chart says of its anchor: its values, legend entry and hover;
    its place in the legend (`legendrank`: the table, then the anchor) when the traces are not
    in that order (the chosen anchor's line comes last)."""
    line = {
        "y": values,
        "name": message("fig.learned.offset_trace", lang, name=_panel_name(name, lang),
                        anchor=anchor),
        "hovertemplate": message("fig.learned.offset_hover", lang, anchor=anchor,
                                 metric=_metric_name(metric, lang)),
    }
    if ranked:
        line["legendrank"] = col * LEGEND_RANKS_PER_PANEL + anchor
    return line


def make_offset_figure(
    curves: Mapping[str, Mapping[int, tuple[np.ndarray, np.ndarray]]],
    *,
    metric: str,
    chosen: tuple[int, Mapping[str, tuple[np.ndarray, np.ndarray]]] | None = None,
    lang: Lang = "en",
) -> go.Figure:
    """Similarity of P[a] with P[a + k] against the offset k, one line per anchor a, one panel
    per table (``{"learned": {anchor: (offsets, values)}, "sinusoidal": ...}``).

    `chosen`, ``(anchor, {table: (offsets, values)})``: the anchor a slider moves, drawn in each
    panel by a line of its own after the others (the legend still lists the anchors in order)
    and hidden where it is one of them, so that the traces are the same whichever anchor is
    chosen: `add_anchor_states` moves that line while the slider is dragged."""
    names = list(curves)
    fig = make_subplots(rows=1, cols=len(names), shared_yaxes=True,
                        subplot_titles=[_panel_name(name, lang) for name in names])
    ranked = chosen is not None
    for col, name in enumerate(names, start=1):
        for rank, (anchor, (offsets, values)) in enumerate(sorted(curves[name].items())):
            fig.add_trace(
                go.Scatter(x=offsets, mode="lines", legendgroup=name,
                           line={"width": 2 if rank == 0 else 1.2},
                           **_anchor_line(name, col, anchor, values, metric=metric,
                                          ranked=ranked, lang=lang)),
                row=1, col=col,
            )
        if chosen is not None:
            anchor, (offsets, values) = chosen[0], chosen[1][name]
            fig.add_trace(
                go.Scatter(x=offsets, mode="lines", legendgroup=name, line={"width": 1.2},
                           visible=anchor not in curves[name],
                           **_anchor_line(name, col, anchor, values, metric=metric,
                                          ranked=True, lang=lang)),
                row=1, col=col,
            )
        fig.update_xaxes(title_text=message("fig.learned.offset_x", lang), row=1, col=col)
    metric_name = _metric_name(metric, lang)
    fig.update_yaxes(title_text=message("fig.learned.offset_y", lang, metric=metric_name),
                     row=1, col=1)
    return base_layout(fig, message("fig.learned.offset_title", lang, metric=metric_name),
                       height=460)


def offset_preview_anchors(rows: int, points: int) -> list[int]:
    """The anchors (0 to `rows` - 1) whose lines the offset chart carries for a drag of its
    anchor slider, each line `points` offsets long in both panels: every anchor when they fit
    in MAX_LIVE_NUMBERS, else evenly spaced ones (`live_values`)."""
    return live_values(0, rows - 1, drawn=0, per_state=2 * points)


def _state_values(values: np.ndarray) -> list[float | None]:
    """A line's values as a state sends them: 4 decimals (sub-pixel), gaps as null."""
    return [None if np.isnan(v) else round(float(v), 4) for v in values]


def add_anchor_states(
    fig: go.Figure,
    curves: Mapping[str, Mapping[int, tuple[np.ndarray, np.ndarray]]],
    previews: Mapping[str, Mapping[int, tuple[np.ndarray, np.ndarray]]],
    *,
    metric: str,
    lang: Lang = "en",
) -> go.Figure:
    """The chosen anchor's line of `make_offset_figure` (its `curves` and a `chosen`) at each
    anchor of `previews` (``{table: {anchor: (offsets, values)}}``, the same anchors for every
    table), so that dragging the anchor slider moves it in the browser (`add_live_states`)."""
    names = list(curves)
    # Each panel's lines: its fixed anchors, then the chosen one.
    traces = [sum(len(curves[n]) + 1 for n in names[:i]) + len(curves[name])
              for i, name in enumerate(names)]

    def state(anchor: int) -> tuple[dict, dict, list[int]]:
        lines = [_anchor_line(name, col, anchor, _state_values(previews[name][anchor][1]),
                              metric=metric, ranked=True, lang=lang)
                 for col, name in enumerate(names, start=1)]
        data = {key: [line[key] for line in lines] for key in lines[0]}
        data["visible"] = [anchor not in curves[name] for name in names]
        return data, {}, traces

    return add_live_states(fig, "anchor",
                           [(anchor, *state(anchor)) for anchor in sorted(previews[names[0]])])


# A path is drawn through the points only when it reads as one: consecutive points closer than
# this fraction of the cloud's spread. The learned table's neighbours jump across the cloud (steps
# about as long as its radius) and joined they drew a hairball.
PATH_STEP_RATIO = 0.25
TRAJECTORY_LABELS = 2  # positions written beside their point: the first and the last


def reads_as_a_path(points: np.ndarray) -> bool:
    """Whether consecutive points ``(n, 2)`` are close compared with the cloud's spread."""
    if points.shape[0] < 3:
        return True
    steps = np.linalg.norm(np.diff(points, axis=0), axis=1)  # (n - 1,)
    spread = np.sqrt(np.mean(np.sum((points - points.mean(axis=0)) ** 2, axis=1)))
    return bool(np.median(steps) <= PATH_STEP_RATIO * max(spread, 1e-12))


def make_trajectory_figure(
    panels: Mapping[str, tuple[np.ndarray, Sequence[str]]], *, lang: Lang = "en"
) -> go.Figure:
    """The position vectors projected to 2-D and coloured by position (one colour bar for both
    panels): the path a sequence traces through the space, joined in order where it reads as a
    path, and its first and last positions labelled.
    ``{name: (coordinates (n, 2), axis titles)}``."""
    names = list(panels)
    fig = make_subplots(rows=1, cols=len(names),
                        subplot_titles=[_panel_name(name, lang) for name in names])
    last = max(points.shape[0] for points, _ in panels.values()) - 1
    for col, name in enumerate(names, start=1):
        points, titles = panels[name]
        positions = np.arange(points.shape[0])
        joined = reads_as_a_path(points)
        fig.add_trace(
            go.Scatter(
                x=points[:, 0], y=points[:, 1], mode="lines+markers" if joined else "markers",
                name=_panel_name(name, lang),
                line={"color": "rgba(120,120,120,0.35)", "width": 1},
                marker={"color": positions, "coloraxis": "coloraxis", "size": 5},
                customdata=positions,
                hovertemplate=message("fig.learned.trajectory_hover", lang),
                showlegend=False,
            ),
            row=1, col=col,
        )
        labelled = np.unique(np.linspace(0, positions.size - 1,
                                         min(TRAJECTORY_LABELS, positions.size)).round()
                             .astype(int))
        fig.add_trace(
            go.Scatter(
                x=points[labelled, 0], y=points[labelled, 1], mode="markers+text",
                text=[str(p) for p in labelled], textposition="top center",
                marker={"size": 9, "color": "rgba(0,0,0,0)",
                        "line": {"width": 1.5, "color": NEUTRAL}},
                textfont={"size": 11}, hoverinfo="skip", showlegend=False,
            ),
            row=1, col=col,
        )
        fig.update_xaxes(title_text=titles[0], row=1, col=col)
        fig.update_yaxes(title_text=titles[1], row=1, col=col)
    fig.update_layout(coloraxis={
        "colorscale": "Viridis", "cmin": 0, "cmax": max(last, 1),
        "colorbar": {"title": {"text": message("fig.learned.position", lang)}},
    })
    return base_layout(fig, message("fig.learned.trajectory_title", lang), height=480)


def make_dimensions_figure(
    table: np.ndarray, dimensions: Sequence[int], *, title: str, lang: Lang = "en"
) -> go.Figure:
    """Chosen columns of a position table ``(n, d)`` against position."""
    fig = go.Figure()
    positions = np.arange(table.shape[0])
    for dim in dimensions:
        fig.add_trace(go.Scatter(
            x=positions, y=table[:, dim], mode="lines",
            name=message("fig.learned.dimension_trace", lang, dim=dim),
            hovertemplate=message("fig.learned.dimension_hover", lang, dim=dim),
        ))
    fig.update_xaxes(title_text=message("fig.learned.position", lang))
    fig.update_yaxes(title_text=message("fig.learned.value", lang))
    return base_layout(fig, title, height=420)


def make_extent_figure(
    learned_norms: np.ndarray, sinusoid_norms: np.ndarray, *, learned_rows: int,
    lang: Lang = "en",
) -> go.Figure:
    """|P_p| against position for both tables, with the end of the learned table marked: past
    `learned_rows` there is no learned vector at all, while the sinusoid goes on."""
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        x=np.arange(learned_norms.size), y=learned_norms, mode="lines",
        name=message("fig.learned.extent_learned", lang), line={"color": LEARNED_COLOUR},
        hovertemplate=message("fig.learned.extent_hover_learned", lang),
    ))
    fig.add_trace(go.Scatter(
        x=np.arange(sinusoid_norms.size), y=sinusoid_norms, mode="lines",
        name=message("fig.learned.extent_sinusoidal", lang), line={"color": SINUSOID_COLOUR},
        hovertemplate=message("fig.learned.extent_hover_sinusoidal", lang),
    ))
    end = max(sinusoid_norms.size, learned_rows + 1)
    add_span(
        fig, "vrect", learned_rows - 0.5, end, fillcolor="rgba(214,39,40,0.08)", line_width=0,
        annotation_text=message("fig.learned.extent_no_row", lang, rows=learned_rows),
        annotation_position="bottom right",
    )
    add_span(fig, "vline", learned_rows - 0.5, line={"color": LEARNED_COLOUR, "dash": "dash"})
    fig.update_xaxes(title_text=message("fig.learned.position", lang), range=[0, end])
    # Log scale: the learned norms (~0.5) and the sinusoid's (sqrt(d/2) ~ 14) both readable.
    low = min(learned_norms.min(), sinusoid_norms.min())
    high = max(learned_norms.max(), sinusoid_norms.max())
    fig.update_yaxes(  # log axes take their range in log10 units; headroom above and below
        title_text=message("fig.learned.extent_y", lang), type="log",
        range=[np.log10(low) - 0.15, np.log10(high) + 0.15],
    )
    fig.update_layout(legend={"orientation": "h", "y": -0.2})
    return base_layout(fig, message("fig.learned.extent_title", lang), height=420)


def make_wavelength_figure(
    period: np.ndarray, share: np.ndarray, ladder: np.ndarray, *, samples: int,
    lang: Lang = "en",
) -> go.Figure:
    """Which wavelengths a table learned: each dimension's dominant period ``(d,)`` (a marker
    coloured by `share`, the part of the column's variance in that one wave) against the
    sinusoid's geometric ladder ``(d,)`` (a line), on a log axis. Periods come from a spectrum
    of `samples` positions: past samples / 2 (fewer than two cycles) the band says a "wave" is
    as much a trend; constant columns (an infinite period) are left out."""
    dims = np.arange(period.size)
    shown = np.isfinite(period)
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        x=dims, y=ladder, mode="lines", line={"color": SINUSOID_COLOUR, "width": 2},
        name=message("fig.learned.ladder", lang),
        hovertemplate=message("fig.learned.ladder_hover", lang),
    ))
    fig.add_trace(go.Scatter(
        x=dims[shown], y=period[shown], mode="markers",
        marker={"size": 6, "color": share[shown], "cmin": 0, "cmax": 1,
                "colorscale": "Reds", "line": {"width": 0.5, "color": NEUTRAL},
                # its title beside the bar, not above it on the top tick ("1")
                "colorbar": {"title": {"text": message("fig.learned.wave_share", lang),
                                       "side": "right"}}},
        customdata=share[shown],
        name=message("fig.learned.dominant", lang),
        hovertemplate=message("fig.learned.dominant_hover", lang),
    ))
    top = max(float(ladder.max()), float(samples)) * 2
    add_span(fig, "hrect", samples / 2, top, fillcolor="rgba(128,128,128,0.12)", line_width=0)
    fig.add_annotation(  # an annotation on a log axis is placed in log10 units (a shape is not)
        x=0, xref="paper", xanchor="left", y=np.log10(samples / 2), yanchor="bottom",
        text=message("fig.learned.too_long", lang, half=samples / 2), showarrow=False,
        font={"size": 11},
    )
    fig.update_xaxes(title_text=message("fig.learned.dimension", lang))
    fig.update_yaxes(title_text=message("fig.learned.wavelength_y", lang), type="log",
                     range=[np.log10(2) - 0.1, np.log10(top)])
    fig.update_layout(legend={"orientation": "h", "y": -0.2})
    return base_layout(fig, message("fig.learned.wavelength_title", lang), height=460)
