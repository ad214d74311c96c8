"""Typed parameters: what a control or URL query parameter may hold, and the message when not.

Pure Python, shared by the pages (widget bounds, defaults) and the URL handling (`ui.url`): one
spec per parameter, so a widget can never allow what the URL check refuses, nor the reverse.
Every message names the parameter, shows the value given and says what is allowed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from core import limits

RawValue = str | Sequence[str]


def shorten(value: object, width: int = 40) -> str:
    """A value as it may appear in a message: at most `width` characters."""
    text = str(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def _single(name: str, raw: RawValue) -> str:
    if isinstance(raw, str):
        return raw
    if len(raw) != 1:
        raise ValueError(f"{name} is given {len(raw)} times: give it once")
    return raw[0]


@dataclass(frozen=True)
class IntParam:
    name: str
    default: int
    minimum: int
    maximum: int
    multiple_of: int = 1  # 2 for d_model (sin/cos pairs), 4 for 2-D grids

    @property
    def allowed(self) -> str:
        kind = {1: "a whole number", 2: "an even whole number"}.get(
            self.multiple_of, f"a whole number divisible by {self.multiple_of}"
        )
        return f"{kind} from {self.minimum} to {self.maximum}"

    def validate(self, value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(self._message(value))
        if isinstance(value, float):
            if not (math.isfinite(value) and value.is_integer()):
                raise ValueError(self._message(value))
            value = int(value)
        if not self.minimum <= value <= self.maximum or value % self.multiple_of:
            raise ValueError(self._message(value))
        return value

    def parse(self, raw: RawValue) -> int:
        text = _single(self.name, raw).strip()
        try:
            number = float(text) if any(c in text for c in ".eEnN") else int(text)
        except ValueError:
            raise ValueError(self._message(text)) from None
        return self.validate(number)

    def _message(self, value: object) -> str:
        return f"{self.name}={shorten(value)!s} is not allowed: {self.name} must be {self.allowed}"


@dataclass(frozen=True)
class FloatParam:
    name: str
    default: float
    minimum: float
    maximum: float
    exclusive_minimum: bool = False  # base must be > 1, not >= 1

    @property
    def allowed(self) -> str:
        low = ">" if self.exclusive_minimum else ">="
        return f"a number {low} {self.minimum:g} and <= {self.maximum:g}"

    def validate(self, value: object) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(self._message(value))
        value = float(value)
        below = value <= self.minimum if self.exclusive_minimum else value < self.minimum
        if not math.isfinite(value) or below or value > self.maximum:
            raise ValueError(self._message(value))
        return value

    def parse(self, raw: RawValue) -> float:
        text = _single(self.name, raw).strip()
        try:
            number = float(text)
        except ValueError:
            raise ValueError(self._message(text)) from None
        return self.validate(number)

    def _message(self, value: object) -> str:
        return f"{self.name}={shorten(value)!s} is not allowed: {self.name} must be {self.allowed}"


@dataclass(frozen=True)
class ChoiceParam:
    name: str
    default: str
    choices: tuple[str, ...]

    @property
    def allowed(self) -> str:
        return "one of " + ", ".join(self.choices)

    def validate(self, value: object) -> str:
        if value not in self.choices:
            raise ValueError(
                f"{self.name}={shorten(value)!s} is not allowed: {self.name} must be {self.allowed}"
            )
        return value  # type: ignore[return-value]

    def parse(self, raw: RawValue) -> str:
        return self.validate(_single(self.name, raw))


@dataclass(frozen=True)
class BoolParam:
    name: str
    default: bool
    allowed: str = field(default="true or false", init=False)

    def validate(self, value: object) -> bool:
        if not isinstance(value, bool):
            raise ValueError(f"{self.name}={shorten(value)!s} is not allowed: use true or false")
        return value

    def parse(self, raw: RawValue) -> bool:
        text = _single(self.name, raw).strip().lower()
        if text in ("true", "1", "yes", "on"):
            return True
        if text in ("false", "0", "no", "off"):
            return False
        raise ValueError(f"{self.name}={shorten(text)!s} is not allowed: use true or false")


@dataclass(frozen=True)
class TextParam:
    name: str
    default: str
    max_length: int = limits.MAX_TEXT_LENGTH

    @property
    def allowed(self) -> str:
        return f"text of at most {self.max_length} characters"

    def validate(self, value: object) -> str:
        if not isinstance(value, str):
            raise ValueError(f"{self.name} must be text")
        if len(value) > self.max_length:
            raise ValueError(
                f"{self.name} has {len(value)} characters: at most {self.max_length} are used"
            )
        return value

    def parse(self, raw: RawValue) -> str:
        return self.validate(_single(self.name, raw))


Param = IntParam | FloatParam | ChoiceParam | BoolParam | TextParam


# --- Parameters shared by several pages (one spec each, one set of limits) ---------------------
D_MODEL = IntParam("d_model", 128, limits.MIN_D_MODEL, limits.MAX_D_MODEL, multiple_of=2)
POSITIONS = IntParam("positions", 128, 1, limits.MAX_POSITIONS)
BASE = FloatParam("base", limits.DEFAULT_BASE, 1.0, limits.MAX_BASE, exclusive_minimum=True)
LAYOUT = ChoiceParam("layout", "interleaved", ("interleaved", "concatenated"))
