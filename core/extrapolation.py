"""Past the training length: what four position schemes give at positions never trained on.

A model is trained on positions 0 .. L-1 and used on 0 .. T-1 with T > L. What each scheme gives
at the new positions:

- sinusoid (Vaswani et al.): a value everywhere, but a new one: the distance from PE[p] to the
  nearest trained encoding grows past L (`sinusoid_novelty`);
- learned table (BERT, MiniLM): rows 0 .. 511 only; position 512 has no vector (`learned_reach`);
- RoPE: angles everywhere, but slow pairs turn further than in training (`rope_reach`);
- ALiBi: the same linear penalty, just longer (`alibi_reach`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from numpy.typing import ArrayLike

from core import limits
from core._checks import check_even_d_model, check_finite_array, check_int
from core.alibi import alibi_slopes
from core.rope import ContextExtension, rope_context_extension
from core.sinusoidal import offset_dot_product, offset_dot_products

MAX_LENGTH = limits.MAX_POSITIONS  # train and target lengths: up to 8192 positions
ALIBI_HEADS = 8  # the paper's running example: slopes 1/2, 1/4, ..., 1/256
MAX_LINE_POINTS = 512  # points per straight line sent to the browser (a line needs no more)


def _check_lengths(train_length: object, target_length: object) -> tuple[int, int]:
    train = check_int("train_length", train_length, minimum=1, maximum=MAX_LENGTH)
    target = check_int("target_length", target_length, minimum=1, maximum=MAX_LENGTH)
    return train, target


@dataclass(frozen=True)
class SinusoidNovelty:
    positions: np.ndarray  # (T,) 0 .. T-1
    nearest_distance: np.ndarray  # (T,) min over trained q < L of |PE[p] - PE[q]|; 0 for p < L
    neighbour_spacing: float  # |PE[p+1] - PE[p]|, the same for every p: the scale of "close"

    @property
    def largest_novelty(self) -> float:
        """The largest nearest-trained distance, in units of the neighbour spacing."""
        return float(self.nearest_distance.max() / self.neighbour_spacing)


def sinusoid_novelty(
    train_length: int, target_length: int, d_model: int, *, base: float = limits.DEFAULT_BASE
) -> SinusoidNovelty:
    """How far each position's encoding is from every encoding seen in training.

    |PE[p] - PE[q]|^2 = d - 2 PE[p].PE[q] and PE[p].PE[q] = f(p - q) = sum_i cos(w_i (p - q))
    (`offset_dot_product`), so the nearest trained encoding to PE[p] is the largest f over the
    offsets p - L + 1 .. p: one table of f and a sliding-window maximum, no (T, L, d) search.
    """
    train, target = _check_lengths(train_length, target_length)
    d_model = check_even_d_model("d_model", d_model)
    if d_model > limits.MAX_EXTRAPOLATION_D_MODEL:
        raise ValueError(
            f"d_model={d_model} is out of range: d_model must be at most "
            f"{limits.MAX_EXTRAPOLATION_D_MODEL}"
        )
    dots = offset_dot_products(target, d_model, base=base)  # (T,) f(k), k = p - q >= 0; f is even
    best = np.full(target, d_model / 2.0)  # (T,) f(0) = d/2: p < L is a trained position itself
    if target > train:
        windows = sliding_window_view(dots, train)  # (T - L + 1, L): row r holds f(r .. r+L-1)
        best[train:] = windows[1:].max(axis=1)  # (T - L,) offsets p - L + 1 .. p
    squared = np.clip(d_model - 2.0 * best, 0.0, None)  # (T,) clip float rounding below 0
    neighbour_dot = float(offset_dot_product(1.0, d_model, base=base))  # f(1)
    spacing = float(np.sqrt(max(d_model - 2.0 * neighbour_dot, 0.0)))
    return SinusoidNovelty(
        positions=np.arange(target), nearest_distance=np.sqrt(squared), neighbour_spacing=spacing
    )


@dataclass(frozen=True)
class LearnedReach:
    positions: np.ndarray  # (T,) 0 .. T-1
    norms: np.ndarray  # (T,) |P[p]| for the table's rows; NaN where the table has no row
    rows: int  # the table's number of rows (512 for BERT and MiniLM)


def learned_reach(table: ArrayLike, target_length: int) -> LearnedReach:
    """Norm of each learned position vector, NaN past the table's last row: ``(target_length,)``.

    `table` is ``(rows, d_model)``; a lookup table simply has no entry past its rows.
    """
    table = check_finite_array("table", table, ndim=2)
    target = check_int("target_length", target_length, minimum=1, maximum=MAX_LENGTH)
    norms = np.full(target, np.nan)  # (T,)
    known = min(target, table.shape[0])
    norms[:known] = np.linalg.norm(table[:known].astype(np.float64), axis=1)  # (known,)
    return LearnedReach(positions=np.arange(target), norms=norms, rows=table.shape[0])


def rope_reach(
    train_length: int, target_length: int, d_head: int, *, base: float = limits.DEFAULT_BASE
) -> ContextExtension:
    """Per pair, the largest angle in training and at the target length, unscaled and with both
    context-extension methods at factor T / L (see `core.rope.rope_context_extension`)."""
    train, target = _check_lengths(train_length, target_length)
    return rope_context_extension(d_head, train, target, base=base)


@dataclass(frozen=True)
class AlibiReach:
    distances: np.ndarray  # (N,) integer distances 0 .. T-1, at most MAX_LINE_POINTS of them
    slopes: np.ndarray  # (H,)
    bias: np.ndarray  # (H, N) -m_h * distance: the same straight line inside and past L


def alibi_reach(
    train_length: int, target_length: int, *, num_heads: int = ALIBI_HEADS
) -> AlibiReach:
    """The bias -m_h d of each head for distances up to T - 1 (a straight line: sampled at no
    more than MAX_LINE_POINTS integer distances, which is exact for a line)."""
    _, target = _check_lengths(train_length, target_length)
    slopes = alibi_slopes(num_heads)  # (H,)
    count = min(target, MAX_LINE_POINTS)
    distances = np.unique(np.round(np.linspace(0, target - 1, count))).astype(np.int64)  # (N,)
    bias = -np.multiply.outer(slopes, distances.astype(np.float64)) + 0.0  # (H, N), no -0
    return AlibiReach(distances=distances, slopes=slopes, bias=bias)
