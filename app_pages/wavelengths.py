"""Wavelengths: each dimension's sinusoid, the geometric progression, the clocks."""

import streamlit as st

from core.figures.wavelengths import (
    make_clock_figure,
    make_dimension_curves_figure,
    make_spectrum_figure,
)
from core.page_params import PAGE_PARAMS
from core.wavelength_views import (
    MAX_CLOCK_FRAMES,
    clock_frames,
    clock_pairs,
    default_dims,
    dimension_curves,
    parse_dims,
    wavelength_spectrum,
)
from ui.controls import PageControls
from ui.text import escape_markdown


@st.cache_data(max_entries=16, show_spinner=False)
def cached_curves(positions: int, d_model: int, dims: tuple[int, ...], base: float):
    return dimension_curves(positions, d_model, dims, base=base)


@st.cache_data(max_entries=16, show_spinner=False)
def cached_spectrum(d_model: int, positions: int, base: float):
    return wavelength_spectrum(d_model, positions, base=base)


@st.cache_data(max_entries=16, show_spinner=False)
def cached_clocks(positions: int, d_model: int, dims: tuple[int, ...], base: float):
    return clock_frames(positions, d_model, clock_pairs(d_model, dims), base=base)


st.title("Wavelengths")
controls = PageControls("wavelengths", PAGE_PARAMS["wavelengths"])
with st.sidebar:
    d_model = controls.number("d_model", "d_model (even)", help="Width of the encoding: 2 to 4096.")
    positions = controls.number("positions", "positions", help="Sequence length: 1 to 8192.")
    base = controls.number("base", "base", fmt="%g", help="The paper uses 10000. Must be > 1.")
    dims_text = controls.text(
        "dims",
        "dimensions to plot",
        help="Column numbers separated by commas, e.g. 0,1,64,65 (up to 12). Empty: a sin/cos "
        "pair of the fastest, a middle and the slowest frequency.",
    )
try:
    dims = parse_dims(dims_text, d_model)
except ValueError as error:
    dims = default_dims(d_model)
    notice = f"URL parameter {error}. Using the default, {', '.join(map(str, dims))}."
    if notice not in controls.notices:  # kept across the reset rerun of PageControls
        controls.notices.append(notice)

st.markdown(
    "Source 003 asks why *the wavelengths form a geometric progression from 2π to 10000·2π*. "
    "Column $2i$ is $\\sin(pos\\,\\omega_i)$ and column $2i+1$ is $\\cos(pos\\,\\omega_i)$ with "
    "one frequency per pair, and each pair's frequency is the previous one divided by the same "
    "factor:"
)
st.latex(
    r"\omega_i = \mathrm{base}^{-2i/d}, \qquad \lambda_i = \frac{2\pi}{\omega_i} "
    r"= 2\pi\,\mathrm{base}^{2i/d}, \qquad \frac{\lambda_{i+1}}{\lambda_i} = \mathrm{base}^{2/d}"
)
def curves_section() -> None:
    """The chosen dimensions against position, and the spectrum of wavelengths."""
    curves = cached_curves(positions, d_model, dims, base)
    st.plotly_chart(make_dimension_curves_figure(curves), key="curves_chart")

    spectrum = cached_spectrum(d_model, positions, base)
    left, right = st.columns([3, 2], gap="large")
    with left:
        st.plotly_chart(make_spectrum_figure(spectrum), key="spectrum_chart")
    with right:
        st.subheader("The progression, in numbers")
        st.markdown(
            f"- shortest: $\\lambda_0 = 2\\pi$ = **{spectrum.shortest:.4f}** positions\n"
            f"- ratio: $\\lambda_{{i+1}} / \\lambda_i = {base:g}^{{2/{d_model}}}$ = "
            f"**{spectrum.ratio:.6f}**\n"
            f"- longest: $\\lambda_{{{d_model // 2 - 1}}} = 2\\pi \\cdot "
            f"{base:g}^{{{d_model - 2}/{d_model}}}$ = **{spectrum.longest:,.1f}**"
        )
        st.markdown(
            f"The last pair has $i = d/2 - 1$, so its exponent is $(d-2)/d$, not 1: its wavelength "
            f"**{spectrum.longest:,.1f}** is a little short of the paper's rounded "
            f"$\\mathrm{{base}} \\cdot 2\\pi$ = **{spectrum.paper_longest:,.1f}**."
        )
        st.markdown(
            f"With **{positions}** positions, **{spectrum.incomplete_pairs}** of the "
            f"{d_model // 2} pairs have a wavelength longer than the sequence: they never "
            "complete a "
            "cycle, so within it they change slowly and never repeat (they tell far-apart "
            "positions "
            "apart), while the fast pairs repeat many times and tell neighbours apart."
        )


def clocks_section() -> None:
    """Each (sin, cos) pair as a clock hand; a slider moves them all."""
    st.subheader("Clocks")
    st.markdown(
        "Each $(\\sin, \\cos)$ pair is a point on the unit circle, a clock hand that turns "
        "$\\omega_i$ radians per position. Press **play** or drag the slider: every clock moves at "
        "once. The fastest hand turns 1 radian per position, so it comes round again and again: "
        "source 004 writes $\\sin(7) = \\sin(2.23\\pi) = \\sin(0.23\\pi)$ (set the slider to 7 and "
        "read the first clock). The slow hands barely move, and they are what tells apart "
        "positions where a fast hand points the same way: position 44 is 7 full turns past "
        "position 0 on the first clock ($44 \\approx 7 \\cdot 2\\pi$), not on the others."
    )
    clocks = cached_clocks(positions, d_model, dims, base)
    if clocks.truncated:
        st.caption(
            f"The animation covers positions 0 to {MAX_CLOCK_FRAMES - 1} one by one (of "
            f"{positions}), "
            "so the fast hands are followed step by step."
        )
    st.caption(
        "Clocks: pairs "
        + escape_markdown(", ".join(str(i) for i in clocks.pairs))
        + " (those of the plotted dimensions, and evenly spread pairs from the fastest to the "
        "slowest)."
    )
    st.plotly_chart(make_clock_figure(clocks, start=min(7, positions - 1)), key="clock_chart")


# One section at a time (in the URL as `view`): the clocks' animation frames are the heaviest
# figure of the page, drawn only when asked for.
controls.sections(
    {"curves": curves_section, "clocks": clocks_section},
    help="curves: each dimension against position and the wavelength spectrum; "
    "clocks: the (sin, cos) pairs as clock hands, animated.",
)

controls.finish()
