r"""Learned vs sinusoidal: statistics of one position table, learned (BERT's) or the sinusoid.

Norms of the rows, similarity of neighbouring positions, similarity against the offset around a
few anchors, how far the similarity matrix is from Toeplitz (a function of the offset alone, as
the sinusoid's is), the columns that are most like one sinusoid, and screen-sized overviews.

The metrics are `core.similarity`'s (`Metric`); the whole (n, n) similarity matrix is built here
in float64 (`full_similarity_matrix`), where `core.similarity.pairwise_similarity` never holds it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core._checks import check_choice, check_finite_array, check_int
from core.overview import Overview, resample
from core.similarity import METRICS, Metric


def _check_table(table: object) -> np.ndarray:
    table = check_finite_array("table", table, ndim=2).astype(np.float64)  # (n, d)
    if table.shape[0] < 2:
        raise ValueError(f"table has {table.shape[0]} row(s): at least 2 positions are needed")
    return table


def _cosines(dots: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """dots / lengths, 0 where a length is 0: a zero row (RoBERTa's padding position, MAE's
    class token) is like no other, not NaN."""
    return np.divide(dots, lengths, out=np.zeros(np.broadcast(dots, lengths).shape),
                     where=lengths > 0)


def full_similarity_matrix(table: np.ndarray, metric: Metric = "cosine") -> np.ndarray:
    """S[i, j] = P_i . P_j (``dot``) or the cosine of their angle: the whole ``(n, n)`` matrix,
    float64 (`core.similarity.pairwise_similarity` computes the same products in float32 chunks
    and keeps only an overview and the per-offset extremes)."""
    table = _check_table(table)
    metric = check_choice("metric", metric, METRICS)
    if metric == "cosine":
        table = _cosines(table, np.linalg.norm(table, axis=1, keepdims=True))  # (n, d) unit rows
    return table @ table.T  # (n, n)


def offset_similarity_curve(
    table: np.ndarray, anchor: int, max_offset: int, metric: Metric = "cosine"
) -> tuple[np.ndarray, np.ndarray]:
    """Similarity of P[anchor] with P[anchor + k] for k in [-max_offset, max_offset]: the values
    of `core.similarity.anchor_profile` around the anchor, indexed by offset, computed for those
    2K+1 rows only.

    Returns ``(offsets (2K+1,), values (2K+1,))``; NaN where anchor + k is outside the table.
    """
    table = _check_table(table)
    metric = check_choice("metric", metric, METRICS)
    anchor = check_int("anchor", anchor, minimum=0, maximum=table.shape[0] - 1)
    max_offset = check_int("max_offset", max_offset, minimum=1)
    offsets = np.arange(-max_offset, max_offset + 1)  # (2K+1,)
    other = anchor + offsets  # (2K+1,)
    inside = (other >= 0) & (other < table.shape[0])
    values = np.full(offsets.shape, np.nan)
    rows = table[other[inside]]  # (m, d)
    values[inside] = rows @ table[anchor]
    if metric == "cosine":
        values[inside] = _cosines(values[inside],
                                  np.linalg.norm(rows, axis=1) * np.linalg.norm(table[anchor]))
    return offsets, values


def position_norms(table: np.ndarray) -> np.ndarray:
    """|P_p| for every position, ``(n,)``."""
    return np.linalg.norm(_check_table(table), axis=1)


def neighbour_similarity(table: np.ndarray, metric: Metric = "cosine") -> np.ndarray:
    """Similarity of each position with the next one, ``(n - 1,)``: high and even for a smooth
    table."""
    table = _check_table(table)
    metric = check_choice("metric", metric, METRICS)
    dots = np.einsum("nd,nd->n", table[:-1], table[1:])  # (n-1,) P_p . P_{p+1}
    if metric == "cosine":
        lengths = np.linalg.norm(table, axis=1)  # (n,)
        dots = _cosines(dots, lengths[:-1] * lengths[1:])
    return dots


def toeplitz_deviation(matrix: np.ndarray) -> float:
    """Root-mean-square distance of `matrix` ``(n, n)`` from its Toeplitz part (each diagonal
    replaced by its mean). 0 when the similarity depends only on the offset, as the sinusoid's."""
    residual, _, n = _toeplitz_squares(matrix)
    return float(np.sqrt(residual / (n * n)))


