"""RoPE: the sinusoid's (sin, cos) pairs as a rotation of queries and keys."""

import streamlit as st

from core import rope
from core.figures.rope import (
    METHOD_NAMES,
    make_context_extension_figure,
    make_rope_decay_figure,
    make_rope_logits_figure,
    make_rope_rotation_figure,
)
from core.page_params import PAGE_PARAMS
from ui.controls import PageControls

BASE_PRESETS = {"10000 (RoFormer, LLaMA 1-2)": 10000.0, "500000 (LLaMA 3)": 500000.0}
SECOND_ANCHOR_SHIFT = 1000  # the second query sits this many positions further on
SEED = 0  # the fixed random query and key


@st.cache_data(max_entries=16, show_spinner=False)
def cached_trajectories(pairs, positions, d_head, base, layout, scaling, factor):
    shown = rope.sample_positions(positions)  # every drawn point is exact; at most 1024 of them
    return shown, [
        rope.rope_pair_trajectory(
            pair, shown, d_head, base=base, layout=layout, scaling=scaling, factor=factor
        )
        for pair in pairs
    ]


@st.cache_data(max_entries=16, show_spinner=False)
def cached_offset_logits(d_head, positions, anchors, base, layout, scaling, factor):
    return rope.rope_offset_logits(
        d_head, positions, anchors, seed=SEED, base=base, layout=layout, scaling=scaling,
        factor=factor,
    )


@st.cache_data(max_entries=16, show_spinner=False)
def cached_decay(positions, d_head, bases):
    distances = list(range(positions))
    return distances, {b: rope.rope_decay_bound(distances, d_head, base=b) for b in bases}


@st.cache_data(max_entries=16, show_spinner=False)
def cached_extension(d_head, base, factor):
    train = rope.DEFAULT_TRAIN_LENGTH
    return rope.rope_context_extension(d_head, train, train * factor, base=base, factor=factor)


def set_base(value: float) -> None:
    st.session_state["base"] = value


st.title("RoPE: rotary position embeddings")
controls = PageControls("rope", PAGE_PARAMS["rope"])
with st.sidebar:
    d_head = controls.number("d_head", "d_head (even)", help="Width of one attention head: 2 to "
                             "1024. LLaMA uses 128.")
    base = controls.number("base", "base", fmt="%g", help="RoFormer and LLaMA 1-2 use 10000, "
                           "LLaMA 3 uses 500000. Must be > 1.")
    preset_columns = st.columns(len(BASE_PRESETS))
    for column, (label, value) in zip(preset_columns, BASE_PRESETS.items(), strict=True):
        column.button(label.split()[0], key=f"base_preset_{value:g}", help=label,
                      on_click=set_base, args=(value,), width="stretch")
    layout = controls.choice(
        "layout", "layout",
        help="interleaved: pairs (2i, 2i+1), RoFormer and GPT-J; half_split: pairs (i, i + d/2), "
        "GPT-NeoX and Hugging Face's LLaMA (rotate_half). Same angles, other columns.",
    )
    positions = controls.number("positions", "positions",
                                help="Positions shown in the rotation, offsets and distances.")
    scaling = controls.choice(
        "scaling", "scaling",
        help="Context extension: position_interpolation divides positions by the factor; "
        "ntk_aware multiplies the base by factor^(d/(d-2)).",
    )
    factor = controls.number("factor", "factor s", help="Context-extension factor, 1 to 64.")
scaling_arg = None if scaling == "none" else scaling

st.markdown(
    "The sinusoid pages add $PE[p]$ to the input. RoFormer (Su et al. 2021) instead **rotates** "
    "each pair of a query or key by its position times the pair's frequency, with the very same "
    "frequencies $\\theta_i = \\mathrm{base}^{-2i/d}$ (the sinusoid's $\\omega_i$ with "
    "$d_{model} = d_{head}$):"
)
st.latex(
    r"\begin{pmatrix} x'_a \\ x'_b \end{pmatrix} = "
    r"\begin{pmatrix} \cos p\theta_i & -\sin p\theta_i \\ \sin p\theta_i & \cos p\theta_i"
    r"\end{pmatrix} \begin{pmatrix} x_a \\ x_b \end{pmatrix}, \qquad "
    r"(R_m q)\cdot(R_n k) = q \cdot (R_{n-m} k)"
)
st.markdown(
    f"**{layout}** layout: pair $i$ is columns "
    + ("$(2i, 2i+1)$ (RoFormer, GPT-J)." if layout == "interleaved" else
       "$(i, i + d/2)$, i.e. Hugging Face's `q * cos + rotate_half(q) * sin` "
       "with `emb = cat(freqs, freqs)` (GPT-NeoX, LLaMA).")
    + (f" Scaling: **{METHOD_NAMES[scaling]}** ×{factor}." if scaling_arg else "")
)

