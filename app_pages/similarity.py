"""Distance and dot product: PE·PE depends only on the offset; a shift by k is a rotation."""

import numpy as np
import streamlit as st

import core
from core import similarity
from core.figures.similarity import (
    make_anchor_profile_figure,
    make_distance_figure,
    make_offset_scatter_figure,
    make_rotation_figure,
    make_shift_matrix_figure,
    make_similarity_matrix_figure,
)
from core.page_params import PAGE_PARAMS
from ui.controls import PageControls

SAMPLE_PAIRS = 2000  # points per scatter: enough to show the curve, light for the browser
SHIFT_WINDOW = 32  # dimensions of M_k drawn: 16 rotation blocks are readable, 512 are not
MATRIX_SIDE = 200  # cells per side of PE.PE^T sent to the browser (~3 px each in its column)
ANCHOR_ZOOM = 50  # positions either side of the anchor in the zoom
METRIC_NAME = {"dot": "dot product", "cosine": "cosine similarity"}


@st.cache_data(max_entries=4, show_spinner=False)
def cached_table(positions: int, d_model: int, base: float) -> np.ndarray:
    return core.sinusoidal_encoding(positions, d_model, base=base)


@st.cache_data(max_entries=4, show_spinner=False)
def cached_random_table(positions: int, d_model: int) -> np.ndarray:
    return similarity.random_table(positions, d_model, seed=0)


@st.cache_data(max_entries=8, show_spinner="Comparing all pairs of positions…")
def cached_pairwise(positions: int, d_model: int, base: float, metric: str, random: bool):
    table = cached_random_table(positions, d_model) if random else cached_table(
        positions, d_model, base
    )
    return similarity.pairwise_similarity(
        table, metric=metric, max_rows=MATRIX_SIDE, max_cols=MATRIX_SIDE
    )


@st.cache_data(max_entries=8, show_spinner=False)
def cached_sample(positions: int, d_model: int, base: float, metric: str, random: bool):
    table = cached_random_table(positions, d_model) if random else cached_table(
        positions, d_model, base
    )
    return similarity.pair_sample(table, count=SAMPLE_PAIRS, seed=1, metric=metric)


@st.cache_data(max_entries=8, show_spinner=False)
def cached_offset_curves(positions: int, d_model: int, base: float, metric: str):
    return similarity.offset_curves(positions, d_model, base=base, metric=metric)


@st.cache_data(max_entries=8, show_spinner=False)
def cached_profile(positions: int, d_model: int, base: float, anchor: int, metric: str):
    return similarity.anchor_profile(cached_table(positions, d_model, base), anchor, metric=metric)


@st.cache_data(max_entries=8, show_spinner=False)
def cached_shift(positions: int, d_model: int, base: float, offset: int):
    return similarity.shift_residuals(cached_table(positions, d_model, base), offset, base=base)


st.title("Distance and dot product")
controls = PageControls("similarity", PAGE_PARAMS["similarity"])
with st.sidebar:
    d_model = controls.number("d_model", "d_model (even)", help="2 to 1024 (PE·PEᵀ is n² x d).")
    positions = controls.number("positions", "positions", help="2 to 4096.")
    base = controls.number("base", "base", fmt="%g", help="The paper uses 10000. Must be > 1.")
    metric = controls.choice(
        "metric", "similarity", help="dot: PE[p]·PE[q]; cosine: the same over |PE[p]| |PE[q]|."
    )
    anchor = controls.number("anchor", "anchor position", help="The position compared to all.")
    offset = controls.number("offset", "offset k", help="The shift k of PE[p + k] = M_k PE[p].")
    pair = controls.number("pair", "frequency pair i", help="The pair drawn as a rotating vector.")
if anchor >= positions:
    st.info(f"anchor {anchor} is past the last position ({positions - 1}): using {positions - 1}.")
    anchor = positions - 1
if abs(offset) >= positions:
    k = int(np.sign(offset)) * (positions - 1)
    st.info(f"offset {offset} is longer than the table allows: using {k}.")
    offset = k
if pair >= d_model // 2:
    st.info(f"pair {pair} does not exist for d_model = {d_model}: using {d_model // 2 - 1}.")
    pair = d_model // 2 - 1

label = "PE_p \\cdot PE_q" if metric == "dot" else "\\cos(PE_p, PE_q)"
st.markdown(
    f"**{positions} positions x {d_model} dimensions**, base {base:g}. Source 004 says the dot "
    "product of two position vectors depends only on how far apart they are, not where they "
    "are, and cannot tell before from after. Each $(\\sin, \\cos)$ pair contributes "
    "$\\sin a \\sin b + \\cos a \\cos b = \\cos(a - b)$:"
)
st.latex(
    r"PE_p \cdot PE_{p+k} = \sum_{i=0}^{d/2-1} \cos(\omega_i k), \qquad "
    r"\cos(PE_p, PE_{p+k}) = \frac{2}{d}\sum_{i} \cos(\omega_i k)"
)
st.caption("The cosine is the dot product over |PE_p| |PE_q| = d/2: every row has length √(d/2).")