def offset_only_share(matrix: np.ndarray) -> float:
    r"""How much of the similarity the offset alone explains: the share of the variance of
    `matrix` ``(n, n)`` that its Toeplitz part (each diagonal replaced by its mean) carries,
    $1 - \sum (S - \bar S_{i-j})^2 / \sum (S - \bar S)^2$. 1 for the sinusoid, whose similarity is
    a function of the offset; 1 also for a constant matrix (nothing is left to explain)."""
    residual, total, _ = _toeplitz_squares(matrix)
    return 1.0 - residual / total if total > 0 else 1.0


def _toeplitz_squares(matrix: np.ndarray) -> tuple[float, float, int]:
    """(sum of squares about the diagonals' means, about the overall mean, n) of a square
    matrix.

    Read in blocks of rows, so that no (n, n) temporary is made (at n = 2048 the matrix is 32 MB
    and whole-matrix temporaries took four times that)."""
    matrix = check_finite_array("matrix", matrix, ndim=2).astype(np.float64, copy=False)
    n = matrix.shape[0]
    if matrix.shape != (n, n):
        raise ValueError(f"matrix must be square, got shape {matrix.shape}")
    blocks = [(start, min(start + _TOEPLITZ_BLOCK, n)) for start in range(0, n, _TOEPLITZ_BLOCK)]
    columns = np.arange(n)

    def diagonal_index(start: int, stop: int) -> np.ndarray:  # (rows, n): i - j + n - 1
        return np.subtract.outer(np.arange(start, stop), columns) + (n - 1)

    sums = np.zeros(2 * n - 1)  # (2n-1,) each diagonal's sum, offset -(n-1) first
    for start, stop in blocks:
        sums += np.bincount(diagonal_index(start, stop).ravel(),
                            weights=matrix[start:stop].ravel(), minlength=2 * n - 1)
    counts = n - np.abs(np.arange(2 * n - 1) - (n - 1))  # (2n-1,) entries on each diagonal
    means = sums / counts  # (2n-1,)
    mean = sums.sum() / (n * n)
    residual = sum(float(np.sum((matrix[start:stop] - means[diagonal_index(start, stop)]) ** 2))
                   for start, stop in blocks)
    total = sum(float(np.sum((matrix[start:stop] - mean) ** 2)) for start, stop in blocks)
    return residual, total, n


_TOEPLITZ_BLOCK = 256  # rows per block: (256, n) temporaries, 4 MB at n = 2048


@dataclass(frozen=True, eq=False)
class DominantWaves:
    """For each column of a position table: the one Fourier wave that carries most of it."""

    share: np.ndarray  # (d,): fraction of the column's variance in that single frequency
    period: np.ndarray  # (d,): its period in positions (inf for a constant column)
    samples: int = 0  # m, the positions read: periods are m / k, one bin is 1/m cycles apart


def dominant_waves(table: np.ndarray) -> DominantWaves:
    """The strongest non-constant Fourier component of each column over positions 1..n-1
    (position 0 is BERT's outlier, [CLS]). A share near 1 means the column is one sinusoid.

    With m = n - 1 positions, frequency k (1 <= k <= m/2) has period m / k positions.
    """
    table = _check_table(table)
    body = table[1:] - table[1:].mean(axis=0)  # (m, d), centred per column
    m = body.shape[0]
    power = np.abs(np.fft.rfft(body, axis=0)) ** 2  # (m//2 + 1, d), k = 0 is the mean (now 0)
    power[0] = 0.0
    total = power.sum(axis=0)  # (d,)
    peak = power.argmax(axis=0)  # (d,) strongest frequency index k
    share = np.divide(power.max(axis=0), total, out=np.zeros(total.shape), where=total > 0)
    period = np.divide(float(m), peak, out=np.full(total.shape, np.inf), where=peak > 0)
    return DominantWaves(share=share, period=period, samples=m)


