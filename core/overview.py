r"""Heatmaps at screen resolution: area averages, never strides.

A full-resolution 8192 x 4096 table is 128 MB of float32 and freezes a browser; taking every n-th
row instead aliases (the fast sinusoids fold into false moire patterns). Each cell of an overview
is instead the *mean* of the block of entries it covers, which is what a screen would show if it
could. For the sinusoid table the row-block means have a closed form (the Dirichlet kernel), so
an overview of any size costs O(rows x d_model) and the full table is never built:

$$\frac{1}{n}\sum_{p=a}^{a+n-1} e^{i p w} = e^{i w (a + (n-1)/2)} \,
\frac{\sin(n w / 2)}{n \sin(w / 2)}$$
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core import limits
from core._checks import check_choice, check_finite_array, check_int
from core.sinusoidal import LAYOUTS, Layout, _arrange, frequencies, sinusoidal_encoding


def bin_edges(size: int, max_bins: int) -> np.ndarray:
    """Integer edges splitting range(size) into min(size, max_bins) near-equal bins.

    Shape ``(bins + 1,)``, first 0, last `size`; bin j is [edges[j], edges[j+1]).
    """
    size = check_int("size", size, minimum=1)
    max_bins = check_int("max_bins", max_bins, minimum=1)
    bins = min(size, max_bins)
    return np.round(np.linspace(0, size, bins + 1)).astype(np.int64)  # (bins + 1,)


def bin_centers(edges: np.ndarray) -> np.ndarray:
    """Where to draw the bins of `bin_edges(...)`: evenly spaced, each within half an entry of its
    bin's true centre. Shape ``(bins,)``.

    The edges round an even split, so bins differ by one entry and their true centres are not
    evenly spaced. plotly draws a heatmap as one image (``zsmooth="fast"``) only on coordinates
    evenly spaced to 1% of a step; otherwise it warns and paints a rectangle per cell (an 8192 x
    4096 overview repainted in about 1 s instead of 0.3 s in Chromium).
    """
    bins = edges.size - 1
    step = (edges[-1] - edges[0]) / bins
    return edges[0] + (np.arange(bins) + 0.5) * step - 0.5  # exact bins: the entries' indices


def _mean_columns(values: np.ndarray, col_edges: np.ndarray) -> np.ndarray:
    """Mean of each column bin: ``(R, C_full) -> (R, C)``."""
    sums = np.add.reduceat(values, col_edges[:-1], axis=1)  # (R, C)
    return sums / np.diff(col_edges)[None, :]


def block_mean(matrix: np.ndarray, max_rows: int, max_cols: int) -> tuple[np.ndarray, ...]:
    """Area-average any 2-D matrix down to at most (max_rows, max_cols) cells.

    Returns ``(means (R, C) float32, row_edges (R+1,), col_edges (C+1,))``.
    """
    matrix = check_finite_array("matrix", matrix, ndim=2)
    row_edges = bin_edges(matrix.shape[0], max_rows)
    col_edges = bin_edges(matrix.shape[1], max_cols)
    rows = np.add.reduceat(matrix.astype(np.float64), row_edges[:-1], axis=0)  # (R, C_full)
    rows /= np.diff(row_edges)[:, None]
    return _mean_columns(rows, col_edges).astype(np.float32), row_edges, col_edges


@dataclass(frozen=True)
class Overview:
    """A heatmap-ready view of a sinusoid table."""

    values: np.ndarray  # (R, C) float32: block means (exact entries when exact is True)
    row_edges: np.ndarray  # (R + 1,) position bins [edges[j], edges[j+1])
    col_edges: np.ndarray  # (C + 1,) dimension bins
    exact: bool  # True when every cell is one entry (no averaging happened)

    @property
    def row_centers(self) -> np.ndarray:
        return bin_centers(self.row_edges)

    @property
    def col_centers(self) -> np.ndarray:
        return bin_centers(self.col_edges)


def sinusoid_overview(
    num_positions: int,
    d_model: int,
    *,
    base: float = limits.DEFAULT_BASE,
    layout: Layout = "interleaved",
    max_rows: int = limits.MAX_HEATMAP_ROWS,
    max_cols: int = limits.MAX_HEATMAP_COLS,
) -> Overview:
    """Area-averaged sinusoid table at most ``(max_rows, max_cols)``, without building the table.

    Exact (every cell one entry) when the table already fits.
    """
    num_positions = check_int("num_positions", num_positions, minimum=1)
    omega = frequencies(d_model, base=base)  # (d/2,)
    layout = check_choice("layout", layout, LAYOUTS)
    row_edges = bin_edges(num_positions, max_rows)
    col_edges = bin_edges(omega.size * 2, max_cols)
    counts = np.diff(row_edges).astype(np.float64)[:, None]  # (R, 1) positions per row bin
    centers = (row_edges[:-1, None] + (counts - 1) / 2.0) * omega  # (R, d/2) angle at centre
    # Dirichlet kernel: the mean of n unit phasors spaced w apart; w <= 1 so sin(w/2) > 0.
    kernel = np.sin(counts * omega / 2) / (counts * np.sin(omega / 2))  # (R, d/2), 1 when n = 1
    phasor = (np.sin(centers) + 1j * np.cos(centers)) * kernel  # (R, d/2): mean sin + i mean cos
    row_means = _arrange(phasor, layout, np.dtype(np.float64))  # (R, d)
    values = _mean_columns(row_means, col_edges).astype(np.float32)  # (R, C)
    exact = len(row_edges) - 1 == num_positions and len(col_edges) - 1 == omega.size * 2
    return Overview(values=values, row_edges=row_edges, col_edges=col_edges, exact=exact)


def sinusoid_window(
    pos_start: int,
    pos_count: int,
    dim_start: int,
    dim_count: int,
    d_model: int,
    *,
    base: float = limits.DEFAULT_BASE,
    layout: Layout = "interleaved",
) -> Overview:
    """Exact entries of a window of the table, clipped to it: rows from pos_start, columns from
    dim_start (both shifted back so the window stays full where the table allows)."""
    omega = frequencies(d_model, base=base)
    d_model = omega.size * 2
    pos_count = check_int("pos_count", pos_count, minimum=1, maximum=limits.MAX_ZOOM_SIZE)
    dim_count = min(check_int("dim_count", dim_count, minimum=1), d_model)
    pos_start = check_int("pos_start", pos_start, minimum=0)
    dim_start = min(check_int("dim_start", dim_start, minimum=0), d_model - dim_count)
    table = sinusoidal_encoding(pos_count, d_model, base=base, layout=layout, start=pos_start)
    values = np.ascontiguousarray(table[:, dim_start : dim_start + dim_count])  # (P, D) float32
    return Overview(
        values=values,
        row_edges=np.arange(pos_start, pos_start + pos_count + 1),
        col_edges=np.arange(dim_start, dim_start + dim_count + 1),
        exact=True,
    )
