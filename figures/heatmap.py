"""The PE table as a heatmap (exact, or an area-averaged overview)."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from core.overview import Overview
from figures.common import (
    DIVERGING,
    NEUTRAL,
    add_live_states,
    add_note,
    base_layout,
    heatmap_smoothing,
    live_values,
    typed_array,
)
from locales import Lang, message


def make_pe_heatmap_figure(
    overview: Overview,
    *,
    title: str,
    x_title: str | None = None,
    y_title: str | None = None,
    lang: Lang = "en",
) -> go.Figure:
    """Positions down, dimensions across, fixed diverging scale [-1, 1] centred on zero.

    Exact overviews hover with the exact entry; resampled ones say so, on the figure and in the
    hover text, and a dotted line marks where columns stop changing faster than one cell.
    """
    values = overview.values  # (R, C) float32
    if overview.exact:
        x = overview.col_edges[:-1]
        y = overview.row_edges[:-1]
        hover = message("fig.heatmap.hover_exact", lang)
    else:
        # Cell centres, and the cell sizes in the hover text: per-cell range arrays would triple
        # what the browser receives.
        x = overview.col_centers
        y = overview.row_centers
        hover = message("fig.heatmap.hover_block", lang, rows=overview.rows_per_cell,
                        cols=overview.cols_per_cell)
    fig = go.Figure(
        go.Heatmap(
            z=values,
            x=x,
            y=y,
            zmin=-1.0,
            zmax=1.0,
            zmid=0.0,
            colorscale=DIVERGING,
            colorbar={"title": {"text": "PE"}},
            hovertemplate=hover,
            zsmooth=heatmap_smoothing(values),
        )
    )
    fig.update_yaxes(title_text=y_title or message("fig.heatmap.y_title", lang),
                     autorange="reversed")
    fig.update_xaxes(title_text=x_title or message("fig.heatmap.x_title", lang))
    notes = overview_notes(overview, lang)
    if notes:
        add_note(fig, "<br>".join(notes))
    for _start, stop in overview.fast_dims:  # where the grey, too-fast columns end
        fig.add_vline(x=stop - 0.5, line={"color": NEUTRAL, "dash": "dot", "width": 1})
    fig = base_layout(fig, title)
    if notes:  # room for the notes between the title and the plot
        fig.update_layout(margin={"t": 60 + 16 * len(notes)})
    return fig


def overview_notes(overview: Overview, lang: Lang = "en") -> list[str]:
    """What an overview's reader must know, one line each: how the cells were made, and which
    columns change faster than a cell (drawn grey)."""
    notes = []
    if not overview.exact:
        rows, cols = overview.values.shape
        note = message("fig.heatmap.overview_note", lang, rows=overview.rows_per_cell,
                       cells_rows=rows, cells_cols=cols)
        notes.append(note)
        if overview.cols_per_cell > 1:
            notes.append(message("fig.heatmap.overview_note_columns", lang,
                                 cols=overview.cols_per_cell))
    if overview.fast_dims:
        ranges = ", ".join(f"{start}–{stop - 1}" for start, stop in overview.fast_dims)
        notes.append(message("fig.heatmap.fast_note", lang, ranges=ranges))
    return notes


# --- the zoom window while its corner's sliders are dragged ------------------------------------
def zoom_live_values(lowest: int, highest: int, *, rows: int, cols: int,
                     most: int = 101) -> list[int]:
    """Evenly spaced values from `lowest` to `highest` (both in) of one of the zoom window's two
    corner sliders that carry a state (`add_zoom_window_states`): the two share
    MAX_LIVE_NUMBERS, a state weighing a `rows` x `cols` window and its two axes."""
    return live_values(lowest, highest, drawn=lowest, most=most,
                       per_state=2 * (rows * cols + rows + cols))


def add_zoom_window_states(fig: go.Figure, name: str,
                           windows: Sequence[tuple[int, Overview]]) -> go.Figure:
    """The zoom chart (`make_pe_heatmap_figure` of an exact window) at each value of control
    `name` (zoom_pos moves the window down the rows, zoom_dim across the columns): `windows`
    pairs a value with the exact window drawn there. Dragging the slider then moves the window
    in the browser (`add_live_states`). The entries go as float32 typed arrays, as plotly sends
    the figure's own: the hover's six decimals are the server's, a third of the text of a list."""
    states = []
    for value, window in windows:
        assert window.exact, "a zoom window is exact"
        states.append((value, {"z": [typed_array(window.values)],
                               "x": [window.col_edges[:-1].tolist()],
                               "y": [window.row_edges[:-1].tolist()]}, {}, [0]))
    return add_live_states(fig, name, states) if len(states) >= 2 else fig
