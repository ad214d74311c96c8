"""RoPE: the sinusoid's (sin, cos) pairs as a rotation of queries and keys."""

import streamlit as st

from core import limits, rope
from core.limits import DEFAULT_BASE
from figures.rope import (
    MAX_ROTATION_POINTS,
    make_context_extension_figure,
    make_rope_decay_figure,
    make_rope_logits_figure,
    make_rope_rotation_figure,
    method_names,
)
from figures.rope_config import (
    make_difference_logit_figure,
    make_difference_wavelength_figure,
    make_overlay_angle_figure,
    make_overlay_logit_figure,
    make_overlay_wavelength_figure,
    pair_columns,
)
from server.cache import MB, bounded_cache
from ui.charts import file_stem, show_chart
from ui.controls import start_page
from ui.i18n import current_language, t
from ui.rope_config import config_table, factor_context
from ui.rope_workbench import (
    PANEL_KEYS,
    Drawn,
    coloured_pairs,
    coloured_table,
    differences_from,
    drawn_curves,
    file_parts,
    workbench,
)
from ui.text import explain, markdown_text

BASE_PRESETS = (10000.0, 500000.0)  # RoFormer and LLaMA 1-2; LLaMA 3
SECOND_ANCHOR_SHIFT = 1000  # the second query sits this many positions further on
SEED = 0  # the fixed random query and key


# The heaviest rotation the page offers: NTK-aware scaling at the largest factor.
HARDEST = rope.RotationSettings(base=DEFAULT_BASE, layout="interleaved", scaling="ntk_aware",
                                factor=limits.MAX_ROPE_FACTOR)


# An entry is under 50 KB at the worst case (tests/test_cache_budget.py): 16 fit in 1 MB.
@bounded_cache(max_entries=16, max_bytes=1 * MB,
               worst_case=[((0, 255, 511), limits.MAX_POSITIONS, limits.MAX_D_HEAD, HARDEST)])
def cached_trajectories(pairs, positions, d_head, settings: rope.RotationSettings):
    # The positions drawn: every drawn point is exact, rotated by rope_rotate itself.
    shown = rope.sample_positions(positions, MAX_ROTATION_POINTS)
    return shown, [
        rope.rope_pair_trajectory(pair, shown, d_head, settings=settings) for pair in pairs
    ]


@bounded_cache(max_entries=16, max_bytes=4 * MB, worst_case=[
    (limits.MAX_D_HEAD, limits.MAX_POSITIONS, (7191.0, 8191.0), HARDEST)])
def cached_offset_logits(d_head, positions, anchors, settings: rope.RotationSettings):
    return rope.rope_offset_logits(d_head, positions, anchors, seed=SEED, settings=settings)


@bounded_cache(max_entries=16, max_bytes=8 * MB, worst_case=[
    (limits.MAX_POSITIONS, limits.MAX_D_HEAD, (DEFAULT_BASE, 500000.0))])
def cached_decay(positions, d_head, bases):
    distances = list(range(positions))
    return distances, {b: rope.rope_decay_bound(distances, d_head, base=b) for b in bases}


@bounded_cache(max_entries=16, max_bytes=1 * MB, worst_case=[
    (limits.MAX_D_HEAD, DEFAULT_BASE, limits.MAX_ROPE_FACTOR, limits.MAX_EXTENSION_TRAIN_LENGTH)])
def cached_extension(d_head, base, factor, train_length):
    return rope.rope_context_extension(d_head, train_length, train_length * factor, base=base,
                                       factor=factor, methods=rope.EXTENSION_METHODS)


def set_base(value: float) -> None:
    st.session_state["base"] = value


lang = current_language()
# A link that names a model config but no view opens the config view (/rope?config=qwen2.5-7b-yarn),
# written into the URL before the view's widget reads it, so the address bar is the view's link.
if "_rope_link_read" not in st.session_state:
    st.session_state["_rope_link_read"] = True
    if "view" not in st.query_params and {"config", "compare"} & set(st.query_params):
        st.query_params["view"] = "config"
        st.rerun()
controls = start_page("rope")
view = controls.current("view")
configuring = view == "config"  # a model's config sets d_head, base and the scaling
PAGE_WIDE = ("d_head", "base", "positions")
# A page-wide change reruns the view shown alone (not the sidebar, the title or the link).
drawings = (f"rope/{view}",)
with st.sidebar:
    with controls.shown(not configuring):
        controls.stops("d_head", redraws=drawings)
        controls.stops("base", redraws=drawings)
        st.caption(t("rope.presets"))
        preset_help = {10000.0: t("rope.preset_10000"), 500000.0: t("rope.preset_500000")}
        preset_name = {10000.0: t("rope.preset_name_10000"),
                       500000.0: t("rope.preset_name_500000")}
        for value in BASE_PRESETS:
            st.button(preset_name[value], key=f"base_preset_{value:g}", help=preset_help[value],
                      on_click=set_base, args=(value,), width="stretch")
    # The extension view's lengths are its own, a config's are the config's.
    with controls.shown(view not in ("extension", "config")):
        controls.stops("positions", redraws=drawings)
