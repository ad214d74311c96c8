"""The PE table as a heatmap (exact, or an area-averaged overview), with the worked entry
outlined and, on an exact table, the formula worked in each cell's hover."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from core.overview import Overview
from core.sinusoidal import WorkedEntry
from figures.common import (
    DIVERGING,
    NEUTRAL,
    OKABE_ITO,
    add_live_states,
    add_note,
    add_span,
    base_layout,
    heatmap_smoothing,
    live_values,
    typed_array,
)
from locales import Lang, message

# --- the formula in an exact table's hover -----------------------------------------------------
# Cells whose hover works the formula (two float32 a cell, ~10.7 characters of base64, beside z's
# 5.3): up to 32,768 cells the heatmap's JSON stays under what the largest exact table sends
# without them (~0.97 MB at 131,072 cells), so the page keeps to its 1.5 MB a rerun (measured in
# tests/test_figures_heatmap.py). Larger exact tables keep the plain hover: position, dimension
# and value.
FORMULA_HOVER_CELLS = 2**15
# The dimension as the hover's x label writes it: a form no tick label takes (ticks say "4", the
# hover "0004"), so the x axis's `labelalias` can name each column's function (sin or cos) for
# the hover alone, a string a column instead of one a cell.
HOVER_DIM_FORMAT = "04d"
# The worked entry's outline: a hue the diverging red-blue scale never takes. Where a cell is a
# few pixels (more than MARK_RING_CELLS rows or columns in the ~400 px the plot is tall: under
# 8 px), a ring MARK_RING_PX across (plotly's pixel-sized shape) around it shows where it is.
MARK_COLOUR = OKABE_ITO["green"]
MARK_RING_CELLS = 48
MARK_RING_PX = 18


@dataclass(frozen=True)
class FormulaTable:
    """What an exact heatmap's hover works the formula with, from core: each column's entry
    (`core.worked_entry` at any position: its function and denominator, the same down the
    column) and the table's entries in float64 (`core.sinusoidal_encoding`, ``(R, C)``)."""

    columns: Sequence[WorkedEntry]  # (C,) one per dimension of the table
    values: np.ndarray  # (R, C) float64


def formula_number(value: float) -> str:
    """A number of the formula (a denominator, an angle) as the hover writes it with d3's
    ".6~g": JavaScript's toPrecision(6), trailing zeros dropped (0.0374947, 133.352, 5e-8,
    1e+6). The worked example writes its numbers so too, so that the two agree."""
    if value == 0:
        return "0"
    mantissa, exponent = f"{value:.5e}".split("e")
    power = int(exponent)
    if -6 <= power < 6:  # toPrecision's fixed notation
        return f"{value:.{5 - power}f}".rstrip("0").rstrip(".")
    sign = "+" if power >= 0 else "-"
    return f"{mantissa.rstrip('0').rstrip('.')}e{sign}{abs(power)}"


def formula_value(value: float) -> str:
    """An entry's value as the hover writes it with d3's ".6f": six decimals, and no "-" on a
    value that rounds to zero ("0.000000" for -2e-7, where Python writes "-0.000000")."""
    text = f"{value:.6f}"
    return text.lstrip("-") if float(text) == 0 else text


