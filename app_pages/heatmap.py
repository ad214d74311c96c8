"""The sinusoid table as a heatmap, with the formula worked for one entry and an exact zoom."""

import streamlit as st

import core
from core.figures.heatmap import make_pe_heatmap_figure
from core.page_params import PAGE_PARAMS
from ui.controls import PageControls


@st.cache_data(max_entries=16, show_spinner=False)
def cached_overview(positions: int, d_model: int, base: float, layout: str) -> core.Overview:
    return core.sinusoid_overview(positions, d_model, base=base, layout=layout)


@st.cache_data(max_entries=16, show_spinner=False)
def cached_window(pos_start, pos_count, dim_start, dim_count, d_model, base, layout):
    return core.sinusoid_window(
        pos_start, pos_count, dim_start, dim_count, d_model, base=base, layout=layout
    )


st.title("Sinusoid heatmap")
controls = PageControls("heatmap", PAGE_PARAMS["heatmap"])
with st.sidebar:
    d_model = controls.number("d_model", "d_model (even)", help="Width of the encoding: 2 to 4096.")
    positions = controls.number("positions", "positions", help="Rows of the table: 1 to 8192.")
    base = controls.number("base", "base", fmt="%g", help="The paper uses 10000. Must be > 1.")
    layout = controls.choice(
        "layout",
        "layout",
        help="interleaved: the paper's sin, cos, sin, cos ...; "
        "concatenated: tensor2tensor / MAE's all sines, then all cosines.",
    )
st.markdown(
    f"**{positions} positions x {d_model} dimensions**, base {base:g}, **{layout}** layout: "
    + (
        "column $2i$ holds $\\sin(pos\\,\\omega_i)$, "
        "column $2i+1$ holds $\\cos(pos\\,\\omega_i)$."
        if layout == "interleaved"
        else "columns $[0, d/2)$ hold the sines and $[d/2, d)$ the cosines of the same "
        "frequencies: the same numbers, permuted columns."
    )
)
overview = cached_overview(positions, d_model, base, layout)
st.plotly_chart(
    make_pe_heatmap_figure(overview, title=f"Sinusoidal PE ({layout})"),
    key="heatmap_chart",
)


# The worked example and the zoom window rerun on their own (fragments): changing the position
# or the window does not redraw the big heatmap.
@st.fragment
def worked_example(d_model: int, base: float, layout: str) -> None:
    st.subheader("The formula, worked")
    sub_left, sub_right = st.columns(2)
    with sub_left:
        pos = controls.number("pos", "position", help="Any position from 0 to 1,000,000.")
    with sub_right:
        dim = controls.number("dim", "dimension", help=f"0 to d_model - 1 = {d_model - 1}.")
    if dim >= d_model:
        st.info(f"dimension {dim} does not exist for d_model = {d_model}: showing {d_model - 1}.")
        dim = d_model - 1
    entry = core.worked_entry(pos, dim, d_model, base=base, layout=layout)
    i = entry.pair
    st.latex(
        rf"\begin{{aligned}}PE_{{({entry.position},\,{entry.dimension})}} &= \{entry.function}"
        rf"\!\left(\frac{{{entry.position}}}{{{base:g}^{{2\cdot {i}/{d_model}}}}}\right)"
        rf" = \{entry.function}\!\left(\frac{{{entry.position}}}{{{entry.denominator:.6g}}}"
        rf"\right)\\ &= \{entry.function}({entry.angle:.6g}) = {entry.value:.6f}\end{{aligned}}"
    )
    where = (
        ("column $2i$" if entry.function == "sin" else "column $2i+1$")
        if layout == "interleaved"
        else ("the sine half" if entry.function == "sin" else "the cosine half")
    )
    st.markdown(
        f"Dimension {dim} is the **{entry.function}** of frequency pair $i = {i}$ ({where}): "
        f"$\\omega_{{{i}}} = {entry.frequency:.6g}$ radians per position, "
        f"wavelength $2\\pi / \\omega_{{{i}}} = {entry.wavelength:,.4f}$ positions."
    )


@st.fragment
def zoom_window(positions: int, d_model: int, base: float, layout: str) -> None:
    st.subheader("Zoom: exact values")
    z1, z2, z3 = st.columns(3)
    with z1:
        zoom_pos = controls.number("zoom_pos", "first position")
    with z2:
        zoom_dim = controls.number("zoom_dim", "first dimension")
    with z3:
        zoom_size = controls.number("zoom_size", "window size", help="4 to 256 rows and columns.")
    rows = min(zoom_size, positions)
    start = min(zoom_pos, positions - rows)
    window = cached_window(start, rows, zoom_dim, zoom_size, d_model, base, layout)
    st.caption(
        f"Positions {window.row_edges[0]} to {window.row_edges[-1] - 1}, "
        f"dimensions {window.col_edges[0]} to {window.col_edges[-1] - 1}: every cell is one entry."
    )
    st.plotly_chart(make_pe_heatmap_figure(window, title="Zoom window (exact)"), key="zoom_chart")


left, right = st.columns(2, gap="large")
with left:
    worked_example(d_model, base, layout)
with right:
    zoom_window(positions, d_model, base, layout)

controls.finish()