# Page-wide (sidebar): d_head, base (and its presets) and positions, the RoPE that four views
# draw. Each view's own controls sit above its chart, in its fragment: layout, scaling and
# factor for the rotation and the relative logit; factor for the context extension; the model
# config (config, compare, factor, a pasted config.json) for the config view.
if not configuring:
    # `factor` means the scaling's factor here (default 4), a config's in the config view: its
    # value goes back to the default when the page moves between the two (ui/rope_config.py).
    factor_context(controls, active=False)


def scaling_row() -> tuple[str, str | None, int]:
    """The rotating views' own row: the frequency layout, the scaling method and its factor
    (made while no scaling is chosen too, out of sight, so that a link keeps it)."""
    layout_column, scaling_column, factor_column = controls.view_row(3)
    # One pair turns the same in either layout: the rotation view does not show the choice (kept,
    # hidden, in the URL and the link); the relative logit's columns follow it.
    with layout_column, controls.shown(controls.current("view") != "rotation", "layout"):
        layout = controls.choice("layout")
    with scaling_column:
        scaling = controls.choice("scaling")
    with factor_column, controls.shown(scaling != "none", "factor"):
        factor = controls.slider("factor", t("rope.factor"), help=t("rope.factor_help"))
    columns_text = {
        "interleaved": t("rope.columns_interleaved"),
        "half_split": t("rope.columns_half_split"),
    }
    scaling_arg = None if scaling == "none" else scaling
    scaling_text = (t("rope.scaling_text", method=method_names(lang)[scaling], factor=factor)
                    if scaling_arg else "")
    explain(t("rope.layout_text", layout=layout, columns=columns_text[layout],
              scaling=scaling_text))
    return layout, scaling_arg, factor


def rotation_settings(layout: str, scaling: str | None, factor: int) -> rope.RotationSettings:
    """The page's base with a view's layout, scaling and factor."""
    return rope.RotationSettings(base=controls.current("base"), layout=layout, scaling=scaling,
                                 factor=factor)


def setting_parts(layout: str, scaling: str | None, factor: int) -> list[str | None]:
    """Files name the setting: pe-rope-rotation_dhead128_pos512_interleaved (base and scaling
    only when used)."""
    d_head, base, positions = controls.values(*PAGE_WIDE)
    return [f"dhead{d_head}", f"pos{positions}", layout,
            None if base == DEFAULT_BASE else f"base{base:g}",
            f"{scaling}-x{factor}" if scaling else None]


explain(t("rope.intro"))
st.latex(
    r"\begin{pmatrix} x'_a \\ x'_b \end{pmatrix} = "
    r"\begin{pmatrix} \cos p\theta_i & -\sin p\theta_i \\ \sin p\theta_i & \cos p\theta_i"
    r"\end{pmatrix} \begin{pmatrix} x_a \\ x_b \end{pmatrix}, \qquad "
    r"(R_m q)\cdot(R_n k) = q \cdot (R_{n-m} k)"
)


