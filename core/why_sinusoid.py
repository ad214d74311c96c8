"""Why sines and cosines: the three properties of the paper's sinusoid that make it work.

For PE(p) = [sin(p w_0), cos(p w_0), ..., sin(p w_{d/2-1}), cos(p w_{d/2-1})], w_i = base^(-2i/d):

1. **A code per position.** The pairs are clock hands turning at geometrically spaced speeds
   (wavelengths 2 pi ... base 2 pi): fast hands tell neighbours apart, slow hands tell far
   positions apart, so no two positions share a vector. Measured here as the smallest distance
   |PE(p) - PE(q)| over every p != q of the sequence.
2. **Nearby positions alike.** PE(p) . PE(q) = sum_i cos((p - q) w_i) depends on p - q alone and
   falls smoothly as |p - q| grows: the row of cosines around any anchor has the same shape.
3. **An offset is a rotation.** sin/cos of (p + k) w_i are sin/cos of p w_i turned by k w_i, so
   PE(p + k) = M_k PE(p) with one matrix M_k for every p (Vaswani et al. 2017, §3.5: "for any
   fixed offset k, PE_{pos+k} can be represented as a linear function of PE_pos"). Measured as the
   largest |PE(p + k) - M_k PE(p)| over every p and dimension: float64 rounding.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core import limits
from core._checks import check_even_d_model, check_int
from core.similarity import shift_residuals
from core.sinusoidal import frequencies, sinusoidal_encoding
from core.wavelength_views import ClockFrames, clock_frames

# Small enough to read every position on a laptop, big enough for the slow hands to matter.
WHY_POSITIONS = 64  # the sequence: positions 0 .. 63
WHY_D_MODEL = 64  # 32 (sin, cos) pairs: wavelengths 2 pi 10000^(i / 32)
WHY_CLOCKS = (0, 8, 16, 24)  # wavelengths 2 pi x 1, 10, 100, 1000: one decade apart each
WHY_PAIR = 2  # the pair drawn turning: wavelength 2 pi 10000^(1/16) ~ 11.2 positions
MAX_WHY_POSITIONS = 256  # what a figure's slider steps carry: (n, n) similarities


@dataclass(frozen=True)
class WhySinusoid:
    """The three properties measured on one sinusoid table ``(n, d_model)``."""

    positions: np.ndarray  # (n,) 0 .. n - 1
    clocks: ClockFrames  # claim 1: the chosen pairs' hands at every position
    nearest: float  # claim 1: min over p != q of |PE(p) - PE(q)|
    nearest_pair: tuple[int, int]  # (p, q) at that distance, p < q
    norm: float  # |PE(p)| = sqrt(d / 2) for every p: the scale `nearest` compares with
    cosine: np.ndarray  # (n, n) claim 2: PE(p) . PE(q) / (d / 2)
    pair: int  # claim 3: the pair drawn turning
    omega: float  # its w_i, radians per position
    circle: np.ndarray  # (n, 2) its (cos, sin) at every position: the points on the circle
    offsets: np.ndarray  # (n,) k = 0 .. n - 1
    residuals: np.ndarray  # (n,) claim 3: max over p, dims of |PE(p + k) - M_k PE(p)|


def why_sinusoid(
    num_positions: int = WHY_POSITIONS,
    d_model: int = WHY_D_MODEL,
    *,
    clocks: tuple[int, ...] = WHY_CLOCKS,
    pair: int = WHY_PAIR,
    base: float = limits.DEFAULT_BASE,
) -> WhySinusoid:
    """The three properties of the paper's sinusoid over positions 0 .. `num_positions` - 1."""
    n = check_int("num_positions", num_positions, minimum=2, maximum=MAX_WHY_POSITIONS)
    d_model = check_even_d_model("d_model", d_model)
    pair = check_int("pair", pair, minimum=0, maximum=d_model // 2 - 1)
    table = sinusoidal_encoding(n, d_model, base=base, dtype=np.float64)  # (n, d) interleaved
    # Distances from the Gram matrix: |a - b|^2 = |a|^2 + |b|^2 - 2 a.b, all rows |a|^2 = d/2.
    gram = table @ table.T  # (n, n)
    half = d_model / 2
    squared = np.maximum(2.0 * half - 2.0 * gram, 0.0)  # (n, n)
    np.fill_diagonal(squared, np.inf)
    p, q = np.unravel_index(int(np.argmin(squared)), squared.shape)
    omega = float(frequencies(d_model, base=base)[pair])
    offsets = np.arange(n)  # (n,)
    return WhySinusoid(
        positions=np.arange(n),
        clocks=clock_frames(n, d_model, clocks, base=base, max_frames=n),
        nearest=float(np.sqrt(squared[p, q])),
        nearest_pair=(int(min(p, q)), int(max(p, q))),
        norm=float(np.sqrt(half)),
        cosine=gram / half,
        pair=pair,
        omega=omega,
        circle=table[:, [2 * pair + 1, 2 * pair]].copy(),  # (n, 2) (cos, sin): x, y
        offsets=offsets,
        residuals=np.array([shift_residuals(table, int(k), base=base).largest for k in offsets]),
    )
