r"""Similarity between positions: what the dot product of two encodings can and cannot tell.

Source 004_775f8adb18140991.txt: from sin(a+b) and cos(a+b), the dot product of two position
vectors depends only on their offset, and not on its sign:

$$PE_p \cdot PE_{p+k} = \sum_i \sin(p\omega_i)\sin((p+k)\omega_i)
+ \cos(p\omega_i)\cos((p+k)\omega_i) = \sum_i \cos(\omega_i k)$$

so the (n, n) matrix PE PE^T is Toeplitz (constant along diagonals), and a table of random vectors
of the same shape is not. Source 003_8f6041c3df7ea4a0.txt: PE[p+k] = M_k PE[p] with M_k the
block-rotation matrix of `core.shift_matrix`; `shift_residuals` measures how exactly.

Most of it works on a *given* table, sinusoid or random, so the two are compared with the same
code. Sizes are the callers' to cap: a table's Gram matrix costs n^2 * d multiply-adds, but is never
held whole (it is reduced chunk by chunk to a screen-sized overview and a per-offset envelope);
`random_contrast` pays it once for both metrics.

The sinusoid's own matrix needs no product at all: it *is* the offset function
f(k) = sum_i cos(w_i k) laid out along diagonals, with |PE|^2 = f(0) = d/2 on every row, so

$$S_{pq} = f(q - p), \qquad \cos(PE_p, PE_q) = \frac{f(q - p)}{d/2}, \qquad
W_r S W_c^T = \mathrm{Re}\,(W_r E)(W_c E)^H, \quad E_{pi} = e^{i \omega_i p}$$

(`sinusoid_similarity`): f costs n x d/2 cosines, the resampled overview a few (cells, d/2)
products, a row or the exact matrix is read off f. Both layouts (interleaved, concatenated) are
column permutations of each other and share these dot products.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np

from core import limits
from core._checks import check_choice, check_finite_array, check_int
from core.overview import Overview, Resampler, bin_edges, resampler
from core.sinusoidal import frequencies, offset_dot_product, shift_matrix, sinusoidal_rows

Metric = Literal["dot", "cosine"]
METRICS: tuple[str, ...] = get_args(Metric)

# Rows of the Gram matrix computed at once: a (256, n) float32 block plus its (256, 2n) skewed
# copy for the per-offset envelope stay under ~13 MB for n = 4096.
_CHUNK = 256


def random_table(num_positions: int, d_model: int, *, seed: int = 0) -> np.ndarray:
    """A seeded Gaussian table of the sinusoid's shape ``(num_positions, d_model)``, float32.

    Entries are N(0, 1/2), so E|row|^2 = d/2 like the sinusoid's exact |PE|^2 = d/2: the two
    tables' dot products are on the same scale, and only their structure differs.
    """
    num_positions = check_int("num_positions", num_positions, minimum=1)
    d_model = check_int("d_model", d_model, minimum=1)
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((num_positions, d_model)) * np.sqrt(0.5)).astype(np.float32)


def _rows(table: object) -> np.ndarray:
    table = check_finite_array("table", table, ndim=2)
    if table.shape[0] < 1 or table.shape[1] < 1:
        raise ValueError(f"table must have at least one row and column, got shape {table.shape}")
    return table


def _scale(table: np.ndarray, metric: str) -> np.ndarray:
    """Row scale factors: 1 for the dot product, 1/|row| for the cosine similarity. ``(n,)``"""
    if metric == "dot":
        return np.ones(table.shape[0])
    norms = np.linalg.norm(table.astype(np.float64), axis=1)  # (n,)
    if np.any(norms == 0):
        raise ValueError("metric='cosine' is not defined for a table with an all-zero row")
    return 1.0 / norms


@dataclass(frozen=True)
class PairwiseSimilarity:
    """The (n, n) similarity matrix of a table, reduced to what a screen can show."""

    overview: Overview  # (R, C) the matrix resampled (core.overview); exact when n fits
    offsets: np.ndarray  # (2n - 1,) k = q - p, from -(n - 1) to n - 1
    lowest: np.ndarray  # (2n - 1,) min over all pairs (p, q) with q - p = k
    highest: np.ndarray  # (2n - 1,) max over the same pairs: equal to lowest iff Toeplitz

    @property
    def spread(self) -> float:
        """The largest (highest - lowest) over all offsets: 0 for a Toeplitz matrix."""
        return float(np.max(self.highest - self.lowest))


def pairwise_similarity(
    table: np.ndarray,
    *,
    metric: Metric = "dot",
    max_rows: int = limits.MAX_SQUARE_SIDE,
    max_cols: int = limits.MAX_SQUARE_SIDE,
) -> PairwiseSimilarity:
    """All n^2 similarities of the rows of `table` ``(n, d)``, in one chunked pass.

    Returns the overview of the ``(n, n)`` matrix S = X X^T (at most ``(max_rows, max_cols)``,
    resampled as `core.overview.resample` does) and, for every offset k = q - p, the lowest and
    highest similarity over the pairs at that offset. Computed in float32 (about 1e-6 relative
    error): display precision.

    The resampling is linear, W_r S W_c^T = (W_r X)(W_c X)^T, so the overview costs two small
    products and never needs S. For the envelope S is symmetric, so only its upper triangle is
    multiplied out (n^2 d / 2 multiply-adds), and offset -k has offset k's pairs.
    """
    table = _rows(table)
    metric = check_choice("metric", metric, METRICS)
    return _pairwise(table, (metric,), max_rows=max_rows, max_cols=max_cols)[metric]


def _pairwise(
    table: np.ndarray, metrics: tuple[str, ...], *, max_rows: int, max_cols: int
) -> dict[str, PairwiseSimilarity]:
    """`pairwise_similarity` for each of `metrics` from one product: every metric's matrix is
    D X X^T D for a diagonal D of row scales (1, or 1 / |x_p| for the cosine), so each chunk of
    X X^T, rescaled, serves them all."""
    n = table.shape[0]
    table32 = table.astype(np.float32)  # (n, d)
    scales = {metric: _scale(table, metric) for metric in metrics}  # (n,) each, float64
    first = metrics[0]  # its scale goes into the product; the others rescale it
    rows = table32 * scales[first].astype(np.float32)[:, None]  # (n, d)
    relative = {metric: (scales[metric] / scales[first]).astype(np.float32) for metric in metrics}
    lowest = {metric: np.full(n, np.inf) for metric in metrics}  # (n,) by offset k = 0 .. n - 1
    highest = {metric: np.full(n, -np.inf) for metric in metrics}
    buffer = np.empty(_CHUNK * (n + _CHUNK), dtype=np.float32)  # skewed rows, reused
    for start in range(0, n, _CHUNK):
        stop = min(start + _CHUNK, n)
        m = n - start
        gram = rows[start:stop] @ rows[start:].T  # (c, m): rows p of the chunk, q >= start
        for metric in metrics:
            scale = relative[metric]
            values = gram if metric == first else (
                gram * scale[start:stop, None] * scale[None, start:]
            )  # (c, m)
            low, high = _extremes_by_offset(values, buffer)  # (m,) each
            np.minimum(lowest[metric][:m], low, out=lowest[metric][:m])
            np.maximum(highest[metric][:m], high, out=highest[metric][:m])
    row_sampler = resampler(n, max_rows)
    col_sampler = row_sampler if max_cols == max_rows else resampler(n, max_cols)
    row_edges = bin_edges(n, max_rows)
    col_edges = bin_edges(n, max_cols)
    results = {}
    for metric in metrics:
        scaled = table32 * scales[metric].astype(np.float32)[:, None]  # (n, d)
        left = row_sampler.apply(scaled, axis=0)  # (R, d) W_r X
        right = left if col_sampler is row_sampler else col_sampler.apply(scaled, axis=0)
        results[metric] = PairwiseSimilarity(
            overview=Overview(
                values=(left @ right.T).astype(np.float32),  # (R, C)
                row_edges=row_edges,
                col_edges=col_edges,
                exact=row_edges.size - 1 == n and col_edges.size - 1 == n,
            ),
            offsets=np.arange(-(n - 1), n),
            # offset -k: the pairs of k, mirrored
            lowest=np.concatenate([lowest[metric][:0:-1], lowest[metric]]),
            highest=np.concatenate([highest[metric][:0:-1], highest[metric]]),
        )
    return results


def _extremes_by_offset(gram: np.ndarray, buffer: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Min and max over each offset k = j - i of a chunk `gram` ``(c, m)`` whose row i is
    position start + i and column j position start + j: two ``(m,)``, k = 0 .. m - 1.

    Row i is written skewed right by c - 1 - i into a (c, m + c - 1) block of the flat `buffer`,
    so that column c - 1 + k holds offset k: a view with row stride (width - 1) elements writes
    every row in one copy, and the rows' values lie end to end with c - 2 cells between them.
    Only those cells (c (c - 1) in all, not the whole block) are refilled, with +inf for the min
    and -inf for the max.
    """
    c, m = gram.shape
    width = m + c - 1
    flat = buffer[: c * width]
    step = flat.itemsize
    values = np.lib.stride_tricks.as_strided(
        flat[c - 1 :], shape=(c, m), strides=((width - 1) * step, step), writeable=True,
    )  # values[i, j] is block[i, j - i + c - 1]
    values[...] = gram
    gaps = [flat[: c - 1], flat[c * width - (c - 1) :]]  # before the first row, after the last
    if c > 1:  # between rows i and i + 1
        gaps.append(np.lib.stride_tricks.as_strided(
            flat[c - 1 + m :], shape=(c - 1, c - 2), strides=((width - 1) * step, step),
            writeable=True,
        ))
    by_offset = flat.reshape(c, width)[:, c - 1 :]  # (c, m) column k: offset k
    for gap in gaps:
        gap.fill(np.inf)
    low = by_offset.min(axis=0)  # (m,)
    for gap in gaps:
        gap.fill(-np.inf)
    high = by_offset.max(axis=0)  # (m,)
    return low, high


