r"""The sinusoidal positional encoding of "Attention Is All You Need" (Vaswani et al., 2017, §3.5).

$$PE_{(pos, 2i)} = \sin(pos \cdot \omega_i), \quad PE_{(pos, 2i+1)} = \cos(pos \cdot \omega_i),
\quad \omega_i = \mathrm{base}^{-2i/d_{model}}$$

Two column layouts are in use and both are named here:

- ``interleaved``: the paper's formula, and the TensorFlow tutorial's ``get_angles`` version:
  columns (2i, 2i+1) hold (sin, cos) of frequency i.
- ``concatenated``: MAE's ``get_1d_sincos_pos_embed`` and the TensorFlow text tutorial's
  ``positional_encoding``: columns [0, d/2) hold the sines, [d/2, d) the cosines. With the same
  frequencies it is a column permutation of the above, so every dot product and distance between
  positions is the same in both.

Two spacings of the frequencies (``timescales``) are in use too:

- ``paper``: the formula above, w_i = base^(-2i/d). The slowest wavelength is
  2*pi * base^((d-2)/d) (60,611.5 for d = 512), a little short of the "10000 * 2*pi" of the text.
- ``tensor2tensor``: the code the paper's authors released (tensor2tensor's
  ``get_timing_signal_1d``, concatenated layout) spaces the d/2 timescales geometrically from 1 to
  base *inclusive*: w_i = base^(-i/(d/2 - 1)). Its slowest wavelength is exactly 2*pi * base, as the
  paper's text says; every other frequency is a little lower than the formula's.

Speed without losing accuracy: a float32 table is built from exact float64 angles at a coarse grid
of "anchor" positions and at small offsets, combined by the angle-addition formula (the same
identity that makes PE[pos + k] a rotation of PE[pos]; see `shift_matrix`) as one complex64
multiply per entry, then clipped to [-1, 1] (the product of two rounded unit phasors can land a
rounding past 1). Error <= 1.5e-7 against the float64 formula (two float32 roundings; measured by
tests/test_sinusoidal.py over positions 0 .. 1e6 for d_model 64, 512 and 768); no float32 angle
ever reaches sin/cos, so the accuracy holds for any number of positions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from core import limits
from core._checks import (
    check_base,
    check_choice,
    check_dtype,
    check_even_d_model,
    check_finite_array,
    check_int,
)

Layout = Literal["interleaved", "concatenated"]
LAYOUTS: tuple[str, ...] = get_args(Layout)
Timescales = Literal["paper", "tensor2tensor"]
TIMESCALES: tuple[str, ...] = get_args(Timescales)

# What `sinusoidal_encoding` promises for float32 output: at most this far from the float64
# formula. Measured over positions 0 .. 1e6 for d_model in {64, 512, 768} (max 1.37e-7) by
# tests/test_sinusoidal.py; the README and the docstrings quote this number.
FLOAT32_ERROR_BOUND = 1.5e-7

# Positions per anchor block of the fast path: 64 measured fastest on a 2-core x86 machine
# (small enough that the (block, d/2) offset phasors stay in cache, large enough that the float64
# sin/cos of the anchors is a small fraction of the work).
_BLOCK = 64


def timescale_exponents(d_model: int, timescales: Timescales = "paper") -> np.ndarray:
    """e_i with w_i = base^(-e_i), shape ``(d_model/2,)``, float64, from 0 up.

    paper: e_i = 2i/d. tensor2tensor: e_i = i / max(d/2 - 1, 1) (its ``get_timing_signal_1d``
    divides log(max/min timescale) by ``max(num_timescales - 1, 1)``), so the last is exactly 1.
    """
    d_model = check_even_d_model("d_model", d_model)
    timescales = check_choice("timescales", timescales, TIMESCALES)
    half = d_model // 2
    if timescales == "paper":
        return np.arange(0, d_model, 2, dtype=np.float64) / d_model  # (d/2,) 2i/d
    return np.arange(half, dtype=np.float64) / max(half - 1, 1)  # (d/2,) i/(d/2 - 1)


def frequencies(
    d_model: int, *, base: float = limits.DEFAULT_BASE, timescales: Timescales = "paper"
) -> np.ndarray:
    """Angular frequencies w_i, shape ``(d_model/2,)``, float64: base^(-2i/d_model) (paper) or
    base^(-i/(d_model/2 - 1)) (tensor2tensor); see `timescale_exponents`."""
    exponents = timescale_exponents(d_model, timescales)  # (d/2,), also checks d_model
    base = check_base(base)
    return base**-exponents  # (d/2,)


def wavelengths(
    d_model: int, *, base: float = limits.DEFAULT_BASE, timescales: Timescales = "paper"
) -> np.ndarray:
    """Wavelengths 2*pi / w_i: a geometric progression from exactly 2*pi.

    Shape ``(d_model/2,)``. With the paper's formula the longest is 2*pi * base^((d-2)/d), a little
    short of the paper's "10000 * 2*pi" (60,611.5 rather than 62,831.9 for d=512);
    tensor2tensor's timescales end exactly at 2*pi * base.
    """
    return 2.0 * np.pi / frequencies(d_model, base=base, timescales=timescales)  # (d/2,)


def _phasors(positions: np.ndarray, omega: np.ndarray) -> np.ndarray:
    """Exact phasors sin(p*w) + i*cos(p*w), shape ``(len(positions), len(omega))``, complex128."""
    angles = np.multiply.outer(positions.astype(np.float64), omega)  # (P, d/2), float64
    return np.sin(angles) + 1j * np.cos(angles)


def _fast_table(start: int, count: int, omega: np.ndarray) -> np.ndarray:
    """sin + i*cos of (start + r) * w for r in [0, count): complex64 ``(count, d/2)``.

    sin(a + b) + i cos(a + b) = (sin a + i cos a) * (cos b - i sin b): one complex multiply of an
    exact anchor phasor (a = (start + B*j) * w) by an exact step phasor (b = r * w, r < B).
    """
    n_blocks = -(-count // _BLOCK)
    anchors = _phasors(start + _BLOCK * np.arange(n_blocks), omega).astype(np.complex64)  # (J, h)
    step_angles = np.multiply.outer(np.arange(_BLOCK, dtype=np.float64), omega)  # (B, h)
    steps = np.exp(-1j * step_angles).astype(np.complex64)  # (B, h), cos b - i sin b
    table = np.empty((n_blocks, _BLOCK, omega.size), dtype=np.complex64)  # (J, B, h)
    np.multiply(anchors[:, None, :], steps[None, :, :], out=table)
    # Two rounded unit phasors can multiply to 1.0000001: a sine stays in [-1, 1] (in place on the
    # float32 (sin, cos) view: one pass, no copy).
    parts = table.view(np.float32)  # (J, B, 2h)
    np.clip(parts, -1.0, 1.0, out=parts)
    return table.reshape(n_blocks * _BLOCK, omega.size)[:count]  # (count, h)


def _arrange(phasor: np.ndarray, layout: str, dtype: np.dtype) -> np.ndarray:
    """Lay complex phasors (sin + i cos) out as real columns in the named layout."""
    rows, half = phasor.shape
    if layout == "interleaved" and phasor.dtype == np.complex64 and dtype == np.float32:
        # A complex64 array *is* (real, imag) float32 pairs: exactly the interleaved layout.
        return np.ascontiguousarray(phasor).view(np.float32)  # (rows, d)
    out = np.empty((rows, 2 * half), dtype=dtype)
    if layout == "interleaved":
        out[:, 0::2] = phasor.real  # sin(pos * w_i) at column 2i
        out[:, 1::2] = phasor.imag  # cos(pos * w_i) at column 2i+1
    else:
        out[:, :half] = phasor.real  # sines first ...
        out[:, half:] = phasor.imag  # ... then cosines (MAE, tensor2tensor)
    return out


def sinusoidal_encoding(
    num_positions: int,
    d_model: int,
    *,
    base: float = limits.DEFAULT_BASE,
    layout: Layout = "interleaved",
    dtype: DTypeLike = np.float32,
    start: int = 0,
    timescales: Timescales = "paper",
) -> np.ndarray:
    """The sinusoid table for positions start .. start + num_positions - 1.

    Returns an array of shape ``(num_positions, d_model)``, every entry in [-1, 1]. float32
    output is within FLOAT32_ERROR_BOUND (1.5e-7, measured over positions 0 .. 1e6) of the float64
    formula; float64 output evaluates the formula directly. tensor2tensor's own table is
    ``layout="concatenated", timescales="tensor2tensor"``.
    """
    num_positions = check_int("num_positions", num_positions, minimum=1)
    omega = frequencies(d_model, base=base, timescales=timescales)  # (d/2,), checks d, base
    layout = check_choice("layout", layout, LAYOUTS)
    dtype = check_dtype(dtype)
    start = check_int("start", start, minimum=0)
    if dtype == np.float32:
        phasor = _fast_table(start, num_positions, omega)  # (P, d/2) complex64
    else:
        phasor = _phasors(np.arange(start, start + num_positions), omega)  # (P, d/2) complex128
    return _arrange(phasor, layout, dtype)


def sinusoidal_rows(
    rows: ArrayLike,
    d_model: int,
    *,
    base: float = limits.DEFAULT_BASE,
    layout: Layout = "interleaved",
    dtype: DTypeLike = np.float32,
    timescales: Timescales = "paper",
) -> np.ndarray:
    """Rows `rows` of `sinusoidal_encoding(n, d_model, ...)` (any n past the largest), bit for
    bit, shape ``(len(rows), d_model)``: float32 rows are made from their own blocks of the
    table (each row is its block's exact anchor times an exact step), not the whole table
    (16 MB at 4096 x 1024, for the three rows a sentence reads).
    """
    rows = check_finite_array("rows", rows, ndim=1)
    if not np.issubdtype(rows.dtype, np.integer) or np.any(rows < 0):
        raise ValueError("rows must be positions: integers >= 0")
    omega = frequencies(d_model, base=base, timescales=timescales)  # (d/2,), checks d, base
    layout = check_choice("layout", layout, LAYOUTS)
    dtype = check_dtype(dtype)
    if dtype != np.float32:
        return _arrange(_phasors(rows, omega), layout, dtype)
    phasor = np.empty((rows.size, omega.size), dtype=np.complex64)
    for block in np.unique(rows // _BLOCK):
        chosen = rows // _BLOCK == block
        phasor[chosen] = _fast_table(int(block) * _BLOCK, _BLOCK, omega)[rows[chosen] % _BLOCK]
    return _arrange(phasor, layout, dtype)


def encode_positions(
    positions: ArrayLike,
    d_model: int,
    *,
    base: float = limits.DEFAULT_BASE,
    layout: Layout = "interleaved",
    dtype: DTypeLike = np.float64,
    timescales: Timescales = "paper",
) -> np.ndarray:
    """The encoding of arbitrary (even fractional or negative) positions, shape ``(N, d_model)``.

    The direct float64 evaluation; used for 2-D grids and anywhere a handful of rows is needed.
    """
    positions = check_finite_array("positions", positions)
    omega = frequencies(d_model, base=base, timescales=timescales)
    layout = check_choice("layout", layout, LAYOUTS)
    dtype = check_dtype(dtype)
    return _arrange(_phasors(positions.reshape(-1), omega), layout, dtype)


def offset_dot_product(
    offsets: ArrayLike, d_model: int, *, base: float = limits.DEFAULT_BASE
) -> np.ndarray:
    """PE[p] . PE[p + k] for each offset k, the same for every p: sum_i cos(w_i * k).

    sin(a)sin(b) + cos(a)cos(b) = cos(a - b), so each (sin, cos) pair contributes cos(w_i k):
    a function of the offset alone, and even in k (it cannot tell before from after).
    Returns float64 with the shape of `offsets` (negative offsets allowed).
    """
    offsets = check_finite_array("offsets", offsets)
    omega = frequencies(d_model, base=base)  # (d/2,)
    return np.cos(np.multiply.outer(offsets.astype(np.float64), omega)).sum(axis=-1)


def offset_dot_products(
    count: int, d_model: int, *, base: float = limits.DEFAULT_BASE
) -> np.ndarray:
    """`offset_dot_product` of the offsets 0 .. count-1, ``(count,)`` float64, as one complex
    matrix product instead of count x d/2 cosines.

    With k = B j + r: sum_i e^{i w_i k} = sum_i e^{i w_i B j} e^{i w_i r}, the (j, r) entry of
    anchors (J, d/2) @ steps (d/2, B). Each phasor is exact (float64 exp), so the sums agree with
    the direct cosines to rounding (about 1e-13 for d = 1024).
    """
    count = check_int("count", count, minimum=1)
    omega = frequencies(d_model, base=base)  # (d/2,)
    block = max(1, int(np.sqrt(count)))  # B: J + B ~ 2 sqrt(count) rows of exponentials
    blocks = -(-count // block)  # J
    anchors = np.exp(1j * np.multiply.outer(block * np.arange(blocks, dtype=np.float64), omega))
    steps = np.exp(1j * np.multiply.outer(np.arange(block, dtype=np.float64), omega))  # (B, d/2)
    return (anchors @ steps.T).real.reshape(-1)[:count]  # (J, B) -> (count,)


def shift_matrix(
    offset: float,
    d_model: int,
    *,
    base: float = limits.DEFAULT_BASE,
    layout: Layout = "interleaved",
    window: int | None = None,
) -> np.ndarray:
    """The ``(d_model, d_model)`` matrix M_k with PE[p + k] = M_k @ PE[p] for every p.

    From sin(a + b) = sin a cos b + cos a sin b and cos(a + b) = cos a cos b - sin a sin b, with
    b = w_i k, each (sin, cos) pair is multiplied by the rotation block [[cos b, sin b],
    [-sin b, cos b]]. Interleaved: blocks on the diagonal; concatenated: the same blocks acting
    on columns (i, i + d/2). float64. With `window`, only M_k's top-left ``(window, window)``
    corner (what a chart draws), without making the whole (8 MB at d = 1024).
    """
    offset = float(check_finite_array("offset", offset, ndim=0))
    omega = frequencies(d_model, base=base)
    layout = check_choice("layout", layout, LAYOUTS)
    side = d_model if window is None else check_int("window", window, minimum=1,
                                                     maximum=d_model)
    half = omega.size
    sin_index = np.arange(half) * 2 if layout == "interleaved" else np.arange(half)
    cos_index = sin_index + 1 if layout == "interleaved" else np.arange(half) + half
    b = omega * offset  # (d/2,) rotation angle of each pair
    m = np.zeros((side, side))
    for rows, cols, values in ((sin_index, sin_index, np.cos(b)),
                               (sin_index, cos_index, np.sin(b)),
                               (cos_index, sin_index, -np.sin(b)),
                               (cos_index, cos_index, np.cos(b))):
        inside = (rows < side) & (cols < side)
        m[rows[inside], cols[inside]] = values[inside]
    return m


@dataclass(frozen=True)
class WorkedEntry:
    """One entry PE(pos, dim) with every intermediate number of the formula."""

    position: int
    dimension: int
    d_model: int
    base: float
    layout: str
    pair: int  # i: the frequency index of this column
    function: Literal["sin", "cos"]
    exponent: float  # 2i / d_model (paper) or i / (d_model/2 - 1) (tensor2tensor)
    denominator: float  # base^(2i/d_model)
    frequency: float  # w_i = 1 / denominator
    angle: float  # pos * w_i, radians
    value: float  # sin or cos of the angle, float64
    wavelength: float  # 2*pi / w_i, in positions
    timescales: str = "paper"


def worked_entry(
    position: int,
    dimension: int,
    d_model: int,
    *,
    base: float = limits.DEFAULT_BASE,
    layout: Layout = "interleaved",
    timescales: Timescales = "paper",
) -> WorkedEntry:
    """Work the formula for one (position, dimension), every intermediate number included."""
    d_model = check_even_d_model("d_model", d_model)
    position = check_int("position", position, minimum=0)
    dimension = check_int("dimension", dimension, minimum=0, maximum=d_model - 1)
    base = check_base(base)
    layout = check_choice("layout", layout, LAYOUTS)
    half = d_model // 2
    if layout == "interleaved":
        pair, is_sin = dimension // 2, dimension % 2 == 0
    else:
        pair, is_sin = dimension % half, dimension < half
    exponent = float(timescale_exponents(d_model, timescales)[pair])
    denominator = base**exponent
    angle = position / denominator
    return WorkedEntry(
        position=position,
        dimension=dimension,
        d_model=d_model,
        base=base,
        layout=layout,
        pair=pair,
        function="sin" if is_sin else "cos",
        exponent=exponent,
        denominator=denominator,
        frequency=1.0 / denominator,
        angle=angle,
        value=float(np.sin(angle) if is_sin else np.cos(angle)),
        wavelength=2.0 * np.pi * denominator,
        timescales=timescales,
    )
