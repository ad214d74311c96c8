"""Typed parameters: what a control or URL query parameter may hold, and the message when not.

Pure Python, shared by the pages (widget bounds, defaults) and the URL handling (`ui.controls`
reads and checks the query, `ui.share` writes the link): one spec per parameter, so a widget can
never allow what the URL check refuses, nor the reverse.
Every message names the parameter, shows the value given and says what is allowed, in English
(`str(error)`) or in any language of `locales` (`error.in_language(lang)`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from core import limits
from core._checks import shorten
from core.sinusoidal import LAYOUTS, TIMESCALES
from locales import Lang, LocalizedError, message

RawValue = str | Sequence[str]
# The usual values of a number people sweep, offered as a slider's stops (ui.controls.STOPS):
# widths (powers of two and real models'), counts (1-2-5 steps and powers of two), bases.
Stops = Literal["size", "count", "base"]


class ParamError(LocalizedError):
    """A value a parameter cannot take. `str()` is the English message; `in_language(lang)` the
    same message from the catalogue of `lang` (the key, e.g. ``params.not_allowed``, gets the
    parameter's `name` and what it `allowed`, in that language)."""

    def __init__(self, key: str, param: Param, **values: object) -> None:
        self.param = param
        super().__init__(key, **values)

    def in_language(self, lang: Lang) -> str:
        return message(
            self.text.key,
            lang,
            name=self.param.name,
            allowed=self.param.allowed_in(lang),
            **self.text.values,
        )


def _single(param: Param, raw: RawValue) -> str:
    if isinstance(raw, str):
        return raw
    if len(raw) != 1:
        raise ParamError("params.repeated", param, count=len(raw))
    return raw[0]


def _not_allowed(param: Param, value: object) -> ParamError:
    return ParamError("params.not_allowed", param, value=shorten(value))


@dataclass(frozen=True)
class IntParam:
    name: str
    default: int
    minimum: int
    maximum: int
    multiple_of: int = 1  # 2 for d_model (sin/cos pairs), 4 for 2-D grids
    stops: Stops | None = None  # a slider of the usual values (PageControls.stops)
    # The page's work grows with it (a slide file's cost, ui.tour.slide_cost): widths and counts
    # (those with stops) and the grid's sides and heads.
    work: bool = False
    # A live slider: its charts carry their look at its values (figures.common.add_live_states)
    # and follow a drag in the browser before the server draws the value released. Said here
    # once; the tests (tests/test_live_controls.py, the browser's drag) and the user guide's
    # list are derived from it.
    live: bool = False

    @property
    def sizes_work(self) -> bool:
        return self.work or self.stops in ("size", "count")

    @property
    def allowed(self) -> str:
        return self.allowed_in("en")

    def allowed_in(self, lang: Lang) -> str:
        key = {1: "params.allowed_int", 2: "params.allowed_even"}.get(
            self.multiple_of, "params.allowed_multiple"
        )
        return message(
            key,
            lang,
            minimum=self.minimum,
            maximum=self.maximum,
            multiple=self.multiple_of,
        )

    def validate(self, value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _not_allowed(self, value)
        if isinstance(value, float):
            if not (math.isfinite(value) and value.is_integer()):
                raise _not_allowed(self, value)
            value = int(value)
        if not self.minimum <= value <= self.maximum or value % self.multiple_of:
            raise _not_allowed(self, value)
        return value

    def parse(self, raw: RawValue) -> int:
        text = _single(self, raw).strip()
        try:
            number = float(text) if any(c in text for c in ".eEnN") else int(text)
        except ValueError:
            raise _not_allowed(self, text) from None
        return self.validate(number)


@dataclass(frozen=True)
class FloatParam:
    name: str
    default: float
    minimum: float
    maximum: float
    exclusive_minimum: bool = False  # base must be > 1, not >= 1
    stops: Stops | None = None  # a slider of the usual values (PageControls.stops)

    @property
    def allowed(self) -> str:
        return self.allowed_in("en")

    def allowed_in(self, lang: Lang) -> str:
        key = (
            "params.allowed_float_above" if self.exclusive_minimum else "params.allowed_float_from"
        )
        return message(key, lang, minimum=self.minimum, maximum=self.maximum)

    def validate(self, value: object) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _not_allowed(self, value)
        value = float(value)
        below = value <= self.minimum if self.exclusive_minimum else value < self.minimum
        if not math.isfinite(value) or below or value > self.maximum:
            raise _not_allowed(self, value)
        return value

    def parse(self, raw: RawValue) -> float:
        text = _single(self, raw).strip()
        try:
            number = float(text)
        except ValueError:
            raise _not_allowed(self, text) from None
        return self.validate(number)


@dataclass(frozen=True)
class ChoiceParam:
    name: str
    default: str
    choices: tuple[str, ...]
    # What choosing a value adds to a slide's cost (ui.tour.slide_cost), measured against a
    # slide at its page's defaults (benchmarks/slide_cost.py): a 3-D scene, the model.
    work: tuple[tuple[str, float], ...] = ()
    # In the URL even at its default: a default that is the visitor's own (the language, the
    # browser's) means another thing in another browser, so a link that must say it carries it.
    carried: bool = False

    @property
    def allowed(self) -> str:
        return self.allowed_in("en")

    def allowed_in(self, lang: Lang) -> str:
        return message("params.allowed_choice", lang, choices=", ".join(self.choices))

    def validate(self, value: object) -> str:
        if value not in self.choices:
            raise _not_allowed(self, value)
        return value  # type: ignore[return-value]

    def parse(self, raw: RawValue) -> str:
        return self.validate(_single(self, raw))


@dataclass(frozen=True)
class BoolParam:
    name: str
    default: bool

    @property
    def allowed(self) -> str:
        return self.allowed_in("en")

    def allowed_in(self, lang: Lang) -> str:
        return message("params.allowed_bool", lang)

    def validate(self, value: object) -> bool:
        if not isinstance(value, bool):
            raise ParamError("params.not_bool", self, value=shorten(value))
        return value

    def parse(self, raw: RawValue) -> bool:
        text = _single(self, raw).strip().lower()
        if text in ("true", "1", "yes", "on"):
            return True
        if text in ("false", "0", "no", "off"):
            return False
        raise ParamError("params.not_bool", self, value=shorten(text))


@dataclass(frozen=True)
class TextParam:
    name: str
    default: str
    max_length: int = limits.MAX_TEXT_LENGTH
    # For text that is a code (the RoPE view's pinned configs): raises ValueError saying why a
    # value is not one; a value it refuses is refused like any other (a notice naming it), and
    # so is one whose arithmetic fails (an ArithmeticError: a bug of the check, not a traceback).
    check: Callable[[str], object] | None = None
    # What each word past the default's adds to a slide's cost (ui.tour.slide_cost): text a model
    # reads, counted up to the words a model reads (core.word_position.MAX_TOKENS).
    work_per_word: float = 0.0
    # Its charts carry their look at some of its values (IntParam.live): the pointer previews
    # them (the ViT grid's patch, under the pointer: `layout.meta.hover`).
    live: bool = False

    @property
    def allowed(self) -> str:
        return self.allowed_in("en")

    def allowed_in(self, lang: Lang) -> str:
        return message("params.allowed_text", lang, max_length=self.max_length)

    def validate(self, value: object) -> str:
        if not isinstance(value, str):
            raise ParamError("params.not_text", self)
        if len(value) > self.max_length:
            raise ParamError("params.too_long", self, length=len(value), max_length=self.max_length)
        if self.check is not None and value:
            try:
                self.check(value)
            except (ValueError, ArithmeticError) as error:
                raise ParamError("params.not_a_code", self, problem=str(error)) from None
        return value

    def parse(self, raw: RawValue) -> str:
        return self.validate(_single(self, raw))


Param = IntParam | FloatParam | ChoiceParam | BoolParam | TextParam


def url_value(param: Param, value: object) -> str | None:
    """`value` as a URL query value that `param.parse` reads back; None for the default (a
    shared link carries only what differs, as Streamlit's bound widgets do)."""
    if value == param.default and not getattr(param, "carried", False):
        return None
    if isinstance(param, BoolParam):
        return "true" if value else "false"
    if isinstance(param, FloatParam):
        text = repr(float(value))  # shortest exact form: 12345.678, 500000.0
        return text[:-2] if text.endswith(".0") else text
    return str(value)


# --- Parameters shared by several pages (one spec each, one set of limits) ---------------------
D_MODEL_PARAM = IntParam("d_model", 128, limits.MIN_D_MODEL, limits.MAX_D_MODEL, multiple_of=2,
                   stops="size")
POSITIONS_PARAM = IntParam("positions", 128, 1, limits.MAX_POSITIONS, stops="count")
BASE_PARAM = FloatParam("base", limits.DEFAULT_BASE, 1.0, limits.MAX_BASE, exclusive_minimum=True,
                  stops="base")
LAYOUT_PARAM = ChoiceParam("layout", "interleaved", LAYOUTS)
# The frequencies' spacing: the paper's formula, or tensor2tensor's (the authors' own code).
TIMESCALES_PARAM = ChoiceParam("timescales", "paper", TIMESCALES)