def offset_similarity(
    offsets: np.ndarray, d_model: int, *, base: float = limits.DEFAULT_BASE, metric: Metric = "dot"
) -> np.ndarray:
    """The sinusoid's similarity at each offset k, same shape as `offsets`, float64.

    dot: sum_i cos(w_i k) (`offset_dot_product`); cosine: the same over |PE|^2 = d/2.
    """
    metric = check_choice("metric", metric, METRICS)
    dot = offset_dot_product(offsets, d_model, base=base)
    return dot if metric == "dot" else dot / (d_model / 2)


def sample_pairs(num_positions: int, count: int, *, seed: int = 0) -> tuple[np.ndarray, ...]:
    """`count` seeded random pairs (p, q) of positions in [0, num_positions): two ``(count,)``."""
    num_positions = check_int("num_positions", num_positions, minimum=1)
    count = check_int("count", count, minimum=1)
    rng = np.random.default_rng(seed)
    return tuple(rng.integers(0, num_positions, size=(2, count)))


def pair_similarities(
    table: np.ndarray, p: np.ndarray, q: np.ndarray, *, metric: Metric = "dot"
) -> np.ndarray:
    """Similarity of rows p[j] and q[j] of `table` for each j: ``(len(p),)``, float64."""
    table = _rows(table)
    metric = check_choice("metric", metric, METRICS)
    return _similarity(table[p].astype(np.float64), table[q].astype(np.float64), metric)


