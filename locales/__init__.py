"""The interface's words in English and Simplified Chinese: one message catalogue per language.

Every label, control, explanation, notice and figure title is a key in ``locales/en.toml``
and ``locales/zh.toml`` (the two have exactly the same keys and the same placeholders; a test
checks). Pages and figures ask for a message by key:

    message("heatmap.title", "zh")                       # -> "正弦热图"
    message("heatmap.summary", "en", positions=64, d_model=128)

Placeholders are Python's ``str.format`` fields (``{positions}``, ``{base:g}``), so a literal
brace (LaTeX's ``\\omega_{{i}}``) is doubled in the catalogue. Formulas shown with ``st.latex``
stay out of the catalogues: they read the same in both languages.

Pure Python (``tomllib``); the catalogues are read once per process.
"""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path
from typing import Literal

Lang = Literal["en", "zh"]
LANGUAGES: tuple[Lang, ...] = ("en", "zh")
DEFAULT_LANGUAGE: Lang = "en"
# How each language names itself in the language switch.
LANGUAGE_NAMES: dict[Lang, str] = {"en": "English", "zh": "中文"}

LOCALES = Path(__file__).resolve().parent  # en.toml, zh.toml beside this file


def _flatten(table: dict, prefix: str = "") -> dict[str, str]:
    """TOML tables -> dotted keys: {"heatmap": {"title": "..."}} -> {"heatmap.title": "..."}."""
    flat: dict[str, str] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{name}."))
        elif isinstance(value, str):
            flat[name] = value
        else:
            raise ValueError(f"catalogue entry {name} is {type(value).__name__}: only text")
    return flat


@functools.cache
def catalogue(lang: Lang) -> dict[str, str]:
    """All messages of one language, by dotted key (``locales/<lang>.toml``)."""
    if lang not in LANGUAGES:
        raise ValueError(f"lang={lang!r} is not allowed: lang must be one of en, zh")
    path = LOCALES / f"{lang}.toml"
    return _flatten(tomllib.loads(path.read_text(encoding="utf-8")))


def message(key: str, lang: Lang = DEFAULT_LANGUAGE, /, **values: object) -> str:
    """The message `key` in `lang`, its placeholders filled from `values`. A number is written
    for people: where its format (``{error:.1e}``, ``{base:g}``) would give e-notation, a power
    of ten (``6×10⁻¹⁵``, as `number_text`).

    An unknown key raises KeyError (a test checks every key used in the code exists)."""
    return catalogue(lang)[key].format(**{name: _Number(value) if _is_float(value) else value
                                          for name, value in values.items()})


_SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def number_text(value: float, spec: str = ".3g") -> str:
    """`value` as `format(value, spec)` writes it, but an exponent as people write one:
    7.47e-08 is 7.47×10⁻⁸, 1e+06 is 10⁶ (an audience reads no e-notation)."""
    text = format(float(value), spec)
    mantissa, e, exponent = text.lower().partition("e")
    if not e or not exponent.lstrip("+-").isdigit():  # no exponent (or inf, nan)
        return text
    if float(mantissa) == 0:
        return "0"
    power = "10" + str(int(exponent)).translate(_SUPERSCRIPTS)
    return power if mantissa.lstrip("+") == "1" else f"{mantissa}×{power}"


def _is_float(value: object) -> bool:
    """A float, numpy's among them (np.float32 is no `float`)."""
    return isinstance(value, float) or (type(value).__module__ == "numpy"
                                        and type(value).__name__.startswith("float"))


class _Number(float):
    """A number in a message: formatted by `number_text`."""

    def __format__(self, spec: str) -> str:
        return number_text(self, spec)


def language_from_locale(locale: str | None) -> Lang:
    """The interface language for a browser locale (``navigator.language``, e.g. "zh-CN"):
    Chinese for any ``zh`` locale (Simplified and Traditional alike: the closest we have),
    English otherwise."""
    if locale and locale.strip().lower().replace("_", "-").split("-")[0] == "zh":
        return "zh"
    return DEFAULT_LANGUAGE


class Text:
    """A message not yet put in a language: `Text("wavelengths.dims_allowed", last=127)`.
    `str()` is its English; `in_language(lang)` any language's. A Text's values may hold Texts
    (parts of the message, put in the same language)."""

    def __init__(self, key: str, /, **values: object) -> None:
        self.key = key
        self.values = values

    def in_language(self, lang: Lang) -> str:
        values = {k: v.in_language(lang) if isinstance(v, Text) else v
                  for k, v in self.values.items()}
        return message(self.key, lang, **values)

    def __str__(self) -> str:
        return self.in_language(DEFAULT_LANGUAGE)

    def __repr__(self) -> str:
        return f"Text({self.key!r}, {self.values!r})"


class Localized:
    """An exception whose message is a catalogue entry: `str(error)` is the English message
    (as `core`'s callers have always read it), `error.in_language(lang)` any language's.
    Mixed into a built-in exception class (ValueError, RuntimeError)."""

    def __init__(self, key: str, /, **values: object) -> None:
        self.text = Text(key, **values)
        super().__init__(self.in_language(DEFAULT_LANGUAGE))

    def in_language(self, lang: Lang) -> str:
        return self.text.in_language(lang)


class LocalizedError(Localized, ValueError):
    """A ValueError of the app whose message is a catalogue entry (see `Localized`)."""


def error_text(error: Exception, lang: Lang, section: str, /, **values: object) -> str:
    """An error `core` raised about its input (a `core._checks.CoreError`: ``reason`` and
    ``details``) in `lang`: the catalogue's ``{section}.{reason}``, filled with the error's
    details and `values` (parts only the app words, e.g. what is allowed)."""
    return message(f"{section}.{error.reason}", lang, **error.details, **values)
