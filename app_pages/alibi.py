"""ALiBi: one slope per head, a linear penalty on distance, no position vectors at all."""

import streamlit as st

from core import alibi, bias_curves, limits
from figures.alibi import (
    add_alibi_head_states,
    add_bias_grid_head_states,
    make_alibi_bias_grid_figure,
    make_alibi_head_figure,
    make_alibi_reach_figure,
    make_alibi_slopes_figure,
)
from figures.relative_bias import (
    make_t5_buckets_figure,
    make_t5_matrix_figure,
    make_xpos_figure,
)
from server.cache import MB, bounded_cache
from ui.charts import file_stem, show_chart
from ui.controls import start_page
from ui.i18n import current_language, t
from ui.text import explain, on_slide

# Cells sent to the browser: all small multiples together, and the large head.
GRID_CELLS = 80_000  # e.g. 64 heads x 35 x 35, or 8 heads x 64 x 64
GRID_SIDE = 64
LARGE_SIDE = 256


@bounded_cache(max_entries=16, max_bytes=17 * MB,
               worst_case=[(limits.MAX_HEADS, limits.MAX_ALIBI_POSITIONS, False, 256)])
def cached_overview(num_heads: int, positions: int, causal: bool, max_side: int):
    return alibi.alibi_bias_overview(num_heads, positions, causal=causal, max_side=max_side)


@bounded_cache(max_entries=16, max_bytes=8 * MB,
               worst_case=[(limits.MAX_HEADS, limits.MAX_ALIBI_POSITIONS)])
def cached_reach(num_heads: int, positions: int):
    return alibi.alibi_attention_reach(num_heads, positions)


# T5's buckets: two int16 rows of 4095 distances at most (16 KB); xPos: four 2048-point curves.
@bounded_cache(max_entries=8, max_bytes=MB // 4,
               worst_case=[(limits.MAX_ALIBI_POSITIONS, 128, limits.MAX_ALIBI_POSITIONS)])
def cached_t5_buckets(reach: int, num_buckets: int, max_distance: int):
    return bias_curves.t5_buckets(reach, num_buckets=num_buckets, max_distance=max_distance)


@bounded_cache(max_entries=8, max_bytes=MB // 2,
               worst_case=[(limits.MAX_ALIBI_POSITIONS, 256, 0.4, 512)])
def cached_xpos_decay(reach: int, d_head: int, gamma: float, scale_base: int):
    return bias_curves.xpos_decay(reach, d_head, gamma=gamma, scale_base=scale_base)


lang = current_language()
controls = start_page("alibi")
view = controls.current("view")
# A page-wide change reruns the view shown alone (not the sidebar, the title or the link).
drawings = (f"alibi/{view}",)
with st.sidebar:
    # Shown in the views they change: T5's buckets and xPos's decay have no ALiBi heads, and
    # the slopes are the same at any length (the table's mean distance reads it all the same).
    with controls.shown(view not in ("t5", "xpos")):
        controls.slider("num_heads", redraws=drawings)
    with controls.shown(view != "slopes"):
        controls.stops("positions", redraws=drawings)
# Page-wide (sidebar): num_heads and positions, which the views draw. Each view's own
# controls (causal and head for the bias matrices, T5's and xPos's settings) sit above its
# chart, in its fragment: a change there reruns that view alone.


def bias_controls() -> tuple[bool, int]:
    """The bias matrices' own row: causal, and the head to enlarge (said when past num_heads)."""
    # Three columns, as T5's row: causal stays in the same block in every view that has it (a
    # bound widget that moves to another block no longer reaches the address bar).
    num_heads = controls.current("num_heads")
    causal_column, head_column, _ = controls.view_row(3)
    with causal_column:
        causal = controls.toggle("causal")
    with head_column:
        # The track spans the heads there are: a drag previews a head at every point of it.
        head = controls.slider("head", maximum=num_heads)
    if head > num_heads:
        st.info(t("alibi.no_such_head", head=head, num_heads=num_heads))
        head = num_heads
    return causal, head


def setting(causal: bool) -> list[str]:
    """Files name the setting: pe-alibi-bias_heads8_pos256_causal."""
    num_heads, positions = controls.values("num_heads", "positions")
    return [f"heads{num_heads}", f"pos{positions}", "causal" if causal else "symmetric"]

