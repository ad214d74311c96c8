r"""Attention with Linear Biases (ALiBi; Press, Smith and Lewis, ICLR 2022).

No position vector at all: each head h adds a penalty proportional to the distance to the
attention logits, with a head-specific slope m_h (the paper's Figure 3):

$$\mathrm{softmax}\big(q_i K^\top - m_h\,(i - j)\big), \quad j \le i$$

Slopes are geometric. For n a power of two, m_h = 2^{-8h/n}, h = 1..n (1/2, 1/4, ..., 1/256 for
8 heads). Other head counts follow the paper's reference code (``get_slopes`` in
ofirpress/attention_with_linear_biases, fairseq/models/transformer.py): the slopes of the closest
lower power of two n, then every other slope of 2n (its 1st, 3rd, 5th, ...) until there are enough.
BLOOM and MPT use these slopes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core import limits
from core._checks import check_int
from core.overview import Overview, bin_edges, resampler

MAX_BIAS_ELEMENTS = 2**24  # alibi_bias materialises (heads, seq, seq): at most 128 MB of float64
MAX_REACH_POSITIONS = 2**16  # attention weights are (heads, seq): at most 32 MB of float64


def _check_heads(num_heads: object) -> int:
    return check_int("num_heads", num_heads, minimum=1, maximum=limits.MAX_HEADS)


def alibi_slopes(num_heads: int) -> np.ndarray:
    """The head slopes m_h, shape ``(num_heads,)``, float64, from steepest to shallowest (for a
    power of two; otherwise the extra heads' slopes are interleaved values, as in the paper)."""
    num_heads = _check_heads(num_heads)
    n = 2 ** int(np.floor(np.log2(num_heads)))  # the closest power of two not above num_heads
    slopes = 2.0 ** (-8.0 * np.arange(1, n + 1) / n)  # (n,) 2^(-8h/n)
    extra = num_heads - n
    if extra:
        # The slopes of 2n heads at h = 1, 3, 5, ...: the midpoints (in log) of the ones above.
        odd = np.arange(1, 2 * extra, 2)  # (extra,)
        slopes = np.concatenate([slopes, 2.0 ** (-8.0 * odd / (2 * n))])  # (num_heads,)
    return slopes


def alibi_bias(num_heads: int, seq_len: int, *, causal: bool = True) -> np.ndarray:
    """The bias added to each head's logits: ``(num_heads, seq_len, seq_len)``, float64.

    Entry [h, i, j] is -m_h (i - j) for j <= i (query i, key j); above the diagonal it is -inf
    when `causal` (the future is masked) and -m_h |i - j| otherwise.
    """
    num_heads = _check_heads(num_heads)
    seq_len = check_int("seq_len", seq_len, minimum=1)
    if num_heads * seq_len * seq_len > MAX_BIAS_ELEMENTS:
        raise ValueError(
            f"seq_len={seq_len} is too large for {num_heads} heads: num_heads * seq_len^2 must be "
            f"at most {MAX_BIAS_ELEMENTS} (use alibi_bias_overview for an averaged view)"
        )
    index = np.arange(seq_len)
    distance = np.subtract.outer(index, index).astype(np.float64)  # (P, P) i - j
    slopes = alibi_slopes(num_heads)  # (H,)
    bias = -slopes[:, None, None] * np.abs(distance)[None]  # (H, P, P)
    if causal:
        bias[:, distance < 0] = -np.inf  # keys after the query are masked
    return bias


def alibi_bias_overview(
    num_heads: int, seq_len: int, *, causal: bool = True, max_side: int = 64
) -> Overview:
    """`alibi_bias` of every head, resampled to at most max_side cells a side: a
    `core.overview.Overview` whose ``values`` stack one ``(R, C)`` table per head.

    The bias is -m_h times a distance matrix D shared by all heads, and the resampling
    (`core.overview.resampler`: a Gaussian low-pass, sampled at evenly spaced centres) is linear,
    so D is resampled once and scaled per head. Causal cells weigh their visible entries only;
    a cell whose filter sees more masked than visible entries is NaN (drawn blank), which keeps
    the diagonal edge where the mask puts it. ``values`` has shape ``(num_heads, R, C)``, float32.
    """
    num_heads = _check_heads(num_heads)
    seq_len = check_int("seq_len", seq_len, minimum=1, maximum=limits.MAX_ALIBI_POSITIONS)
    max_side = check_int("max_side", max_side, minimum=1, maximum=1024)
    index = np.arange(seq_len)
    signed = np.subtract.outer(index, index)  # (P, P) i - j
    sampler = resampler(seq_len, max_side)

    def smooth(matrix: np.ndarray) -> np.ndarray:  # (P, P) -> (R, C), rows then columns
        return sampler.apply(sampler.apply(matrix, axis=0), axis=1)

    if causal:
        visible = (signed >= 0).astype(np.float64)  # (P, P) 1 where key j <= query i
        sums = smooth(signed * visible)  # (R, C) weighted sums of visible distances
        fraction = smooth(visible)  # (R, C) visible share of each cell's weights
        with np.errstate(invalid="ignore", divide="ignore"):
            distance = np.where(fraction >= 0.5, sums / fraction, np.nan)  # (R, C)
    else:
        distance = smooth(np.abs(signed).astype(np.float64))  # (R, C)
    row_edges = col_edges = bin_edges(seq_len, max_side)
    slopes = alibi_slopes(num_heads)  # (H,)
    values = (-slopes[:, None, None] * distance[None] + 0.0).astype(np.float32)  # (H, R, C), no -0
    exact = len(row_edges) - 1 == seq_len and len(col_edges) - 1 == seq_len
    return Overview(values=values, row_edges=row_edges, col_edges=col_edges, exact=exact)


@dataclass(frozen=True)
class AttentionReach:
    """What the bias alone does to attention, per head, for the last query of a sequence."""

    slopes: np.ndarray  # (H,) m_h
    distances: np.ndarray  # (P,) 0 .. P-1: how far back the key is
    weights: np.ndarray  # (H, P) softmax weight of the key at each distance (rows sum to 1)
    mean_distance: np.ndarray  # (H,) sum_d w_h(d) * d: how far the head looks on average


def alibi_attention_reach(num_heads: int, seq_len: int) -> AttentionReach:
    """Softmax over previous keys for equal raw scores: w_h(d) = e^{-m_h d} / sum_d' e^{-m_h d'}.

    With every q . k equal, only the bias differs between keys, so the weights show each head's
    built-in preference for nearby keys: steep heads look locally, shallow heads far.
    """
    num_heads = _check_heads(num_heads)
    seq_len = check_int("seq_len", seq_len, minimum=1, maximum=MAX_REACH_POSITIONS)
    slopes = alibi_slopes(num_heads)  # (H,)
    distances = np.arange(seq_len, dtype=np.float64)  # (P,)
    logits = -np.multiply.outer(slopes, distances)  # (H, P) bias of each key; the max is 0 at d=0
    weights = np.exp(logits)  # (H, P) no overflow: every logit <= 0
    weights /= weights.sum(axis=1, keepdims=True)  # softmax over keys
    return AttentionReach(
        slopes=slopes,
        distances=distances,
        weights=weights,
        mean_distance=weights @ distances,  # (H,)
    )
