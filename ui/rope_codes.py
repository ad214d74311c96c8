"""The RoPE config view's configs in a link: the overlaid ones (`overlay`) and a pasted one
(`pasted`), each a `ui.codec` code checked field by field on the way in.

- `pasted`: a pasted config.json's RoPE fields only (``head_dim``, ``rope_theta``,
  ``max_position_embeddings``, ``rope_scaling``, a top-level
  ``original_max_position_embeddings``), never the whole file; its name is `name`. A paste that
  gives no head width is carried without ``head_dim``: its width is the `head_dim` control's;
  one without a context, without ``max_position_embeddings``: the control of that name gives it.
- `overlay`: up to `MAX_PINNED` configs pinned beside the one the controls edit, each
  ``{"n": name, "p": preset}`` or ``{"n": name, "c": RoPE fields}``, with ``"t"`` (the method)
  and ``"f"`` (the rope_scaling fields set by the controls) when it is a variant.

A code a page cannot draw is refused whole with a message that says why (`CodeError`), so that a
link never opens something else silently. Free of Streamlit: `ui.pages` checks URL values with
it, the page draws with it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from core.rope_config import (
    DEFAULT_CONTEXT,
    DEFAULT_HEAD_DIM,
    METHOD_FIELDS,
    PRESETS,
    RopeConfig,
    parse_config,
    variant,
)
from ui.codec import pack, unpack

MAX_PINNED = 3  # with the config the controls edit: four configs on the same axes
MAX_NAME = 60  # characters of a config's name: a legend entry
MAX_PASTED_CODE = 2500  # Phi-3's LongRoPE lists (96 numbers) pack to ~1,300 characters
MAX_OVERLAY_CODE = 3 * MAX_PASTED_CODE
MAX_INFLATED = 16 * 1024  # bytes a code may inflate to: no zip bomb
# What each code may hold, one table each (tests/test_fuzz_codes.py fuzzes every entry): a
# pasted config's RoPE fields in config.json's shape, and an overlay entry's keys (its name, a
# preset or pasted fields, a method, changed rope_scaling fields).
PASTED_FIELDS = ("head_dim", "rope_theta", "max_position_embeddings", "rope_scaling",
                 "original_max_position_embeddings")
ENTRY_KEYS = ("n", "p", "c", "t", "f")
# What a check may raise on a stranger's values: ValueError saying which field and why; an
# ArithmeticError (an overflow core failed to refuse, a bug to fix there) still refuses the code
# instead of reaching the page.
_REFUSED = (ValueError, ArithmeticError)


class CodeError(ValueError):
    """A code that is not one of this page's (its message says why, in English)."""

    @classmethod
    def of(cls, error: Exception) -> CodeError:
        """`error` (one of `_REFUSED`) as a CodeError: a ValueError's message as it is."""
        if isinstance(error, ArithmeticError):
            return cls(f"its numbers cannot be computed ({type(error).__name__}: {error})")
        return cls(str(error))


@dataclass(frozen=True)
class Pinned:
    """One config of the overlay: what it is built from, its name, the config drawn."""

    name: str
    preset: str | None  # a preset's key, or None for pasted fields
    fields: dict[str, Any] | None  # pasted RoPE fields (config.json's shape)
    rope_type: str | None  # the method, when a variant changes it
    changes: dict[str, Any]  # rope_scaling fields a variant sets
    config: RopeConfig

    def entry(self) -> dict[str, Any]:
        out: dict[str, Any] = {"n": self.name}
        if self.preset is not None:
            out["p"] = self.preset
        else:
            out["c"] = self.fields
        if self.rope_type is not None:
            out["t"] = self.rope_type
        if self.changes:
            out["f"] = self.changes
        return out


def clean_name(name: object) -> str:
    """A name as a legend shows it: one line, at most MAX_NAME characters."""
    if not isinstance(name, str):
        raise CodeError("a config's name must be text")
    return " ".join(name.split())[:MAX_NAME]


def rope_fields(config: RopeConfig) -> dict[str, Any]:
    """The RoPE fields of `config` in config.json's shape (what a pasted config carries)."""
    return config.to_config_json()


def config_from_fields(fields: object, name: str, *, head_dim: int | None = None,
                       context: int | None = None) -> RopeConfig:
    """The config of RoPE fields in config.json's shape; `head_dim` is the width and `context`
    the max_position_embeddings of fields without one (None: they must have one)."""
    if not isinstance(fields, dict) or not set(fields) <= set(PASTED_FIELDS):
        raise CodeError(f"a config's fields must be an object of {', '.join(PASTED_FIELDS)}")
    try:
        return parse_config(json.dumps(fields), label=name or "Pasted config.json",
                            default_head_dim=head_dim, default_context=context)
    except _REFUSED as error:
        raise CodeError.of(error) from None