# The formula of the scheme on screen (T5's and xPos's views introduce theirs below), in one
# block whatever it holds: the view's fragment below keeps its place (a fragment that moves
# between views stops updating the address bar for its controls, docs/design.md).
with st.container():
    if view == "t5":
        st.latex(r"\mathrm{softmax}\big(q_i k_j^\top + b_h[\mathrm{bucket}(j - i)]\big)")
    elif view == "xpos":
        st.latex(r"\tilde q_n \cdot \tilde k_m = \sum_i \zeta_i^{(n-m)/B}\,"
                 r"\big(q^{(i)} R_{(n-m)\theta_i} \cdot k^{(i)}\big), \qquad "
                 r"\zeta_i = \frac{2i/d + \gamma}{1 + \gamma}")
    else:
        explain(t("alibi.intro"))
        st.latex(
            r"\mathrm{softmax}\big(q_i k_j^\top - m_h\,(i - j)\big),\ j \le i, \qquad "
            r"m_h = 2^{-8h/n}\ (h = 1..n,\ n \text{ " + t("alibi.power_of_two") + "})"
        )


@st.fragment(key="alibi/slopes")
def slopes_section() -> None:
    """The slopes as a table (with each head's reach) and as a chart."""
    num_heads, positions = controls.values("num_heads", "positions")
    st.subheader(t("alibi.slopes"))
    reach = cached_reach(num_heads, positions)
    left, right = st.columns(2, gap="large")
    with left:
        st.dataframe(
            {
                t("alibi.column_head"): list(range(1, num_heads + 1)),
                t("alibi.column_slope"): [f"{m:.6g}" for m in reach.slopes],
                t("alibi.column_inverse"): [f"{1 / m:.4g}" for m in reach.slopes],
                t("alibi.column_mean_distance"): [f"{d:.1f}" for d in reach.mean_distance],
            },
            hide_index=True,
            height=min(36 * (num_heads + 1) + 4, 400),
        )
        explain(t("alibi.table_caption", positions=positions), caption=True)
        explain(t("alibi.power_of_two_caption"), caption=True)
    with right:
        show_chart(
            make_alibi_slopes_figure(reach.slopes, lang=lang),
            key="slopes_chart",
            name=file_stem("alibi-slopes", f"heads{num_heads}"),
        )


def bias_caption(exact: bool, causal: bool) -> None:
    explain(
        t("alibi.bias_caption", masked=t("alibi.bias_masked") if causal else "",
          cells=t("alibi.bias_exact") if exact else t("alibi.bias_blocks")),
        caption=True,
    )