@st.fragment(key="rope/rotation")
def rotation_section() -> None:
    """Three pairs (fast, middle, slowest), each turning with the position."""
    d_head, positions = controls.values("d_head", "positions")
    st.subheader(t("rope.rotation"))
    layout, scaling, factor = scaling_row()
    settings = rotation_settings(layout, scaling, factor)
    half = d_head // 2
    pairs = sorted({0, half // 2, half - 1})  # fast, middle, slowest
    names = {  # later keys win for small d
        half // 2: t("rope.pair_middle"), half - 1: t("rope.pair_slowest"),
        0: t("rope.pair_fast"),
    }
    shown, trajectories = cached_trajectories(tuple(pairs), positions, d_head, settings)
    theta = rope.rope_frequencies(d_head, settings=settings)
    turned = rope.rope_angles([positions - 1], d_head, settings=settings)[0]
    titles = [
        t("rope.pair_title", pair=i, name=names[i], theta=theta[i], turned=turned[i],
          last=positions - 1)
        for i in pairs
    ]
    show_chart(
        make_rope_rotation_figure(shown, trajectories, titles, lang=lang),
        key="rotation_chart",
        name=file_stem("rope-rotation", *setting_parts(layout, scaling, factor)),
    )
    drawn = "" if len(shown) == positions else t(
        "rope.rotation_drawn", shown=len(shown), positions=positions
    )
    explain(t("rope.rotation_caption", drawn=drawn), caption=True)


@st.fragment(key="rope/relative")
def relative_section() -> None:
    """The logit against m - n, from two places in the sequence: the same curve."""
    d_head, positions = controls.values("d_head", "positions")
    st.subheader(t("rope.relative"))
    layout, scaling, factor = scaling_row()
    first_anchor = positions - 1
    anchors = (float(first_anchor), float(first_anchor + SECOND_ANCHOR_SHIFT))
    offset_logits = cached_offset_logits(d_head, positions, anchors,
                                         rotation_settings(layout, scaling, factor))
    curves = {
        t("rope.query_at", m=first_anchor): offset_logits.logits[0],
        t("rope.query_at", m=first_anchor + SECOND_ANCHOR_SHIFT): offset_logits.logits[1],
    }
    show_chart(
        make_rope_logits_figure(offset_logits.offsets, curves, lang=lang),
        key="logits_chart",
        name=file_stem("rope-logits", *setting_parts(layout, scaling, factor), f"seed{SEED}"),
    )
    explain(
        t("rope.logits_caption", seed=SEED, shift=SECOND_ANCHOR_SHIFT,
          spread=offset_logits.spread),
        caption=True,
    )


@st.fragment(key="rope/decay")
def decay_section() -> None:
    """RoFormer's relative upper bound, for this base and the other preset."""
    d_head, base, positions = controls.values(*PAGE_WIDE)
    st.subheader(t("rope.decay"))
    other = 500000.0 if base != 500000.0 else 10000.0
    distances, bounds = cached_decay(positions, d_head, (base, other))
    st.latex(
        r"\left|\sum_{i} h_i\, e^{\mathrm i (m-n)\theta_i}\right| \le "
        r"\max_i |h_{i+1} - h_i| \sum_{j=1}^{d/2} |S_j|, \qquad h_i = q_{[i]} \bar k_{[i]}, "
        r"\quad S_j = \sum_{k=0}^{j-1} e^{\mathrm i (m-n)\theta_k}"
    )
    show_chart(
        make_rope_decay_figure(
            distances, {t("rope.decay_trace", base=b): v for b, v in bounds.items()}, lang=lang
        ),
        key="decay_chart",
        name=file_stem("rope-decay", f"dhead{d_head}", f"pos{positions}", f"base{base:g}",
                       f"base{other:g}"),
    )
    explain(t("rope.decay_caption"), caption=True)


@st.fragment(key="rope/extension")
def extension_section() -> None:
    """Which pairs turn further than in training, without scaling and with each method."""
    d_head, base = controls.values("d_head", "base")
    st.subheader(t("rope.extension"))
    # The factor in the third column of a row, as the rotating views and the config view have
    # it: the same block in every view (see config_row).
    length_column, _, factor_column = controls.view_row(3)
    with length_column:
        train_length = controls.stops("train_length")
    with factor_column, controls.shown(True, "factor"):
        factor = controls.slider("factor", t("rope.factor"), help=t("rope.factor_help"))
    extension = cached_extension(d_head, base, factor, train_length)
    show_chart(
        make_context_extension_figure(extension, lang=lang),
        key="extension_chart",
        name=file_stem("rope-extension", f"dhead{d_head}",
                       None if base == DEFAULT_BASE else f"base{base:g}",
                       f"train{extension.train_length}", f"x{factor}"),
    )
    counts = {m: int(b.sum()) for m, b in extension.beyond.items()}
    explain(
        t("rope.extension_caption", last_trained=extension.train_length - 1,
          last_target=extension.target_length - 1, none=counts["none"], factor=factor,
          interpolated=counts["position_interpolation"], ntk=counts["ntk_aware"],
          yarn=counts["yarn"], llama3=counts["llama3"], dynamic=counts["dynamic"],
          trained=extension.train_length, target=extension.target_length),
        caption=True,
    )


@st.fragment(key="rope/config")
def config_section() -> None:
    """A model's config, variants of it and others pinned beside it (up to four, on the same
    axes, side by side, or each minus a baseline): per pair wavelengths and bands, largest
    angles at the target length, the logit of a query with itself. Its own rows: the config,
    the one to compare, the paste box (and the head width of a paste without one) and the
    factor; the method and its rope_scaling fields; the overlay; the baseline."""
    st.subheader(t("rope-config.heading"))
    drawn, notices = workbench(controls)
    shown, problems = drawn_curves(drawn)
    for notice in (*notices, *problems):
        st.warning(markdown_text(notice), icon=":material/warning:")
    explain(t("rope-config.intro"))
    entries = [entry for entry, _ in shown]
    curves = [each for _, each in shown]
    colours = [entry.colour for entry in entries]
    st.table(coloured_table(config_table(curves), colours))
    arrange = controls.current("arrange")
    if len(curves) == 1 and arrange == "difference":
        st.info(t("rope-config.difference_needs_two"), icon=":material/info:")
    if len(curves) > 1 and arrange == "difference":
        difference_charts(shown)
    else:
        config_charts(entries, curves, overlay=len(curves) > 1 and arrange == "overlay")
    # Per pair, every config side by side: to copy, or download as CSV (the table's toolbar).
    # Built only while open (opening it reruns this view), as the Export menu's buttons are: a
    # folded table re-sent with every change of the view cost ~20-30 ms a change.
    pairs = st.expander(t("rope-config.pairs_heading"), icon=":material/table_rows:",
                        key="config_pairs", on_change="rerun")
    if pairs.open:
        with pairs:
            columns = pair_columns(curves, lang)
            st.dataframe(coloured_pairs(columns, curves, colours), hide_index=True)


def config_charts(entries: list[Drawn], curves: list, *, overlay: bool) -> None:
    """The three charts: every config on the same axes (`overlay`), or each in its own panel,
    two a row, every panel on the same y range."""
    colours = [entry.colour for entry in entries]
    charts = (  # each kind: its figure, and its caption overlaid and in panels
        ("wavelengths", make_overlay_wavelength_figure,
         t("rope-config.overlay_wavelengths_caption"), t("rope-config.wavelengths_caption")),
        ("angles", make_overlay_angle_figure,
         t("rope-config.overlay_angles_caption"), t("rope-config.angles_caption")),
        ("logits", make_overlay_logit_figure,
         t("rope-config.overlay_logits_caption"), t("rope-config.logits_caption")),
    )
    for kind, make, overlay_caption, caption in charts:
        if overlay:
            show_chart(make(curves, colours, lang=lang), key=f"config_{kind}_chart",
                       name=file_stem(f"rope-config-{kind}", *file_parts(entries)))
            explain(overlay_caption, caption=True)
            continue
        for row in range(0, len(curves), 2):
            pair = curves[row:row + 2]
            columns = st.columns(len(pair), gap="medium") if len(pair) > 1 else [st.container()]
            for index, column in enumerate(columns, start=row):
                with column:
                    show_chart(
                        make(curves, colours, lang=lang, panel=index),
                        key=f"{PANEL_KEYS[index]}_{kind}_chart",
                        name=file_stem(f"rope-config-{kind}", *file_parts([entries[index]])),
                    )
        explain(caption, caption=True)


def difference_charts(shown: list) -> None:
    """Each config minus the baseline: per pair (log2 of the scaled wavelengths' ratio: configs
    of another head width have no pair to compare, said) and over distance (the self-logit)."""
    entries = [entry for entry, _ in shown]
    curves = [each for _, each in shown]
    colours = [entry.colour for entry in entries]
    roles = [entry.role for entry in entries]
    chosen = controls.current("baseline")
    baseline = roles.index(chosen) if chosen in roles else 0
    differences = differences_from(shown, baseline)
    others = [entry for index, entry in enumerate(entries) if index != baseline]
    unpaired = [entry.label for entry, difference in zip(entries, differences, strict=True)
                if difference.log2_wavelength_ratio is None]
    if unpaired:
        st.info(t("rope-config.difference_unpaired", labels=markdown_text(", ".join(unpaired)),
                  d_head=curves[baseline].d_head), icon=":material/info:")
    paired = [entry for entry in others if entry.label not in unpaired]
    show_chart(make_difference_wavelength_figure(curves, differences, colours, baseline,
                                                 lang=lang),
               key="difference_wavelengths_chart",
               name=file_stem("rope-config-difference-wavelengths",
                              *file_parts(paired, minus=entries[baseline])))
    explain(t("rope-config.difference_wavelengths_caption"), caption=True)
    show_chart(make_difference_logit_figure(curves, differences, colours, baseline, lang=lang),
               key="difference_logits_chart",
               name=file_stem("rope-config-difference-logits",
                              *file_parts(others, minus=entries[baseline])))
    explain(t("rope-config.difference_logits_caption"), caption=True)


# One section at a time (in the URL as `view`): a change redraws only what is on screen.
controls.sections(
    {"rotation": rotation_section, "relative": relative_section, "decay": decay_section,
     "extension": extension_section, "config": config_section},
)