# --- the similarity matrix -------------------------------------------------------------------
def matrix_section() -> None:
    """PE.PE^T: constant along diagonals, against a random table."""
    sinusoid_pairs = cached_pairwise(positions, d_model, base, metric, False)
    random_pairs = cached_pairwise(positions, d_model, base, metric, True)
    left, right = st.columns([3, 2], gap="large")
    with left:
        st.plotly_chart(
            make_similarity_matrix_figure(sinusoid_pairs, metric=metric, d_model=d_model),
            key="matrix_chart",
        )
    with right:
        st.subheader("Toeplitz: constant along diagonals")
        st.markdown(
            f"Entry $(p, q)$ of the matrix is ${label}$, a function of $q - p$ only, so every "
            "diagonal holds one value. Over all "
            f"{positions}² = {positions**2:,} pairs, the largest difference between two entries of "
            f"the same diagonal is **{sinusoid_pairs.spread:.2e}** (float32 rounding). "
            "For a random "
            f"table of the same shape it is **{random_pairs.spread:.3g}**."
        )
        if not sinusoid_pairs.overview.exact:
            st.caption(
                f"The matrix is drawn as block means (at most {MATRIX_SIDE} x {MATRIX_SIDE} cells "
                "reach the browser); the numbers above are over every pair."
            )


# --- the offset curve against a random table ---------------------------------------------------
def offset_section() -> None:
    """Distance vs dot product: one curve, even in k; a random table scatters."""
    random_pairs = cached_pairwise(positions, d_model, base, metric, True)  # its envelope
    st.subheader("Distance vs dot product")
    curves = cached_offset_curves(positions, d_model, base, metric)
    sinusoid_sample = cached_sample(positions, d_model, base, metric, False)
    random_sample = cached_sample(positions, d_model, base, metric, True)
    _, after_value = similarity.offset_similarity(
        np.array([-offset, offset]), d_model, base=base, metric=metric
    )
    st.markdown(
        f"For {SAMPLE_PAIRS:,} random pairs $(p, q)$: $x = q - p$, $y = {label}$. The sinusoid's "
        "points fall on one curve, computed straight from the formula; the random table's points "
        "(right) scatter around zero with no pattern: position $p$ alone decides nothing there. "
        "The grey band is the lowest to highest value over *all* pairs at each offset."
    )
    st.plotly_chart(
        make_offset_scatter_figure(
            curve_offsets=curves.offsets,
            curve=curves.similarity,
            sinusoid_points=(sinusoid_sample.offsets, sinusoid_sample.similarity),
            random_points=(random_sample.offsets, random_sample.similarity),
            random_envelope=(random_pairs.offsets, random_pairs.lowest, random_pairs.highest),
            offset=offset,
            offset_value=float(after_value),
            metric=metric,
        ),
        key="offset_chart",
    )

    # --- direction blindness ---
    st.subheader("It cannot tell before from after")
    after_row, before_row = similarity.before_and_after(
        cached_table(positions, d_model, base), anchor, offset, metric=metric
    )
    st.latex(
        r"\sum_i \cos(\omega_i k) = \sum_i \cos(-\omega_i k) \;\Rightarrow\; "
        r"PE_p \cdot PE_{p+k} = PE_p \cdot PE_{p-k}"
    )
    shown = [
        f"position {anchor + sign * offset}: **{value:.6f}**"
        for sign, value in ((1, after_row), (-1, before_row))
        if value is not None
    ]
    st.markdown(
        f"The curve is even in $k$ (the two diamonds above, at $\\pm{abs(offset)}$, have the same "
        f"height: {after_value:.6f}). From the table, the {METRIC_NAME[metric]} of position "
        f"{anchor} with "
        + (" and with ".join(shown) if shown else "its neighbours (outside the table here)")
        + ". A word one step after and a word one step before look exactly alike to this product: "
        "on its own it gives attention the distance, not the direction."
    )


# --- the TensorFlow tutorial's view ------------------------------------------------------------
def anchor_section() -> None:
    """The TensorFlow tutorial's view: every position against one."""
    st.subheader(f"Every position against position {anchor}")
    st.markdown(
        "The TensorFlow tutorial's picture (2048 positions, d_model 512, position 1000): the "
        "similarity peaks at the anchor and falls off on both sides, the same on either side."
    )
    profile = cached_profile(positions, d_model, base, anchor, metric)
    st.plotly_chart(
        make_anchor_profile_figure(profile, anchor=anchor, metric=metric, zoom=ANCHOR_ZOOM),
        key="anchor_chart",
    )