@st.fragment(key="alibi/heads")
def heads_section() -> None:
    """Every head's bias as small multiples on one scale, the enlarged head outlined."""
    num_heads, positions = controls.values("num_heads", "positions")
    st.subheader(t("alibi.every_head"))
    causal, head = bias_controls()
    slopes = cached_reach(num_heads, positions).slopes
    grid_side = min(GRID_SIDE, int((GRID_CELLS / num_heads) ** 0.5))
    grid = cached_overview(num_heads, positions, causal, grid_side)
    # A slide's wide window holds two rows of squares better than one thin row.
    figure = make_alibi_bias_grid_figure(grid, slopes, highlight=head - 1, lang=lang,
                                         columns=min(8, max(4, -(-num_heads // 2)))
                                         if on_slide() else 8)
    show_chart(
        add_bias_grid_head_states(figure, num_heads),  # the outline follows a dragged head
        key="bias_grid_chart",
        name=file_stem("alibi-bias", *setting(causal)),
    )
    bias_caption(grid.exact, causal)


@st.fragment(key="alibi/head")
def head_section() -> None:
    """One head's bias, large."""
    num_heads, positions = controls.values("num_heads", "positions")
    st.subheader(t("alibi.one_head"))
    causal, head = bias_controls()
    slopes = cached_reach(num_heads, positions).slopes
    large = cached_overview(num_heads, positions, causal, LARGE_SIDE)
    figure = make_alibi_head_figure(large, head - 1, slopes, lang=lang)
    show_chart(
        add_alibi_head_states(figure, head - 1, slopes, lang=lang),  # follows a dragged head
        key="head_chart",
        name=file_stem("alibi-head", f"head{head}", *setting(causal)),
    )
    bias_caption(large.exact, causal)


@st.fragment(key="alibi/reach")
def reach_section() -> None:
    """How far back each head attends from the bias alone."""
    num_heads, positions = controls.values("num_heads", "positions")
    st.subheader(t("alibi.attention"))
    reach = cached_reach(num_heads, positions)
    show_chart(
        make_alibi_reach_figure(reach, lang=lang),
        key="reach_chart",
        name=file_stem("alibi-reach", f"heads{num_heads}", f"pos{positions}"),
    )
    explain(
        t("alibi.reach_caption", positions=positions, low=reach.mean_distance.min(),
          high=reach.mean_distance.max()),
        caption=True,
    )


@st.fragment(key="alibi/t5")
def t5_section() -> None:
    """T5's buckets against distance (encoder and decoder) and the (query, key) bucket matrix:
    its own controls above the charts, one fragment (a change reruns this view alone)."""
    positions = controls.current("positions")
    st.subheader(t("alibi.t5"))
    # causal where the bias matrices' views have it (the row's first column, the row after the
    # heading): a bound widget that moves to another block between views no longer reaches the
    # address bar (docs/design.md).
    causal_column, buckets_column, distance_column = controls.view_row(3)
    with causal_column:  # the matrix below: the decoder's or the encoder's
        causal = controls.toggle("causal")
    with buckets_column:
        num_buckets = controls.number("num_buckets")
    with distance_column:
        max_distance = controls.stops("max_distance")
    explain(t("alibi.t5_intro"))
    half = num_buckets // 2
    shown = max_distance
    if max_distance <= half:  # the log-spaced buckets would start past their end
        shown = half + 1
        st.info(t("alibi.max_distance_small", max_distance=max_distance, half=half,
                  shown=shown), icon=":material/info:")
    reach = max(positions - 1, 1)
    buckets = cached_t5_buckets(reach, num_buckets, shown)
    show_chart(
        make_t5_buckets_figure(buckets, lang=lang),
        key="t5_buckets_chart",
        name=file_stem("t5-buckets", f"buckets{num_buckets}", f"maxdist{shown}",
                       f"pos{positions}"),
    )
    st.subheader(t("alibi.t5_matrix"))
    side = min(positions, bias_curves.MAX_BUCKET_MATRIX)
    show_chart(
        make_t5_matrix_figure(bias_curves.t5_bucket_matrix(buckets, side, bidirectional=not causal),
                              bidirectional=not causal, lang=lang),
        key="t5_matrix_chart",
        name=file_stem("t5-bucket-matrix", f"buckets{num_buckets}", f"maxdist{shown}",
                       f"pos{side}", "causal" if causal else "symmetric"),
    )
    explain(t("alibi.t5_matrix_caption", buckets=num_buckets, positions=side), caption=True)


@st.fragment(key="alibi/xpos")
def xpos_section() -> None:
    """xPos's q.k against distance beside RoPE's, with its own controls above the chart."""
    positions = controls.current("positions")
    st.subheader(t("alibi.xpos"))
    explain(t("alibi.xpos_intro"))
    gamma_column, base_column, head_column = controls.view_row(3)
    with gamma_column:
        gamma = controls.number("gamma", fmt="%g")
    with base_column:
        scale_base = controls.stops("scale_base")
    with head_column:
        d_head = controls.stops("d_head")
    reach = max(positions - 1, 1)
    decay = cached_xpos_decay(reach, d_head, gamma, scale_base)
    show_chart(
        make_xpos_figure(decay, d_head=d_head, gamma=gamma, scale_base=scale_base, lang=lang),
        key="xpos_chart",
        name=file_stem("xpos-decay", f"dhead{d_head}", f"gamma{gamma:g}",
                       f"base{scale_base}", f"pos{positions}"),
    )
    explain(t("alibi.xpos_caption", distance=reach, envelope=float(decay.envelope[-1])),
            caption=True)


# One section at a time (in the URL as `view`): a change redraws only what is on screen.
controls.sections(
    {"slopes": slopes_section, "heads": heads_section, "head": head_section,
     "reach": reach_section, "t5": t5_section, "xpos": xpos_section},
)
