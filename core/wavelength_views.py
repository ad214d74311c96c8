r"""Each dimension's sinusoid, the wavelength spectrum, and the (sin, cos) pairs as clocks.

Source 003_8f6041c3df7ea4a0.txt asks why "the wavelengths form a geometric progression from 2π to
10000 · 2π". Pair i turns at w_i = base^{-2i/d} radians per position, so its wavelength is

$$\lambda_i = \frac{2\pi}{\omega_i} = 2\pi \cdot \mathrm{base}^{2i/d}, \qquad
\frac{\lambda_{i+1}}{\lambda_i} = \mathrm{base}^{2/d}$$

a constant ratio: a geometric progression from exactly 2π (i = 0) to 2π · base^{(d-2)/d} (the last
pair), just short of the paper's rounded base · 2π. Source 004_775f8adb18140991.txt shows the
periodicity of the fastest pair: sin(7) = sin(2.23π) = sin(0.23π).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from core import limits
from core._checks import InputError, check_even_d_model, check_int, shorten
from core.sinusoidal import Timescales, frequencies, timescale_exponents, wavelengths

MAX_DIMS = 12  # curves on one chart: more are unreadable
MAX_CLOCKS = 16  # a 4 x 4 grid of clocks
MAX_CLOCK_FRAMES = 400  # animation frames (positions 0 .. 399): a small, smooth JSON payload


def default_dims(d_model: int) -> tuple[int, ...]:
    """The (sin, cos) columns of the fastest, a middle and the slowest pair (interleaved)."""
    d_model = check_even_d_model("d_model", d_model)
    half = d_model // 2
    pairs = sorted({0, half // 2, half - 1})
    return tuple(c for i in pairs for c in (2 * i, 2 * i + 1))


def parse_dims(text: str, d_model: int) -> tuple[int, ...]:
    """Dimensions from text like ``"0,1,64,65"`` (commas or spaces); empty -> `default_dims`.

    Raises ValueError (an `InputError`: reason ``dims_word`` or ``dims_count``) naming ``dims``
    when a number is not a whole number in [0, d_model), or more than MAX_DIMS are given. Duplicates
    are dropped, the order is kept.
    """
    d_model = check_even_d_model("d_model", d_model)
    words = [w for w in re.split(r"[,\s;]+", str(text).strip()) if w]
    if not words:
        return default_dims(d_model)
    allowed = (f"dims must be up to {MAX_DIMS} whole numbers from 0 to {d_model - 1} "
               f"(d_model - 1), separated by commas, e.g. 0,1,{d_model // 2},{d_model // 2 + 1}")
    dims: list[int] = []
    for word in words:
        if not re.fullmatch(r"\d{1,9}", word) or int(word) >= d_model:
            raise InputError("dims_word", f"dims={shorten(word)} is not allowed: {allowed}",
                             value=shorten(word))
        if int(word) not in dims:
            dims.append(int(word))
    if len(dims) > MAX_DIMS:
        raise InputError("dims_count", f"dims has {len(dims)} dimensions: {allowed}",
                         count=len(dims))
    return tuple(dims)


@dataclass(frozen=True)
class DimensionCurves:
    """PE(pos, dim) against pos for a few dimensions (interleaved layout)."""

    positions: np.ndarray  # (P,)
    dims: tuple[int, ...]  # (m,) column indices
    values: np.ndarray  # (P, m) PE(pos, dim)
    pairs: np.ndarray  # (m,) i = dim // 2
    is_sin: np.ndarray  # (m,) bool: even dims are sines
    wavelengths: np.ndarray  # (m,) 2*pi*base^(2i/d), in positions


def dimension_curves(
    num_positions: int,
    d_model: int,
    dims: tuple[int, ...],
    *,
    base: float = limits.DEFAULT_BASE,
    timescales: Timescales = "paper",
) -> DimensionCurves:
    """The columns `dims` of the interleaved table for positions 0 .. num_positions - 1.

    Only those columns are computed (the table itself may be 8192 x 4096); float64.
    """
    num_positions = check_int("num_positions", num_positions, minimum=1)
    omega = frequencies(d_model, base=base, timescales=timescales)  # (d/2,), checks d and base
    dims_array = np.array(
        [check_int("dims", d, minimum=0, maximum=2 * omega.size - 1) for d in dims], dtype=np.int64
    )  # (m,)
    pairs = dims_array // 2  # (m,)
    is_sin = dims_array % 2 == 0  # (m,)
    positions = np.arange(num_positions)  # (P,)
    angles = np.multiply.outer(positions.astype(np.float64), omega[pairs])  # (P, m) pos * w_i
    values = np.where(is_sin, np.sin(angles), np.cos(angles))  # (P, m)
    return DimensionCurves(
        positions=positions,
        dims=tuple(int(d) for d in dims_array),
        values=values,
        pairs=pairs,
        is_sin=is_sin,
        wavelengths=2.0 * np.pi / omega[pairs],
    )


@dataclass(frozen=True)
class Spectrum:
    """The wavelengths of all d/2 pairs and what sums them up: their common ratio, the extremes,
    the paper's longest, how many never complete a cycle within `num_positions`."""

    wavelengths: np.ndarray  # (d/2,) 2*pi*base^(2i/d) (paper) or 2*pi*base^(i/(d/2-1)) (t2t)
    base: float
    num_positions: int  # the sequence length drawn for comparison
    ratio: float  # lambda_{i+1} / lambda_i: base^(2/d) (paper) or base^(1/(d/2-1)) (t2t)
    paper_longest: float  # the paper's text: "base * 2 pi"
    timescales: str = "paper"

    @property
    def shortest(self) -> float:
        return float(self.wavelengths[0])

    @property
    def longest(self) -> float:
        return float(self.wavelengths[-1])

    @property
    def incomplete_pairs(self) -> int:
        """Pairs whose wavelength exceeds the sequence: they never complete a cycle within it."""
        return int(np.sum(self.wavelengths > self.num_positions))


