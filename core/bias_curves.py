"""T5's buckets and xPos's decay laid out as curves: the buckets of every relative position in a
range (both directions, encoder and decoder), the (query, key) bucket matrix, and xPos's q.k
against distance beside RoPE's.

The schemes themselves are `core.t5_relative_bucket` and `core.xpos_scale` (pinned to Hugging
Face's T5 and torchscale's XPOS); this module only lays them out for a chart.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core import limits
from core._checks import check_base, check_int
from core.relative_bias import t5_relative_bucket, xpos_scale

MAX_BUCKET_MATRIX = 512  # positions of the (query, key) bucket matrix: 256K cells as int16


@dataclass(frozen=True)
class T5Buckets:
    """T5's bucket of every relative position key - query in -`reach` .. `reach`."""

    relative: np.ndarray  # (2 * reach + 1,) int32: key position - query position
    bidirectional: np.ndarray  # (2 * reach + 1,) int16: the encoder's buckets (both directions)
    causal: np.ndarray  # (2 * reach + 1,) int16: the decoder's (a key after the query: bucket 0)
    num_buckets: int
    max_distance: int
    exact_bidirectional: int  # distances below this have a bucket each (num_buckets / 4)
    exact_causal: int  # ... for the decoder (num_buckets / 2)


def t5_buckets(reach: int, *, num_buckets: int = 32, max_distance: int = 128) -> T5Buckets:
    """Both of T5's bucketings over -reach .. reach (see `T5Buckets`); small integer arrays."""
    reach = check_int("reach", reach, minimum=1, maximum=limits.MAX_ALIBI_POSITIONS)
    relative = np.arange(-reach, reach + 1, dtype=np.int32)
    return T5Buckets(
        relative=relative,
        bidirectional=t5_relative_bucket(relative, bidirectional=True, num_buckets=num_buckets,
                                         max_distance=max_distance).astype(np.int16),
        causal=t5_relative_bucket(relative, bidirectional=False, num_buckets=num_buckets,
                                  max_distance=max_distance).astype(np.int16),
        num_buckets=num_buckets,
        max_distance=max_distance,
        exact_bidirectional=num_buckets // 4,
        exact_causal=num_buckets // 2,
    )


def t5_bucket_matrix(buckets: T5Buckets, positions: int, *, bidirectional: bool) -> np.ndarray:
    """(positions, positions) int16: the bucket of key j for query i, t5_relative_bucket(j - i),
    read from `buckets` (which must reach positions - 1). One head's bias is its learned table
    indexed by this matrix: one scalar per bucket."""
    reach = int(buckets.relative[-1])
    positions = check_int("positions", positions, minimum=1,
                          maximum=min(MAX_BUCKET_MATRIX, reach + 1))
    index = np.arange(positions)
    row = buckets.bidirectional if bidirectional else buckets.causal
    return row[index[None, :] - index[:, None] + reach]


@dataclass(frozen=True)
class XposDecay:
    """q.k of a query and a key `distance` apart, each of their d_head/2 pairs a unit vector
    pointing the same way at distance 0: mean over pairs of cos(theta_i k) for RoPE, times
    zeta_i^(k / scale_base) for xPos; `envelope` is the mean decay alone."""

    distances: np.ndarray  # (n,) int32, 0 .. reach
    rope: np.ndarray  # (n,) float32
    xpos: np.ndarray  # (n,) float32
    envelope: np.ndarray  # (n,) float32: mean_i zeta_i^(k / scale_base)


def xpos_decay(reach: int, d_head: int, *, gamma: float = 0.4, scale_base: int = 512,
               base: float = limits.DEFAULT_BASE) -> XposDecay:
    """See `XposDecay`: the query k positions after the key, k = 0 .. reach. RoPE's angles are
    theta_i = base^(-2i/d_head), as torchscale's XPOS rotates."""
    reach = check_int("reach", reach, minimum=1, maximum=limits.MAX_ALIBI_POSITIONS)
    base = check_base(base)
    distances = np.arange(reach + 1)
    # q scaled by zeta^(n / B), k by zeta^(-m / B): their product carries zeta^((n - m) / B)
    decay = xpos_scale(distances, d_head, gamma=gamma, scale_base=scale_base)  # (n, d_head/2)
    theta = base ** (-np.arange(0, d_head, 2) / d_head)  # (d_head/2,)
    cosines = np.cos(distances[:, None] * theta[None, :])
    return XposDecay(distances=distances.astype(np.int32),
                     rope=cosines.mean(axis=1).astype(np.float32),
                     xpos=(decay * cosines).mean(axis=1).astype(np.float32),
                     envelope=decay.mean(axis=1).astype(np.float32))
