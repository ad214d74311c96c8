"""A model's config as the input of the RoPE and extrapolation pages: the controls, and the
configs they choose. (The RoPE page's config view, where every field is a control and configs
are pinned beside each other, is the workbench: `ui.rope_workbench`.)

`config` (a preset), `compare` (a second preset drawn beside it, or none) and `factor` are URL
parameters like every control. A pasted config.json is not: the URL carries the preset and the
overridden fields, never the pasted text. A usable paste is drawn instead of the preset (the
preset's choice says so); an unusable one gets a notice naming the field, and the preset stays.
A paste with RoPE's fields alone (no head_dim, no hidden_size and num_attention_heads; no
max_position_embeddings) is drawn at the `head_dim` control's width and to the
`max_position_embeddings` control's context, each a control shown only then, its default (128,
8192) stated beside it: plain RoPE needs no context, the charts' distances and a scaling method
chosen in the workbench do.

`factor` overrides the config's rope_scaling factor only when the link carries it. Its slider's
default is the chosen config's own factor (Streamlit leaves a bound widget's default out of the
URL, so `config=llama-3.1-8b` alone means the published 8, `&factor=16` an override), and it goes
back to that default whenever the config changes or the page moves between the config and
another use of `factor` (the RoPE page's other views, whose default is 4): a factor set for one
config is never silently applied to another.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

import pandas as pd
import streamlit as st

from core.rope_config import (
    DEFAULT_CONTEXT,
    DEFAULT_HEAD_DIM,
    MAX_CONFIG_CHARS,
    PRESETS,
    NoContextError,
    NoHeadWidthError,
    RopeConfig,
    RopeConfigCurves,
    config_contexts,
    override,
    parse_config,
    rope_config_curves,
)
from figures.common import presentation_colour
from figures.contrast import BACKGROUNDS, readable
from figures.rope_config import method_text, plain_number
from server.cache import MB, bounded_cache
from ui.controls import PageControls
from ui.i18n import current_language, presenting, t
from ui.pages import params_of
from ui.text import markdown_text

PASTE_KEY = "pasted_config"  # the text area's key: session state only, never the URL
# + page: what factor (and the config view's fields) belonged to
FACTOR_CONTEXT = "_factor_context:"


@dataclass(frozen=True)
class ConfigChoice:
    """What the config controls chose in this run."""

    preset: RopeConfig | None  # `config` (None for "none")
    compare: RopeConfig | None  # `compare` (None for "none")
    pasted: RopeConfig | None  # a usable pasted config.json, drawn instead of the preset
    paste_problem: str | None  # why the pasted text is not used (names the field)
    needs_width: bool  # the paste gives no head width: drawn at `head_dim`
    needs_context: bool  # no max_position_embeddings: drawn to the control's context
    own_factor: int | None  # the preset's own factor (factor's default); None: no scaling
    page_factor: int  # factor's default where it is not a config's (the page's spec)

    def configs(self, factor: int) -> list[tuple[RopeConfig, str]]:
        """(config, short label) to draw: the pasted one or the preset (with `factor` when it
        differs from the preset's own), then the one to compare."""
        shown: list[tuple[RopeConfig, str]] = []
        if self.pasted is not None:
            shown.append((self.pasted, self.pasted.label))
        elif self.preset is not None:
            if self.own_factor is not None and factor != self.own_factor:
                shown.append((override(self.preset, factor=factor),
                              t("rope-config.overridden", label=short_label(self.preset),
                                factor=factor)))
            else:
                shown.append((self.preset, short_label(self.preset)))
        if self.compare is not None:
            shown.append((self.compare, short_label(self.compare)))
        return shown

    def unused_factor(self, factor: int) -> bool:
        """The link carries a factor the drawn config cannot take (no rope_scaling)."""
        return (self.pasted is None and self.preset is not None and self.own_factor is None
                and factor != self.page_factor)


def short_label(config: RopeConfig) -> str:
    """A preset's name as its radio option shows it ("Llama 3.1 8B"): short enough for a
    chart's title beside another; the config's own label otherwise."""
    names = {
        "llama-2-7b": t("options.llama-2-7b"), "llama-3.1-8b": t("options.llama-3.1-8b"),
        "mistral-7b": t("options.mistral-7b"), "qwen2.5-7b-yarn": t("options.qwen2.5-7b-yarn"),
        "phi-3-mini-128k": t("options.phi-3-mini-128k"),
        "deepseek-v2-lite": t("options.deepseek-v2-lite"),
    }
    return names.get(config.name, config.label)


def own_factor(config: RopeConfig | None, maximum: int) -> int | None:
    """The factor a config's slider starts at: its rope_scaling factor (LongRoPE without one:
    max_position_embeddings / L), when it is a whole number the slider offers; else None."""
    if config is None or config.rope_type == "default":
        return None
    _, _, factor = config_contexts(config)
    whole = round(factor)
    return whole if abs(factor - whole) < 1e-9 and 1 <= whole <= maximum else None


def read_paste(text: str, head_dim: int | None, context: int | None = None
               ) -> tuple[RopeConfig | None, str | None, frozenset[str]]:
    """The pasted config, a notice (why it is not used, or what was assumed) and the fields it
    lacks that drawing takes from a control: ``head_dim`` (the width) and
    ``max_position_embeddings`` (the context). Without them it is drawn at `head_dim` and to
    `context` (the config view's controls); a page without those controls (None) draws it at
    DEFAULT_HEAD_DIM and DEFAULT_CONTEXT and says so."""
    if not text.strip():
        return None, None, frozenset()
    missing: set[str] = set()
    label = t("rope-config.pasted_label")
    try:
        while True:  # RoPE's fields alone (a note's excerpt): a width and a context to choose
            try:
                config = parse_config(
                    text, label=label,
                    default_head_dim=(head_dim or DEFAULT_HEAD_DIM) if "head_dim" in missing
                    else None,
                    default_context=(context or DEFAULT_CONTEXT)
                    if "max_position_embeddings" in missing else None)
                break
            except NoHeadWidthError:
                missing.add("head_dim")
            except NoContextError:
                missing.add("max_position_embeddings")
    except ValueError as error:  # json.loads only: the text is never evaluated
        return None, t("rope-config.paste_problem", problem=str(error)), frozenset()
    assumed = []
    if head_dim is None and "head_dim" in missing:
        assumed.append(t("rope-config.paste_head_assumed", d_head=DEFAULT_HEAD_DIM))
    if context is None and "max_position_embeddings" in missing:
        assumed.append(t("rope-config.paste_context_assumed",
                         context=plain_number(DEFAULT_CONTEXT)))
    return config, " ".join(assumed) or None, frozenset(missing)


def factor_context(controls: PageControls, *, active: bool,
                   preset: RopeConfig | None = None) -> int | None:
    """`factor`'s default for this run: `preset`'s own factor where a config is drawn
    (`active`), else the page's; and the slider's value back to that default when what factor
    means changed since the last run (see the module docstring). Returns the preset's own."""
    param = params_of(controls.page)["factor"]  # the page's spec (its default where no config)
    own = own_factor(preset, param.maximum) if active else None
    default = own if own is not None else param.default
    context = (active, preset.name if active and preset is not None else None)
    set_defaults(controls, {"factor": default}, context)
    return own


def config_controls(controls: PageControls, *, fields: bool = False) -> ConfigChoice:
    """The `config` and `compare` choices, and `factor`'s default set to the config's own
    (`factor_context`; with `fields`, the caller sets every field's, `workbench`). Then
    `config_row` makes the `factor` slider, then `paste_box`."""
    # The paste box comes after the factor; its text of this run is already in the state.
    text = st.session_state.get(PASTE_KEY) or ""
    head_dim = controls.current("head_dim") if "head_dim" in controls.params else None
    context = (controls.current("max_position_embeddings")
               if "max_position_embeddings" in controls.params else None)
    pasted, problem, missing = read_paste(text, head_dim, context)
    with controls.shown(True, "config"):
        # A paste drawn in the preset's place: the preset's choice is greyed, and says so.
        name = controls.choice("config", t("rope-config.config"),
                               help=t("rope-config.config_pasted") if pasted is not None
                               else t("rope-config.config_help"), disabled=pasted is not None)
        if pasted is not None:
            st.caption(t("rope-config.config_not_drawn"))
        compare = controls.choice("compare", t("rope-config.compare"),
                                  help=t("rope-config.compare_help"))
    if len(text) > MAX_CONFIG_CHARS:
        # Refused above with its length; the session keeps no more than one character over
        # the limit (the box has no max_chars: Streamlit's would drop a long paste silently).
        st.session_state[PASTE_KEY] = text[:MAX_CONFIG_CHARS + 1]
    preset = PRESETS.get(name)
    own = None if fields else factor_context(controls, active=True, preset=preset)
    return ConfigChoice(preset=preset, compare=PRESETS.get(compare), pasted=pasted,
                        paste_problem=problem, needs_width="head_dim" in missing,
                        needs_context="max_position_embeddings" in missing, own_factor=own,
                        page_factor=params_of(controls.page)["factor"].default)


def config_row(controls: PageControls) -> tuple[ConfigChoice, int]:
    """A view's model config, in a row above its charts (made inside the view's fragment):
    `config` and `compare`, the paste box, then `factor` (its default the config's own: a link
    carries it only to override). The factor stands where the RoPE page's other views have it
    (the row's third column, the row second in the view): a bound widget that moves to another
    block between views no longer reaches the address bar (docs/design.md)."""
    config_column, paste_column, factor_column = controls.view_row([3, 1.5, 1.5])
    with config_column:
        choice = config_controls(controls)
    # The factor in the third column of the row, in every RoPE view that has it.
    with factor_column, controls.shown(choice.own_factor is not None and choice.pasted is None,
                                       "factor"):
        factor = controls.slider("factor", t("rope-config.factor"),
                                 help=t("rope-config.factor_help"))
    with paste_column:
        paste_box(controls)
    return choice, factor


def paste_box(controls: PageControls, *, on_change=None) -> None:
    """The text area for a pasted config.json (its text in session state only, never in the
    URL; `on_change` may put its RoPE fields there)."""
    with controls.shown(True, "paste"), st.expander(
            t("rope-config.paste"), expanded=bool(st.session_state.get(PASTE_KEY))):
        # No max_chars: a longer paste reaches the server, gets a notice with its length and
        # is cut (config_controls).
        st.text_area(t("rope-config.paste_label"), key=PASTE_KEY, height=160,
                     placeholder='{"head_dim": 128, "rope_theta": 500000.0, ...}',
                     help=t("rope-config.paste_help", limit=plain_number(MAX_CONFIG_CHARS)),
                     on_change=on_change)


# An entry is under 50 KB (tests/test_cache_budget.py): 16 fit in 1 MB.
@bounded_cache(max_entries=16, max_bytes=1 * MB, worst_case=[
    (json.dumps(PRESETS["llama-3.1-8b"].to_config_json(), sort_keys=True), "llama-3.1-8b",
     "Llama 3.1 8B", "hf", "Llama 3.1 8B")])
def cached_curves(config_json: str, name: str, label: str, source: str,
                  shown_label: str) -> RopeConfigCurves:
    """`rope_config_curves` of a config given as its config.json text (hashable, and the same
    text for the same config)."""
    config = parse_config(config_json, name=name, label=label, source=source)
    return rope_config_curves(config, label=shown_label)


def config_curves(config: RopeConfig, label: str) -> RopeConfigCurves:
    return cached_curves(json.dumps(config.to_config_json(), sort_keys=True), config.name,
                         config.label, config.source, label)


def curves_to_draw(choice: ConfigChoice, factor: int) -> tuple[list[RopeConfigCurves],
                                                               str | None]:
    """The curves of every config to draw, and a notice if the pasted config cannot be drawn
    (then the preset is drawn instead)."""
    try:
        return [config_curves(config, label) for config, label in choice.configs(factor)], \
            choice.paste_problem
    except ValueError as error:  # a pasted config's field that only drawing reads
        if choice.pasted is None:
            raise
        kept = replace(choice, pasted=None)
        return [config_curves(config, label) for config, label in kept.configs(factor)], \
            t("rope-config.paste_problem", problem=str(error))


def ratio_text(curves: RopeConfigCurves) -> str:
    """T / L, and the context the factor is meant for (s x L), flagged when T asks for more:
    Llama 3.1's factor 8 covers 65,536 while its max_position_embeddings asks 16 x L."""
    ratio = plain_number(curves.target_context / curves.trained_context, 4)
    if not curves.scaled:
        return t("rope-config.table_ratio_plain", ratio=ratio)
    covers = round(curves.factor * curves.trained_context)
    values = {"ratio": ratio, "factor": plain_number(curves.factor, 4),
              "covers": plain_number(covers)}
    if curves.target_context > covers:
        return t("rope-config.table_ratio_past", **values,
                 times=plain_number(curves.target_context / covers, 4))
    return t("rope-config.table_ratio_value", **values)


def config_table(shown: list[RopeConfigCurves]) -> pd.DataFrame:
    """The configs' numbers and sources, one column per config (for st.table, which wraps the
    sources' long text)."""
    lang = current_language()
    rows = [
        t("rope-config.table_method"), t("rope-config.table_d_head"),
        t("rope-config.table_theta"), t("rope-config.table_trained"),
        t("rope-config.table_target"), t("rope-config.table_ratio"),
        t("rope-config.table_attention"),
        t("rope-config.table_bands"), t("rope-config.table_critical"),
        t("rope-config.table_beyond"), t("rope-config.table_source"),
    ]
    table: dict[str, list[str]] = {}
    for curves in shown:
        half = curves.pairs.size
        counts = {band: curves.bands.bands.count(band) for band in
                  ("unchanged", "blended", "interpolated", "rescaled")}
        column = markdown_text(curves.label)  # st.table reads its headers as markdown
        while column in table:  # the same config twice (compared with itself)
            column += " "
        table[column] = [
            method_text(curves, lang), plain_number(curves.d_head),
            plain_number(curves.rope_theta), plain_number(curves.trained_context),
            plain_number(curves.target_context), ratio_text(curves),
            plain_number(curves.attention_factor, 4),
            t("rope-config.table_band_counts", **counts),
            t("rope-config.table_critical_value", pair=curves.critical_pair, last=half - 1)
            if curves.critical_pair < half else t("rope-config.table_critical_none"),
            t("rope-config.table_beyond_value", unscaled=int(curves.beyond_unscaled.sum()),
              scaled=int(curves.beyond_scaled.sum()), pairs=half),
            curves.source,
        ]
    return pd.DataFrame(table, index=pd.Index(rows, name=t("rope-config.table_quantity")))


# One colour per config, in every chart and the table: plotly's first four but red (red marks the
# pairs past their trained angles).
OVERLAY_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd")


def shown_colours() -> list[str]:
    """The overlay's colours as the charts show them: on a slide the colour-blind-safe
    palette, and each at 3:1 on both themes' backgrounds (ui.charts.show_chart's
    ensure_contrast), so that the table's key is the charts' colour."""
    backgrounds = tuple(BACKGROUNDS.values())
    return [readable(presentation_colour(c) if presenting() else c, backgrounds)
            for c in OVERLAY_COLOURS]


def set_defaults(controls: PageControls, defaults: dict[str, object], context: object) -> None:
    """The controls' defaults for this run; their values back to them when the config they
    belong to changed since the last run (a field set for one config is never silently applied
    to another)."""
    for name, default in defaults.items():
        controls.params[name] = replace(controls.params[name], default=default)
    key = f"{FACTOR_CONTEXT}{controls.page}"
    state = st.session_state
    if key in state and state[key] != context:
        for name, default in defaults.items():
            state[name] = default
    state[key] = context
