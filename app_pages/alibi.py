"""ALiBi: one slope per head, a linear penalty on distance, no position vectors at all."""

import streamlit as st

from core import alibi
from core.figures.alibi import (
    make_alibi_bias_grid_figure,
    make_alibi_head_figure,
    make_alibi_reach_figure,
    make_alibi_slopes_figure,
)
from core.page_params import PAGE_PARAMS
from ui.controls import PageControls

# Cells sent to the browser: all small multiples together, and the large head.
GRID_CELLS = 80_000  # e.g. 64 heads x 35 x 35, or 8 heads x 64 x 64
GRID_SIDE = 64
LARGE_SIDE = 256


@st.cache_data(max_entries=16, show_spinner=False)
def cached_overview(num_heads: int, positions: int, causal: bool, max_side: int):
    return alibi.alibi_bias_overview(num_heads, positions, causal=causal, max_side=max_side)


@st.cache_data(max_entries=16, show_spinner=False)
def cached_reach(num_heads: int, positions: int):
    return alibi.alibi_attention_reach(num_heads, positions)


st.title("ALiBi: attention with linear biases")
controls = PageControls("alibi", PAGE_PARAMS["alibi"])
with st.sidebar:
    num_heads = controls.number("num_heads", "num_heads", help="Attention heads: 1 to 64.")
    positions = controls.number("positions", "positions", help="Sequence length: 1 to 2048.")
    causal = controls.toggle("causal", "causal (mask the future)",
                             help="On: a decoder, keys after the query are masked. "
                             "Off: the symmetric bias −m·|i − j|.")
    head = controls.number("head", "head to enlarge", help="Numbered from 1, as in the paper.")
if head > num_heads:
    st.info(f"head {head} does not exist with {num_heads} heads: showing head {num_heads}.")
    head = num_heads

st.markdown(
    "ALiBi (Press, Smith and Lewis, ICLR 2022; used by BLOOM and MPT) adds **no position vector** "
    "to the input. Each head $h$ subtracts a penalty proportional to the distance from its "
    "attention logits, with its own slope $m_h$:"
)
st.latex(
    r"\mathrm{softmax}\big(q_i k_j^\top - m_h\,(i - j)\big),\ j \le i, \qquad "
    r"m_h = 2^{-8h/n}\ (h = 1..n,\ n \text{ a power of two})"
)

st.subheader("Slopes")
reach = cached_reach(num_heads, positions)
left, right = st.columns(2, gap="large")
with left:
    st.dataframe(
        {
            "head": list(range(1, num_heads + 1)),
            "slope m": [f"{m:.6g}" for m in reach.slopes],
            "1/m": [f"{1 / m:.4g}" for m in reach.slopes],
            "mean distance": [f"{d:.1f}" for d in reach.mean_distance],
        },
        hide_index=True,
        height=min(36 * (num_heads + 1) + 4, 400),
    )
    st.caption(
        "1/m: the distance at which the bias reaches −1. Mean distance: how far back the last "
        f"of {positions} queries looks on average when all raw scores are equal (below)."
    )
    st.caption(
        "For head counts that are not a power of two, the paper's reference code (`get_slopes`) "
        "takes the slopes of the closest lower power of two, then every other slope of the next "
        "one; so the list is no longer sorted."
    )
with right:
    st.plotly_chart(make_alibi_slopes_figure(reach.slopes), key="slopes_chart")

st.subheader("The bias of every head")
grid_side = min(GRID_SIDE, int((GRID_CELLS / num_heads) ** 0.5))
grid = cached_overview(num_heads, positions, causal, grid_side)
st.plotly_chart(
    make_alibi_bias_grid_figure(grid, reach.slopes, highlight=head - 1), key="bias_grid_chart"
)
large = cached_overview(num_heads, positions, causal, LARGE_SIDE)
st.plotly_chart(
    make_alibi_head_figure(large, head - 1, float(reach.slopes[head - 1])), key="head_chart"
)
st.caption(
    ("Above the diagonal the future is masked (blank). " if causal else "")
    + "Every row is the same line shifted: the penalty depends only on the distance i − j. "
    + ("Every cell is one entry." if large.exact else "Cells are block means of the entries.")
)

st.subheader("What the bias does to attention")
st.plotly_chart(make_alibi_reach_figure(reach), key="reach_chart")
st.caption(
    f"The last query of {positions} tokens, with every raw score q·k equal: the softmax weight of "
    "the key d positions back is $e^{-m_h d} / \\sum_{d'} e^{-m_h d'}$. Steep heads look at the "
    "last few tokens only; shallow heads spread their attention far back "
    f"(mean distance {reach.mean_distance.min():.1f} to {reach.mean_distance.max():.1f})."
)

controls.finish()
