r"""Heatmaps at screen resolution: resampled as a good image resampler does, never strided or
box-averaged.

A full-resolution 8192 x 4096 table is 128 MB of float32 and freezes a browser. Taking every n-th
row aliases (fast sinusoids fold into false moire patterns), and so does a plain box average over
bins of uneven widths (5 and 6 positions alternating give neighbouring cells different filters,
and a box leaves 20-30% of a fast sinusoid's amplitude in its sidelobes). An overview cell here
is instead a sample, at evenly spaced centres, of the table low-passed by a Gaussian of
sigma = half a cell (what scikit-image's ``resize(anti_aliasing=True)`` does). Its response at
angular frequency w (radians per entry) is known:

$$H(\omega) = e^{-(\omega\sigma)^2/2}, \qquad
H(\tfrac{3}{2}\omega_N) = e^{-9\pi^2/32} \approx 0.062 \quad (\omega_N = \pi / \mathrm{step})$$

so a column 1.5x past the rows' Nyquist rate is drawn as its local mean (grey, |value| <= 0.1)
while a column with at least 8 rows per period keeps >= 0.92 of its amplitude.

For the sinusoid table the filtered rows have a closed form, H(w_i) sin(w_i c), so an overview of
any size costs O(rows x d_model) and the full table is never built. Any other matrix (learned
tables, similarity matrices, ALiBi's biases) goes through `resample`, the same filter as a banded
weighted sum.

Columns: every dimension keeps its own column up to ``limits.MAX_HEATMAP_COLS``; a wider table is
resampled along the columns within each kind only (sines with sines, cosines with cosines, of
neighbouring frequencies), never a sine with a cosine.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core import limits
from core._checks import check_choice, check_finite_array, check_int
from core.sinusoidal import (
    LAYOUTS,
    TIMESCALES,
    Layout,
    Timescales,
    _arrange,
    frequencies,
    sinusoidal_encoding,
)

# The Gaussian's sigma in output cells; the kernel is cut at TRUNCATE sigmas (weight e^-4.5).
LOWPASS_SIGMA = 0.5
TRUNCATE = 3.0


def bin_edges(size: int, max_bins: int) -> np.ndarray:
    """Integer edges splitting range(size) into min(size, max_bins) near-equal ranges.

    Shape ``(bins + 1,)``, first 0, last `size`: cell j of an overview stands for the entries
    [edges[j], edges[j+1]) (the range a cell's label or an exported header names).
    """
    size = check_int("size", size, minimum=1)
    max_bins = check_int("max_bins", max_bins, minimum=1)
    bins = min(size, max_bins)
    return np.round(np.linspace(0, size, bins + 1)).astype(np.int64)  # (bins + 1,)


def bin_centers(edges: np.ndarray) -> np.ndarray:
    """Where the cells of `bin_edges(...)` sample and are drawn: evenly spaced, each within half an
    entry of its range's centre. Shape ``(bins,)``.

    Even spacing matters twice: every cell gets the same filter (no beat against uneven bins),
    and plotly draws a heatmap as one image (``zsmooth="fast"``) only on evenly spaced
    coordinates (otherwise it paints a rectangle per cell, ~3x slower).
    """
    bins = edges.size - 1
    step = (edges[-1] - edges[0]) / bins
    return edges[0] + (np.arange(bins) + 0.5) * step - 0.5  # exact bins: the entries' indices


def lowpass_sigma(size: int, bins: int) -> float:
    """The Gaussian's sigma in entries for `size` entries shown as `bins` cells (0: no filter)."""
    return 0.0 if bins >= size else LOWPASS_SIGMA * size / bins


def lowpass_response(omega: np.ndarray, sigma: float) -> np.ndarray:
    """H(w) = exp(-(w sigma)^2 / 2): how much of a sinusoid of w radians per entry survives."""
    return np.exp(-0.5 * (np.asarray(omega, dtype=np.float64) * sigma) ** 2)


def nyquist(size: int, bins: int) -> float:
    """The fastest angular frequency (radians per entry) `bins` evenly spaced cells can show."""
    return np.pi * min(bins, size) / size


@dataclass(frozen=True)
class Resampler:
    """`size` entries -> `bins` cells: cell j = sum_t weight[j, t] * entry[index[j, t]]."""

    index: np.ndarray  # (bins, taps) int64, in [0, size)
    weight: np.ndarray  # (bins, taps) float64, each row sums to 1

    def apply(self, array: np.ndarray, axis: int = 0) -> np.ndarray:
        """Resample `array` along `axis`; float64 (complex stays complex)."""
        moved = np.moveaxis(np.asarray(array), axis, 0)  # (size, ...)
        dtype = np.result_type(moved.dtype, np.float64)
        out = np.zeros((self.index.shape[0], *moved.shape[1:]), dtype=dtype)  # (bins, ...)
        tail = (slice(None),) + (None,) * (moved.ndim - 1)
        for tap in range(self.index.shape[1]):  # taps ~ 3 cells: a banded sum, never (bins, size)
            out += self.weight[:, tap][tail] * moved[self.index[:, tap]]
        return np.moveaxis(out, 0, axis)


def resampler(size: int, bins: int) -> Resampler:
    """The Gaussian low-pass + even sampling of `size` entries at ``bin_centers(bin_edges(size,
    bins))``; the identity when they fit. Near the ends the kernel is renormalised."""
    edges = bin_edges(size, bins)
    count = edges.size - 1
    if count == size:
        return Resampler(np.arange(size)[:, None], np.ones((size, 1)))
    centers = bin_centers(edges)  # (bins,)
    sigma = lowpass_sigma(size, count)
    reach = int(np.ceil(TRUNCATE * sigma))
    index = np.floor(centers).astype(np.int64)[:, None] + np.arange(-reach, reach + 2)  # (bins, T)
    distance = index - centers[:, None]  # (bins, T) in entries
    weight = np.exp(-0.5 * (distance / sigma) ** 2)  # (bins, T)
    inside = (index >= 0) & (index < size) & (np.abs(distance) <= TRUNCATE * sigma)
    weight = np.where(inside, weight, 0.0)
    weight /= weight.sum(axis=1, keepdims=True)
    return Resampler(np.clip(index, 0, size - 1), weight)


def overview_shape(
    rows: int,
    cols: int,
    *,
    max_rows: int = limits.MAX_HEATMAP_ROWS,
    max_cols: int = limits.MAX_HEATMAP_COLS,
    max_cells: int = limits.MAX_HEATMAP_CELLS,
    col_multiple: int = 1,
) -> tuple[int, int]:
    """Cells (R, C) for a `rows` x `cols` table: columns first (each its own up to `max_cols`;
    wider: `limits.WIDE_HEATMAP_COLS` or `max_cols` if less, a multiple of `col_multiple`), then
    as many rows as the cell budget allows."""
    wide = min(max_cols, limits.WIDE_HEATMAP_COLS)
    cols_shown = cols if cols <= max_cols else max(col_multiple, wide // col_multiple
                                                    * col_multiple)
    rows_shown = min(rows, max_rows, max(1, max_cells // cols_shown))
    return rows_shown, cols_shown


@dataclass(frozen=True)
class Overview:
    """A heatmap-ready view of a table: exact entries, or low-pass samples at even centres.

    One table's values are ``(R, C)``; a stack of tables of the same size that share the edges
    (ALiBi's bias, one table per head: `core.alibi.alibi_bias_overview`) is ``(..., R, C)``.
    """

    values: np.ndarray  # (R, C) or (..., R, C) float32: exact entries when exact is True
    row_edges: np.ndarray  # (R + 1,) the entries [edges[j], edges[j+1]) cell row j stands for
    col_edges: np.ndarray  # (C + 1,) likewise for the columns
    exact: bool  # True when every cell is one entry (no resampling happened)
    # Dimension ranges [a, b) of a sinusoid table that change faster than the rows can show
    # (past the rows' Nyquist rate): drawn as their local mean, grey.
    fast_dims: tuple[tuple[int, int], ...] = ()

    @property
    def row_centers(self) -> np.ndarray:
        return bin_centers(self.row_edges)

    @property
    def col_centers(self) -> np.ndarray:
        return bin_centers(self.col_edges)

    @property
    def rows_per_cell(self) -> float:
        return float(np.diff(self.row_edges).mean())

    @property
    def cols_per_cell(self) -> float:
        return float(np.diff(self.col_edges).mean())


def resample(
    matrix: np.ndarray,
    *,
    max_rows: int = limits.MAX_HEATMAP_ROWS,
    max_cols: int = limits.MAX_HEATMAP_COLS,
    max_cells: int = limits.MAX_HEATMAP_CELLS,
    col_segments: int = 1,
) -> Overview:
    """Any 2-D matrix ``(n, m)`` as an overview of at most (max_rows, max_cols) and max_cells
    cells, float32.

    `col_segments` > 1 splits the columns into that many equal runs of different kinds (the 2-D
    sin-cos table's [sin h | cos h | sin w | cos w]) and resamples each run on its own, so no cell
    mixes two kinds.
    """
    matrix = check_finite_array("matrix", matrix, ndim=2)
    col_segments = check_int("col_segments", col_segments, minimum=1)
    n, m = matrix.shape
    if m % col_segments:
        raise ValueError(f"col_segments must divide the {m} columns, got {col_segments}")
    rows, cols = overview_shape(n, m, max_rows=max_rows, max_cols=max_cols, max_cells=max_cells,
                                col_multiple=col_segments)
    values = resampler(n, rows).apply(matrix.astype(np.float64), axis=0)  # (R, m)
    if cols < m:
        run = m // col_segments
        column_sampler = resampler(run, cols // col_segments)
        values = np.concatenate(
            [column_sampler.apply(values[:, k * run : (k + 1) * run], axis=1)
             for k in range(col_segments)], axis=1,
        )  # (R, C)
        col_edges = np.concatenate(
            [k * run + bin_edges(run, cols // col_segments)[:-1] for k in range(col_segments)]
            + [[m]]
        )
    else:
        col_edges = np.arange(m + 1)
    return Overview(
        values=values.astype(np.float32),
        row_edges=bin_edges(n, rows),
        col_edges=col_edges,
        exact=values.shape == matrix.shape,
    )


def fast_dimension_ranges(
    omega: np.ndarray, cutoff: float, layout: str
) -> tuple[tuple[int, int], ...]:
    """The column ranges [a, b) of a sinusoid table whose pairs turn faster than `cutoff`."""
    half = omega.size
    fast = int(np.count_nonzero(omega > cutoff))  # omega decreases with i: pairs 0 .. fast-1
    if fast == 0:
        return ()
    if layout == "interleaved":
        return ((0, 2 * fast),)
    return ((0, fast), (half, half + fast))


def sinusoid_overview(
    num_positions: int,
    d_model: int,
    *,
    base: float = limits.DEFAULT_BASE,
    layout: Layout = "interleaved",
    timescales: Timescales = "paper",
    max_rows: int = limits.MAX_HEATMAP_ROWS,
    max_cols: int = limits.MAX_HEATMAP_COLS,
    max_cells: int = limits.MAX_HEATMAP_CELLS,
) -> Overview:
    """The sinusoid table resampled to at most (max_rows, max_cols) and max_cells cells, without
    building the table: row cell j is H(w_i) (sin, cos)(w_i c_j) at its evenly spaced centre c_j.

    Exact (every cell one entry) when the table already fits. Wider than `max_cols`: each
    kind's columns (sines, cosines) are resampled along the frequency index on their own.
    """
    num_positions = check_int("num_positions", num_positions, minimum=1)
    omega = frequencies(d_model, base=base, timescales=timescales)  # (h,) checks d_model, base
    layout = check_choice("layout", layout, LAYOUTS)
    check_choice("timescales", timescales, TIMESCALES)
    half = omega.size
    rows, cols = overview_shape(num_positions, 2 * half, max_rows=max_rows, max_cols=max_cols,
                                max_cells=max_cells, col_multiple=2)
    row_edges = bin_edges(num_positions, rows)
    centers = bin_centers(row_edges)  # (R,) positions the cells sample
    response = lowpass_response(omega, lowpass_sigma(num_positions, rows))  # (h,), 1 if exact
    angles = np.multiply.outer(centers, omega)  # (R, h)
    phasor = (np.sin(angles) + 1j * np.cos(angles)) * response  # (R, h): filtered sin + i cos
    if cols < 2 * half:  # neighbouring frequencies of one kind share a cell, never sin with cos
        phasor = resampler(half, cols // 2).apply(phasor, axis=1)  # (R, C/2)
        col_edges = bin_edges(2 * half, cols)
    else:
        col_edges = np.arange(2 * half + 1)
    values = _arrange(phasor, layout, np.dtype(np.float64)).astype(np.float32)  # (R, C)
    return Overview(
        values=values,
        row_edges=row_edges,
        col_edges=col_edges,
        exact=rows == num_positions and cols == 2 * half,
        fast_dims=fast_dimension_ranges(omega, nyquist(num_positions, rows), layout),
    )


def sinusoid_window(
    pos_start: int,
    pos_count: int,
    dim_start: int,
    dim_count: int,
    d_model: int,
    *,
    base: float = limits.DEFAULT_BASE,
    layout: Layout = "interleaved",
    timescales: Timescales = "paper",
) -> Overview:
    """Exact entries of a window of the table, clipped to it: rows from pos_start, columns from
    dim_start (both shifted back so the window stays full where the table allows)."""
    omega = frequencies(d_model, base=base, timescales=timescales)
    d_model = omega.size * 2
    pos_count = check_int("pos_count", pos_count, minimum=1, maximum=limits.MAX_ZOOM_SIZE)
    dim_count = min(check_int("dim_count", dim_count, minimum=1), d_model)
    pos_start = check_int("pos_start", pos_start, minimum=0)
    dim_start = min(check_int("dim_start", dim_start, minimum=0), d_model - dim_count)
    table = sinusoidal_encoding(pos_count, d_model, base=base, layout=layout, start=pos_start,
                                timescales=timescales)
    values = np.ascontiguousarray(table[:, dim_start : dim_start + dim_count])  # (P, D) float32
    return Overview(
        values=values,
        row_edges=np.arange(pos_start, pos_start + pos_count + 1),
        col_edges=np.arange(dim_start, dim_start + dim_count + 1),
        exact=True,
    )