def periodic_dimensions(table: np.ndarray, count: int = 4, *, min_cycles: int = 2) -> np.ndarray:
    """The `count` columns most like a single sinusoid (highest `dominant_waves` share),
    ``(count,)``, best first. Columns whose wave fits at least `min_cycles` times into the table
    come first: one cycle over the whole table is as much a trend as a ripple."""
    table = _check_table(table)
    count = check_int("count", count, minimum=1, maximum=table.shape[1])
    min_cycles = check_int("min_cycles", min_cycles, minimum=1)
    waves = dominant_waves(table)
    ripples = waves.period <= (table.shape[0] - 1) / min_cycles  # (d,)
    order = np.lexsort((-waves.share, ~ripples))  # ripples first, then by share
    return order[:count]


def table_overview(table: np.ndarray, max_rows: int, max_cols: int) -> Overview:
    """Any position table as a heatmap-ready `Overview` (`core.overview.resample` when larger)."""
    return resample(table, max_rows=max_rows, max_cols=max_cols, max_cells=max_rows * max_cols)


def symmetric_range(values: np.ndarray, quantile: float = 0.995) -> float:
    """A colour range [-r, r] that the `quantile` of |values| fits in: outliers (BERT's position
    0) saturate instead of washing out everything else. Positive."""
    values = check_finite_array("values", values)
    if not 0 < quantile <= 1:
        raise ValueError(f"quantile={quantile!r} is not allowed: quantile must be in (0, 1]")
    r = float(np.quantile(np.abs(values), quantile)) if values.size else 0.0
    return r if r > 0 else 1.0


def offset_similarity_curves(
    table: np.ndarray, anchors: list[int], max_offset: int, metric: Metric = "cosine"
) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """`offset_similarity_curve` for several anchors:
    ``{anchor: (offsets (2K+1,), values (2K+1,))}``. Identical curves mean a similarity that
    depends on the offset alone (`core.similarity.offset_curves` is the sinusoid's closed form)."""
    return {a: offset_similarity_curve(table, a, max_offset, metric) for a in anchors}


def curve_spread(curves: dict[int, tuple[np.ndarray, np.ndarray]]) -> float:
    """The largest gap between the anchors' curves at one offset (where two or more are defined):
    ~0 for the sinusoid, whose similarity is a function of the offset alone."""
    values = np.stack([v for _, v in curves.values()])  # (anchors, 2K+1)
    defined = np.sum(~np.isnan(values), axis=0) >= 2  # (2K+1,)
    if not defined.any():
        return 0.0
    both = values[:, defined]  # (anchors, m)
    return float(np.max(np.nanmax(both, axis=0) - np.nanmin(both, axis=0)))


@dataclass(frozen=True)
class TableSummary:
    """One position table in a few numbers: its size, the norm of position 0 against the rest,
    how alike neighbouring positions are. Each is O(n d): how far its similarity is from Toeplitz
    needs the (n, n) matrix (`toeplitz_deviation`), ~60 ms at 2048 positions."""

    rows: int  # positions in the table
    first_norm: float  # |P_0|
    rest_norm: float  # mean |P_p| over p >= 1
    neighbour_mean: float  # mean similarity of P_p and P_{p+1}


def summarize_table(table: np.ndarray, metric: Metric = "cosine") -> TableSummary:
    """Norm of position 0 against the rest, mean neighbour similarity."""
    table = _check_table(table)
    lengths = position_norms(table)  # (n,)
    return TableSummary(
        rows=table.shape[0],
        first_norm=float(lengths[0]),
        rest_norm=float(lengths[1:].mean()),
        neighbour_mean=float(neighbour_similarity(table, metric).mean()),
    )


def comparison_anchors(anchor: int, rows: int) -> list[int]:
    """The chosen anchor plus up to three spread over the table (0, rows/3, 2 rows/3), sorted."""
    anchor = check_int("anchor", anchor, minimum=0, maximum=rows - 1)
    return sorted({anchor, 0, rows // 3, 2 * rows // 3})
