"""Relative position schemes that act on attention logits: T5's bucketed bias and xPos's decay.

- T5 (Raffel et al., JMLR 2020) adds to the logit of query i and key j a scalar its head learns
  for the *bucket* of j - i: one bucket per distance below a threshold, log-spaced buckets up to
  `max_distance`, one bucket for everything further. `t5_relative_bucket` is Hugging Face's
  ``T5Attention._relative_position_bucket`` (itself Mesh TensorFlow's), float32 log included.
- xPos (Sun et al., "A Length-Extrapolatable Transformer", ACL 2023; microsoft/torchscale
  ``component/xpos_relative_position.py``) rotates q and k as RoPE does and scales pair i of the
  query at position n by zeta_i^(n / B) and of the key at m by zeta_i^(-m / B),
  zeta_i = (2i / d + gamma) / (1 + gamma): their dot product carries zeta_i^((n - m) / B).
"""

from __future__ import annotations

import math

import numpy as np

from core import limits
from core._checks import check_int

T5_MAX_BUCKETS = 1024  # T5 uses 32; the bucket arithmetic is exact far beyond


def _check_relative(relative_position: object) -> np.ndarray:
    values = np.asarray(relative_position)
    whole = np.issubdtype(values.dtype, np.integer) and values.dtype != bool
    if not whole and np.issubdtype(values.dtype, np.floating):
        whole = bool(np.isfinite(values).all() and (values == np.round(values)).all())
    if not whole:
        raise ValueError(f"relative_position must hold whole numbers (key - query), got "
                         f"dtype {values.dtype}")
    if values.size > limits.MAX_RELATIVE_POSITIONS:
        raise ValueError(f"relative_position has {values.size} entries: at most "
                         f"{limits.MAX_RELATIVE_POSITIONS} are allowed")
    if values.size and np.abs(values).max() > limits.MAX_RELATIVE_DISTANCE:
        raise ValueError(f"relative_position reaches {int(np.abs(values).max())}: distances up "
                         f"to {limits.MAX_RELATIVE_DISTANCE} are allowed")
    return values.astype(np.int64)


def t5_relative_bucket(
    relative_position: object, *, bidirectional: bool = True, num_buckets: int = 32,
    max_distance: int = 128,
) -> np.ndarray:
    """T5's bucket of each relative position (key position - query position), same shape, int64.

    Bidirectional (the encoder): half of the buckets for keys before the query, half for keys
    after it. Otherwise (the decoder) keys after the query all get bucket 0. In each half, the
    first half of the buckets are exact distances, the rest log-spaced up to `max_distance`;
    farther keys share the last bucket. `num_buckets` must be even when bidirectional, and
    `max_distance` larger than the number of exact buckets (else the log spacing has no room).
    """
    if not isinstance(bidirectional, bool | np.bool_):
        raise ValueError(f"bidirectional must be True or False, got {bidirectional!r}")
    # at least one exact bucket per direction (Hugging Face divides by their number)
    num_buckets = check_int("num_buckets", num_buckets, minimum=4 if bidirectional else 2,
                            maximum=T5_MAX_BUCKETS)
    if bidirectional and num_buckets % 2:
        raise ValueError(f"num_buckets must be even when bidirectional, got {num_buckets}")
    relative = _check_relative(relative_position)
    buckets = np.zeros_like(relative)
    if bidirectional:
        num_buckets //= 2
        buckets += (relative > 0) * num_buckets
        relative = np.abs(relative)
    else:
        relative = -np.minimum(relative, 0)
    max_exact = num_buckets // 2
    max_distance = check_int("max_distance", max_distance, minimum=max_exact + 1,
                             maximum=limits.MAX_RELATIVE_DISTANCE)
    is_small = relative < max_exact
    # As torch computes it: float32 log of float32 distances, truncated toward zero
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = (np.log(relative.astype(np.float32) / np.float32(max_exact))
                  / np.float32(math.log(max_distance / max_exact))
                  * np.float32(num_buckets - max_exact))
    large = max_exact + np.trunc(np.where(is_small, 0.0, scaled)).astype(np.int64)
    large = np.minimum(large, num_buckets - 1)
    return buckets + np.where(is_small, relative, large)


def xpos_zeta(d_head: int, *, gamma: float = 0.4) -> np.ndarray:
    """zeta_i = (2i / d_head + gamma) / (1 + gamma) for each pair i, shape (d_head/2,), float64:
    in (0, 1), nearest 1 for the slowest-turning pairs (torchscale's ``scale`` buffer)."""
    d_head = check_int("d_head", d_head, minimum=2, maximum=limits.MAX_D_HEAD)
    if d_head % 2:
        raise ValueError(f"d_head must be even (pairs of dimensions), got {d_head}")
    if isinstance(gamma, bool) or not isinstance(gamma, int | float) or not (
            math.isfinite(gamma) and gamma > 0):  # 0: zeta_0 = 0, infinite at negative positions
        raise ValueError(f"gamma must be a finite number > 0, got {gamma!r}")
    return (np.arange(0, d_head, 2) + gamma * d_head) / ((1 + gamma) * d_head)


def xpos_scale(
    positions: object, d_head: int, *, gamma: float = 0.4, scale_base: int = 512
) -> np.ndarray:
    """zeta_i ** (p / scale_base) for each position p and pair i: shape (len(positions),
    d_head/2), float64. The query at n is scaled by row n, the key at m by the inverse of row m,
    so q.k carries zeta ** ((n - m) / scale_base): a decay with distance."""
    zeta = xpos_zeta(d_head, gamma=gamma)
    scale_base = check_int("scale_base", scale_base, minimum=1, maximum=limits.MAX_XPOS_SCALE_BASE)
    p = np.asarray(positions)
    if p.ndim != 1 or not (np.issubdtype(p.dtype, np.integer) or (
            np.issubdtype(p.dtype, np.floating) and np.isfinite(p).all())):
        raise ValueError("positions must be a 1-D array of finite numbers")
    if p.size > limits.MAX_RELATIVE_POSITIONS or (
            p.size and np.abs(p).max() > limits.MAX_RELATIVE_DISTANCE):
        raise ValueError(f"positions: at most {limits.MAX_RELATIVE_POSITIONS} of them, each "
                         f"within ±{limits.MAX_RELATIVE_DISTANCE}")
    return zeta[None, :] ** (p.astype(np.float64)[:, None] / scale_base)