def _as_printed(values: np.ndarray, spec: str) -> np.ndarray:
    """`values` rounded as Python's format `spec` prints them (".6g": six significant digits,
    ".6f": six decimals), as numbers: sent as float32 they print the same digits again in the
    browser (six significant digits, or six decimals of a number in [-1, 1], survive float32),
    where float32 of the value itself could print a neighbour. -0.0 becomes 0.0 (d3 prints no
    "-0")."""
    values = np.asarray(values, dtype=np.float64)
    places = int(spec[1:-1])
    if spec.endswith("g"):  # keep `places` digits from the first significant one
        with np.errstate(divide="ignore"):
            power = np.floor(np.log10(np.abs(values)))  # -inf at 0
        decimals = places - 1 - np.where(np.isfinite(power), power, 0.0)
    else:
        decimals = np.full(values.shape, float(places))
    scale = 10.0 ** np.abs(decimals)  # exact powers of ten
    scaled = np.where(decimals >= 0, values * scale, values / scale)
    rounded = np.rint(scaled)
    printed = np.where(decimals >= 0, rounded / scale, rounded * scale) + 0.0
    # Within a rounding of a tie, rint may round the other way than the printed decimal:
    # those few are printed.
    ties = np.flatnonzero(np.abs(np.abs(scaled - np.trunc(scaled)) - 0.5) < 1e-6)
    flat = printed.reshape(-1)
    for index in ties.tolist():
        flat[index] = float(format(values.flat[index], spec)) + 0.0
    return printed


def _formula_hover(overview: Overview, formula: FormulaTable,
                   lang: Lang) -> tuple[np.ndarray, dict, dict]:
    """z, the trace's hover settings and the x axis's label aliases that make each cell's hover
    PE(pos, dim) = sin(pos / denominator) = sin(angle) = value, as the worked example writes
    it: z is the table rounded to the six decimals the hover prints; customdata holds the
    denominator and the angle (float32, rounded to the six digits printed); each column's
    function is its x label's alias."""
    positions = overview.row_edges[:-1].astype(np.float64)  # (R,)
    dims = overview.col_edges[:-1]  # (C,)
    if formula.values.shape != overview.values.shape or len(formula.columns) != dims.size:
        raise ValueError(f"formula: a table of {overview.values.shape} needs as many values and "
                         f"one entry a column, got {formula.values.shape} and "
                         f"{len(formula.columns)}")
    denominators = np.array([entry.denominator for entry in formula.columns])  # (C,)
    angles = np.divide.outer(positions, denominators)  # (R, C): worked_entry's pos / denominator
    customdata = np.stack(np.broadcast_arrays(_as_printed(denominators, ".6g")[None, :],
                                              _as_printed(angles, ".6g")), axis=-1)  # (R, C, 2)
    z = _as_printed(formula.values, ".6f").astype(np.float32)  # (R, C)
    trace = {"customdata": customdata.astype(np.float32), "xhoverformat": HOVER_DIM_FORMAT,
             "hovertemplate": message("fig.heatmap.hover_formula", lang)}
    aliases = {format(int(dim), HOVER_DIM_FORMAT): entry.function
               for dim, entry in zip(dims, formula.columns, strict=True)}
    return z, trace, aliases


