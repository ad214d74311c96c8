r"""RoPE context extension, one function per method in one registry (`ROPE_INIT_FUNCTIONS`, as in
Hugging Face transformers' ``modeling_rope_utils``): a config.json's ``rope_scaling`` in, the
inverse frequencies and attention factor that transformers computes out. `core.rope`'s scalings
(position interpolation, NTK-aware) are entries of the same registry.

Plain RoPE (Su et al. 2021): $\theta_i = b^{-2i/d}$ for pair $i < d/2$, wavelength
$\lambda_i = 2\pi/\theta_i$. Each method below replaces $\theta_i$ by $\theta'_i$, and some scale
cos and sin by an attention factor $m$ (1 when not named). $L$ is the pretraining context
(``original_max_position_embeddings``), $L_{max}$ the config's ``max_position_embeddings``, $s$ the
``factor`` and $\ell$ the running length (``seq_len``).

- ``linear``: position interpolation (Chen et al. 2023, "Extending Context Window of Large
  Language Models via Positional Interpolation"; kaiokendev's SuperHOT). Dividing the positions
  by $s$ is dividing the frequencies: $\theta'_i = \theta_i / s$.
- ``ntk_aware``: NTK-aware scaling (bloc97, r/LocalLLaMA 2023, "NTK-aware scaled RoPE"; Code
  Llama's and YaRN's starting point): $b' = b\,s^{d/(d-2)}$, $\theta'_i = b'^{-2i/d}$, so the
  fastest pair is unchanged and the slowest turns exactly $s$ times slower. Not a transformers
  rope_type (a config cannot name it): the static form of ``dynamic``.
- ``dynamic``: dynamic NTK (bloc97's "NTK-aware scaled RoPE" and its dynamic form by emozilla,
  r/LocalLLaMA 2023). The base grows with the running length once it passes $L_{max}$:
  $b' = b\,\big(s\,\max(\ell, L_{max})/L_{max} - (s - 1)\big)^{d/(d-2)}$, $\theta'_i = b'^{-2i/d}$
  (``ntk_aware`` with $s' = s\,\max(\ell, L_{max})/L_{max} - (s - 1)$).
- ``yarn``: YaRN (Peng et al. 2023, "YaRN: Efficient Context Window Extension of Large Language
  Models"). Pair $i$ turns $L/\lambda_i$ times in the pretraining context; the pair index where
  that count is $\beta$ is $i(\beta) = \frac{d}{2}\log_b\frac{L}{2\pi\beta}$. With
  $i_{lo} = \max(\lfloor i(\beta_{fast})\rfloor, 0)$,
  $i_{hi} = \min(\lceil i(\beta_{slow})\rceil, d - 1)$
  (no floor/ceil when ``truncate`` is false) and the ramp
  $\gamma_i = \mathrm{clamp}\big((i - i_{lo})/(i_{hi} - i_{lo}), 0, 1\big)$:
  $\theta'_i = (1 - \gamma_i)\,\theta_i + \gamma_i\,\theta_i/s$ (fast pairs unchanged, slow pairs
  interpolated), $\beta_{fast} = 32$ and $\beta_{slow} = 1$ by default, and
  $m = 0.1\ln s + 1$, or DeepSeek's $m = \frac{0.1\,\mu\ln s + 1}{0.1\,\mu_{all}\ln s + 1}$ with
  $\mu$ = ``mscale``, $\mu_{all}$ = ``mscale_all_dim``.
- ``llama3``: Meta's Llama 3.1 (``apply_scaling`` in meta-llama/llama-models). With
  $\lambda_{hi} = L/\phi_{hi}$ and $\lambda_{lo} = L/\phi_{lo}$ (below):
  $\theta'_i = \theta_i$ where $\lambda_i < \lambda_{hi}$, $\theta_i/s$ where
  $\lambda_i > \lambda_{lo}$, and between them
  $\theta'_i = (1 - \sigma_i)\,\theta_i/s + \sigma_i\,\theta_i$ with
  $\sigma_i = (L/\lambda_i - \phi_{lo})/(\phi_{hi} - \phi_{lo})$, $\phi_{lo}$ = ``low_freq_factor``,
  $\phi_{hi}$ = ``high_freq_factor``.
- ``longrope``: LongRoPE (Ding et al. 2024, "LongRoPE: Extending LLM Context Window Beyond 2
  Million Tokens"; Microsoft's Phi-3, whose first config.json called it ``su``). Searched
  per-pair factors: $\theta'_i = \theta_i / f_i$ with $f$ = ``long_factor`` when $\ell > L$, else
  ``short_factor``; $m = \sqrt{1 + \ln s/\ln L}$ (1 when $s \le 1$), $s$ = ``factor`` or
  $L_{max}/L$ when the config gives none.

Every number follows transformers' ``modeling_rope_utils`` (``_compute_*_parameters``, version
5.24), including where $L$ comes from: a config's top-level ``original_max_position_embeddings``
(Phi-3 keeps it there) wins over the one inside ``rope_scaling``, and without either $L = L_{max}$.
transformers computes in float32; this module in float64 (tests/test_rope_scaling.py pins both).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, get_args

import numpy as np
from numpy.typing import ArrayLike

from core import limits
from core._checks import check_base, check_even_d_model, check_finite_array, check_int
from core.limits import MAX_D_HEAD  # imported, not redefined: one name per cap
from core.sinusoidal import frequencies

RopeType = Literal["default", "linear", "dynamic", "yarn", "llama3", "longrope"]
ROPE_TYPES: tuple[str, ...] = get_args(RopeType)
# Older names config.json files still carry: Phi-3's first release wrote "su" for LongRoPE
# (transformers' Phi3Config renames it).
ROPE_TYPE_ALIASES: dict[str, RopeType] = {"su": "longrope"}
Band = Literal["unchanged", "interpolated", "blended", "rescaled"]
BANDS: tuple[str, ...] = get_args(Band)

# Context lengths (max_position_embeddings, original_max_position_embeddings, seq_len): the
# longest published windows are 10M tokens (Llama 4 Scout).
MAX_CONTEXT = 10_000_000
# Scaling factors read from configs: DeepSeek uses 40, LongRoPE's per-pair factors reach ~65;
# 1024 leaves room without letting float64 angles lose their meaning.
MAX_SCALING_FACTOR = 1024.0
# YaRN's defaults (Peng et al. 2023, §3.2 for LLaMA): pairs that turn >= 32 times in L keep
# their frequency, pairs that turn < 1 time are fully interpolated.
YARN_BETA_FAST = 32.0
YARN_BETA_SLOW = 1.0

# The keys each method cannot do without (original_max_position_embeddings falls back to
# max_position_embeddings, as in transformers' standardize_rope_params).
REQUIRED_KEYS: dict[str, tuple[str, ...]] = {
    "default": (),
    "linear": ("factor",),
    "ntk_aware": ("factor",),
    "dynamic": ("factor",),
    "yarn": ("factor",),
    "llama3": ("factor", "low_freq_factor", "high_freq_factor"),
    "longrope": ("short_factor", "long_factor"),
}
# Every rope_scaling key some method reads (transformers' RopeParameters, less the config fields
# rope_theta and partial_rotary_factor that transformers 5 also files there).
SCALING_KEYS: tuple[str, ...] = (
    "rope_type", "type", "factor", "original_max_position_embeddings", "attention_factor",
    "beta_fast", "beta_slow", "mscale", "mscale_all_dim", "truncate", "low_freq_factor",
    "high_freq_factor", "short_factor", "long_factor",
)


# --- validation of one rope_scaling value -------------------------------------------------------
def _fail(key: str, value: object, allowed: str) -> ValueError:
    return ValueError(f"rope_scaling[{key!r}]={value!r} is not allowed: {key} must be {allowed}")


def _real(key: str, value: object, *, minimum: float, maximum: float, strict: bool = False,
          what: str | None = None) -> float:
    """A finite real number in [minimum, maximum] ((minimum, maximum] when `strict`)."""
    relation = ">" if strict else ">="
    allowed = what or f"a number {relation} {minimum:g} and <= {maximum:g}"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise _fail(key, value, allowed)
    try:
        number = float(value)
    except OverflowError:  # an int too large for a float (JSON allows 4300 digits)
        raise _fail(key, value, allowed) from None
    below = number <= minimum if strict else number < minimum
    if not math.isfinite(number) or below or number > maximum:
        raise _fail(key, value, allowed)
    return number


def _optional_real(scaling: Mapping[str, object], key: str, **bounds: object) -> float | None:
    """`_real` of scaling[key], or None when the key is absent or null (transformers' ``.get``)."""
    value = scaling.get(key)
    return None if value is None else _real(key, value, **bounds)  # type: ignore[arg-type]


def _required(scaling: Mapping[str, object], key: str, rope_type: str) -> object:
    if key not in scaling:
        raise ValueError(
            f"rope_scaling has no {key!r}: rope_type {rope_type!r} requires it "
            f"(keys given: {', '.join(sorted(map(str, scaling))) or 'none'})"
        )
    return scaling[key]


def _whole(name: str, value: object, *, minimum: int, maximum: int) -> int:
    """`check_int`, refusing booleans (JSON's true is not a length)."""
    if isinstance(value, bool):
        raise ValueError(f"{name}={value!r} is not allowed: {name} must be a whole number from "
                         f"{minimum} to {maximum}")
    return check_int(name, value, minimum=minimum, maximum=maximum)


def _context(name: str, value: object) -> int:
    return _whole(name, value, minimum=1, maximum=MAX_CONTEXT)


def _factor_list(key: str, value: object, half: int) -> np.ndarray:
    """LongRoPE's per-pair factors: a list of d_head/2 numbers in [1/MAX_SCALING_FACTOR,
    MAX_SCALING_FACTOR], ``(d/2,)`` (theta_i / f_i: a factor of 1e-320 made it inf)."""
    least = 1 / MAX_SCALING_FACTOR
    allowed = (f"a list of {half} numbers (d_head/2), each >= {least:g} and <= "
               f"{MAX_SCALING_FACTOR:g}")
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise _fail(key, value, allowed)
    if len(value) != half:
        raise ValueError(
            f"rope_scaling[{key!r}] has {len(value)} entries: {key} must be {allowed}"
        )
    for index, entry in enumerate(value):
        try:
            _real(key, entry, minimum=least, maximum=MAX_SCALING_FACTOR)
        except ValueError:
            raise ValueError(
                f"rope_scaling[{key!r}][{index}]={entry!r} is not allowed: {key} must be "
                f"{allowed}"
            ) from None
    return np.asarray(value, dtype=np.float64)  # (d/2,)


def _check_scaling_dict(scaling: object) -> Mapping[str, object]:
    if not isinstance(scaling, Mapping):
        raise ValueError(
            f"rope_scaling={scaling!r} is not allowed: rope_scaling must be a dict (a JSON "
            f"object) or None"
        )
    return scaling


def rope_type_of(scaling: Mapping[str, object] | None) -> RopeType:
    """The method a ``rope_scaling`` dict names: ``rope_type``, else the older key ``type``.

    None or an empty dict is plain RoPE (``"default"``); aliases (``"su"``) are resolved.
    """
    if scaling is None:
        return "default"
    scaling = _check_scaling_dict(scaling)
    if not scaling:
        return "default"
    # transformers: rope_parameters.setdefault("rope_type", rope_parameters.get("type", ...))
    key = "rope_type" if scaling.get("rope_type") is not None else "type"
    value = scaling.get(key)
    if value is None:
        raise ValueError(
            "rope_scaling has no 'rope_type' (or 'type'): it must name one of "
            + ", ".join(repr(t) for t in (*ROPE_TYPES, *ROPE_TYPE_ALIASES))
        )
    if not isinstance(value, str) or (value not in ROPE_TYPES and value not in ROPE_TYPE_ALIASES):
        allowed = ", ".join(repr(t) for t in (*ROPE_TYPES, *ROPE_TYPE_ALIASES))
        raise _fail(key, value, f"one of {allowed}")
    return ROPE_TYPE_ALIASES.get(value, value)  # type: ignore[return-value]


def _check_d_head(d_head: object) -> int:
    """An even whole number from 2 to MAX_D_HEAD (RoPE rotates pairs of columns)."""
    return check_even_d_model("d_head", _whole("d_head", d_head, minimum=2, maximum=MAX_D_HEAD))


def _check_rope_base(base: object) -> float:
    value = check_base(base)
    if value > limits.MAX_BASE:
        raise ValueError(f"base={base!r} is out of range: base must be at most {limits.MAX_BASE:g}")
    return value


def _pretraining_context(
    scaling: Mapping[str, object],
    max_position_embeddings: int | None,
    original_max_position_embeddings: int | None,
) -> int:
    """L as transformers' ``standardize_rope_params`` picks it: the config's top-level field, else
    the one in ``rope_scaling``, else ``max_position_embeddings``."""
    if original_max_position_embeddings is not None:
        return original_max_position_embeddings
    inner = scaling.get("original_max_position_embeddings")
    if inner is not None:
        return _context("rope_scaling['original_max_position_embeddings']", inner)
    if max_position_embeddings is not None:
        return max_position_embeddings
    raise ValueError(
        "original_max_position_embeddings is missing: give it in rope_scaling, as the config's "
        "top-level field, or give max_position_embeddings (transformers' fallback)"
    )


def _scalar_factor(scaling: Mapping[str, object], rope_type: str) -> float:
    return _real("factor", _required(scaling, "factor", rope_type), minimum=1.0,
                 maximum=MAX_SCALING_FACTOR)


# --- the methods: one function each, one registry -----------------------------------------------
@dataclass(frozen=True)
class RopeInputs:
    """What a method reads, where transformers' ``_compute_*_parameters`` read the model config:
    the head width, the base, the method's fields (a ``rope_scaling`` dict: its ``rope_type`` is
    not read, the registry key names the method) and the lengths. Checked when made (ValueError
    naming the field): d_head even from 2 to MAX_D_HEAD, base > 1, lengths whole numbers up to
    MAX_CONTEXT; each method checks the fields it reads.
    """

    d_head: int
    base: float
    scaling: Mapping[str, object] = field(default_factory=dict)
    max_position_embeddings: int | None = None  # L_max: dynamic; yarn/longrope without a factor
    seq_len: int | None = None  # the running length l: dynamic, longrope
    # The config's top-level L (Phi-3 keeps it there): it wins over the one in `scaling`.
    original_max_position_embeddings: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "d_head", _check_d_head(self.d_head))
        object.__setattr__(self, "base", check_base(self.base))
        if self.max_position_embeddings is not None:
            object.__setattr__(self, "max_position_embeddings",
                               _context("max_position_embeddings", self.max_position_embeddings))
        if self.original_max_position_embeddings is not None:
            object.__setattr__(self, "original_max_position_embeddings", _context(
                "original_max_position_embeddings", self.original_max_position_embeddings))
        if self.seq_len is not None:
            object.__setattr__(self, "seq_len",
                               _whole("seq_len", self.seq_len, minimum=0, maximum=MAX_CONTEXT))
        _check_scaling_dict(self.scaling)

    @property
    def theta(self) -> np.ndarray:
        """Plain RoPE's theta_i = base^(-2i/d): ``(d_head/2,)``, as core.sinusoidal's omega_i."""
        return frequencies(self.d_head, base=self.base)  # (d/2,)

    def context(self) -> int:
        """L, the pretraining context (see `_pretraining_context`); ValueError when missing."""
        return _pretraining_context(self.scaling, self.max_position_embeddings,
                                    self.original_max_position_embeddings)


