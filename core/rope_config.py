r"""Published models' RoPE settings, and a pasted config.json read into the same shape.

Each preset is built from the RoPE fields of the model's Hugging Face ``config.json``, copied
verbatim into `_PUBLISHED` (the tests check each preset against a copy of their own,
tests/published_configs.json): the head width (``head_dim``, ``qk_rope_head_dim`` or
``hidden_size / num_attention_heads``), ``rope_theta``, ``max_position_embeddings``, a top-level
``original_max_position_embeddings`` where the config has one (Phi-3), and ``rope_scaling``
exactly as written. `parse_config` reads a pasted config.json the same way, so a preset and its
config.json parse to the same `RopeConfig`.

Pasted text is data from a stranger: it is parsed with ``json.loads`` only (never evaluated),
at most `MAX_CONFIG_CHARS` characters and `MAX_JSON_DEPTH` levels of nesting (checked before
parsing, so deep nesting cannot exhaust the stack), NaN and Infinity are refused, and every field
used is checked for type and range with a ValueError that names it.

What a config does (the explorer's config view): `config_contexts` (its original context L
before extension, its target T, its factor s); `self_logit` and `binned_logit` (a query with
itself at distance k, binned over log-spaced distances up to T); `rope_config_curves` (per pair
the plain and scaled wavelengths and bands, the largest angles within L and at T, the pairs
`beyond_trained_angles`, and the self-logit without and with the scaling:
$\ell(k) = m^2\,\frac{2}{d}\sum_{i<d/2}\cos(k\,\theta'_i)$); `config_difference` (one config
minus a baseline: per pair, log2 of the scaled wavelengths' ratio, and the self-logit's
difference), so that a small change (YaRN's beta_fast 32 -> 64) shows where an overlay of the two
draws one line on the other. The scaled frequencies are `core.rope_scaling`'s (its
`ROPE_INIT_FUNCTIONS` registry, through `RopeConfig.scaled_frequencies` and `scaling_bands`).
"""

from __future__ import annotations

import copy
import json
import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

import numpy as np

from core import limits
from core._checks import json_depth
from core.rope_scaling import (
    MAX_CONTEXT,
    MAX_D_HEAD,
    SCALING_KEYS,
    ScalingBands,
    _whole,
    beyond_trained_angles,
    critical_pair,
    rope_scaled_frequencies,
    rope_type_of,
    scaling_bands,
)

MAX_CONFIG_CHARS = 65536  # a real config.json is 1-5 KB; Phi-3's with its factor lists ~3.5 KB
MAX_JSON_DEPTH = 8  # config.json nests 3 deep (config -> rope_scaling -> factor list)
DEFAULT_ROPE_THETA = limits.DEFAULT_BASE  # transformers' default_theta when a config has none
# The head width a config without one (RoPE's fields alone, as a note keeps them) is drawn at
# until told otherwise: Llama's, Qwen2.5's and Mistral's 128. parse_config never assumes it; the
# app offers it as a control's default (`default_head_dim`).
DEFAULT_HEAD_DIM = 128
# The context a config without max_position_embeddings (RoPE's fields alone) is drawn to until
# told otherwise: Llama 3's 8192, the model whose rope_theta 500000 such an excerpt often has.
# Plain RoPE's frequencies do not depend on it (only a scaling method reads a context); it is
# how far the distances are drawn. parse_config never assumes it (`default_context`).
DEFAULT_CONTEXT = 8192


def _freeze(value: Any) -> Any:
    """A read-only deep copy: dicts -> MappingProxyType, lists -> tuples (presets are shared)."""
    if isinstance(value, Mapping):
        return MappingProxyType({key: _freeze(item) for key, item in value.items()})
    if isinstance(value, list | tuple):
        return tuple(_freeze(item) for item in value)
    return value


def _thaw(value: Any) -> Any:
    """The JSON-ready deep copy of a `_freeze`d value: dicts and lists again."""
    if isinstance(value, Mapping):
        return {key: _thaw(item) for key, item in value.items()}
    if isinstance(value, tuple):
        return [_thaw(item) for item in value]
    return value