def pack_pasted(config: RopeConfig, *, head_width: bool = True, context: bool = True) -> str:
    """The `pasted` code of a pasted config: its RoPE fields, without ``head_dim`` when the
    paste gave no head width (`head_width` false: the link's `head_dim` gives it), without
    ``max_position_embeddings`` when it gave no context (`context` false: the link's
    `max_position_embeddings` gives it)."""
    fields = rope_fields(config)
    if not head_width:
        del fields["head_dim"]
    if not context:
        del fields["max_position_embeddings"]
    return pack(fields)


def _unpack(code: str, maximum: int, what: str) -> Any:
    """The value of a code of at most `maximum` characters (CodeError naming `what` if not)."""
    if len(code) > maximum:
        raise CodeError(f"the code has {len(code)} characters: at most {maximum}")
    try:
        return unpack(code, max_inflated=MAX_INFLATED)
    except ValueError:
        raise CodeError(f"it is not {what}") from None


def pasted_fields(code: str) -> dict[str, Any]:
    """The RoPE fields a `pasted` code carries, checked (CodeError if it is none): what the
    paste box shows when a link opens."""
    fields = _unpack(code, MAX_PASTED_CODE, "a pasted config's code")
    config_from_fields(fields, "", head_dim=DEFAULT_HEAD_DIM, context=DEFAULT_CONTEXT)
    return fields


def unpack_pasted(code: str, head_dim: int = DEFAULT_HEAD_DIM,
                  context: int = DEFAULT_CONTEXT) -> RopeConfig:
    """The config of a `pasted` code (CodeError if it is none), at `head_dim` when its fields
    give no head width, to `context` when they give no max_position_embeddings."""
    return config_from_fields(_unpack(code, MAX_PASTED_CODE, "a pasted config's code"), "",
                              head_dim=head_dim, context=context)


def pinned(name: str, base: RopeConfig, rope_type: str | None,
           changes: dict[str, Any]) -> Pinned:
    """A config to pin: `base` (a preset, else pasted fields) as a variant (CodeError if it
    cannot be drawn)."""
    name = clean_name(name)
    preset = base.name if base.name in PRESETS and PRESETS[base.name] == base else None
    fields = None if preset is not None else rope_fields(base)
    try:
        config = base if rope_type is None and not changes else variant(
            base, rope_type or base.rope_type, changes)
    except _REFUSED as error:
        raise CodeError.of(error) from None
    return Pinned(name, preset, fields, rope_type, dict(changes), config)


def _entry(entry: object) -> Pinned:
    if not isinstance(entry, dict) or not set(entry) <= set(ENTRY_KEYS) or (
            ("p" in entry) == ("c" in entry)):
        raise CodeError('each config must be {"n": name, "p": preset} or {"n": name, "c": '
                        'fields}, with "t" and "f" for a variant')
    name = clean_name(entry.get("n", ""))
    if "p" in entry:
        if not isinstance(entry["p"], str) or entry["p"] not in PRESETS:  # a list: unhashable
            raise CodeError(f"{str(entry['p'])[:40]!r} is not a preset: one of "
                            f"{', '.join(PRESETS)}")
        base = PRESETS[entry["p"]]
    else:
        base = config_from_fields(entry["c"], name)
    rope_type = entry.get("t")
    if rope_type is not None and (not isinstance(rope_type, str)
                                  or rope_type not in METHOD_FIELDS):
        raise CodeError(f"{str(rope_type)[:40]!r} is not a method: one of "
                        f"{', '.join(METHOD_FIELDS)}")
    changes = entry.get("f", {})
    if not isinstance(changes, dict):
        raise CodeError('"f" must be an object of rope_scaling fields')
    return pinned(name, base, rope_type, changes)


def pack_overlay(configs: list[Pinned] | tuple[Pinned, ...]) -> str:
    return pack([config.entry() for config in configs]) if configs else ""


def unpack_overlay(code: str) -> tuple[Pinned, ...]:
    """The pinned configs of an `overlay` code (CodeError if it is none); "" is none."""
    if not code:
        return ()
    entries = _unpack(code, MAX_OVERLAY_CODE, "an overlay's code")
    if not isinstance(entries, list) or not entries:
        raise CodeError("it is not an overlay's code")
    if len(entries) > MAX_PINNED:
        raise CodeError(f"it pins {len(entries)} configs: at most {MAX_PINNED}")
    return tuple(_entry(entry) for entry in entries)