def _similarity(a: np.ndarray, b: np.ndarray, metric: str) -> np.ndarray:
    """Similarity of rows a[j] and b[j], two ``(m, d)`` float64: ``(m,)``."""
    dots = np.einsum("md,md->m", a, b)  # (m,)
    if metric == "dot":
        return dots
    return dots / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def anchor_profile(table: np.ndarray, anchor: int, *, metric: Metric = "cosine") -> np.ndarray:
    """Similarity of every row of `table` ``(n, d)`` to row `anchor`: ``(n,)``, float64.

    The TensorFlow tutorial's picture: one position against all, peaking at the anchor.
    """
    table = _rows(table)
    anchor = check_int("anchor", anchor, minimum=0, maximum=table.shape[0] - 1)
    metric = check_choice("metric", metric, METRICS)
    rows = table.astype(np.float64)  # (n, d)
    dots = rows @ rows[anchor]  # (n,)
    if metric == "dot":
        return dots
    return dots / (np.linalg.norm(rows, axis=1) * np.linalg.norm(rows[anchor]))


def offset_distance(
    offsets: np.ndarray, d_model: int, *, base: float = limits.DEFAULT_BASE
) -> np.ndarray:
    """The sinusoid's |PE[p] - PE[p+k]| for each offset k: sqrt(d - 2 sum_i cos(w_i k)).

    |a - b|^2 = |a|^2 + |b|^2 - 2 a.b with |PE|^2 = d/2: a function of the dot product alone.
    Same shape as `offsets`, float64.
    """
    squared = d_model - 2.0 * offset_dot_product(offsets, d_model, base=base)
    return np.sqrt(np.clip(squared, 0.0, None))  # rounding can dip a hair below 0 at k = 0


