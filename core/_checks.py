"""Input checks shared by every public function of `core`.

Each raises ValueError naming the parameter, the value given and what is allowed, so that the
message can be shown to a user as it is.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable

import numpy as np

from core import limits


class CoreError(Exception):
    """Mixed into the errors `core` raises about what it was given, so that a caller can say it
    in its own words: `reason` names the problem (``"dims_word"``), `details` holds the values a
    sentence about it needs; ``str(error)`` is an English sentence. `core` speaks no other
    language: a caller that does words reason + details itself."""

    def __init__(self, reason: str, english: str, /, **details: object) -> None:
        super().__init__(english)
        self.reason = reason
        self.details = details


class InputError(CoreError, ValueError):
    """A value a caller gave that a function of `core` cannot use (see `CoreError`)."""


def shorten(value: object, width: int = 40) -> str:
    """A value as it may appear in a message: at most `width` characters."""
    text = str(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def json_depth(text: str) -> int:
    """How deep `text` nests JSON arrays and objects (brackets inside strings not counted),
    found without parsing: `json.loads` recurses once per level and raises RecursionError past
    Python's limit (~1000), so a stranger's text is measured before it is parsed."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def check_int(name: str, value: object, *, minimum: int = 1, maximum: int | None = None) -> int:
    """Return `value` as an int if it is a whole number in [minimum, maximum]."""
    allowed = f"a whole number >= {minimum}" if maximum is None else (
        f"a whole number from {minimum} to {maximum}"
    )
    if isinstance(value, bool):  # True is an Integral, but not a count anyone means
        raise ValueError(f"{name}={value!r} is not allowed: {name} must be {allowed}")
    if not isinstance(value, numbers.Integral):
        if isinstance(value, numbers.Real) and math.isfinite(value) and float(value).is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name}={value!r} is not allowed: {name} must be {allowed}")
    value = int(value)
    if value < minimum or (maximum is not None and value > maximum):
        raise ValueError(f"{name}={value} is out of range: {name} must be {allowed}")
    return value


def check_even_d_model(name: str, value: object, *, multiple: int = 2) -> int:
    """A model width: a positive multiple of `multiple` (2 for sin/cos pairs, 4 for 2-D grids)."""
    d = check_int(name, value, minimum=multiple)
    if d % multiple:
        what = "even" if multiple == 2 else f"divisible by {multiple}"
        raise ValueError(
            f"{name}={d} is not allowed: {name} must be {what} "
            f"(the encoding is built from (sin, cos) pairs)"
        )
    return d


def check_base(value: object, name: str = "base") -> float:
    """The wavelength base: a finite number > 1 (the paper uses 10000)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name}={value!r} is not allowed: {name} must be a number > 1")
    try:
        base = float(value)
    except OverflowError:  # an int past every float (10**400): as refused as inf
        base = math.inf
    if not math.isfinite(base) or base <= 1.0:
        raise ValueError(
            f"{name}={value!r} is not allowed: {name} must be a finite number > 1 "
            f"(the paper uses {limits.DEFAULT_BASE:g})"
        )
    return base


def check_choice(name: str, value: object, choices: Iterable[str]) -> str:
    choices = tuple(choices)
    if value not in choices:
        allowed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name}={value!r} is not allowed: {name} must be one of {allowed}")
    return value  # type: ignore[return-value]


def check_finite_array(name: str, value: object, *, ndim: int | None = None) -> np.ndarray:
    """A real, finite numeric array (optionally of a given number of dimensions)."""
    try:
        array = np.asarray(value)
    except Exception as error:  # ragged lists and the like
        raise ValueError(f"{name} must be a numeric array: {error}") from None
    if array.dtype == object or not (
        np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)
    ):
        raise ValueError(f"{name} must be a real numeric array, got dtype {array.dtype}")
    if ndim is not None and array.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimension(s), got shape {array.shape}")
    if np.issubdtype(array.dtype, np.floating) and not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite: it holds NaN or inf")
    return array


def check_dtype(value: object) -> np.dtype:
    dtype = np.dtype(value)  # type: ignore[call-overload]
    if dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise ValueError(f"dtype={value!r} is not allowed: dtype must be float32 or float64")
    return dtype
