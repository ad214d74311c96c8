r"""Similarity between positions: what the dot product of two encodings can and cannot tell.

Source 004_775f8adb18140991.txt: from sin(a+b) and cos(a+b), the dot product of two position
vectors depends only on their offset, and not on its sign:

$$PE_p \cdot PE_{p+k} = \sum_i \sin(p\omega_i)\sin((p+k)\omega_i)
+ \cos(p\omega_i)\cos((p+k)\omega_i) = \sum_i \cos(\omega_i k)$$

so the (n, n) matrix PE PE^T is Toeplitz (constant along diagonals), and a table of random vectors
of the same shape is not. Source 003_8f6041c3df7ea4a0.txt: PE[p+k] = M_k PE[p] with M_k the
block-rotation matrix of `core.shift_matrix`; `shift_residuals` measures how exactly.

Everything here works on a *given* table, sinusoid or random, so the page compares the two with the
same code. Sizes are the callers' to cap: the Gram matrix costs n^2 * d multiply-adds, but is never
held whole (it is reduced chunk by chunk to a screen-sized overview and a per-offset envelope).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np

from core import limits
from core._checks import check_choice, check_finite_array, check_int
from core.overview import Overview, bin_edges, resampler
from core.sinusoidal import encode_positions, frequencies, offset_dot_product, shift_matrix

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
    n = table.shape[0]
    scale = _scale(table, metric).astype(np.float32)  # (n,)
    scaled = table.astype(np.float32) * scale[:, None]  # (n, d), unit rows for the cosine
    left = resampler(n, max_rows).apply(scaled, axis=0)  # (R, d) W_r X
    right = left if max_cols == max_rows else resampler(n, max_cols).apply(scaled, axis=0)
    lowest = np.full(n, np.inf)  # (n,) by offset k = 0 .. n - 1
    highest = np.full(n, -np.inf)
    buffer = np.empty(_CHUNK * (n + _CHUNK), dtype=np.float32)  # skewed rows, reused
    for start in range(0, n, _CHUNK):
        stop = min(start + _CHUNK, n)
        c, m = stop - start, n - start
        gram = scaled[start:stop] @ scaled[start:].T  # (c, m): rows p of the chunk, q >= start
        # Skew row i right by c - 1 - i, so that column c - 1 + k holds offset k = q - p: a view
        # with row stride (width - 1) elements over the flat buffer writes every row in one copy.
        width = m + c - 1
        flat = buffer[: c * width]
        block = flat.reshape(c, width)
        diagonal_view = np.lib.stride_tricks.as_strided(
            flat[c - 1 :], shape=(c, m), strides=((width - 1) * flat.itemsize, flat.itemsize),
            writeable=True,
        )  # diagonal_view[i, j] is block[i, j - i + c - 1]
        block.fill(np.inf)
        diagonal_view[...] = gram
        lowest[:m] = np.minimum(lowest[:m], block.min(axis=0)[c - 1 :])
        block.fill(-np.inf)
        diagonal_view[...] = gram
        highest[:m] = np.maximum(highest[:m], block.max(axis=0)[c - 1 :])
    row_edges = bin_edges(n, max_rows)
    col_edges = bin_edges(n, max_cols)
    overview = Overview(
        values=(left @ right.T).astype(np.float32),  # (R, C)
        row_edges=row_edges,
        col_edges=col_edges,
        exact=row_edges.size - 1 == n and col_edges.size - 1 == n,
    )
    return PairwiseSimilarity(
        overview=overview,
        offsets=np.arange(-(n - 1), n),
        lowest=np.concatenate([lowest[:0:-1], lowest]),  # offset -k: the pairs of k, mirrored
        highest=np.concatenate([highest[:0:-1], highest]),
    )


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
    a = table[p].astype(np.float64)  # (m, d)
    b = table[q].astype(np.float64)  # (m, d)
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


def pair_distances(table: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Euclidean distances |table[p[j]] - table[q[j]]|: ``(len(p),)``, float64."""
    table = _rows(table)
    diff = table[p].astype(np.float64) - table[q].astype(np.float64)  # (m, d)
    return np.linalg.norm(diff, axis=1)


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
    """
    table = _rows(table)
    n, d_model = table.shape
    offset = check_int("offset", offset, minimum=-(n - 1), maximum=n - 1)
    m = shift_matrix(offset, d_model, base=base)  # (d, d) block rotations
    positions = np.arange(max(0, -offset), min(n, n - offset))  # (m,) p with p + k in range
    moved = table[positions].astype(np.float64) @ m.T  # (m, d) rows M_k PE[p]
    target = table[positions + offset].astype(np.float64)  # (m, d) rows PE[p + k]
    return ShiftCheck(positions=positions, residuals=np.abs(target - moved).max(axis=1))


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
    rows = encode_positions(np.array([position, position + offset]), d_model, base=base)  # (2, d)
    cols = slice(2 * pair, 2 * pair + 2)  # the (sin, cos) columns of pair i
    block = shift_matrix(offset, d_model, base=base)[cols, cols]  # (2, 2) rotation by w_i k
    sin_cos = block @ rows[0, cols]  # (2,) (sin, cos) moved by M_k's block
    return RotatedPair(
        pair=pair,
        omega=float(omega[pair]),
        rotation=float(omega[pair] * offset),
        before=rows[0, [2 * pair + 1, 2 * pair]],  # (cos, sin): x, y on the circle
        after=rows[1, [2 * pair + 1, 2 * pair]],
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
    p, q = sample_pairs(table.shape[0], count, seed=seed)
    return PairSample(
        p=p,
        q=q,
        offsets=q - p,
        similarity=pair_similarities(table, p, q, metric=metric),
        distance=pair_distances(table, p, q),
    )


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
    num_positions = check_int("num_positions", num_positions, minimum=1)
    offsets = np.arange(-(num_positions - 1), num_positions)  # (2n - 1,)
    gaps = np.arange(num_positions)  # (n,)
    return OffsetCurves(
        offsets=offsets,
        similarity=offset_similarity(offsets, d_model, base=base, metric=metric),
        gaps=gaps,
        distance=offset_distance(gaps, d_model, base=base),
    )