@dataclass(frozen=True)
class ScaledFrequencies:
    """What one method computes: the inverse frequencies, the attention factor, and where its bands
    lie (`scaling_bands` reports them)."""

    inv_freq: np.ndarray  # (d/2,) theta'_i
    attention_factor: float  # m, multiplying cos and sin
    factor: float  # s the bands are measured against (1 for plain RoPE)
    context: int | None = None  # L for yarn, llama3 and longrope
    wavelength_edges: tuple[float, float] | None = None
    pair_edges: tuple[float, float] | None = None


def yarn_get_mscale(scale: float, mscale: float = 1.0) -> float:
    """YaRN's attention temperature sqrt(1/t) = 0.1 * mscale * ln(s) + 1 (1 for s <= 1)."""
    if scale <= 1:
        return 1.0
    return 0.1 * mscale * math.log(scale) + 1.0


def _positive(name: str, value: object) -> float:
    """A number > 0 as a float, inf included (an int past every float is inf): a band edge
    L / low_freq_factor may be."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value > 0:
        raise ValueError(f"{name}={value!r} is not allowed: {name} must be a number > 0")
    try:
        return float(value)
    except OverflowError:
        return math.inf


def correction_pair(num_rotations: float, d_head: int, base: float, context: float) -> float:
    """The (fractional) pair index i whose pair turns `num_rotations` times in `context` positions.

    i = (d/2) log_base(context / (2 pi num_rotations)): YaRN's ``find_correction_dim``, which is
    also the pair whose wavelength is context / num_rotations. Taken as a difference of logs, so
    that it is a float for every finite num_rotations > 0 (a beta of 1e-320, subnormal, made
    context / (2 pi beta) inf, and its ceil an OverflowError); an infinite context (L / a
    subnormal low_freq_factor) is the pair at +inf.
    """
    turns = _positive("num_rotations", num_rotations)
    if not math.isfinite(turns):
        raise ValueError(f"num_rotations={num_rotations!r} is not allowed: num_rotations must "
                         f"be a finite number > 0")
    log_ratio = math.log(_positive("context", context)) - math.log(turns) - math.log(2 * math.pi)
    return _check_d_head(d_head) * log_ratio / (2 * math.log(check_base(base)))


def yarn_ramp_edges(
    d_head: int, base: float, context: int, beta_fast: float, beta_slow: float, truncate: bool
) -> tuple[float, float]:
    """(i_lo, i_hi): YaRN's ramp runs from pair i_lo (unchanged below) to i_hi (interpolated above).

    transformers' ``find_correction_range``: floor/ceil when `truncate`, clamped to [0, d - 1].
    Both are finite for a finite `context` and betas > 0 (`correction_pair`).
    """
    if not math.isfinite(_positive("context", context)):
        raise ValueError(f"context={context!r} is not allowed: context must be a finite number > 0")
    low = correction_pair(beta_fast, d_head, base, context)
    high = correction_pair(beta_slow, d_head, base, context)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    return max(low, 0), min(high, d_head - 1)


def _yarn_ramp(low: float, high: float, half: int) -> np.ndarray:
    """gamma_i = clamp((i - low) / (high - low), 0, 1) for i < d/2: ``(d/2,)``."""
    if low == high:
        high += 0.001  # transformers: "prevent singularity"
    return np.clip((np.arange(half, dtype=np.float64) - low) / (high - low), 0.0, 1.0)


def _ntk_aware_frequencies(d_head: int, base: float, factor: float) -> np.ndarray:
    """theta_i of bloc97's NTK-aware base b s^(d/(d-2)): ``(d/2,)``. The fastest pair keeps its
    frequency and the slowest turns exactly s times slower."""
    # One pair (d = 2) has theta_0 = base^0 = 1 for every base (transformers divides by d - 2).
    if d_head > 2:
        base = base * factor ** (d_head / (d_head - 2))
    return frequencies(d_head, base=base)  # (d/2,)


def _compute_default_rope_parameters(inputs: RopeInputs) -> ScaledFrequencies:
    """Plain RoPE (transformers: the model's ``compute_default_rope_parameters``)."""
    return ScaledFrequencies(inputs.theta, 1.0, 1.0)


def _compute_linear_scaling_rope_parameters(inputs: RopeInputs) -> ScaledFrequencies:
    """Position interpolation: theta_i / s, the angles of p / s (Chen et al.'s p -> p/s)."""
    factor = _scalar_factor(inputs.scaling, "linear")
    return ScaledFrequencies(inputs.theta / factor, 1.0, factor)  # (d/2,)


def _compute_ntk_aware_parameters(inputs: RopeInputs) -> ScaledFrequencies:
    """Static NTK-aware scaling: the base times s^(d/(d-2)) at every length (not a transformers
    rope_type: its ``dynamic`` is this with s grown from the running length)."""
    factor = _scalar_factor(inputs.scaling, "ntk_aware")
    d_head = inputs.d_head
    return ScaledFrequencies(_ntk_aware_frequencies(d_head, inputs.base, factor), 1.0,
                             factor if d_head > 2 else 1.0)


def _compute_dynamic_ntk_parameters(inputs: RopeInputs) -> ScaledFrequencies:
    """Dynamic NTK: the NTK-aware base with s' = s max(l, L_max)/L_max - (s - 1)."""
    factor = _scalar_factor(inputs.scaling, "dynamic")
    max_position_embeddings = inputs.max_position_embeddings
    if max_position_embeddings is None:
        raise ValueError("max_position_embeddings is missing: dynamic NTK scales the base once "
                         "seq_len passes it")
    length = max(inputs.seq_len or 0, max_position_embeddings)  # transformers: >= max_position
    growth = factor * length / max_position_embeddings - (factor - 1)  # >= 1, 1 up to max_pos
    # The last pair turns exactly `growth` times slower: the effective interpolation factor.
    d_head = inputs.d_head
    return ScaledFrequencies(_ntk_aware_frequencies(d_head, inputs.base, growth), 1.0,
                             growth if d_head > 2 else 1.0)


def _compute_yarn_parameters(inputs: RopeInputs) -> ScaledFrequencies:
    """YaRN: fast pairs unchanged, slow pairs interpolated, a linear ramp between them."""
    d_head, base, scaling = inputs.d_head, inputs.base, inputs.scaling
    context = inputs.context()
    raw_factor = _required(scaling, "factor", "yarn")
    if raw_factor is None:  # DeepSeek-V3's reading: the ratio of the two windows
        if inputs.max_position_embeddings is None:
            raise ValueError("rope_scaling['factor'] is null: max_position_embeddings is needed "
                             "to take the factor as max_position_embeddings / "
                             "original_max_position_embeddings")
        raw_factor = inputs.max_position_embeddings / context
    factor = _real("factor", raw_factor, minimum=1.0, maximum=MAX_SCALING_FACTOR,
                   what=f"a number >= 1 and <= {MAX_SCALING_FACTOR:g} (null: "
                        f"max_position_embeddings / original_max_position_embeddings, >= 1)")
    attention = _optional_real(scaling, "attention_factor", minimum=0.0, maximum=1e3, strict=True)
    mscale = _optional_real(scaling, "mscale", minimum=0.0, maximum=1e3)
    mscale_all_dim = _optional_real(scaling, "mscale_all_dim", minimum=0.0, maximum=1e3)
    # transformers reads `get("beta_fast") or 32`: 0 and null both mean the default.
    fast = _optional_real(scaling, "beta_fast", minimum=0.0, maximum=1e6) or YARN_BETA_FAST
    slow = _optional_real(scaling, "beta_slow", minimum=0.0, maximum=1e6) or YARN_BETA_SLOW
    if fast < slow:
        raise _fail("beta_fast", scaling.get("beta_fast"),
                    f"at least beta_slow ({slow:g}): pairs turning more than beta_fast times in "
                    f"the pretraining context are kept, fewer than beta_slow interpolated")
    truncate = scaling.get("truncate")
    if truncate is None:
        truncate = True  # transformers' default
    elif not isinstance(truncate, bool):
        raise _fail("truncate", truncate, "true or false")
    if attention is None:
        if mscale and mscale_all_dim:  # transformers: both present and non-zero
            attention = yarn_get_mscale(factor, mscale) / yarn_get_mscale(factor, mscale_all_dim)
        else:
            attention = yarn_get_mscale(factor)
    theta = inputs.theta  # (d/2,)
    low, high = yarn_ramp_edges(d_head, base, context, fast, slow, truncate)
    ramp = _yarn_ramp(low, high, d_head // 2)  # (d/2,) 0 = unchanged, 1 = interpolated
    inv_freq = theta / factor * ramp + theta * (1.0 - ramp)  # (d/2,)
    return ScaledFrequencies(inv_freq, float(attention), factor, context,
                             wavelength_edges=(context / fast, context / slow),
                             pair_edges=(float(low), float(high)))


def _compute_llama3_parameters(inputs: RopeInputs) -> ScaledFrequencies:
    """Llama 3.1: short wavelengths unchanged, long ones divided by s, blended between."""
    d_head, base, scaling = inputs.d_head, inputs.base, inputs.scaling
    context = inputs.context()
    factor = _scalar_factor(scaling, "llama3")
    low_ff = _real("low_freq_factor", _required(scaling, "low_freq_factor", "llama3"),
                   minimum=0.0, maximum=1e6, strict=True)
    high_ff = _real("high_freq_factor", _required(scaling, "high_freq_factor", "llama3"),
                    minimum=0.0, maximum=1e6, strict=True)
    if high_ff <= low_ff:
        raise _fail("high_freq_factor", scaling["high_freq_factor"],
                    f"greater than low_freq_factor ({low_ff:g})")
    theta = inputs.theta  # (d/2,)
    low_freq_wavelen = context / low_ff  # longer wavelengths: divided by the factor
    high_freq_wavelen = context / high_ff  # shorter wavelengths: unchanged
    wavelen = 2 * math.pi / theta  # (d/2,)
    scaled = np.where(wavelen > low_freq_wavelen, theta / factor, theta)  # (d/2,)
    smooth = (context / wavelen - low_ff) / (high_ff - low_ff)  # (d/2,) 0 at lo edge, 1 at hi
    blended = (1 - smooth) * scaled / factor + smooth * scaled  # (d/2,)
    medium = ~(wavelen < high_freq_wavelen) & ~(wavelen > low_freq_wavelen)  # (d/2,)
    return ScaledFrequencies(np.where(medium, blended, scaled), 1.0, factor, context,
                             wavelength_edges=(high_freq_wavelen, low_freq_wavelen),
                             pair_edges=(correction_pair(1.0, d_head, base, high_freq_wavelen),
                                         correction_pair(1.0, d_head, base, low_freq_wavelen)))


def _compute_longrope_parameters(inputs: RopeInputs) -> ScaledFrequencies:
    """LongRoPE: searched per-pair factors, long_factor past L and short_factor up to it."""
    scaling, half = inputs.scaling, inputs.d_head // 2
    context = inputs.context()
    long_factor = _factor_list("long_factor", _required(scaling, "long_factor", "longrope"), half)
    short_factor = _factor_list("short_factor", _required(scaling, "short_factor", "longrope"),
                                half)
    factor = _optional_real(scaling, "factor", minimum=1.0, maximum=MAX_SCALING_FACTOR)
    attention = _optional_real(scaling, "attention_factor", minimum=0.0, maximum=1e3, strict=True)
    if factor is None:  # Phi-3: the ratio of the two windows
        if inputs.max_position_embeddings is None:
            raise ValueError("rope_scaling has no 'factor': max_position_embeddings is needed to "
                             "take it as max_position_embeddings / "
                             "original_max_position_embeddings")
        factor = inputs.max_position_embeddings / context
    if attention is None and factor > 1.0 and context < 2:  # transformers divides by ln 1 = 0
        raise ValueError(f"original_max_position_embeddings={context} is not allowed: LongRoPE's "
                         f"attention factor sqrt(1 + ln s / ln L) needs L >= 2 (or give "
                         f"attention_factor)")
    if attention is None:
        attention = 1.0 if factor <= 1.0 else math.sqrt(
            1 + math.log(factor) / math.log(context)
        )
    seq_len = inputs.seq_len
    ext = long_factor if seq_len and seq_len > context else short_factor  # (d/2,)
    return ScaledFrequencies(inputs.theta / ext, float(attention), factor, context)  # (d/2,)


# One function per method, as transformers' ROPE_INIT_FUNCTIONS (which has no "default": there the
# model class computes plain RoPE, and no "ntk_aware", the static form of its "dynamic"). A config's
# rope_type names one of ROPE_TYPES; "ntk_aware" is only reached by name (core.rope's scaling).
ROPE_INIT_FUNCTIONS: dict[str, Callable[[RopeInputs], ScaledFrequencies]] = {
    "default": _compute_default_rope_parameters,
    "linear": _compute_linear_scaling_rope_parameters,
    "ntk_aware": _compute_ntk_aware_parameters,
    "dynamic": _compute_dynamic_ntk_parameters,
    "yarn": _compute_yarn_parameters,
    "llama3": _compute_llama3_parameters,
    "longrope": _compute_longrope_parameters,
}


def _compute(
    d_head: int,
    base: float,
    scaling: Mapping[str, object] | None,
    max_position_embeddings: int | None,
    seq_len: int | None,
    original_max_position_embeddings: int | None,
) -> tuple[np.ndarray, RopeType, ScaledFrequencies]:
    """A config's RoPE: checks every input, then (plain theta, its method, what the method
    computes). A config's base is bounded further than RopeInputs' (at most limits.MAX_BASE)."""
    _check_d_head(d_head)
    _check_rope_base(base)
    inputs = RopeInputs(d_head, base, {} if scaling is None else scaling,
                        max_position_embeddings, seq_len, original_max_position_embeddings)
    rope_type = rope_type_of(scaling)
    for key in REQUIRED_KEYS[rope_type]:
        _required(inputs.scaling, key, rope_type)
    return inputs.theta, rope_type, ROPE_INIT_FUNCTIONS[rope_type](inputs)


def rope_scaled_frequencies(
    d_head: int,
    *,
    base: float,
    scaling: Mapping[str, object] | None = None,
    max_position_embeddings: int | None = None,
    seq_len: int | None = None,
    original_max_position_embeddings: int | None = None,
) -> tuple[np.ndarray, float]:
    """(inv_freq, attention_factor) of a config's RoPE: ``(d_head/2,)`` float64 and a float.

    `scaling` is the config's ``rope_scaling`` (or transformers 5's ``rope_parameters``) exactly as
    config.json holds it; None is plain RoPE. `max_position_embeddings` is the config's field
    (needed by ``dynamic``, and by ``yarn``/``longrope`` without a factor), `seq_len` the running
    length (``dynamic``: base grows past max_position_embeddings; ``longrope``: long_factor past
    the pretraining context). `original_max_position_embeddings` is the config's *top-level* field
    (Phi-3's), which transformers prefers to the one inside `scaling`. Keys a method does not read
    (``rope_theta``, ``partial_rotary_factor``, ...) are ignored: `base` and `d_head` say those.
    The module docstring has each method's formula.
    """
    _, _, scaled = _compute(d_head, base, scaling, max_position_embeddings, seq_len,
                            original_max_position_embeddings)
    return scaled.inv_freq, scaled.attention_factor


# --- a scaling's bands and summaries -------------------------------------------------------------
@dataclass(frozen=True)
class ScalingBands:
    """Per pair, what a method did to its frequency, and where its bands start and end."""

    rope_type: str  # the method ("default", "linear", ... ; aliases resolved)
    # s: what "interpolated" divides by (1 for none; dynamic: the grown factor; longrope: its
    # factor or L_max / L, which sets only the attention factor there)
    factor: float
    wavelengths: np.ndarray  # (d/2,) 2 pi / theta_i of plain RoPE
    scaled_wavelengths: np.ndarray  # (d/2,) 2 pi / theta'_i
    ratio: np.ndarray  # (d/2,) theta'_i / theta_i: 1 unchanged, 1/s interpolated
    bands: tuple[Band, ...]  # (d/2,) each pair's band
    # (shorter, longer): plain wavelengths where the method's bands change (llama3:
    # L/high_freq_factor, L/low_freq_factor; yarn: L/beta_fast, L/beta_slow); None otherwise.
    wavelength_edges: tuple[float, float] | None
    # The same edges as (fractional) pair indices: yarn's ramp (i_lo, i_hi) as transformers uses
    # it (after floor/ceil and clamping), llama3's (d/2) log_base(edge / 2 pi) unrounded.
    pair_edges: tuple[float, float] | None

    @property
    def pairs(self) -> np.ndarray:
        return np.arange(self.ratio.size)


def _band_of_ratio(ratio: float, factor: float) -> Band:
    if math.isclose(ratio, 1.0, rel_tol=1e-12):
        return "unchanged"
    if math.isclose(ratio, 1.0 / factor, rel_tol=1e-12):
        return "interpolated"
    return "blended"


def scaling_bands(
    d_head: int,
    *,
    base: float,
    scaling: Mapping[str, object] | None,
    max_position_embeddings: int | None = None,
    seq_len: int | None = None,
    original_max_position_embeddings: int | None = None,
) -> ScalingBands:
    """Which pairs a method keeps (``unchanged``), divides by its factor (``interpolated``) or
    moves part of the way (``blended``); LongRoPE's searched per-pair factors are ``rescaled``
    (``unchanged`` where the factor is 1).

    Bands are read off theta'_i / theta_i, so they say what the frequencies are: llama3's and
    YaRN's middle band is ``blended``, linear's every pair ``interpolated``, dynamic NTK's pairs
    after the first ``blended`` up to the last (``interpolated`` by the grown factor
    s' = s l / L_max - (s - 1)). Arguments as `rope_scaled_frequencies`.
    """
    theta, rope_type, scaled = _compute(d_head, base, scaling, max_position_embeddings, seq_len,
                                        original_max_position_embeddings)
    ratio = scaled.inv_freq / theta  # (d/2,)
    if rope_type == "longrope":
        bands: tuple[Band, ...] = tuple(
            "unchanged" if math.isclose(r, 1.0, rel_tol=1e-12) else "rescaled" for r in ratio
        )
    else:
        bands = tuple(_band_of_ratio(float(r), scaled.factor) for r in ratio)
    return ScalingBands(
        rope_type=rope_type, factor=scaled.factor, wavelengths=2 * np.pi / theta,
        scaled_wavelengths=2 * np.pi / scaled.inv_freq, ratio=ratio, bands=bands,
        wavelength_edges=scaled.wavelength_edges, pair_edges=scaled.pair_edges,
    )


def full_turn_pairs(inv_freq: ArrayLike, context: float) -> np.ndarray:
    """Per pair, whether it completes a full turn within `context` positions: 2 pi / theta_i <=
    context. ``(d/2,)`` bool. Pairs that do have met every angle in training (Liu et al. 2023,
    "Scaling Laws of RoPE-based Extrapolation": the dimensions below the critical one)."""
    inv_freq = check_finite_array("inv_freq", inv_freq, ndim=1).astype(np.float64)  # (d/2,)
    if np.any(inv_freq <= 0):
        raise ValueError("inv_freq must be positive: every pair turns at a positive rate")
    if not (isinstance(context, numbers.Real) and math.isfinite(context) and context > 0):
        raise ValueError(f"context={context!r} is not allowed: context must be a finite number > 0")
    return 2 * np.pi / inv_freq <= context  # (d/2,)


def critical_pair(inv_freq: ArrayLike, context: float) -> int:
    """The first pair that does not complete a full turn within `context` positions (d/2 if all
    do). For plain RoPE it is floor((d/2) log_base(context / 2 pi)) + 1, clamped to [0, d/2]:
    Liu et al.'s critical dimension, counted in pairs."""
    turns = full_turn_pairs(inv_freq, context)  # (d/2,)
    missing = np.flatnonzero(~turns)
    return int(missing[0]) if missing.size else int(turns.size)


def beyond_trained_angles(trained: np.ndarray, reached: np.ndarray,
                          step: np.ndarray) -> np.ndarray:
    """Per pair, whether its largest angle `reached` ``(d/2,)`` is one it never met in training:
    the pair never completed a turn within L (`trained` = (L-1) theta_i < 2 pi) and `reached`
    passes (L-1) theta_i by more than one position's `step` theta_i (position interpolation at
    T = sL reaches L - 1/s, a fraction of a step past L - 1: between trained angles, which is
    what it relies on). ``(d/2,)`` bool: the rule of
    `core.rope.rope_context_extension` and `core.rope_config.rope_config_curves`."""
    return (trained < 2 * np.pi) & (reached > (trained + step) * (1 + 1e-12))  # (d/2,)