@dataclass(frozen=True)
class ShiftCheck:
    """PE[p + k] against M_k PE[p] for every p whose p + k is in the table."""

    positions: np.ndarray  # (m,) the p checked
    residuals: np.ndarray  # (m,) max over dimensions of |PE[p + k] - M_k PE[p]|

    @property
    def largest(self) -> float:
        return float(self.residuals.max()) if self.residuals.size else 0.0


def shift_residuals(
    table: np.ndarray, offset: int, *, base: float = limits.DEFAULT_BASE
) -> ShiftCheck:
    """Check PE[p + k] = M_k PE[p] on an interleaved sinusoid `table` ``(n, d_model)``.

    The residual is the table's own rounding (about 1e-7 for float32): the identity is exact.
    M_k is block-diagonal (one 2x2 rotation per (sin, cos) pair), so applying it costs
    O(n d), not the O(n d^2) of a dense product.
    """
    table = _rows(table)
    n, d_model = table.shape
    offset = check_int("offset", offset, minimum=-(n - 1), maximum=n - 1)
    m = shift_matrix(offset, d_model, base=base)  # (d, d) block rotations
    half = d_model // 2
    pair = np.arange(half)
    blocks = m.reshape(half, 2, half, 2)[pair, :, pair, :]  # (d/2, 2, 2): M_k[2i:2i+2, 2i:2i+2]
    positions = np.arange(max(0, -offset), min(n, n - offset))  # (m,) p with p + k in range
    sin = table[positions, 0::2].astype(np.float64)  # (m, d/2) columns 2i of PE[p]
    cos = table[positions, 1::2].astype(np.float64)  # (m, d/2) columns 2i + 1
    residual = []
    for row in (0, 1):  # PE[p + k] - M_k PE[p]: the sines (columns 2i), then the cosines
        target = table[positions + offset, row::2].astype(np.float64)  # (m, d/2)
        target -= sin * blocks[:, row, 0]
        target -= cos * blocks[:, row, 1]
        residual.append(np.abs(target).max(axis=1))  # (m,)
    return ShiftCheck(positions=positions, residuals=np.maximum(*residual))