@dataclass(frozen=True)
class RopeConfig:
    """One model's RoPE: what `core.rope_scaling.rope_scaled_frequencies` needs, and its source.

    Checked on construction (a ValueError names the field). `rope_scaling` is kept read-only
    (a mapping proxy, lists as tuples) because presets are shared; `to_config_json` gives plain
    JSON.
    """

    name: str  # key in PRESETS ("llama-3.1-8b"), "custom" for a pasted config
    label: str  # a readable name for people, beside the key `name`
    d_head: int  # the rotated width of one head (DeepSeek: qk_rope_head_dim)
    rope_theta: float  # the base b of theta_i = b^(-2i/d)
    max_position_embeddings: int  # the config's context window (after extension, if any)
    rope_scaling: Mapping[str, Any] | None  # config.json's rope_scaling, as written
    source: str  # where the numbers come from (the Hugging Face repo's config.json)
    # The config's top-level original_max_position_embeddings (Phi-3 keeps it there, and
    # transformers prefers it to the one in rope_scaling); None when the config has none.
    original_max_position_embeddings: int | None = None

    def __post_init__(self) -> None:
        for name in ("name", "label", "source"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"{name}={value!r} is not allowed: {name} must be a non-empty "
                                 f"string")
        d_head = _whole("d_head", self.d_head, minimum=2, maximum=MAX_D_HEAD)
        theta = _number("rope_theta", self.rope_theta, minimum=1.0, maximum=limits.MAX_BASE,
                        strict=True)
        max_pos = _whole("max_position_embeddings", self.max_position_embeddings, minimum=1,
                         maximum=MAX_CONTEXT)
        original = self.original_max_position_embeddings
        if original is not None:
            original = _whole("original_max_position_embeddings", original, minimum=1,
                              maximum=MAX_CONTEXT)
        scaling = self.rope_scaling
        if scaling is not None and not isinstance(scaling, Mapping):
            raise ValueError(f"rope_scaling={scaling!r} is not allowed: rope_scaling must be a "
                             f"dict or None")
        object.__setattr__(self, "d_head", d_head)
        object.__setattr__(self, "rope_theta", theta)
        object.__setattr__(self, "max_position_embeddings", max_pos)
        object.__setattr__(self, "original_max_position_embeddings", original)
        object.__setattr__(self, "rope_scaling", None if scaling is None else _freeze(scaling))
        self.scaled_frequencies()  # checks every rope_scaling value (and that d_head is even)

    def __hash__(self) -> int:
        return hash(json.dumps(self.to_config_json(), sort_keys=True))

    @property
    def rope_type(self) -> str:
        """The method ("default" for none), aliases such as Phi-3's "su" resolved."""
        return rope_type_of(self.rope_scaling)

    def scaled_frequencies(self, seq_len: int | None = None) -> tuple[np.ndarray, float]:
        """(inv_freq ``(d_head/2,)``, attention_factor) at running length `seq_len`."""
        return rope_scaled_frequencies(
            self.d_head, base=self.rope_theta, scaling=self.rope_scaling,
            max_position_embeddings=self.max_position_embeddings, seq_len=seq_len,
            original_max_position_embeddings=self.original_max_position_embeddings,
        )

    def to_config_json(self) -> dict[str, Any]:
        """A config.json-shaped dict that `parse_config` reads back to this config."""
        out: dict[str, Any] = {
            "head_dim": self.d_head,
            "max_position_embeddings": self.max_position_embeddings,
            "rope_theta": self.rope_theta,
            "rope_scaling": _thaw(self.rope_scaling),
        }
        if self.original_max_position_embeddings is not None:
            out["original_max_position_embeddings"] = self.original_max_position_embeddings
        return out


# --- reading config.json -------------------------------------------------------------------------
def _number(name: str, value: object, *, minimum: float, maximum: float,
            strict: bool = False) -> float:
    relation = ">" if strict else ">="
    allowed = f"a number {relation} {minimum:g} and <= {maximum:g}"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name}={value!r} is not allowed: {name} must be {allowed}")
    try:
        number = float(value)
    except OverflowError:  # an int too large for a float (JSON allows 4300 digits)
        raise ValueError(f"{name}={value!r} is not allowed: {name} must be {allowed}") from None
    below = number <= minimum if strict else number < minimum
    if not math.isfinite(number) or below or number > maximum:
        raise ValueError(f"{name}={value!r} is not allowed: {name} must be {allowed}")
    return number


def _check_nesting(text: str) -> None:
    """Refuse JSON nested deeper than MAX_JSON_DEPTH, before json.loads recurses into it."""
    if json_depth(text) > MAX_JSON_DEPTH:
        raise ValueError(
            f"config nests deeper than {MAX_JSON_DEPTH} levels: a config.json is a "
            f"JSON object of numbers, strings, lists and small objects"
        )


class _ConfigError(ValueError):
    """Raised by the json.loads hooks: its message is already the one to show."""


def _refuse_constant(name: str) -> float:
    raise _ConfigError(f"config holds {name}: numbers must be finite (JSON has no NaN or Infinity)")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _ConfigError(f"config has the key {key!r} twice: each field must appear once")
        out[key] = value
    return out


def _load_json(text: object) -> dict[str, Any]:
    if not isinstance(text, str):
        raise ValueError(f"config must be text (a config.json), got {type(text).__name__}")
    if len(text) > MAX_CONFIG_CHARS:
        raise ValueError(f"config has {len(text)} characters: at most {MAX_CONFIG_CHARS} are "
                         f"allowed (a config.json is a few KB)")
    _check_nesting(text)
    try:
        config = json.loads(text, parse_constant=_refuse_constant,
                            object_pairs_hook=_unique_keys)
    except _ConfigError:
        raise
    except ValueError as error:  # JSONDecodeError, or an integer of over 4300 digits
        raise ValueError(f"config is not valid JSON: {error}") from None
    if not isinstance(config, dict):
        raise ValueError(f"config must be a JSON object ({{...}}), got {type(config).__name__}")
    return config


