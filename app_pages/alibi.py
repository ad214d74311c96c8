"""ALiBi: one slope per head, a linear penalty on distance, no position vectors at all."""

import streamlit as st

from core import alibi, limits
from figures.alibi import (
    make_alibi_bias_grid_figure,
    make_alibi_head_figure,
    make_alibi_reach_figure,
    make_alibi_slopes_figure,
)
from ui.cache import MB, bounded_cache
from ui.charts import file_stem, show_chart
from ui.controls import start_page
from ui.i18n import current_language, t
from ui.text import explain

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


lang = current_language()
controls = start_page("alibi")
view = controls.current("view")
with st.sidebar:
    num_heads = controls.slider("num_heads")
    positions = controls.stops("positions")
    with controls.shown(view in ("heads", "head")):  # the bias matrices only
        causal = controls.toggle("causal")
        head = controls.slider("head")
if head > num_heads and view in ("heads", "head"):
    st.info(t("alibi.no_such_head", head=head, num_heads=num_heads))
    head = num_heads
# Files name the setting: pe-alibi-bias_heads8_pos256_causal.
setting = [f"heads{num_heads}", f"pos{positions}", "causal" if causal else "symmetric"]

explain(t("alibi.intro"))
st.latex(
    r"\mathrm{softmax}\big(q_i k_j^\top - m_h\,(i - j)\big),\ j \le i, \qquad "
    r"m_h = 2^{-8h/n}\ (h = 1..n,\ n \text{ a power of two})"
)


def slopes_section() -> None:
    """The slopes as a table (with each head's reach) and as a chart."""
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


def bias_caption(exact: bool) -> None:
    explain(
        t("alibi.bias_caption", masked=t("alibi.bias_masked") if causal else "",
          cells=t("alibi.bias_exact") if exact else t("alibi.bias_blocks")),
        caption=True,
    )


def heads_section() -> None:
    """Every head's bias as small multiples on one scale, the enlarged head outlined."""
    st.subheader(t("alibi.every_head"))
    slopes = cached_reach(num_heads, positions).slopes
    grid_side = min(GRID_SIDE, int((GRID_CELLS / num_heads) ** 0.5))
    grid = cached_overview(num_heads, positions, causal, grid_side)
    show_chart(
        make_alibi_bias_grid_figure(grid, slopes, highlight=head - 1, lang=lang),
        key="bias_grid_chart",
        name=file_stem("alibi-bias", *setting),
    )
    bias_caption(grid.exact)


def head_section() -> None:
    """One head's bias, large."""
    st.subheader(t("alibi.one_head"))
    slopes = cached_reach(num_heads, positions).slopes
    large = cached_overview(num_heads, positions, causal, LARGE_SIDE)
    show_chart(
        make_alibi_head_figure(large, head - 1, float(slopes[head - 1]), lang=lang),
        key="head_chart",
        name=file_stem("alibi-head", f"head{head}", *setting),
    )
    bias_caption(large.exact)


def reach_section() -> None:
    """How far back each head attends from the bias alone."""
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


# One section at a time (in the URL as `view`): a change redraws only what is on screen.
controls.sections(
    {"slopes": slopes_section, "heads": heads_section, "head": head_section,
     "reach": reach_section},
)