@dataclass(frozen=True)
class RotatedPair:
    """One frequency pair at positions p and p + k, as points (cos, sin) on the unit circle."""

    pair: int  # i
    omega: float  # w_i, radians per position
    rotation: float  # w_i * k, radians
    before: np.ndarray  # (2,) (cos, sin)(p w_i), from the encoding
    after: np.ndarray  # (2,) (cos, sin)((p + k) w_i), from the encoding
    rotated: np.ndarray  # (2,) M_k's block applied to `before`: equals `after`


def rotated_pair(
    position: int, offset: int, pair: int, d_model: int, *, base: float = limits.DEFAULT_BASE
) -> RotatedPair:
    """Pair i of PE[position] and PE[position + offset], and M_k's 2x2 block acting on it."""
    omega = frequencies(d_model, base=base)  # (d/2,)
    pair = check_int("pair", pair, minimum=0, maximum=omega.size - 1)
    position = check_int("position", position, minimum=0)
    offset = check_int("offset", offset, minimum=-position)
    # The pair's two columns of PE[position] and PE[position + offset], as encode_positions
    # computes them (the other d - 2 are not needed).
    angles = np.array([position, position + offset], dtype=np.float64) * omega[pair]  # (2,)
    sin, cos = np.sin(angles), np.cos(angles)
    b = omega[pair] * offset
    block = np.array([[np.cos(b), np.sin(b)], [-np.sin(b), np.cos(b)]])  # M_k's block i
    sin_cos = block @ np.array([sin[0], cos[0]])  # (2,) (sin, cos) moved by M_k's block
    return RotatedPair(
        pair=pair,
        omega=float(omega[pair]),
        rotation=float(omega[pair] * offset),
        before=np.array([cos[0], sin[0]]),  # (cos, sin): x, y on the circle
        after=np.array([cos[1], sin[1]]),
        rotated=sin_cos[::-1].copy(),
    )


@dataclass(frozen=True)
class PairSample:
    """Seeded random pairs (p, q) of a table's rows, with their offset, similarity and distance."""

    p: np.ndarray  # (m,)
    q: np.ndarray  # (m,)
    offsets: np.ndarray  # (m,) q - p
    similarity: np.ndarray  # (m,) dot or cosine of rows p and q
    distance: np.ndarray  # (m,) |table[p] - table[q]|


def pair_sample(
    table: np.ndarray, *, count: int = 2000, seed: int = 0, metric: Metric = "dot"
) -> PairSample:
    """`count` seeded pairs of rows of `table` ``(n, d)``: what a scatter can show of n^2 pairs.

    The same seed draws the same pairs from any table of the same length, so a sinusoid and a
    random table are compared on the same pairs.
    """
    table = _rows(table)
    metric = check_choice("metric", metric, METRICS)
    return _pair_samples(table, count=count, seed=seed, metrics=(metric,))[metric]


def _pair_samples(
    table: np.ndarray, *, count: int, seed: int, metrics: tuple[str, ...]
) -> dict[str, PairSample]:
    """`pair_sample` for each of `metrics`, the pairs' rows gathered once."""
    p, q = sample_pairs(table.shape[0], count, seed=seed)
    a = table[p].astype(np.float64)  # (count, d)
    b = table[q].astype(np.float64)  # (count, d)
    distance = np.linalg.norm(a - b, axis=1)  # (count,) |table[p] - table[q]|
    return {
        metric: PairSample(p=p, q=q, offsets=q - p, similarity=_similarity(a, b, metric),
                           distance=distance)
        for metric in metrics
    }


def before_and_after(
    table: np.ndarray, anchor: int, offset: int, *, metric: Metric = "dot"
) -> tuple[float | None, float | None]:
    """(similarity of rows anchor and anchor + k, of rows anchor and anchor - k); None where the
    other row is outside the table. Equal for a sinusoid: it cannot tell before from after."""
    table = _rows(table)
    n = table.shape[0]
    anchor = check_int("anchor", anchor, minimum=0, maximum=n - 1)
    offset = check_int("offset", offset, minimum=-(n - 1), maximum=n - 1)
    values: list[float | None] = []
    for other in (anchor + offset, anchor - offset):
        if 0 <= other < n:
            values.append(float(pair_similarities(table, [anchor], [other], metric=metric)[0]))
        else:
            values.append(None)
    return values[0], values[1]