def _present(config: Mapping[str, Any], key: str) -> bool:
    return config.get(key) is not None


class NoHeadWidthError(ValueError):
    """A config.json with none of the fields a head's width is read from."""


class NoContextError(ValueError):
    """A config.json without max_position_embeddings (RoPE's fields alone)."""


def _head_dim(config: Mapping[str, Any], partial_rotary_factor: object,
              default: int | None = None) -> int:
    """The rotated width: qk_rope_head_dim (DeepSeek's MLA), head_dim, or hidden / heads (or
    `default` when the config has none of them); times partial_rotary_factor when the config
    has one (transformers' int(head_dim * factor))."""
    if _present(config, "qk_rope_head_dim"):
        head = _whole("qk_rope_head_dim", config["qk_rope_head_dim"], minimum=1,
                      maximum=MAX_D_HEAD)
    elif _present(config, "head_dim"):
        head = _whole("head_dim", config["head_dim"], minimum=1, maximum=MAX_D_HEAD)
    elif _present(config, "hidden_size") or _present(config, "num_attention_heads"):
        hidden = _whole("hidden_size", config.get("hidden_size"), minimum=1, maximum=2**20)
        heads = _whole("num_attention_heads", config.get("num_attention_heads"), minimum=1,
                       maximum=2**14)
        if hidden % heads:
            raise ValueError(f"hidden_size={hidden} is not a multiple of num_attention_heads="
                             f"{heads}: the head width hidden_size / num_attention_heads must be "
                             f"a whole number (or give head_dim)")
        head = hidden // heads
    elif default is not None:
        head = _whole("head_dim", default, minimum=1, maximum=MAX_D_HEAD)
    else:
        raise NoHeadWidthError("config has no head width: give head_dim, qk_rope_head_dim, or "
                               "hidden_size and num_attention_heads")
    if partial_rotary_factor is not None:
        share = _number("partial_rotary_factor", partial_rotary_factor, minimum=0.0, maximum=1.0,
                        strict=True)
        head = int(head * share)
    if head < 2 or head % 2 or head > MAX_D_HEAD:
        raise ValueError(f"the rotated head width is {head}: it must be even, from 2 to "
                         f"{MAX_D_HEAD} (pairs of columns are rotated)")
    return head


# The config.json fields parse_config reads; every other is ignored (tests/test_fuzz_codes.py
# fuzzes each, and fails if parse_config reads one that is not here).
CONFIG_KEYS: tuple[str, ...] = (
    "head_dim", "qk_rope_head_dim", "hidden_size", "num_attention_heads", "partial_rotary_factor",
    "rope_theta", "max_position_embeddings", "original_max_position_embeddings", "rope_scaling",
    "rope_parameters",
)


def parse_config(
    text: str, *, name: str = "custom", label: str = "Pasted config.json",
    source: str = "pasted config.json", default_head_dim: int | None = None,
    default_context: int | None = None,
) -> RopeConfig:
    """Read a pasted config.json into a `RopeConfig` (ValueError naming the field if unusable).

    Fields, as transformers reads them: the head width (see `_head_dim`); ``rope_theta`` (10000
    when absent; transformers 5's ``rope_parameters`` may hold it); ``max_position_embeddings``
    (the context: without it NoContextError, or `default_context` if given); ``rope_scaling``,
    or else ``rope_parameters`` (``rope_theta`` and ``partial_rotary_factor`` are lifted out of
    it; a ``default`` type is stored as None); a top-level ``original_max_position_embeddings``.
    Every other field is ignored. A config without a head width raises NoHeadWidthError, or
    takes `default_head_dim` if given.
    """
    config = _load_json(text)
    scaling = config.get("rope_scaling") or config.get("rope_parameters")
    which = "rope_scaling" if config.get("rope_scaling") else "rope_parameters"
    if scaling is not None and not isinstance(scaling, dict):
        raise ValueError(f"{which}={scaling!r} is not allowed: {which} must be a JSON object or "
                         f"null")
    scaling = dict(scaling or {})
    # transformers 5 files these config fields in rope_parameters too: lift them out.
    theta = scaling.pop("rope_theta", None)
    if theta is None:
        theta = config.get("rope_theta", DEFAULT_ROPE_THETA)
    partial = scaling.pop("partial_rotary_factor", None)
    if partial is None:
        partial = config.get("partial_rotary_factor")
    # (a null one is kept: RopeConfig refuses it, naming it)
    context = config.get("max_position_embeddings", default_context)
    if "max_position_embeddings" not in config and context is None:
        raise NoContextError("config has no max_position_embeddings: the context window is "
                             "required unless one is given apart (plain RoPE's frequencies do "
                             "not depend on it; a scaling method reads it)")
    rope_scaling = scaling if scaling and rope_type_of(scaling) != "default" else None
    return RopeConfig(
        name=name, label=label, d_head=_head_dim(config, partial, default_head_dim),
        rope_theta=theta,
        max_position_embeddings=context, rope_scaling=rope_scaling,
        source=source,
        original_max_position_embeddings=config.get("original_max_position_embeddings"),
    )