def wavelength_spectrum(
    d_model: int,
    num_positions: int,
    *,
    base: float = limits.DEFAULT_BASE,
    timescales: Timescales = "paper",
) -> Spectrum:
    """Wavelengths against pair index i for the spectrum chart: ``(d_model/2,)`` and summary."""
    num_positions = check_int("num_positions", num_positions, minimum=1)
    exponents = timescale_exponents(d_model, timescales)  # (d/2,), checks d_model, timescales
    lengths = wavelengths(d_model, base=base, timescales=timescales)  # (d/2,), checks base
    step = exponents[1] - exponents[0] if exponents.size > 1 else 2.0 / d_model
    return Spectrum(
        wavelengths=lengths,
        base=float(base),
        num_positions=num_positions,
        ratio=float(base) ** float(step),
        paper_longest=2.0 * np.pi * float(base),
        timescales=timescales,
    )


def clock_pairs(d_model: int, dims: tuple[int, ...] = (), count: int = 12) -> tuple[int, ...]:
    """Pairs to draw as clocks: the pairs of `dims`, then evenly spread pairs (fastest and slowest
    included), at most MAX_CLOCKS, sorted."""
    half = check_even_d_model("d_model", d_model) // 2
    chosen = {d // 2 for d in dims if 0 <= d < 2 * half}
    spread = np.unique(np.round(np.linspace(0, half - 1, min(count, half))).astype(int))
    for i in spread:
        if len(chosen) >= MAX_CLOCKS:
            break
        chosen.add(int(i))
    return tuple(sorted(chosen)[:MAX_CLOCKS])


@dataclass(frozen=True)
class ClockFrames:
    """Each chosen pair's (cos, sin) point on the unit circle at every animation position."""

    positions: np.ndarray  # (F,) animation positions 0 .. F - 1
    pairs: tuple[int, ...]  # (m,) frequency indices i
    x: np.ndarray  # (F, m) cos(pos w_i): dimension 2i + 1
    y: np.ndarray  # (F, m) sin(pos w_i): dimension 2i
    turns_in_pi: np.ndarray  # (F, m) angle pos * w_i modulo 2 pi, in units of pi
    wavelengths: np.ndarray  # (m,) positions per full turn
    truncated: bool  # True when the sequence is longer than MAX_CLOCK_FRAMES


def clock_frames(
    num_positions: int,
    d_model: int,
    pairs: tuple[int, ...],
    *,
    base: float = limits.DEFAULT_BASE,
    max_frames: int = MAX_CLOCK_FRAMES,
    timescales: Timescales = "paper",
) -> ClockFrames:
    """The clock hands for positions 0 .. min(num_positions, max_frames) - 1.

    Consecutive positions, so the fastest hand's 1 radian per step is followed, not aliased.
    """
    num_positions = check_int("num_positions", num_positions, minimum=1)
    frames = min(num_positions, check_int("max_frames", max_frames, minimum=1))
    curves = dimension_curves(frames, d_model, tuple(c for i in pairs for c in (2 * i, 2 * i + 1)),
                              base=base, timescales=timescales)
    y = curves.values[:, 0::2]  # (F, m) sin: the even dimensions
    x = curves.values[:, 1::2]  # (F, m) cos: the odd dimensions
    omega = 2.0 * np.pi / curves.wavelengths[0::2]  # (m,)
    angles = np.multiply.outer(curves.positions.astype(np.float64), omega)  # (F, m)
    return ClockFrames(
        positions=curves.positions,
        pairs=tuple(int(i) for i in pairs),
        x=x,
        y=y,
        turns_in_pi=np.mod(angles, 2.0 * np.pi) / np.pi,
        wavelengths=curves.wavelengths[0::2],
        truncated=frames < num_positions,
    )