def make_pe_heatmap_figure(
    overview: Overview,
    *,
    title: str,
    x_title: str | None = None,
    y_title: str | None = None,
    lang: Lang = "en",
    formula: FormulaTable | None = None,
    mark: tuple[int, int] | None = None,
) -> go.Figure:
    """Positions down, dimensions across, fixed diverging scale [-1, 1] centred on zero.

    Exact overviews hover with the exact entry, and with `formula` (up to FORMULA_HOVER_CELLS
    cells) with the formula worked for it; resampled ones say so, on the figure and in the
    hover text, and a dotted line marks where columns stop changing faster than one cell.
    `mark` (pos, dim) outlines that entry's cell (an overview's block holding it), if drawn,
    and rings it where cells are small.
    """
    values = overview.values  # (R, C) float32
    hover: dict = {}
    aliases: dict = {}
    if overview.exact:
        x = overview.col_edges[:-1]
        y = overview.row_edges[:-1]
        if formula is not None and values.size <= FORMULA_HOVER_CELLS:
            values, hover, aliases = _formula_hover(overview, formula, lang)
        else:
            hover = {"hovertemplate": message("fig.heatmap.hover_exact", lang)}
    else:
        # Cell centres, and the cell sizes in the hover text: per-cell range arrays would triple
        # what the browser receives.
        x = overview.col_centers
        y = overview.row_centers
        hover = {"hovertemplate": message("fig.heatmap.hover_block", lang,
                                          rows=overview.rows_per_cell,
                                          cols=overview.cols_per_cell)}
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
            zsmooth=heatmap_smoothing(values),
            **hover,
        )
    )
    fig.update_yaxes(title_text=y_title or message("fig.heatmap.y_title", lang),
                     autorange="reversed")
    fig.update_xaxes(title_text=x_title or message("fig.heatmap.x_title", lang))
    if aliases:
        fig.update_xaxes(labelalias=aliases)
    notes = overview_notes(overview, lang)
    if notes:
        add_note(fig, "<br>".join(notes))
    for _start, stop in overview.fast_dims:  # where the grey, too-fast columns end
        add_span(fig, "vline", stop - 0.5, line={"color": NEUTRAL, "dash": "dot", "width": 1})
    box = None if mark is None else cell_box(overview, *mark)
    if box is not None:
        x0, x1, y0, y1 = box
        fig.add_shape(type="rect", x0=x0, x1=x1, y0=y0, y1=y1,
                      line={"color": MARK_COLOUR, "width": 2.5})
        if max(values.shape) > MARK_RING_CELLS:
            radius = MARK_RING_PX / 2
            fig.add_shape(type="circle", xsizemode="pixel", ysizemode="pixel",
                          xanchor=(x0 + x1) / 2, yanchor=(y0 + y1) / 2, x0=-radius, x1=radius,
                          y0=-radius, y1=radius, line={"color": MARK_COLOUR, "width": 2})
    fig = base_layout(fig, title)
    if notes:  # room for the notes between the title and the plot
        fig.update_layout(margin={"t": 60 + 16 * len(notes)})
    return fig


def _cell_index(edges: np.ndarray, entry: int) -> int | None:
    """The cell of `edges` (an overview's row or column edges) that holds `entry`, if any."""
    if not edges[0] <= entry < edges[-1]:
        return None
    return int(np.searchsorted(edges, entry, side="right")) - 1


def cell_box(overview: Overview, pos: int, dim: int) -> tuple[float, float, float, float] | None:
    """(x0, x1, y0, y1) of the cell drawn for entry (pos, dim): plotly draws each cell around
    its centre, a step wide (an exact cell: dim - 0.5 to dim + 0.5). None when the entry lies
    outside the drawn table (a position past its end)."""
    row, col = _cell_index(overview.row_edges, pos), _cell_index(overview.col_edges, dim)
    if row is None or col is None:
        return None
    sides = []  # x0, x1, y0, y1
    for edges, centres, index in ((overview.col_edges, overview.col_centers, col),
                                  (overview.row_edges, overview.row_centers, row)):
        half = (edges[-1] - edges[0]) / (edges.size - 1) / 2  # cells are evenly spaced
        sides += [float(centres[index] - half), float(centres[index] + half)]
    return sides[0], sides[1], sides[2], sides[3]


def cell_entry(overview: Overview, x: float, y: float) -> tuple[int, int] | None:
    """The entry (pos, dim) a click on the cell drawn at (x, y) picks: the cell's first entry
    (an exact cell's own; an overview's block's first row and column). None for a point that
    is not a number."""
    if not (np.isfinite(x) and np.isfinite(y)):
        return None
    row = int(np.argmin(np.abs(overview.row_centers - y)))
    col = int(np.argmin(np.abs(overview.col_centers - x)))
    return int(overview.row_edges[row]), int(overview.col_edges[col])


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
    if len(states) < 2:
        return fig
    if len({int(window.row_edges[0]) for _, window in windows}) > 1:  # moving down the rows
        # The positions' labels as wide as the last one's (padded with figure spaces, a
        # digit's width): a window moving past 99 would widen the margin, and plotly.js would
        # draw the chart twice at that step, the plot jumping sideways.
        digits = len(str(max(int(window.row_edges[-2]) for _, window in windows)))
        fig.update_yaxes(tickformat=f"\u2007>{digits}", hoverformat="d")
    return add_live_states(fig, name, states)
