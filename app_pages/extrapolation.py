"""Past the training length: sinusoid, learned table, RoPE and ALiBi side by side."""

import streamlit as st

from core import extrapolation, limits
from core.minilm import ModelUnavailableError
from figures.extrapolation import (
    make_alibi_reach_line_figure,
    make_learned_reach_figure,
    make_rope_reach_figure,
    make_sinusoid_novelty_figure,
)
from figures.rope_config import make_overlay_angle_figure, method_text
from locales import error_text
from server.cache import MB, bounded_cache
from ui.charts import file_stem, show_chart
from ui.controls import start_page
from ui.i18n import current_language, t
from ui.model import cached_minilm
from ui.rope_config import config_row, curves_to_draw, short_label, shown_colours
from ui.text import explain, markdown_text


@bounded_cache(max_entries=16, max_bytes=2 * MB, worst_case=[
    (limits.MAX_POSITIONS // 2, limits.MAX_POSITIONS, limits.MAX_EXTRAPOLATION_D_MODEL)])
def cached_novelty(train_length: int, target_length: int, d_model: int):
    return extrapolation.sinusoid_novelty(train_length, target_length, d_model)


@bounded_cache(max_entries=16, max_bytes=2 * MB, worst_case=[(limits.MAX_POSITIONS,)])
def cached_learned(target_length: int):
    # Raises ModelUnavailableError without MiniLM: errors are not cached, so installing the
    # package needs no restart, and the message is put in each visitor's language.
    return extrapolation.learned_reach(cached_minilm().position_embeddings, target_length)


@bounded_cache(max_entries=16, max_bytes=1 * MB, worst_case=[
    (limits.MAX_POSITIONS // 2, limits.MAX_POSITIONS, limits.MAX_EXTRAPOLATION_D_MODEL)])
def cached_rope(train_length: int, target_length: int, d_model: int):
    return extrapolation.rope_reach(train_length, target_length, d_model)


@bounded_cache(max_entries=16, max_bytes=1 * MB,
               worst_case=[(limits.MAX_POSITIONS // 2, limits.MAX_POSITIONS)])
def cached_alibi(train_length: int, target_length: int):
    return extrapolation.alibi_reach(train_length, target_length)


lang = current_language()
controls = start_page("extrapolation")
PAGE_WIDE = ("train_length", "target_length", "d_model")
# A page-wide change reruns the page's two rows alone (not the sidebar, the title or the link).
SINUSOID_ROW, ROPE_ROW = "extrapolation/sinusoid", "extrapolation/rope"
with st.sidebar:
    controls.stops("train_length", redraws=(SINUSOID_ROW, ROPE_ROW))
    controls.stops("target_length", redraws=(SINUSOID_ROW, ROPE_ROW))
    controls.stops("d_model", redraws=(SINUSOID_ROW, ROPE_ROW))
# Page-wide (sidebar): the two lengths, which every panel reads, and d_model (the sinusoid's
# width, and RoPE's without a config). The model config of the RoPE panel (config, compare,
# factor, a pasted config.json) is that row's own: above it, in its fragment, so a change there
# redraws the RoPE and ALiBi row alone.



def lengths() -> tuple[str, str]:
    """Files name the lengths: pe-extrapolation-rope_train2048_target8192_dhead128."""
    train_length, target_length, _ = controls.values(*PAGE_WIDE)
    return f"train{train_length}", f"target{target_length}"


@st.fragment(key=SINUSOID_ROW)
def sinusoid_row() -> None:
    """The intro, and the sinusoid and learned table past the trained length."""
    train_length, target_length, d_model = controls.values(*PAGE_WIDE)
    explain(t("extrapolation.intro", train_length=train_length, target_length=target_length))
    extrapolating = target_length > train_length
    # One block whether or not it says anything (the row's place below stays the same).
    with st.container():
        if not extrapolating:
            st.info(t("extrapolation.not_extrapolating", train_length=train_length,
                      target_length=target_length))
    top_left, top_right = st.columns(2, gap="large")
    with top_left:
        novelty = cached_novelty(train_length, target_length, d_model)
        show_chart(
            make_sinusoid_novelty_figure(novelty, train_length, lang=lang),
            key="sinusoid_chart",
            name=file_stem("extrapolation-sinusoid", *lengths(), f"d{d_model}"),
        )
        explain(
            t("extrapolation.sinusoid_text", d_model=d_model, novelty=novelty.largest_novelty)
            if extrapolating
            else t("extrapolation.sinusoid_seen", d_model=d_model)
        )
    with top_right:
        try:
            learned = cached_learned(target_length)
        except ModelUnavailableError as error:
            learned = None
            st.info(t("extrapolation.learned_unavailable",
                      problem=error_text(error, lang, "minilm")))
        if learned is not None:
            show_chart(
                make_learned_reach_figure(learned, train_length, lang=lang),
                key="learned_chart",
                name=file_stem("extrapolation-learned", "minilm", *lengths()),
            )
            explain(t("extrapolation.learned_text", rows=learned.rows))


sinusoid_row()


def rope_panel(shown: list, override: str | None) -> None:
    """A config's largest angles against the trained ones; two configs on the same axes, each
    in its colour (as the RoPE page's config view overlays them)."""
    figure = make_overlay_angle_figure(shown, shown_colours()[:len(shown)], lang=lang)
    show_chart(figure, key="rope_chart",
               name=file_stem("extrapolation-rope", *(c.name for c in shown), override))
    for curves in shown:
        explain(t("rope-config.extrapolation_text", label=markdown_text(curves.label),
                  d_head=curves.d_head, trained=curves.trained_context,
                  target=curves.target_context, pairs=curves.pairs.size,
                  unscaled=int(curves.beyond_unscaled.sum()),
                  scaled=int(curves.beyond_scaled.sum()),
                  method=method_text(curves, lang)))


def lengths_rope_panel() -> None:
    """RoPE at the page's lengths and d_model, without a config."""
    train_length, target_length, d_model = controls.values(*PAGE_WIDE)
    extension = cached_rope(train_length, target_length, d_model)
    show_chart(
        make_rope_reach_figure(extension, lang=lang),
        key="rope_chart",
        name=file_stem("extrapolation-rope", *lengths(), f"dhead{d_model}"),
    )
    explain(
        t("extrapolation.rope_text", d_model=d_model,
          beyond=int(extension.beyond["none"].sum()), pairs=extension.trained.size,
          factor=extension.factor,
          interpolated_beyond=int(extension.beyond["position_interpolation"].sum()))
        if target_length > train_length
        else t("extrapolation.rope_seen", d_model=d_model)
    )


def alibi_panel() -> None:
    train_length, target_length, _ = controls.values(*PAGE_WIDE)
    alibi_reach = cached_alibi(train_length, target_length)
    show_chart(
        make_alibi_reach_line_figure(alibi_reach, train_length, lang=lang),
        key="alibi_chart",
        name=file_stem("extrapolation-alibi", *lengths()),
    )
    explain(
        t("extrapolation.alibi_text", heads=alibi_reach.slopes.size,
          lowest=alibi_reach.bias.min(), distance=alibi_reach.distances[-1])
    )


@st.fragment(key=ROPE_ROW)
def rope_row() -> None:
    """RoPE (a model's config, a second beside it, or the page's lengths) and ALiBi."""
    train_length, target_length, _ = controls.values(*PAGE_WIDE)
    choice, factor = config_row(controls)
    config_curves, config_problem = curves_to_draw(choice, factor)
    if config_problem:
        st.warning(markdown_text(config_problem), icon=":material/warning:")
    if choice.unused_factor(factor):
        st.info(t("rope-config.factor_unused", label=short_label(choice.preset),
                  factor=factor))
    if config_curves:  # two contexts on one page: each panel's said
        st.caption(t("extrapolation.lengths_note", train_length=train_length,
                     target_length=target_length,
                     configs="; ".join(t("extrapolation.lengths_config",
                                         label=markdown_text(c.label),
                                         trained=c.trained_context, target=c.target_context)
                                       for c in config_curves)))
    bottom_left, bottom_right = st.columns(2, gap="large")
    with bottom_left:  # two configs: on the same axes, so that ALiBi keeps its place beside
        if config_curves:
            rope_panel(config_curves,
                       f"x{factor}" if choice.own_factor not in (None, factor) else None)
        else:
            lengths_rope_panel()
    with bottom_right:
        alibi_panel()


rope_row()