# --- Euclidean distance ------------------------------------------------------------------------
def distance_section() -> None:
    """Euclidean distance, a function of the dot product."""
    curves = cached_offset_curves(positions, d_model, base, metric)
    sinusoid_sample = cached_sample(positions, d_model, base, metric, False)
    st.subheader("Euclidean distance")
    st.latex(
        r"\|PE_p - PE_q\|^2 = |PE_p|^2 + |PE_q|^2 - 2\,PE_p \cdot PE_q "
        r"= d - 2\sum_i \cos(\omega_i (q - p))"
    )
    st.markdown(
        "Every row has $|PE|^2 = d/2$ exactly ($\\sin^2 + \\cos^2 = 1$ per pair), so the distance "
        "is a function of the dot product, hence of $|p - q|$ alone: it grows with the gap, "
        "but not "
        "strictly, because the fast pairs come round again."
    )
    st.plotly_chart(
        make_distance_figure(
            sample_gaps=np.abs(sinusoid_sample.offsets),
            sample_distances=sinusoid_sample.distance,
            curve_offsets=curves.gaps,
            curve=curves.distance,
        ),
        key="distance_chart",
    )


# --- shift as rotation -------------------------------------------------------------------------
def rotation_section() -> None:
    """M_k: 2x2 rotation blocks, and the residual over all p."""
    st.subheader("A shift by k is a rotation")
    st.markdown(
        "Source 003 quotes the paper, *for any fixed offset k, PE(pos+k) can be represented as a "
        "linear function of PE(pos)*, and adds: *I can't derive this*. With $a = pos\\,\\omega_i$ "
        "and $b = k\\,\\omega_i$:"
    )
    st.latex(
        r"\begin{aligned}\sin(a + b) &= \sin a \cos b + \cos a \sin b \\"
        r"\cos(a + b) &= \cos a \cos b - \sin a \sin b\end{aligned}"
        r"\quad\Longrightarrow\quad"
        r"\begin{pmatrix}PE_{pos+k,\,2i} \\ PE_{pos+k,\,2i+1}\end{pmatrix} = "
        r"\begin{pmatrix}\cos \omega_i k & \sin \omega_i k \\ -\sin \omega_i k & \cos \omega_i k"
        r"\end{pmatrix}\begin{pmatrix}PE_{pos,\,2i} \\ PE_{pos,\,2i+1}\end{pmatrix}"
    )
    st.markdown(
        "The matrix depends on $k$ and $i$ but not on $pos$: stacking the $d/2$ blocks on the "
        "diagonal gives one $d \\times d$ matrix $M_k$ with $PE_{pos+k} = M_k\\,PE_{pos}$ "
        "for every "
        "position. The map is linear, and it is a rotation of each pair by $\\omega_i k$."
    )
    shift = cached_shift(positions, d_model, base, offset)
    window = min(d_model, SHIFT_WINDOW)
    left, right = st.columns(2, gap="large")
    with left:
        matrix = core.shift_matrix(offset, d_model, base=base)[:window, :window]
        st.plotly_chart(
            make_shift_matrix_figure(matrix, offset=offset, d_model=d_model), key="shift_chart"
        )
    with right:
        start = max(anchor, -offset)  # p + k must be a position (>= 0)
        rotated = similarity.rotated_pair(start, offset, pair, d_model, base=base)
        st.plotly_chart(
            make_rotation_figure(rotated, position=start, offset=offset), key="rotation_chart"
        )
        st.markdown(
            f"Pair {pair} turns $\\omega_{{{pair}}} = {rotated.omega:.6g}$ radians per position, "
            "so "
            f"$k = {offset}$ turns it by ${rotated.rotation:.6g}$ radians: the open circle "
            "($M_k$ applied to the blue vector) lands on the red one."
        )
    st.markdown(
        f"Checked on the float32 table: the largest entry of $|PE_{{p+k}} - M_k\\,PE_p|$ over "
        f"every position $p$ with $p + k$ in the table ({shift.positions.size:,} of them) is "
        f"**{shift.largest:.2e}**: float32 rounding, the identity itself is exact."
    )


# One section at a time (in the URL as `view`): each is one or two charts, so a change of
# d_model redraws only what is on screen (see the Performance section of the README).
controls.sections(
    {
        "matrix": matrix_section,
        "offset": offset_section,
        "anchor": anchor_section,
        "distance": distance_section,
        "rotation": rotation_section,
    },
    help="matrix: PE·PEᵀ; offset: dot product against the offset; anchor: the "
    "TensorFlow tutorial's view; distance: Euclidean distance; rotation: a shift as a rotation.",
)

controls.finish()