def config_name(text: str) -> str | None:
    """The model a pasted config.json names (transformers' ``_name_or_path``, e.g.
    "meta-llama/Llama-3.1-8B"), one line; None when it names none (or is not a config)."""
    try:
        name = _load_json(text).get("_name_or_path")
    except ValueError:
        return None
    if not isinstance(name, str):
        return None
    return " ".join(name.split()) or None


_CONFIG_FIELDS = ("d_head", "rope_theta", "max_position_embeddings")


def override(config: RopeConfig, **changes: Any) -> RopeConfig:
    """A new, checked `RopeConfig` with some values replaced.

    Config fields: ``d_head``, ``rope_theta``, ``max_position_embeddings``, ``rope_scaling`` (the
    whole dict, or None). ``original_max_position_embeddings`` goes where it takes effect: the
    top-level field if the config has one (or has no rope_scaling), else into rope_scaling. The
    other names are rope_scaling keys (``factor=8``, ``beta_fast=16``, ...; see
    `core.rope_scaling.SCALING_KEYS`), set in a copy of the dict; None removes the key. name,
    label and source stay.
    """
    top: dict[str, Any] = {}
    scaling = _thaw(config.rope_scaling)
    if "rope_scaling" in changes:
        scaling = copy.deepcopy(changes.pop("rope_scaling"))
        top["rope_scaling"] = scaling
    for key, value in changes.items():
        if key in _CONFIG_FIELDS or (key == "original_max_position_embeddings" and (
            config.original_max_position_embeddings is not None or not isinstance(scaling, dict)
        )):
            top[key] = value
            continue
        if key not in SCALING_KEYS:
            allowed = ", ".join((*_CONFIG_FIELDS, "rope_scaling", *SCALING_KEYS))
            raise ValueError(f"{key}={value!r} is not allowed: override takes {allowed}")
        if not isinstance(scaling, dict):
            raise ValueError(
                f"{key}={value!r} is a rope_scaling setting, but this config has no rope_scaling: "
                f"pass rope_scaling={{...}} (or one of {', '.join(_CONFIG_FIELDS)})"
            )
        if value is None:
            scaling.pop(key, None)
        else:
            scaling[key] = copy.deepcopy(value)
        top["rope_scaling"] = scaling
    return replace(config, **top)


def _as_float(value: numbers.Real) -> float:
    """`value` as a float; inf for an int past every float (10**400), which float() refuses."""
    try:
        return float(value)
    except OverflowError:
        return math.inf


def _context_value(name: str, value: object) -> int:
    # the range first: math.isfinite(10**400) raises OverflowError, NaN fails every comparison
    if isinstance(value, bool) or not isinstance(value, int | float) or not (
        1 <= value <= MAX_CONTEXT and float(value).is_integer()
    ):
        raise ValueError(f"{name}={value!r} is not allowed: {name} must be a whole number from "
                         f"1 to {MAX_CONTEXT}")
    return int(value)


def config_contexts(config: RopeConfig) -> tuple[int, int, float]:
    """(L, T, s): the original context (before extension), the target context and the
    extension factor.

    L is the config's ``original_max_position_embeddings`` (top-level, else ``rope_scaling``'s,
    else ``max_position_embeddings``: transformers' reading); T the longest context the config is
    made for, max(max_position_embeddings, s L) (Qwen2.5 keeps max_position_embeddings at 32768
    and reaches 131072 with YaRN's s = 4; Llama 3.1's 131072 is more than its 8 x 8192). s is
    rope_scaling's ``factor``; LongRoPE and YaRN without one use max_position_embeddings / L, as
    transformers does."""
    scaling = config.rope_scaling or {}
    trained = config.original_max_position_embeddings
    if trained is None and scaling.get("original_max_position_embeddings") is not None:
        trained = _context_value("rope_scaling['original_max_position_embeddings']",
                                 scaling["original_max_position_embeddings"])
    if trained is None:
        trained = config.max_position_embeddings
    factor = 1.0
    if config.rope_type != "default":
        raw = scaling.get("factor")
        # RopeConfig has checked the factor of every method that reads it.
        factor = float(raw) if raw is not None else config.max_position_embeddings / trained
        factor = max(factor, 1.0)
    target = min(max(config.max_position_embeddings, math.ceil(factor * trained)), MAX_CONTEXT)
    return trained, max(target, trained), factor