def sinusoid_before_and_after(
    num_positions: int, d_model: int, anchor: int, offset: int, *,
    base: float = limits.DEFAULT_BASE, metric: Metric = "dot",
) -> tuple[float | None, float | None]:
    """`before_and_after` of the sinusoid table of `num_positions` x `d_model`, the same numbers
    read off its three rows alone (`sinusoidal_rows`), not the whole table."""
    num_positions = check_int("num_positions", num_positions, minimum=1)
    anchor = check_int("anchor", anchor, minimum=0, maximum=num_positions - 1)
    offset = check_int("offset", offset, minimum=-(num_positions - 1),
                       maximum=num_positions - 1)
    metric = check_choice("metric", metric, METRICS)
    others = [q for q in (anchor + offset, anchor - offset) if 0 <= q < num_positions]
    rows = sinusoidal_rows([anchor, *others], d_model, base=base)  # (1 + len(others), d)
    found = iter(pair_similarities(rows, [0] * len(others), range(1, len(others) + 1),
                                   metric=metric))
    after, before = (float(next(found)) if 0 <= q < num_positions else None
                     for q in (anchor + offset, anchor - offset))
    return after, before


@dataclass(frozen=True)
class OffsetCurves:
    """The sinusoid's closed forms over every offset a table of n positions holds."""

    offsets: np.ndarray  # (2n - 1,) k from -(n - 1) to n - 1
    similarity: np.ndarray  # (2n - 1,) dot or cosine at offset k (`offset_similarity`)
    gaps: np.ndarray  # (n,) |p - q| from 0 to n - 1
    distance: np.ndarray  # (n,) |PE[p] - PE[p + gap]| (`offset_distance`)


def offset_curves(
    num_positions: int, d_model: int, *, base: float = limits.DEFAULT_BASE, metric: Metric = "dot"
) -> OffsetCurves:
    """Similarity and distance against the offset for a table of `num_positions` rows."""
    metric = check_choice("metric", metric, METRICS)
    return _curves(offset_dots(num_positions, d_model, base=base), metric)


def _curves(dot: np.ndarray, metric: str) -> OffsetCurves:
    """`OffsetCurves` read off f(k) ``(2n - 1,)``: |PE_p - PE_q|^2 = 2 f(0) - 2 f(q - p)."""
    n = (dot.size + 1) // 2
    squared = 2.0 * dot[n - 1] - 2.0 * dot[n - 1 :]  # (n,) gaps 0 .. n - 1; f(0) = d/2
    return OffsetCurves(
        offsets=np.arange(-(n - 1), n),
        similarity=dot if metric == "dot" else dot / dot[n - 1],
        gaps=np.arange(n),
        distance=np.sqrt(np.clip(squared, 0.0, None)),  # rounding can dip below 0 at gap 0
    )


def offset_dots(
    num_positions: int, d_model: int, *, base: float = limits.DEFAULT_BASE
) -> np.ndarray:
    """f(k) = PE_p . PE_{p+k} = sum_i cos(w_i k) for every offset a table of `num_positions`
    rows holds, k = -(n - 1) .. n - 1: ``(2n - 1,)`` float64, the exact formula
    (`offset_dot_product`) at k >= 0, mirrored (f is even). n x d/2 cosines."""
    num_positions = check_int("num_positions", num_positions, minimum=1)
    ahead = np.empty(num_positions)  # (n,) f(0) .. f(n - 1)
    for start in range(0, num_positions, _CHUNK):  # (256, d/2) cosines at a time, not (n, d/2)
        gaps = np.arange(start, min(start + _CHUNK, num_positions))
        ahead[gaps] = offset_dot_product(gaps, d_model, base=base)
    return np.concatenate([ahead[:0:-1], ahead])  # (2n - 1,)