st.subheader("One pair, turning with the position")
half = d_head // 2
pairs = sorted({0, half // 2, half - 1})  # fast, middle, slowest
names = {half // 2: "middle", half - 1: "slowest", 0: "fast"}  # later keys win for small d
shown, trajectories = cached_trajectories(
    tuple(pairs), positions, d_head, base, layout, scaling_arg, factor
)
theta = rope.rope_frequencies(d_head, base=base, scaling=scaling_arg, factor=factor)
turned = rope.rope_angles([positions - 1], d_head, base=base, scaling=scaling_arg,
                          factor=factor)[0]
titles = [
    f"pair {i} ({names[i]})<br>θ = {theta[i]:.3g}: {turned[i]:.3g} rad by p = {positions - 1}"
    for i in pairs
]
st.plotly_chart(make_rope_rotation_figure(shown, trajectories, titles), key="rotation_chart")
drawn = "" if len(shown) == positions else f", {len(shown)} of {positions} positions drawn"
st.caption(
    f"The unit vector on the pair's first column, rotated to each position p (points coloured "
    f"by p{drawn}; grey arrow p = 0, red arrow the last). Its coordinates are $(\\cos p\\theta_i, "
    "\\sin p\\theta_i)$: **the same (sin, cos) pair $i$ as the sinusoid pages' $PE[p]$** with "
    "$d_{model} = d_{head}$. The fast pair wraps around many times; the slowest barely moves."
)

st.subheader("Relative position without adding anything to the input")
first_anchor = positions - 1
anchors = (float(first_anchor), float(first_anchor + SECOND_ANCHOR_SHIFT))
offset_logits = cached_offset_logits(
    d_head, positions, anchors, base, layout, scaling_arg, factor
)
curves = {
    f"query at m = {first_anchor}": offset_logits.logits[0],
    f"query at m = {first_anchor + SECOND_ANCHOR_SHIFT}": offset_logits.logits[1],
}
st.plotly_chart(make_rope_logits_figure(offset_logits.offsets, curves), key="logits_chart")
st.caption(
    f"A fixed random query and key (numpy seed {SEED}), rotated to m and n = m − offset. The two "
    f"curves, {SECOND_ANCHOR_SHIFT} positions apart, coincide (largest difference "
    f"{offset_logits.spread:.1e}): the logit depends on m − n only, because the rotations by m "
    "and n combine into one rotation by n − m."
)

st.subheader("Long-term decay")
other = 500000.0 if base != 500000.0 else 10000.0
distances, bounds = cached_decay(positions, d_head, (base, other))
st.latex(
    r"\left|\sum_{i} h_i\, e^{\mathrm i (m-n)\theta_i}\right| \le "
    r"\max_i |h_{i+1} - h_i| \sum_{j=1}^{d/2} |S_j|, \qquad h_i = q_{[i]} \bar k_{[i]}, \quad "
    r"S_j = \sum_{k=0}^{j-1} e^{\mathrm i (m-n)\theta_k}"
)
st.plotly_chart(
    make_rope_decay_figure(distances, {f"base {b:g}": v for b, v in bounds.items()}),
    key="decay_chart",
)
st.caption(
    "RoFormer §3.4.3: the relative upper bound $\\frac{1}{d/2}\\sum_j |S_j|$ of the logit "
    "shrinks as the distance grows, so far-apart tokens interact less. A larger base slows every "
    "pair down, so the decay sets in later."
)

st.subheader("Context extension")
extension = cached_extension(d_head, base, factor)
st.plotly_chart(make_context_extension_figure(extension), key="extension_chart")
counts = {m: int(b.sum()) for m, b in extension.beyond.items()}
st.caption(
    f"Trained on positions 0 to {extension.train_length - 1} (LLaMA 1), used up to "
    f"{extension.target_length - 1}. A pair whose trained angle stayed below 2π never completed a "
    f"turn, so larger angles are new to the model: {counts['none']} pairs without scaling. "
    f"Position interpolation (Chen et al. 2023) divides positions by {factor}: "
    f"{counts['position_interpolation']} pairs beyond, at the price of crowding the fast pairs. "
    f"NTK-aware scaling keeps the fast pairs and slows the slow ones: "
    f"{counts['ntk_aware']} pairs still a little beyond."
)

controls.finish()