# --- what a config does over distance, and one config against another ---------------------------
# A context may be 10M positions: the logit of a query with itself is taken over LOGIT_BINS
# log-spaced bins of distances, each as the mean and the range over at most SAMPLES_PER_BIN evenly
# spaced distances in it (every distance of a narrower bin), so that the fast pairs' oscillation
# shows as a band instead of aliasing into a false curve; short distances are exact.
LOGIT_BINS = 240  # about one per 4 px of a chart's width
SAMPLES_PER_BIN = 32  # distances evaluated in a wider bin: its range and mean
_BLOCK_CELLS = 2**20  # distances x pairs per block of cosines (8 MB of float64)


@dataclass(frozen=True)
class LogitProfile:
    """A logit over log-spaced bins of distances: ``(B,)`` each."""

    distances: np.ndarray  # (B,) the bin's distance (exact bins) or its geometric centre
    mean: np.ndarray  # (B,) mean of the logit over the bin's sampled distances
    low: np.ndarray  # (B,) lowest of them
    high: np.ndarray  # (B,) highest of them


def self_logit(inv_freq: np.ndarray, scale: float, distances: np.ndarray) -> np.ndarray:
    r"""$\ell(k) = s\,\frac{2}{d}\sum_i \cos(k\,\theta_i)$ for each distance k: a query with
    itself at distance k, every pair a unit vector (RoFormer §3.4.3's setting), `scale` s the
    attention factor squared. ``(K,)``, in blocks of distances."""
    out = np.empty(distances.size)  # (K,)
    rows = max(1, _BLOCK_CELLS // max(inv_freq.size, 1))
    for start in range(0, distances.size, rows):
        block = distances[start:start + rows].astype(np.float64)  # (k,)
        out[start:start + block.size] = np.cos(np.multiply.outer(block, inv_freq)).mean(axis=1)
    return scale * out  # (K,)


def _distance_bins(last: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(samples ``(K,)``, bin starts into samples ``(B,)``, bin distances ``(B,)``) for
    distances 1 .. last in log-spaced bins of whole distances."""
    edges = np.unique(np.round(np.geomspace(1, last + 1, LOGIT_BINS + 1)).astype(np.int64))
    starts, stops = edges[:-1], edges[1:]  # (B,) bin b holds starts[b] .. stops[b] - 1
    widths = stops - starts  # (B,)
    counts = np.minimum(widths, SAMPLES_PER_BIN)  # (B,)
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])  # (B,) first sample of each bin
    bin_of = np.repeat(np.arange(starts.size), counts)  # (K,)
    rank = np.arange(bin_of.size) - offsets[bin_of]  # (K,) 0 .. count-1 within its bin
    samples = starts[bin_of] + (rank * widths[bin_of]) // counts[bin_of]  # (K,) evenly spread
    centres = np.where(widths == 1, starts, np.sqrt(starts * (stops - 1.0)))  # (B,)
    return samples, offsets, centres


def binned_logit(values_at: Callable[[np.ndarray], np.ndarray], last: int) -> LogitProfile:
    """`values_at(distances)` (a logit, or a difference of two) over distances 1 .. `last` in
    LOGIT_BINS log-spaced bins: each bin's mean, lowest and highest."""
    samples, offsets, centres = _distance_bins(max(int(last), 1))
    values = values_at(samples)  # (K,)
    counts = np.diff(np.append(offsets, values.size))  # (B,)
    return LogitProfile(
        distances=centres,
        mean=np.add.reduceat(values, offsets) / counts,
        low=np.minimum.reduceat(values, offsets),
        high=np.maximum.reduceat(values, offsets),
    )


@dataclass(frozen=True)
class ConfigDifference:
    """One config minus a baseline config, each with its scaling at its own target context T
    (as the overlay draws them)."""

    # (d/2,) log2(lambda'_i / lambda'_i of the baseline) = log2(theta'_i,baseline / theta'_i):
    # 0 where pair i turns as in the baseline, +1 where it turns twice as slowly. None when the
    # head widths differ (pair i is then not the same pair).
    log2_wavelength_ratio: np.ndarray | None
    # The logit of a query with itself (attention factor squared applied), this config's minus
    # the baseline's, over distances 1 .. max(T, T_baseline) - 1.
    logit: LogitProfile
    attention_ratio: float  # m / m of the baseline


def config_difference(config: RopeConfig, baseline: RopeConfig) -> ConfigDifference:
    """`config` minus `baseline`, per pair and over distance (see `ConfigDifference`); the
    baseline minus itself is zero everywhere."""
    for name, value in (("config", config), ("baseline", baseline)):
        if not isinstance(value, RopeConfig):
            raise ValueError(f"{name}={value!r} is not allowed: {name} must be a RopeConfig")
    _, target, _ = config_contexts(config)
    _, base_target, _ = config_contexts(baseline)
    theta, attention = config.scaled_frequencies(seq_len=target)  # (d/2,), m
    base_theta, base_attention = baseline.scaled_frequencies(seq_len=base_target)  # (d'/2,)
    ratio = np.log2(base_theta / theta) if theta.size == base_theta.size else None  # (d/2,)

    def difference(distances: np.ndarray) -> np.ndarray:  # (K,)
        return (self_logit(theta, attention**2, distances)
                - self_logit(base_theta, base_attention**2, distances))

    return ConfigDifference(
        log2_wavelength_ratio=ratio,
        logit=binned_logit(difference, max(target, base_target) - 1),
        attention_ratio=attention / base_attention,
    )


# --- one config, pair by pair and over distance ---------------------------------------------------
# The rope_scaling fields whose values set a method's two band edges (YaRN: the pairs that turn
# beta_fast and beta_slow times within L; llama3: the wavelengths L / high_freq_factor and
# L / low_freq_factor), in the order of ScalingBands.wavelength_edges.
EDGE_FIELDS = {"yarn": ("beta_fast", "beta_slow"),
               "llama3": ("high_freq_factor", "low_freq_factor")}


@dataclass(frozen=True)
class RopeConfigCurves:
    """What one config does (pairs i < d_head/2): per pair its wavelengths, bands and largest
    angles, and over distance the logit of a query with itself, without and with its scaling."""

    name: str  # the preset's key, "custom" for a pasted config
    label: str  # as a reader sees it: "Llama 3.1 8B (8k -> 128k, llama3)"
    source: str  # where the config's numbers come from
    rope_type: str  # "default", "linear", "dynamic", "yarn", "llama3", "longrope"
    d_head: int  # rotated width
    rope_theta: float  # base
    trained_context: int  # L
    target_context: int  # T >= L
    factor: float  # s, the context-extension factor (1 without scaling)
    attention_factor: float  # m at T
    bands: ScalingBands  # per pair: plain and scaled wavelengths, ratio, band; band edges
    # The rope_scaling fields that set the band edges (shorter wavelength first): YaRN's
    # ("beta_fast", "beta_slow"), llama3's ("high_freq_factor", "low_freq_factor"); else None.
    edge_fields: tuple[str, str] | None
    critical_pair: int  # first pair whose plain wavelength exceeds L (d/2 if none)
    trained_angles: np.ndarray  # (d/2,) (L-1) theta_i
    target_angles: np.ndarray  # (d/2,) (T-1) theta_i, unscaled
    scaled_angles: np.ndarray  # (d/2,) (T-1) theta'_i
    beyond_unscaled: np.ndarray  # (d/2,) bool: past every trained angle, unscaled
    beyond_scaled: np.ndarray  # (d/2,) bool: ... with the config's scaling
    logit_unscaled: LogitProfile
    logit_scaled: LogitProfile  # times m^2

    @property
    def pairs(self) -> np.ndarray:
        return np.arange(self.trained_angles.size)

    @property
    def scaled(self) -> bool:
        return self.rope_type != "default"


def rope_config_curves(config: RopeConfig, *, label: str | None = None) -> RopeConfigCurves:
    """What `config` does, pair by pair and over distance (see `RopeConfigCurves`), `label`
    instead of its own if given; a ValueError names a field it cannot use."""
    trained, target, factor = config_contexts(config)
    bands = scaling_bands(
        config.d_head, base=config.rope_theta, scaling=config.rope_scaling,
        max_position_embeddings=config.max_position_embeddings, seq_len=target,
        original_max_position_embeddings=config.original_max_position_embeddings,
    )
    scaled_theta, attention = config.scaled_frequencies(seq_len=target)  # (d/2,), m
    theta = 2 * np.pi / bands.wavelengths  # (d/2,) plain RoPE
    trained_angles = (trained - 1) * theta  # (d/2,)
    target_angles = (target - 1) * theta  # (d/2,)
    scaled_angles = (target - 1) * scaled_theta  # (d/2,)
    return RopeConfigCurves(
        name=config.name, label=label or config.label, source=config.source,
        rope_type=config.rope_type,
        d_head=config.d_head, rope_theta=config.rope_theta, trained_context=trained,
        target_context=target, factor=factor, attention_factor=attention, bands=bands,
        edge_fields=EDGE_FIELDS.get(config.rope_type) if bands.pair_edges is not None else None,
        critical_pair=critical_pair(theta, trained), trained_angles=trained_angles,
        target_angles=target_angles, scaled_angles=scaled_angles,
        beyond_unscaled=beyond_trained_angles(trained_angles, target_angles, theta),
        beyond_scaled=beyond_trained_angles(trained_angles, scaled_angles, theta),
        logit_unscaled=binned_logit(lambda k: self_logit(theta, 1.0, k), target - 1),
        logit_scaled=binned_logit(lambda k: self_logit(scaled_theta, attention**2, k),
                                  target - 1),
    )


# --- a config's rope_scaling fields, one at a time -----------------------------------------------
# The methods a config may use, and the rope_scaling fields each reads, as transformers'
# modeling_rope_utils checks them (`_validate_<method>_rope_parameters`: required and optional
# keys, less rope_type and rope_theta; LongRoPE's short_factor and long_factor lists are a
# config's own, never a control).
METHODS: tuple[str, ...] = ("default", "linear", "dynamic", "yarn", "llama3", "longrope")
METHOD_FIELDS: dict[str, tuple[str, ...]] = {
    "default": (),
    "linear": ("factor",),
    "dynamic": ("factor",),
    "yarn": ("factor", "original_max_position_embeddings", "attention_factor", "beta_fast",
             "beta_slow", "mscale", "mscale_all_dim", "truncate"),
    "llama3": ("factor", "original_max_position_embeddings", "low_freq_factor",
               "high_freq_factor"),
    "longrope": ("factor", "original_max_position_embeddings", "attention_factor"),
}
# A field's value where the config gives none: transformers' defaults (YaRN's betas, truncate);
# llama3 requires its two factors, which take Llama 3.1's here. attention_factor, mscale and
# mscale_all_dim are then absent (None): the attention factor is computed from the factor.
FIELD_DEFAULTS: dict[str, float | bool | None] = {
    "beta_fast": 32.0, "beta_slow": 1.0, "truncate": True, "low_freq_factor": 1.0,
    "high_freq_factor": 4.0, "attention_factor": None, "mscale": None, "mscale_all_dim": None,
}


def field_value(config: RopeConfig, name: str) -> float | bool | None:
    """The value of rope_scaling field `name` that `config` draws with: its own, else the
    default (`FIELD_DEFAULTS`; ``factor`` and ``original_max_position_embeddings`` as
    `config_contexts` reads them: s and L)."""
    trained, _, factor = config_contexts(config)
    if name == "factor":
        return factor
    if name == "original_max_position_embeddings":
        return trained
    value = (config.rope_scaling or {}).get(name)
    if value is None:
        return FIELD_DEFAULTS[name]
    # A field the config's method does not read was never checked (transformers ignores it), yet
    # a control starts from it: true or false for truncate, else a finite number.
    if name == "truncate" or isinstance(value, bool):
        if name != "truncate" or not isinstance(value, bool):
            raise ValueError(f"rope_scaling[{name!r}]={value!r} is not allowed: {name} must be "
                             + ("true or false" if name == "truncate" else "a finite number"))
        return value
    if not isinstance(value, numbers.Real) or not math.isfinite(_as_float(value)):
        raise ValueError(f"rope_scaling[{name!r}]={value!r} is not allowed: {name} must be a "
                         f"finite number")
    return float(value)


def variant(config: RopeConfig, rope_type: str, fields: Mapping[str, Any]) -> RopeConfig:
    """`config` with method `rope_type` and these rope_scaling fields (a ValueError names what
    it cannot take). Fields of the method not given keep the config's own value; None removes
    one (transformers then computes or defaults it); ``default`` drops rope_scaling. Switching
    to another method starts from an empty rope_scaling (LongRoPE keeps its factor lists), and
    ``original_max_position_embeddings`` is always written (YaRN, Llama 3 and LongRoPE require
    it), where the config keeps it; without scaling it stays the config's top-level field (the
    context before extension: Llama 3.1 unscaled keeps L = 8192 and is asked for 131072)."""
    if rope_type not in METHOD_FIELDS:
        raise ValueError(f"rope_type={rope_type!r} is not allowed: rope_type must be one of "
                         f"{', '.join(METHODS)}")
    unread = sorted(set(fields) - set(METHOD_FIELDS[rope_type]))
    if unread:
        raise ValueError(f"{unread[0]} is not read by {rope_type}: it reads "
                         f"{', '.join(METHOD_FIELDS[rope_type]) or 'no rope_scaling field'}")
    if rope_type == "default":  # L is still its original context: past L, unscaled
        return replace(config, rope_scaling=None, original_max_position_embeddings=field_value(
            config, "original_max_position_embeddings"))
    own = _thaw(config.rope_scaling) or {}
    if config.rope_type == rope_type:
        scaling = own
    else:
        scaling = {key: own[key] for key in ("short_factor", "long_factor") if key in own}
        for name in METHOD_FIELDS[rope_type]:
            value = field_value(config, name)
            if value is not None and name != "original_max_position_embeddings":
                scaling[name] = value
    scaling.pop("type", None)
    scaling["rope_type"] = rope_type
    changes: dict[str, Any] = {"rope_scaling": scaling}
    trained = field_value(config, "original_max_position_embeddings")
    changes["original_max_position_embeddings"] = fields.get(
        "original_max_position_embeddings", trained)
    changes.update({name: value for name, value in fields.items()
                    if name != "original_max_position_embeddings"})
    return override(config, **changes)


# --- the presets ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Published:
    label: str
    source: str
    config: dict[str, Any] = field(repr=False)  # config.json's RoPE fields, verbatim


# Phi-3-mini-128k-instruct's LongRoPE factors, from its config.json as first released (April
# 2024, rope_scaling type "su"). The repo's later update changed these lists; see the source.
_PHI3_MINI_128K_LONG = [
    1.0299999713897705, 1.0499999523162842, 1.0499999523162842, 1.0799999237060547,
    1.2299998998641968, 1.2299998998641968, 1.2999999523162842, 1.4499999284744263,
    1.5999999046325684, 1.6499998569488525, 1.8999998569488525, 2.859999895095825,
    3.68999981880188, 5.419999599456787, 5.489999771118164, 5.489999771118164,
    9.09000015258789, 11.579999923706055, 15.65999984741211, 15.769999504089355,
    15.789999961853027, 18.360000610351562, 21.989999771118164, 23.079999923706055,
    30.009998321533203, 32.35000228881836, 32.590003967285156, 35.56000518798828,
    39.95000457763672, 53.840003967285156, 56.20000457763672, 57.95000457763672,
    59.29000473022461, 59.77000427246094, 59.920005798339844, 61.190006256103516,
    61.96000671386719, 62.50000762939453, 63.3700065612793, 63.48000717163086,
    63.48000717163086, 63.66000747680664, 63.850006103515625, 64.08000946044922,
    64.760009765625, 64.80001068115234, 64.81001281738281, 64.81001281738281,
]
_PHI3_MINI_128K_SHORT = [
    1.05, 1.05, 1.05, 1.1, 1.1, 1.1500000000000001, 1.2000000000000002, 1.2500000000000002,
    1.3000000000000003, 1.3500000000000003, 1.5000000000000004, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    2.0500000000000007, 2.0500000000000007, 2.0500000000000007, 2.1000000000000005,
    2.1000000000000005, 2.1000000000000005, 2.1500000000000004, 2.1500000000000004,
    2.3499999999999996, 2.549999999999999, 2.5999999999999988, 2.5999999999999988,
    2.7499999999999982, 2.849999999999998, 2.849999999999998, 2.9499999999999975,
]

_PUBLISHED: dict[str, _Published] = {
    "llama-2-7b": _Published(
        "LLaMA 2 7B (4k, plain RoPE)",
        "meta-llama/Llama-2-7b-hf config.json (it has no rope_theta: transformers' default "
        "10000 applies)",
        {"hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 4096,
         "rope_scaling": None},
    ),
    "llama-3.1-8b": _Published(
        "Llama 3.1 8B (8k -> 128k, llama3)",
        "meta-llama/Llama-3.1-8B config.json",
        {"hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 131072,
         "rope_theta": 500000.0,
         "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                          "original_max_position_embeddings": 8192, "rope_type": "llama3"}},
    ),
    "mistral-7b": _Published(
        "Mistral 7B v0.1 (32k, plain RoPE)",
        "mistralai/Mistral-7B-v0.1 config.json (v0.3 uses rope_theta 1000000.0)",
        {"hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 32768,
         "rope_theta": 10000.0},
    ),
    "qwen2.5-7b-yarn": _Published(
        "Qwen2.5 7B Instruct + YaRN (32k -> 128k)",
        "Qwen/Qwen2.5-7B-Instruct config.json, with the rope_scaling its README adds for "
        "texts over 32,768 tokens",
        {"hidden_size": 3584, "num_attention_heads": 28, "max_position_embeddings": 32768,
         "rope_theta": 1000000.0,
         "rope_scaling": {"factor": 4.0, "original_max_position_embeddings": 32768,
                          "type": "yarn"}},
    ),
    "phi-3-mini-128k": _Published(
        "Phi-3 mini 128k (4k -> 128k, LongRoPE)",
        "microsoft/Phi-3-mini-128k-instruct config.json as first released (April 2024, "
        "rope_scaling type \"su\", LongRoPE's first name); the repo's later update changed the "
        "factor lists",
        {"hidden_size": 3072, "num_attention_heads": 32, "max_position_embeddings": 131072,
         "original_max_position_embeddings": 4096, "rope_theta": 10000.0,
         "rope_scaling": {"long_factor": _PHI3_MINI_128K_LONG,
                          "short_factor": _PHI3_MINI_128K_SHORT, "type": "su"}},
    ),
    "deepseek-v2-lite": _Published(
        "DeepSeek-V2-Lite (4k -> 160k, YaRN)",
        "deepseek-ai/DeepSeek-V2-Lite config.json (RoPE on qk_rope_head_dim = 64 columns)",
        {"hidden_size": 2048, "num_attention_heads": 16, "qk_rope_head_dim": 64,
         "max_position_embeddings": 163840, "rope_theta": 10000,
         "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 0.707,
                          "mscale_all_dim": 0.707, "original_max_position_embeddings": 4096,
                          "type": "yarn"}},
    ),
}


PRESETS: dict[str, RopeConfig] = {
    name: parse_config(json.dumps(entry.config), name=name, label=entry.label,
                       source=entry.source)
    for name, entry in _PUBLISHED.items()
}
