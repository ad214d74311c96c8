r"""Rotary position embeddings (RoPE): the sinusoid's (sin, cos) pairs as a rotation of q and k.

RoFormer (Su et al., 2021, eq. 34) rotates each pair of a query or key by its position times the
pair's frequency, with the same frequencies as the sinusoid of Vaswani et al. (d_model -> d_head):

$$\theta_i = \mathrm{base}^{-2i/d}, \qquad
\begin{pmatrix} x'_a \\ x'_b \end{pmatrix} =
\begin{pmatrix} \cos p\theta_i & -\sin p\theta_i \\ \sin p\theta_i & \cos p\theta_i \end{pmatrix}
\begin{pmatrix} x_a \\ x_b \end{pmatrix}$$

Rotations compose, so $\langle R_m q, R_n k\rangle = \langle q, R_{n-m} k\rangle$: the logit
depends on the positions only through $m - n$. Two layouts name which columns form pair i:

- ``interleaved`` (RoFormer, GPT-J, Meta's original LLaMA code): columns (2i, 2i + 1);
- ``half_split`` (GPT-NeoX, Hugging Face's LLaMA ``rotate_half``): columns (i, i + d/2),
  i.e. ``q * cos + rotate_half(q) * sin`` with ``emb = cat(freqs, freqs)``.

Context extension (a model trained on L positions, used on s * L), each computed by its entry in
`core.rope_scaling.ROPE_INIT_FUNCTIONS` (which has every method's formula):

- ``position_interpolation`` (Chen et al. 2023, "Extending Context Window of Large Language
  Models via Positional Interpolation"; transformers' ``linear``): positions divided by s, i.e.
  every frequency divided by s, so every angle stays in range;
- ``ntk_aware`` (bloc97, 2023, "NTK-aware scaled RoPE"; Code Llama's and YaRN's starting point):
  base multiplied by s^(d/(d-2)), so the fastest pair is unchanged and the slowest pair turns
  exactly s times slower (interpolated), with a smooth geometric transition between them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np
from numpy.typing import ArrayLike

from core import limits
from core._checks import (
    check_base,
    check_choice,
    check_even_d_model,
    check_finite_array,
    check_int,
    shorten,
)
from core.limits import MAX_D_HEAD  # imported, not redefined: one name per cap
from core.rope_scaling import ROPE_INIT_FUNCTIONS, RopeInputs, beyond_trained_angles

RopeLayout = Literal["interleaved", "half_split"]
ROPE_LAYOUTS: tuple[str, ...] = get_args(RopeLayout)
Scaling = Literal["position_interpolation", "ntk_aware"]
SCALINGS: tuple[str, ...] = get_args(Scaling)
# The registry entry (core.rope_scaling.ROPE_INIT_FUNCTIONS) each scaling is computed by.
SCALING_ROPE_TYPES: dict[str, str] = {"position_interpolation": "linear", "ntk_aware": "ntk_aware"}

MAX_FACTOR = float(limits.MAX_ROPE_FACTOR)
MAX_DISTANCES = 65536  # distances per decay-bound call (the work is distances x d_head/2)
# LLaMA-1's training context, the one Chen et al. extend: the default "trained" length.
DEFAULT_TRAIN_LENGTH = 2048
_CHUNK = 2048  # rows per block when an (N, d/2) complex temporary would otherwise be large


def _check_factor(factor: object) -> float:
    if isinstance(factor, bool) or not isinstance(factor, int | float):
        raise ValueError(f"factor={factor!r} is not allowed: factor must be a number >= 1")
    value = float(factor)
    if not (math.isfinite(value) and 1.0 <= value <= MAX_FACTOR):
        raise ValueError(
            f"factor={factor!r} is not allowed: factor must be a number from 1 to {MAX_FACTOR:g}"
        )
    return value


def _check_scaling(scaling: object) -> Scaling | None:
    if scaling is None:
        return None
    return check_choice("scaling", scaling, SCALINGS)  # type: ignore[return-value]


@dataclass(frozen=True)
class RotationSettings:
    """How RoPE turns q and k, apart from the head width and the positions: the base, which
    columns pair up (`layout`), and the context-extension method (`scaling`, None for plain RoPE)
    with its factor s. Checked when made (ValueError naming the field); frozen, so hashable (a
    cache key) and shareable as a default.

    Not `core.rope_config.RopeConfig`: that is a published model's ``config.json`` (head width,
    ``rope_theta``, context lengths and its ``rope_scaling`` dict, which `core.rope_scaling` reads
    with transformers' methods); these are the settings the functions of this module take.
    """

    base: float = limits.DEFAULT_BASE
    layout: RopeLayout = "interleaved"  # used by the functions that rotate vectors
    scaling: Scaling | None = None
    factor: float = 1.0  # s; unused when scaling is None (still checked)

    def __post_init__(self) -> None:
        object.__setattr__(self, "base", check_base(self.base))
        object.__setattr__(self, "layout", check_choice("layout", self.layout, ROPE_LAYOUTS))
        object.__setattr__(self, "scaling", _check_scaling(self.scaling))
        object.__setattr__(self, "factor", _check_factor(self.factor))


PLAIN = RotationSettings()  # RoFormer's RoPE: base 10000, interleaved pairs, no scaling


def _check_settings(settings: object) -> RotationSettings:
    if not isinstance(settings, RotationSettings):
        raise ValueError(
            f"settings={shorten(repr(settings))} is not allowed: settings must be a "
            f"core.rope.RotationSettings"
        )
    return settings


def rope_frequencies(
    d_head: int,
    *,
    settings: RotationSettings = PLAIN,
) -> np.ndarray:
    """theta_i = base^(-2i/d_head) for i < d_head/2: shape ``(d_head/2,)``, float64.

    The sinusoid's omega_i with d_model = d_head (the same function is called), as scaled by
    ``settings.scaling``'s entry of `ROPE_INIT_FUNCTIONS` (see SCALING_ROPE_TYPES): with
    ``"position_interpolation"`` each is divided by the factor (the angle of p is plain RoPE's
    angle of p / factor); with ``"ntk_aware"`` the base is multiplied by factor^(d/(d-2)) first.
    The layout plays no part.
    """
    d_head = check_even_d_model("d_head", d_head)
    if d_head > MAX_D_HEAD:
        raise ValueError(f"d_head={d_head} is out of range: d_head must be at most {MAX_D_HEAD}")
    settings = _check_settings(settings)
    rope_type = "default" if settings.scaling is None else SCALING_ROPE_TYPES[settings.scaling]
    inputs = RopeInputs(d_head, settings.base, {"factor": settings.factor})
    return ROPE_INIT_FUNCTIONS[rope_type](inputs).inv_freq  # (d/2,)


def rope_angles(
    positions: ArrayLike,
    d_head: int,
    *,
    settings: RotationSettings = PLAIN,
) -> np.ndarray:
    """The rotation angle p * theta_i of every position and pair: ``(len(positions), d_head/2)``.

    theta_i as `rope_frequencies` scales them: position interpolation turns position p by plain
    RoPE's angles of p / factor.
    """
    positions = check_finite_array("positions", positions, ndim=1).astype(np.float64)  # (P,)
    theta = rope_frequencies(d_head, settings=settings)  # (d/2,) checks settings
    return np.multiply.outer(positions, theta)  # (P, d/2)


def _pair_columns(d_head: int, layout: str) -> tuple[np.ndarray, np.ndarray]:
    """The column indices (a_i, b_i) of pair i in the named layout, each ``(d_head/2,)``."""
    half = d_head // 2
    if layout == "interleaved":
        return np.arange(half) * 2, np.arange(half) * 2 + 1  # (2i, 2i + 1)
    return np.arange(half), np.arange(half) + half  # (i, i + d/2)


def rope_rotate(
    x: ArrayLike,
    positions: ArrayLike,
    *,
    settings: RotationSettings = PLAIN,
) -> np.ndarray:
    """Rotate each pair of `x` by its position's angle: x ``(..., seq, d_head)`` -> same shape.

    `positions` ``(seq,)`` may be integers or floats. Pair i is (x_a, x_b) with the columns of
    ``settings.layout``; x'_a = x_a cos(p theta_i) - x_b sin(p theta_i), x'_b = x_a sin + x_b cos.
    float32 input stays float32 (angles are computed in float64); anything else gives float64.
    """
    x = check_finite_array("x", x)
    if x.ndim < 2:
        raise ValueError(f"x must have shape (..., seq, d_head), got shape {x.shape}")
    d_head = check_even_d_model("d_head (the last axis of x)", x.shape[-1])
    layout = _check_settings(settings).layout
    positions = check_finite_array("positions", positions, ndim=1)
    if positions.shape[0] != x.shape[-2]:
        raise ValueError(
            f"positions has {positions.shape[0]} entries but x has {x.shape[-2]} rows (seq): "
            f"give one position per row"
        )
    dtype = np.float32 if x.dtype == np.float32 else np.float64
    angles = rope_angles(positions, d_head, settings=settings)  # (S, h)
    cos, sin = np.cos(angles), np.sin(angles)  # (S, h) each
    half = d_head // 2
    # Views, not fancy indexing: pair i is [..., i, 0:2] of (..., S, h, 2) when interleaved and
    # [..., 0:2, i] of (..., S, 2, h) when half_split (the columns of `_pair_columns`).
    pair_axis = -1 if layout == "interleaved" else -2
    shape = (*x.shape[:-1], half, 2) if layout == "interleaved" else (*x.shape[:-1], 2, half)
    pairs = np.moveaxis(x.astype(np.float64, copy=False).reshape(shape), pair_axis, 0)
    xa, xb = pairs[0], pairs[1]  # (..., S, h) each
    out = np.empty(shape, dtype=np.float64)
    out_pairs = np.moveaxis(out, pair_axis, 0)  # a view: writing it fills `out`
    out_pairs[0] = xa * cos - xb * sin  # first coordinate of each rotated pair
    out_pairs[1] = xa * sin + xb * cos  # second coordinate
    return out.reshape(x.shape).astype(dtype, copy=False)


def rope_scores(
    q: ArrayLike,
    k: ArrayLike,
    positions_q: ArrayLike,
    positions_k: ArrayLike,
    *,
    settings: RotationSettings = PLAIN,
) -> np.ndarray:
    """Attention logits after rotation, (R_m q_m) . (R_n k_n): ``(..., seq_q, seq_k)``, float64.

    q ``(..., seq_q, d_head)`` at `positions_q`, k ``(..., seq_k, d_head)`` at `positions_k`
    (unscaled by 1/sqrt(d_head): the raw dot products).
    """
    q_rot = rope_rotate(q, positions_q, settings=settings).astype(np.float64)  # (..., Sq, d)
    k_rot = rope_rotate(k, positions_k, settings=settings).astype(np.float64)  # (..., Sk, d)
    if q_rot.shape[-1] != k_rot.shape[-1]:
        raise ValueError(
            f"q and k must have the same d_head, got {q_rot.shape[-1]} and {k_rot.shape[-1]}"
        )
    return q_rot @ np.swapaxes(k_rot, -1, -2)  # (..., Sq, Sk)


def rope_logits_by_offset(
    q: ArrayLike,
    k: ArrayLike,
    anchor: float,
    offsets: ArrayLike,
    *,
    settings: RotationSettings = PLAIN,
) -> np.ndarray:
    """q_m . k_n with q at m = `anchor` and k at n = m - offset, for each offset: ``(N,)``.

    q and k are single vectors ``(d_head,)``. The curve is the same for every anchor.
    """
    q = check_finite_array("q", q, ndim=1)
    k = check_finite_array("k", k, ndim=1)
    anchor = float(check_finite_array("anchor", anchor, ndim=0))
    offsets = check_finite_array("offsets", offsets, ndim=1).astype(np.float64)  # (N,)
    keys = np.broadcast_to(k, (offsets.size, k.size))  # (N, d): the same key at N positions
    scores = rope_scores(q[None, :], keys, [anchor], anchor - offsets, settings=settings)  # (1, N)
    return scores[0]  # (N,)


@dataclass(frozen=True)
class OffsetLogits:
    """q_m . k_n of one fixed (seeded) query and key, by offset m - n, from several anchors m."""

    offsets: np.ndarray  # (N,) m - n = 0 .. N-1
    anchors: tuple[float, ...]  # the query positions m
    logits: np.ndarray  # (A, N) one row per anchor: the same curve, up to float rounding
    spread: float  # largest difference between the anchors' curves at any offset


OFFSET_CHUNK = 1024  # offsets rotated at once by `rope_offset_logits`


def rope_offset_logits(
    d_head: int,
    num_offsets: int,
    anchors: tuple[float, ...],
    *,
    seed: int = 0,
    settings: RotationSettings = PLAIN,
) -> OffsetLogits:
    """`rope_logits_by_offset` of a standard-normal q and k (numpy generator `seed`) from each
    anchor, offsets 0 .. num_offsets-1. ``logits`` has shape ``(len(anchors), num_offsets)``."""
    d_head = check_even_d_model("d_head", d_head)
    num_offsets = check_int("num_offsets", num_offsets, minimum=1, maximum=MAX_DISTANCES)
    rng = np.random.default_rng(check_int("seed", seed, minimum=0))
    q, k = rng.standard_normal((2, d_head))  # (d,) each: one fixed query and key
    offsets = np.arange(num_offsets)  # (N,)
    # In chunks of offsets: each rotates (chunk, d) rows, so 8192 offsets at d = 1024 never hold
    # the (N, d) temporaries at once (224 MB measured; each offset is independent of the others).
    chunks = [offsets[i : i + OFFSET_CHUNK] for i in range(0, num_offsets, OFFSET_CHUNK)]
    logits = np.stack([
        np.concatenate([
            rope_logits_by_offset(q, k, anchor, chunk, settings=settings)
            for chunk in chunks
        ])
        for anchor in anchors
    ])  # (A, N)
    spread = float(np.ptp(logits, axis=0).max()) if len(anchors) > 1 else 0.0
    return OffsetLogits(offsets=offsets, anchors=tuple(anchors), logits=logits, spread=spread)


def rope_pair_trajectory(
    pair: int,
    positions: ArrayLike,
    d_head: int,
    *,
    settings: RotationSettings = PLAIN,
) -> np.ndarray:
    """Pair `pair` of the unit vector e_a (1 in the pair's first column) rotated to each position.

    Shape ``(len(positions), 2)``: (cos p theta_i, sin p theta_i), the sinusoid's (cos, sin)
    pair i of PE[p] with d_model = d_head, computed by `rope_rotate` itself.
    """
    d_head = check_even_d_model("d_head", d_head)
    pair = check_int("pair", pair, minimum=0, maximum=d_head // 2 - 1)
    positions = check_finite_array("positions", positions, ndim=1)  # (P,)
    a, b = _pair_columns(d_head, _check_settings(settings).layout)
    unit = np.zeros((positions.size, d_head))  # (P, d): the same unit vector at every position
    unit[:, a[pair]] = 1.0
    rotated = rope_rotate(unit, positions, settings=settings)  # (P, d)
    return rotated[:, [a[pair], b[pair]]]  # (P, 2)


def rope_decay_bound(
    distances: ArrayLike, d_head: int, *, base: float = limits.DEFAULT_BASE
) -> np.ndarray:
    r"""RoFormer §3.4.3's relative upper bound of the logit at distance r = m - n: ``(N,)``.

    $$\frac{1}{d/2} \sum_{j=1}^{d/2} |S_j|, \qquad S_j = \sum_{k=0}^{j-1} e^{i r \theta_k}$$

    (the paper's Figure 2 plots it for d = 128). It is (d/2 + 1)/2 at r = 0 (S_j = j) and
    decays, with oscillations, as r grows.
    """
    distances = check_finite_array("distances", distances, ndim=1).astype(np.float64)  # (N,)
    if distances.size > MAX_DISTANCES:
        raise ValueError(
            f"distances has {distances.size} entries: at most {MAX_DISTANCES} are allowed"
        )
    theta = rope_frequencies(d_head, settings=RotationSettings(base=base))  # (d/2,)
    out = np.empty(distances.size)
    for start in range(0, distances.size, _CHUNK):  # chunks bound the (rows, d/2) temporaries
        r = distances[start : start + _CHUNK]  # (n,)
        partial_sums = np.cumsum(np.exp(1j * np.multiply.outer(r, theta)), axis=1)  # (n, d/2)
        out[start : start + r.size] = np.abs(partial_sums).mean(axis=1)  # (n,)
    return out


def sample_positions(count: int, max_points: int = 1024) -> np.ndarray:
    """At most `max_points` evenly spaced positions of 0 .. count-1, both ends included.

    For drawing points that are each exact (a rotated pair at that position): a subset, not an
    average, since every drawn point is a true value. Shape ``(min(count, max_points),)``.
    """
    count = check_int("count", count, minimum=1)
    max_points = check_int("max_points", max_points, minimum=2)
    if count <= max_points:
        return np.arange(count)
    return np.unique(np.round(np.linspace(0, count - 1, max_points)).astype(np.int64))


@dataclass(frozen=True)
class ContextExtension:
    """Per pair, the largest rotation angle met in training and at the target length."""

    train_length: int  # L: positions 0 .. L-1 were seen in training
    target_length: int  # T: positions 0 .. T-1 are used now
    factor: float  # s, the scaling factor of every method
    trained: np.ndarray  # (d/2,) (L-1) theta_i: the largest angle of pair i in training
    target: dict[str, np.ndarray]  # method (EXTENSION_METHODS) -> (d/2,) largest angle at T
    beyond: dict[str, np.ndarray]  # method -> (d/2,) bool: angles never seen in training

    @property
    def pairs(self) -> np.ndarray:
        return np.arange(self.trained.size)


# The registry entry (core.rope_scaling.ROPE_INIT_FUNCTIONS) each context-extension method is
# computed by: no scaling, this module's scalings, and the methods of Hugging Face's rope_utils.
EXTENSION_ROPE_TYPES: dict[str, str] = {
    "none": "default", **SCALING_ROPE_TYPES, "yarn": "yarn", "dynamic": "dynamic",
    "llama3": "llama3",
}
EXTENSION_METHODS: tuple[str, ...] = tuple(EXTENSION_ROPE_TYPES)


def _extension_inputs(method: str, d_head: int, base: float, train_length: int,
                      target_length: int, factor: float) -> RopeInputs:
    """What `method` reads for a model trained on L = `train_length` positions and run on
    T = `target_length`: the factor; YaRN and Llama 3 with their published defaults (beta_fast 32,
    beta_slow 1; low_freq_factor 1, high_freq_factor 4) and original_max_position_embeddings L;
    dynamic NTK at its running length T (its base grows past max_position_embeddings L)."""
    fields: dict[str, object] = {"factor": factor}
    if method == "dynamic":
        return RopeInputs(d_head, base, fields, max_position_embeddings=train_length,
                          seq_len=target_length)
    if method in ("yarn", "llama3"):
        fields["original_max_position_embeddings"] = train_length
    if method == "llama3":
        fields |= {"low_freq_factor": 1.0, "high_freq_factor": 4.0}
    return RopeInputs(d_head, base, fields, max_position_embeddings=target_length)


def rope_context_extension(
    d_head: int,
    train_length: int,
    target_length: int,
    *,
    base: float = limits.DEFAULT_BASE,
    factor: float | None = None,
    methods: tuple[str, ...] = ("none", *SCALINGS),
) -> ContextExtension:
    """Which pairs meet angles at the target length that they never met in training.

    A pair whose trained angles already covered a full turn ((L-1) theta_i >= 2 pi) has seen every
    direction; any other pair is beyond its trained range when its largest angle at the target
    length exceeds L theta_i (more than one position step past the largest trained angle).
    `factor` defaults to T / L (at least 1). `methods` from EXTENSION_METHODS: ``"none"``,
    ``"position_interpolation"``, ``"ntk_aware"`` (this module's scalings), ``"yarn"``,
    ``"dynamic"``, ``"llama3"`` (as Hugging Face's rope_utils, with the fields
    `_extension_inputs` gives them); each is its `ROPE_INIT_FUNCTIONS` entry (EXTENSION_ROPE_TYPES).
    """
    train_length = check_int("train_length", train_length, minimum=1, maximum=10**7)
    target_length = check_int("target_length", target_length, minimum=1, maximum=10**7)
    factor = max(target_length / train_length, 1.0) if factor is None else _check_factor(factor)
    factor = min(factor, MAX_FACTOR)
    unknown = [m for m in methods if m not in EXTENSION_METHODS]
    if unknown or not methods:
        raise ValueError(f"methods must be some of {', '.join(EXTENSION_METHODS)}, got "
                         f"{list(methods)!r}")
    base = check_base(base)
    step = rope_frequencies(d_head, settings=RotationSettings(base=base))  # (d/2,) theta_i
    trained = (train_length - 1.0) * step  # (d/2,) each pair's largest angle in training
    target = {  # method -> (d/2,) (T-1) theta'_i
        method: (target_length - 1.0) * ROPE_INIT_FUNCTIONS[EXTENSION_ROPE_TYPES[method]](
            _extension_inputs(method, d_head, base, train_length, target_length, factor)
        ).inv_freq
        for method in methods
    }
    # Position interpolation at T = s*L reaches position (sL - 1)/s = L - 1/s: a fraction of a
    # step past L - 1, between trained positions' angles, which is what it relies on. So a pair is
    # beyond its range only more than one step past: angle > (L-1) theta_i + theta_i = L theta_i.
    beyond = {method: beyond_trained_angles(trained, angles, step)
              for method, angles in target.items()}
    return ContextExtension(train_length, target_length, factor, trained, target, beyond)
