"""The RoPE page's config view, the workbench: every rope_scaling field of the chosen method a
control with a URL parameter of its own, configs pinned beside it (presets, pasted ones and
variants of either: `ui.rope_codes`), all drawn on the same axes, side by side or minus a
baseline, and the table of what each config gives. The config it starts from is chosen by
`ui.rope_config` (a preset, or a pasted config.json).
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, replace

import pandas as pd
import streamlit as st
from streamlit.errors import StreamlitAPIException

from core.rope_config import (
    DEFAULT_CONTEXT,
    DEFAULT_HEAD_DIM,
    METHOD_FIELDS,
    PRESETS,
    ConfigDifference,
    RopeConfig,
    RopeConfigCurves,
    config_difference,
    config_name,
    field_value,
    parse_config,
)
from figures.rope_config import plain_number
from locales import LANGUAGES, message
from server.cache import MB, bounded_cache
from ui.controls import KEPT_PREFIX, PageControls
from ui.i18n import t
from ui.pages import params_of
from ui.rope_codes import (
    MAX_PINNED,
    CodeError,
    Pinned,
    clean_name,
    pack_overlay,
    pack_pasted,
    pasted_fields,
    pinned,
    unpack_overlay,
)
from ui.rope_config import (
    OVERLAY_COLOURS,
    PASTE_KEY,
    config_controls,
    config_curves,
    own_factor,
    paste_box,
    read_paste,
    set_defaults,
    short_label,
    shown_colours,
)
from ui.text import html_text, markdown_text

# --- the RoPE page's config view: every field a control, configs overlaid ------------------------
FLOAT_FIELDS = ("attention_factor", "beta_fast", "beta_slow", "mscale", "mscale_all_dim",
                "low_freq_factor", "high_freq_factor")
UNSET_ZERO = ("attention_factor", "mscale", "mscale_all_dim")  # 0 on the control: not set


def field_help() -> dict[str, str]:
    """Each field's help in the visitor's language: what it does, as transformers reads it."""
    return {
        "original_max_position_embeddings": t(
            "rope-config.original_max_position_embeddings_help"),
        "attention_factor": t("rope-config.attention_factor_help"),
        "beta_fast": t("rope-config.beta_fast_help"),
        "beta_slow": t("rope-config.beta_slow_help"),
        "mscale": t("rope-config.mscale_help"),
        "mscale_all_dim": t("rope-config.mscale_all_dim_help"),
        "truncate": t("rope-config.truncate_help"),
        "low_freq_factor": t("rope-config.low_freq_factor_help"),
        "high_freq_factor": t("rope-config.high_freq_factor_help"),
    }


_ALL_FIELDS = ("rope_type", "original_max_position_embeddings", *FLOAT_FIELDS, "truncate")


@dataclass(frozen=True)
class Drawn:
    """A config the view draws: its config, its name in legends and columns, its colour, its
    place (`role`: the `baseline` value that chooses it) and what export file names call it."""

    config: RopeConfig
    label: str
    colour: str
    role: str = "edited"  # "edited", "compare", "pin1" .. "pin3"
    source: str = "config"  # a preset's key, or the pasted config's name (file names)
    changes: str = ""  # what a variant changes, for file names ("yarn-x16-beta_fast24")


def _field_defaults(base: RopeConfig, page_factor: int, maximum: int) -> dict[str, object]:
    """Each control's default for `base`: its own value of every field (transformers' defaults
    where it has none), so that a link carries only what it overrides."""
    defaults: dict[str, object] = {"rope_type": base.rope_type}
    own = own_factor(base, maximum)
    defaults["factor"] = own if own is not None else page_factor
    for name in ("original_max_position_embeddings", *FLOAT_FIELDS, "truncate"):
        value = field_value(base, name)
        defaults[name] = 0.0 if value is None else value
    return defaults


def _paste_changed() -> None:
    """The paste box's text, as the `pasted` code the link carries (or none): without head_dim
    or max_position_embeddings when the paste gives none (the link's controls of those names
    then give them); and its name (`_paste_name`)."""
    state = st.session_state
    text = state.get(PASTE_KEY) or ""
    config, _, missing = read_paste(text, DEFAULT_HEAD_DIM, DEFAULT_CONTEXT)
    state["pasted"] = ("" if config is None else pack_pasted(
        config, head_width="head_dim" not in missing,
        context="max_position_embeddings" not in missing))
    if not text.strip():  # the box emptied: the next paste is named afresh
        state["name"] = ""
    elif config is not None:
        _paste_name(text)


_AUTO_NAME = "_rope_paste_auto_name"  # (the name the view gave the paste, whether numbered)


def _paste_name(text: str) -> None:
    """A usable paste's name (`name`, editable, in the link), unless the visitor typed one: the
    model its config.json names (``_name_or_path``), else "pasted n", the first n no pinned
    config's name has (a paste edited keeps its number; a second paste beside a pinned
    "pasted 1" is "pasted 2")."""
    state = st.session_state
    current = state.get("name") or ""
    given, numbered = state.get(_AUTO_NAME) or ("", False)
    if current and current != given:  # the visitor's own name: kept
        return
    own = config_name(text)
    if own:
        name, numbered = clean_name(own), False
    else:
        taken = {pin.name.split(" · ")[0] for pin in _pins(state.get("overlay", ""))}
        if not (numbered and current and current not in taken):
            number = 1
            while t("rope-config.pasted_number", number=number) in taken:
                number += 1
            current = t("rope-config.pasted_number", number=number)
        name, numbered = current, True
    state["name"] = name
    state[_AUTO_NAME] = (name, numbered)


def _pin(entry: Pinned) -> None:
    state = st.session_state
    pins = _pins(state.get("overlay", ""))
    state["overlay"] = pack_overlay((*pins, entry)[-MAX_PINNED:])


def _unpin(index: int) -> None:
    state = st.session_state
    pins = list(_pins(state.get("overlay", "")))
    if 0 <= index < len(pins):
        del pins[index]
    state["overlay"] = pack_overlay(pins)


def _pins(code: str) -> tuple[Pinned, ...]:
    try:
        return unpack_overlay(code)
    except CodeError:  # the URL's check has said so already
        return ()


def variant_label(label: str, base: RopeConfig, rope_type: str, changes: dict[str, object]
                  ) -> str:
    """"Llama 3.1 8B · yarn, factor 16, beta_fast 24": the name and what the controls changed."""
    parts = []
    if rope_type != base.rope_type:
        parts.append(t("fig.rope_config.no_scaling") if rope_type == "default" else rope_type)
    for name, value in changes.items():
        shown = "-" if value is None else (plain_number(value) if isinstance(value, float)
                                           else value)
        parts.append(f"{name} {shown}")
    return f"{label} · {', '.join(parts)}" if parts else label


# --- export file names: what is drawn, short, each config once --------------------------------
_FILE_FIELDS = {"factor": "x", "original_max_position_embeddings": "L"}  # the view's own names


def change_tag(rope_type: str | None, changes: dict[str, object]) -> str:
    """What a variant changes, for a file name: "yarn-x16-beta_fast24", "unscaled", "L16384"."""
    parts = [] if rope_type is None else ["unscaled" if rope_type == "default" else rope_type]
    for name, value in changes.items():
        if isinstance(value, bool):
            parts.append(f"{name}-{'on' if value else 'off'}")
        else:
            shown = "unset" if value is None else f"{float(value):g}"
            parts.append(f"{_FILE_FIELDS.get(name, name)}{shown}")
    return "-".join(parts)


def file_parts(drawn: list[Drawn], minus: Drawn | None = None) -> list[str]:
    """The parts of an export file name (`ui.charts.file_stem`) for these configs, in order:
    each source (a preset's key, a pasted config's name) once, before the first of its configs,
    then what each config changes ("published" for a source's own config when a variant of it
    is drawn too); a config drawn twice is numbered; then "minus" and the baseline `minus`, if
    given. [llama-3.1-8b, yarn-x16-beta_fast24, unscaled, x16] for Llama 3.1 three ways."""
    every = [*drawn, *([minus] if minus is not None else [])]
    parts: list[str] = []
    seen: set[str] = set()
    said: list[tuple[str, str]] = []
    for entry in every:
        if entry is minus:
            parts.append("minus")
        if entry.source not in seen:
            seen.add(entry.source)
            parts.append(entry.source)
        several = sum(other.source == entry.source for other in every) > 1
        tag = entry.changes or ("published" if several else "")
        copies = said.count((entry.source, tag))
        said.append((entry.source, tag))
        if copies:
            tag = f"{tag or entry.source}-{copies + 1}"
        if tag:
            parts.append(tag)
    return parts


def _file_source(base: RopeConfig, name: str) -> str:
    """A config's source in file names: its preset's key, else the name given to the pasted
    config ("pasted" when it has none)."""
    if base.name in PRESETS and PRESETS[base.name] == base:
        return base.name
    if name in {message("rope-config.pasted_label", lang) for lang in LANGUAGES}:
        return "pasted"
    return "-".join(name.lower().split())[:24] or "pasted"


# --- the view's controls -----------------------------------------------------------------------
def _missing_field_control(controls: PageControls, name: str, needed: bool,
                           notices: list[str]) -> None:
    """The control for a field a paste lacks (`head_dim`, `max_position_embeddings`): made only
    then (so that a link carries it only then), its default said beside it. A link's value with
    no such paste is said, and left out of the link."""
    default = params_of(controls.page)[name].default
    state = st.session_state
    width = name == "head_dim"
    if not needed:
        if name in st.query_params:
            if name not in state:  # a link's, not the control's of the last run
                value = st.query_params[name]
                notices.append(t("rope-config.head_dim_unused", value=value) if width
                               else t("rope-config.max_position_embeddings_unused", value=value))
            with contextlib.suppress(StreamlitAPIException):  # the control's goes with it
                del st.query_params[name]
        state.get(f"{KEPT_PREFIX}{controls.page}", {}).pop(name, None)  # a new paste
        return  # starts at the default
    if width:
        label, help_text, note = (
            t("rope-config.head_dim"), t("rope-config.head_dim_help", default=default),
            t("rope-config.head_dim_note", default=default))
    else:
        label, help_text, note = (
            t("rope-config.max_position_embeddings"),
            t("rope-config.max_position_embeddings_help", default=default),
            t("rope-config.max_position_embeddings_note", default=plain_number(default)))
    controls.number(name, label, help=help_text)
    st.caption(note)


def workbench(controls: PageControls) -> tuple[list[Drawn], list[str]]:
    """The config view's controls: the config, the one to compare, a pasted config.json (its
    RoPE fields and name travel in the link; its head width is a control when it gives none),
    the method and each rope_scaling field it reads (a link carries only what it overrides),
    the configs pinned to the overlay, how they are drawn and the baseline of their differences.
    Returns the configs to draw (at most four) and the notices to show."""
    notices: list[str] = []
    state = st.session_state
    code = controls.current("pasted")
    if code and not state.get(PASTE_KEY):  # opened from a link: the box shows its fields
        with contextlib.suppress(CodeError):
            state[PASTE_KEY] = json.dumps(pasted_fields(code), indent=1)
    config_column, paste_column, factor_column = controls.view_row([3, 1.5, 1.5])
    with config_column:
        choice = config_controls(controls, fields=True)
    page_factor = params_of(controls.page)["factor"].default
    most = controls.params["factor"].maximum
    defaults = None
    if choice.pasted is not None:
        try:  # fields only drawing reads (the contexts) may still be unusable
            defaults = _field_defaults(choice.pasted, page_factor, most)
        except ValueError as error:
            choice = replace(choice, pasted=None, needs_width=False, needs_context=False,
                             paste_problem=t("rope-config.paste_problem", problem=str(error)))
    base = choice.pasted or choice.preset
    assert base is not None  # the rope page's config has no "none"
    if defaults is None:
        defaults = _field_defaults(base, page_factor, most)
    set_defaults(controls, defaults, (True, code if choice.pasted else base.name))
    with paste_column:
        paste_box(controls, on_change=_paste_changed)
        with controls.shown(choice.pasted is not None, "name"):
            pasted_name = controls.text("name", t("rope-config.name"),
                                        help=t("rope-config.name_help"))
        for name, needed in (("head_dim", choice.needs_width),
                             ("max_position_embeddings", choice.needs_context)):
            _missing_field_control(controls, name, choice.pasted is not None and needed,
                                   notices)
    label = ((pasted_name or t("rope-config.pasted_label")) if choice.pasted
             else short_label(base))
    # A paste in the box that is not drawn: the preset drawn in its place is no config to pin.
    fallback = choice.pasted is None and bool((state.get(PASTE_KEY) or "").strip())
    [method_row] = controls.view_row(1)
    with method_row:
        rope_type = controls.choice("rope_type", t("rope-config.rope_type"),
                                    help=t("rope-config.rope_type_help"))
    read = METHOD_FIELDS[rope_type]
    own = own_factor(base, controls.params["factor"].maximum)
    unscaled = base.rope_type == "default"
    with factor_column, controls.shown("factor" in read and (own is not None or unscaled),
                                       "factor"):
        factor = controls.slider("factor", t("rope-config.factor"),
                                 help=t("rope-config.factor_help"))
    values: dict[str, object] = {}
    if "factor" in read and (own is not None or unscaled):
        values["factor"] = factor
    elif "factor" not in read and factor != defaults["factor"]:  # kept for another method
        st.info(t("rope-config.factor_unused", label=markdown_text(label), factor=factor))
    [fields_row] = controls.view_row(1)
    with fields_row, controls.shown(len(read) > 1, "fields"), st.expander(
            t("rope-config.fields", method=rope_type), icon=":material/tune:"):
        columns = st.columns([1.6, 1, 1, 1])
        helps = field_help()
        for index, name in enumerate(n for n in read if n != "factor"):
            with columns[index % 4]:
                if name == "truncate":
                    values[name] = controls.toggle(name, name, help=helps[name])
                else:
                    values[name] = controls.number(name, name, help=helps[name],
                                                   fmt=None if name.startswith("original")
                                                   else "%g")
    for name in _ALL_FIELDS:  # a link's field the method does not read: said, and dropped
        if name not in (*read, "rope_type") and name in st.query_params:
            try:
                del st.query_params[name]
            except StreamlitAPIException:  # its widget's, from a method shown before: it
                continue  # goes with the widget, as a control of another view does
            notices.append(t("rope-config.field_unread", name=name, method=rope_type))
    changes = {name: (None if name in UNSET_ZERO and value == 0 else value)
               for name, value in values.items() if value != defaults[name]}
    changed_type = rope_type if rope_type != base.rope_type else None
    if changed_type or changes:
        try:
            live = pinned(variant_label(label, base, rope_type, changes), base, changed_type,
                          changes)
        except CodeError as error:
            notices.append(t("rope-config.variant_problem", problem=str(error)))
            live = pinned(label, base, None, {})
    else:
        live = pinned(label, base, None, {})
    if choice.paste_problem:
        notices.append(choice.paste_problem)
    # The overlay: the configs pinned, then the preset to compare, the edited one first.
    with controls.shown(False, "codes"):
        controls.text("overlay", "overlay")
        controls.text("pasted", "pasted")
    pins = _pins(controls.current("overlay"))
    shown = [Drawn(live.config, live.name, "", "edited", _file_source(base, label),
                   change_tag(live.rope_type, live.changes))]
    if choice.compare is not None:
        shown.append(Drawn(choice.compare, short_label(choice.compare), "", "compare",
                           choice.compare.name))
    for number, pin in enumerate(pins, start=1):
        source = pin.preset or _file_source(pin.config, pin.name.split(" · ")[0])
        shown.append(Drawn(pin.config, pin.name, "", f"pin{number}", source,
                           change_tag(pin.rope_type, pin.changes)))
    if len(shown) > len(OVERLAY_COLOURS):
        notices.append(t("rope-config.too_many", count=len(shown),
                         most=len(OVERLAY_COLOURS),
                         left=", ".join(entry.label for entry in shown[len(OVERLAY_COLOURS):])))
        shown = shown[:len(OVERLAY_COLOURS)]
    drawn = [replace(entry, colour=colour)
             for entry, colour in zip(shown, shown_colours(), strict=False)]
    overlay_row(controls, pins, live, drawn, fallback=fallback)
    baseline_row(controls, drawn, notices)
    return drawn, notices


def overlay_row(controls: PageControls, pins: tuple[Pinned, ...], live: Pinned,
                drawn: list[Drawn], *, fallback: bool = False) -> None:
    """The configs drawn, each in its colour (pinned ones with a button to unpin), the button
    that pins the edited config (none while a refused paste has the preset drawn in its
    place: `fallback`, said), and overlay, side by side or their differences."""
    pin_column, list_column, arrange_column = controls.view_row([1.5, 3, 1.5])
    with pin_column:
        st.button(t("rope-config.pin"), icon=":material/push_pin:", key="pin_config",
                  help=t("rope-config.pin_fallback") if fallback
                  else t("rope-config.pin_help", most=MAX_PINNED),
                  disabled=fallback or len(pins) >= MAX_PINNED
                  or len(drawn) >= len(OVERLAY_COLOURS),
                  on_click=_pin, args=(live,))
        if fallback:
            st.caption(t("rope-config.pin_fallback"))
    with list_column, st.container(horizontal=True, gap="medium",
                                   vertical_alignment="center"):
        first = len(drawn) - len(pins)  # the pinned ones come last
        for index, shown in enumerate(drawn):
            swatch = f'<span style="color:{shown.colour};font-size:1.3em">■</span>'
            if index < first:  # the edited config and the one to compare: a key
                st.html(f'<span class="pe-config-key">{swatch} {html_text(shown.label)}</span>',
                        width="content")
                continue
            with st.container(horizontal=True, gap=None, vertical_alignment="center",
                              width="content"):
                st.html(swatch, width="content")
                st.button(markdown_text(shown.label), icon=":material/close:", type="tertiary",
                          key=f"unpin_{index - first}", help=t("rope-config.unpin_help"),
                          on_click=_unpin, args=(index - first,))
    with arrange_column, controls.shown(len(drawn) > 1, "arrange"):
        controls.choice("arrange", t("rope-config.arrange"), help=t("rope-config.arrange_help"))


def baseline_row(controls: PageControls, drawn: list[Drawn], notices: list[str]) -> None:
    """The baseline the difference view subtracts: one of the configs drawn (`baseline`: the
    edited config, the one to compare, a pinned one), each option captioned with its name.
    Shown with the differences only; a link's baseline that is not drawn is said, and the
    edited config is the baseline."""
    roles = [entry.role for entry in drawn]
    param = params_of(controls.page)["baseline"]
    controls.params["baseline"] = replace(param, choices=tuple(roles))
    state = st.session_state
    wanted = state["baseline"] if "baseline" in state else st.query_params.get("baseline")
    if wanted is not None and wanted not in roles:
        if wanted in param.choices:  # another value was refused by the URL's check, said
            notices.append(t("rope-config.baseline_missing", value=wanted,
                             choices=", ".join(roles)))
        state["baseline"] = param.default
        with contextlib.suppress(StreamlitAPIException):
            if "baseline" in st.query_params:
                del st.query_params["baseline"]
    differences = len(drawn) > 1 and controls.current("arrange") == "difference"
    [row] = controls.view_row(1)
    with row, controls.shown(differences, "baseline"):
        controls.choice("baseline", t("rope-config.baseline"),
                        help=t("rope-config.baseline_help"),
                        captions=[markdown_text(entry.label) for entry in drawn])


PANEL_KEYS = ("config", "compare", "overlay2", "overlay3")  # side by side: each panel's chart key


def drawn_curves(drawn: list[Drawn]) -> tuple[list[tuple[Drawn, RopeConfigCurves]], list[str]]:
    """Each config drawn with its curves, and why a config could not be drawn (a pasted field
    that only drawing reads): that one is left out, said."""
    shown, problems = [], []
    for entry in drawn:
        try:
            shown.append((entry, config_curves(entry.config, entry.label)))
        except ValueError as error:
            problems.append(t("rope-config.variant_problem", problem=f"{entry.label}: {error}"))
    if not shown:  # the edited config itself cannot be drawn: its preset is
        preset = PRESETS[params_of("rope")["config"].default]
        entry = Drawn(preset, short_label(preset), shown_colours()[0], source=preset.name)
        shown.append((entry, config_curves(preset, entry.label)))
    return shown, problems


# The widest config a paste may hold: 512 pairs, 10M positions.
_WIDEST = json.dumps({"head_dim": 1024, "rope_theta": 1e8, "max_position_embeddings": 10_000_000,
                      "rope_scaling": None}, sort_keys=True)


# An entry is at most ~12 KB (512 pairs' ratios and a 240-bin profile): 8, two views of
# differences, in 128 KB.
@bounded_cache(max_entries=8, max_bytes=MB // 8, worst_case=[(_WIDEST, _WIDEST)])
def cached_difference(config_json: str, baseline_json: str) -> ConfigDifference:
    """`config_difference` of two configs given as their config.json text."""
    return config_difference(parse_config(config_json), parse_config(baseline_json))


def differences_from(shown: list[tuple[Drawn, RopeConfigCurves]],
                     baseline: int) -> list[ConfigDifference]:
    """Each config drawn minus the one at `baseline`."""
    text = [json.dumps(entry.config.to_config_json(), sort_keys=True) for entry, _ in shown]
    return [cached_difference(config, text[baseline]) for config in text]


def coloured_table(table: pd.DataFrame, colours: list[str]):
    """`config_table` with a first row that shows each config's colour in the charts."""
    key = t("rope-config.table_colour")
    marked = pd.concat([pd.DataFrame([["━━━━"] * table.shape[1]], columns=table.columns,
                                     index=pd.Index([key], name=table.index.name)), table])
    by_column = dict(zip(marked.columns, colours, strict=True))
    return marked.style.apply(
        lambda column: [f"color: {by_column[column.name]}; font-weight: 700" if row == key
                        else "" for row in column.index], axis=0)


def coloured_pairs(columns: dict[str, list], shown: list[RopeConfigCurves],
                   colours: list[str]):
    """The per-pair table (`figures.rope_config.pair_columns`) with each config's columns in
    its colour, numbers to six significant digits."""
    frame = pd.DataFrame({name: pd.Series(values) for name, values in columns.items()})
    per_config = (frame.shape[1] - 1) // len(shown)  # after the pair column, each config's own
    colour_of = {name: colours[(index - 1) // per_config]
                 for index, name in enumerate(frame.columns) if index}
    numbers = [name for name in frame.columns if frame[name].dtype.kind == "f"]
    return frame.style.format(plain_number, subset=numbers).apply(
        lambda column: [f"color: {colour_of[column.name]}" if column.name in colour_of else ""
                        ] * len(column), axis=0)