@dataclass(frozen=True)
class SinusoidSimilarity:
    """The sinusoid's (n, n) matrix PE PE^T, held as what it is: a function of q - p.

    Entry (p, q) is ``dot[q - p + n - 1]``; a row, the curves against the offset, the exact
    matrix and the per-offset envelope are read off `dot`, and `overview` (the resampled matrix)
    was computed from the frequencies: no view multiplies tables. The cosine is the dot over
    |PE|^2 = f(0) = d/2, the same for every row, so one object serves both metrics.
    """

    dot: np.ndarray  # (2n - 1,) f(k) for k = -(n - 1) .. n - 1 (`offset_dots`), float64
    overview: Overview  # (R, C) the dot matrix resampled as `core.overview.resample` does

    @property
    def num_positions(self) -> int:
        return (self.dot.size + 1) // 2

    @property
    def offsets(self) -> np.ndarray:
        """``(2n - 1,)`` k = q - p from -(n - 1) to n - 1."""
        n = self.num_positions
        return np.arange(-(n - 1), n)

    def _norm(self, metric: str) -> float:
        metric = check_choice("metric", metric, METRICS)
        return 1.0 if metric == "dot" else float(self.dot[self.num_positions - 1])  # d/2

    def similarity(self, metric: Metric = "dot") -> np.ndarray:
        """The similarity at every offset, ``(2n - 1,)`` float64."""
        return self.dot / self._norm(metric)

    def matrix(self, metric: Metric = "dot") -> np.ndarray:
        """The exact ``(n, n)`` matrix, float64: a read-only strided view of `similarity`
        (row p is similarity[n - 1 - p : 2n - 1 - p]), so it costs memory only when copied."""
        n = self.num_positions
        windows = np.lib.stride_tricks.sliding_window_view(self.similarity(metric), n)  # (n, n)
        return windows[::-1]  # row p starts at offset -p

    def row(self, anchor: int, metric: Metric = "cosine") -> np.ndarray:
        """Every position against `anchor` (the TensorFlow tutorial's picture): ``(n,)``, as
        `anchor_profile` of the table, without the table."""
        n = self.num_positions
        anchor = check_int("anchor", anchor, minimum=0, maximum=n - 1)
        return self.similarity(metric)[n - 1 - anchor : 2 * n - 1 - anchor].copy()

    def curves(self, metric: Metric = "dot") -> OffsetCurves:
        """Similarity and distance against the offset (`offset_curves`)."""
        self._norm(metric)  # checks the metric
        return _curves(self.dot, metric)

    def pairwise(self, metric: Metric = "dot") -> PairwiseSimilarity:
        """What `pairwise_similarity` measures on a table, here exact: every diagonal is one
        value, so the lowest and highest at each offset are f(k) and the spread is 0."""
        norm = self._norm(metric)
        view = self.overview
        values = self.similarity(metric)
        return PairwiseSimilarity(
            overview=Overview(
                values=(view.values / np.float32(norm)).astype(np.float32),
                row_edges=view.row_edges,
                col_edges=view.col_edges,
                exact=view.exact,
            ),
            offsets=self.offsets,
            lowest=values,
            highest=values,
        )


def sinusoid_similarity(
    num_positions: int,
    d_model: int,
    *,
    base: float = limits.DEFAULT_BASE,
    max_rows: int = limits.MAX_SQUARE_SIDE,
    max_cols: int = limits.MAX_SQUARE_SIDE,
) -> SinusoidSimilarity:
    """The sinusoid's PE PE^T for `num_positions` positions without a table or a product:
    f (`offset_dots`, n x d/2 cosines) and the overview of at most ``(max_rows, max_cols)``
    cells, resampled as `pairwise_similarity` does.

    The overview is W_r S W_c^T = Re (W_r E)(W_c E)^H with E[p, i] = exp(i w_i p): W E is
    (cells, d/2), made from each cell's few taps (`_resampled_phasors`), never from E. When the
    matrix fits (n <= max_rows, max_cols) it is f laid out exactly.
    """
    num_positions = check_int("num_positions", num_positions, minimum=1)
    omega = frequencies(d_model, base=base)  # (d/2,), checks d_model and base
    dot = offset_dots(num_positions, d_model, base=base)  # (2n - 1,)
    row_sampler = resampler(num_positions, max_rows)
    col_sampler = resampler(num_positions, max_cols)
    row_edges = bin_edges(num_positions, max_rows)
    col_edges = bin_edges(num_positions, max_cols)
    exact = row_edges.size - 1 == num_positions and col_edges.size - 1 == num_positions
    if exact:
        values = np.lib.stride_tricks.sliding_window_view(dot, num_positions)[::-1]  # (n, n)
    else:
        left = _resampled_phasors(row_sampler, omega)  # (R, d/2) W_r E
        right = _resampled_phasors(col_sampler, omega)  # (C, d/2) W_c E
        values = left.real @ right.real.T + left.imag @ right.imag.T  # (R, C) Re(W_r E (W_c E)^H)
    return SinusoidSimilarity(
        dot=dot,
        overview=Overview(values=values.astype(np.float32), row_edges=row_edges,
                          col_edges=col_edges, exact=exact),
    )


def _resampled_phasors(sampler: Resampler, omega: np.ndarray) -> np.ndarray:
    """``sampler.apply(E)`` for E[p, i] = exp(i w_i p) ``(size, h)``, without E: ``(bins, h)``.

    Cell j's taps lie within a short run s_j + r (r < span, a few cells' width), and
    exp(i w (s_j + r)) = exp(i w s_j) exp(i w r): one (bins, span) @ (span, h) product.
    """
    start = sampler.index.min(axis=1)  # (bins,) s_j
    run = sampler.index - start[:, None]  # (bins, taps) r, in [0, span)
    span = int(run.max()) + 1
    weights = np.zeros((start.size, span))  # (bins, span)
    np.add.at(weights, (np.arange(start.size)[:, None], run), sampler.weight)  # clipped taps add
    steps = np.exp(1j * np.multiply.outer(np.arange(span, dtype=np.float64), omega))  # (span, h)
    anchors = np.exp(1j * np.multiply.outer(start.astype(np.float64), omega))  # (bins, h)
    return anchors * (weights @ steps)  # (bins, h)


@dataclass(frozen=True)
class RandomContrast:
    """A seeded random table of the sinusoid's shape, reduced for both metrics: what the sinusoid
    is set against. Everything in it depends on the size alone."""

    pairwise: dict[str, PairwiseSimilarity]  # by metric: overview and per-offset envelope
    samples: dict[str, PairSample]  # by metric: the same seeded pairs (`pair_sample`)


def random_contrast(
    num_positions: int,
    d_model: int,
    *,
    seed: int = 0,
    count: int = 2000,
    sample_seed: int = 1,
    max_rows: int = limits.MAX_SQUARE_SIDE,
    max_cols: int = limits.MAX_SQUARE_SIDE,
) -> RandomContrast:
    """`random_table` reduced by `pairwise_similarity` and `pair_sample` for every metric, with
    one n^2 d / 2 product for both (the cosine rescales the dot products). The table itself is
    not kept: ``(n, d)`` float32 is 16 MB at 4096 x 1024, the result under 1 MB."""
    table = random_table(num_positions, d_model, seed=seed)  # (n, d)
    return RandomContrast(
        pairwise=_pairwise(table, METRICS, max_rows=max_rows, max_cols=max_cols),
        samples=_pair_samples(table, count=count, seed=sample_seed, metrics=METRICS),
    )
