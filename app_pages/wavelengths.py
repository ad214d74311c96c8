"""Wavelengths: each dimension's sinusoid, the geometric progression, the clocks."""


import streamlit as st

from core import limits
from core._checks import InputError
from core.limits import DEFAULT_BASE
from core.wavelength_views import (
    MAX_CLOCK_FRAMES,
    MAX_DIMS,
    clock_frames,
    clock_pairs,
    default_dims,
    dimension_curves,
    parse_dims,
    wavelength_spectrum,
)
from figures.wavelengths import (
    make_clock_figure,
    make_dimension_curves_figure,
    make_spectrum_figure,
)
from locales import error_text
from server.cache import MB, bounded_cache
from ui.charts import file_stem, show_chart
from ui.controls import start_page
from ui.i18n import current_language, t
from ui.text import explain, markdown_text

# The most curves at the widest table, spread across it: the caches' largest entries.
MOST_DIMS = tuple(range(0, limits.MAX_D_MODEL, limits.MAX_D_MODEL // MAX_DIMS + 1))


@bounded_cache(max_entries=16, max_bytes=8 * MB, worst_case=[
    (limits.MAX_POSITIONS, limits.MAX_D_MODEL, MOST_DIMS, DEFAULT_BASE, "paper")])
def cached_curves(positions: int, d_model: int, dims: tuple[int, ...], base: float,
                  timescales: str):
    return dimension_curves(positions, d_model, dims, base=base, timescales=timescales)


@bounded_cache(max_entries=16, max_bytes=2 * MB, worst_case=[
    (limits.MAX_D_MODEL, limits.MAX_POSITIONS, DEFAULT_BASE, "paper")])
def cached_spectrum(d_model: int, positions: int, base: float, timescales: str):
    return wavelength_spectrum(d_model, positions, base=base, timescales=timescales)


@bounded_cache(max_entries=16, max_bytes=4 * MB, worst_case=[
    (limits.MAX_POSITIONS, limits.MAX_D_MODEL, MOST_DIMS, DEFAULT_BASE, "paper")])
def cached_clocks(positions: int, d_model: int, dims: tuple[int, ...], base: float,
                  timescales: str):
    return clock_frames(positions, d_model, clock_pairs(d_model, dims), base=base,
                        timescales=timescales)


lang = current_language()
controls = start_page("wavelengths")
PAGE_WIDE = ("d_model", "positions", "base", "timescales")
# The parts drawn with the table: a page-wide change reruns these alone (those of the view
# shown), not the sidebar, the title or the link. The views' fragments whole: their dimensions'
# box shows the table's default ones.
FORMULA, CURVES, SPECTRUM, CLOCKS = ("wavelengths/formula", "wavelengths/curves",
                                     "wavelengths/spectrum", "wavelengths/clocks")
drawings = {"curves": (FORMULA, CURVES, SPECTRUM),
            "clocks": (FORMULA, CLOCKS)}[controls.current("view")]
with st.sidebar:
    controls.stops("d_model", redraws=drawings)
    controls.stops("positions", redraws=drawings)
    controls.stops("base", redraws=drawings)
    controls.choice("timescales", redraws=drawings)
# Page-wide (sidebar): d_model, positions, base and timescales make the table every view
# draws. The dimensions shown are the curves' and the clocks' own control, above each chart.


def dims_control(d_model: int) -> tuple[list[int], str]:
    """The dimensions a view draws (its own row) and their file-name part; dimensions the
    table does not have are said in the view, and the default ones are drawn."""
    with controls.view_row(1)[0]:
        dims_text = controls.text("dims", placeholder=", ".join(map(str, default_dims(d_model))))
    try:
        dims = parse_dims(dims_text, d_model)
    except InputError as error:
        dims = default_dims(d_model)
        allowed = t("wavelengths.dims_allowed", max_dims=MAX_DIMS, last=d_model - 1,
                    half=d_model // 2, half_next=d_model // 2 + 1)
        st.warning(markdown_text(t(
            "controls.url_notice",
            error=error_text(error, lang, "wavelengths", allowed=allowed),
            default=", ".join(map(str, dims)))), icon=":material/warning:")
    return dims, "dims" + "-".join(map(str, dims))  # the clocks' pairs follow from them


def table_name() -> list:
    """Files name the table and the dimensions:
    pe-wavelength-curves_d128_pos2048_dims0-1-64-65-126-127 (base and timescales only when not
    the paper's)."""
    d_model, positions, base, timescales = controls.values(*PAGE_WIDE)
    return [f"d{d_model}", f"pos{positions}", None if base == DEFAULT_BASE else f"base{base:g}",
            None if timescales == "paper" else timescales]


explain(t("wavelengths.intro"))


@st.fragment(key=FORMULA)
def formula() -> None:
    # The convention's own exponent: 2i/d (the paper's formula), i/(d/2 - 1) (tensor2tensor).
    timescales = controls.current("timescales")
    exponent_tex = "2i/d" if timescales == "paper" else "i/(d/2-1)"
    step_tex = "2/d" if timescales == "paper" else "1/(d/2-1)"
    st.latex(
        rf"\omega_i = \mathrm{{base}}^{{-{exponent_tex}}}, \qquad "
        rf"\lambda_i = \frac{{2\pi}}{{\omega_i}} = "
        rf"2\pi\,\mathrm{{base}}^{{{exponent_tex}}}, \qquad "
        rf"\frac{{\lambda_{{i+1}}}}{{\lambda_i}} = \mathrm{{base}}^{{{step_tex}}}"
    )


formula()


@st.fragment(key=CURVES)
def curves_view() -> None:
    """The chosen dimensions against position, the dimensions in the view's own row."""
    d_model, positions, base, timescales = controls.values(*PAGE_WIDE)
    dims, dims_name = dims_control(d_model)
    curves = cached_curves(positions, d_model, dims, base, timescales)
    show_chart(
        make_dimension_curves_figure(curves, lang=lang),
        key="curves_chart",
        name=file_stem("wavelength-curves", *table_name(), dims_name),
    )


def curves_section() -> None:
    """The chosen dimensions against position, and the spectrum of wavelengths."""
    curves_view()
    spectrum_view()


@st.fragment(key=SPECTRUM)
def spectrum_view() -> None:
    """The spectrum of wavelengths and its numbers, in both conventions."""
    d_model, positions, base, timescales = controls.values(*PAGE_WIDE)
    spectrum = cached_spectrum(d_model, positions, base, timescales)
    left, right = st.columns([3, 2], gap="large")
    with left:
        show_chart(
            make_spectrum_figure(spectrum, lang=lang),
            key="spectrum_chart",
            name=file_stem("wavelength-spectrum", *table_name()),
        )
    with right:
        st.subheader(t("wavelengths.progression"))
        last_pair = d_model // 2 - 1
        if timescales == "paper":
            st.markdown(
                t("wavelengths.numbers", shortest=spectrum.shortest, base=base, d_model=d_model,
                  ratio=spectrum.ratio, last_pair=last_pair, exponent=d_model - 2,
                  longest=spectrum.longest)
            )
            explain(t("wavelengths.last_pair", longest=spectrum.longest,
                      paper_longest=spectrum.paper_longest))
        else:
            st.markdown(
                t("wavelengths.numbers_tensor2tensor", shortest=spectrum.shortest, base=base,
                  steps=max(last_pair, 1), ratio=spectrum.ratio, last_pair=last_pair,
                  longest=spectrum.longest)
            )
            explain(t("wavelengths.last_pair_tensor2tensor",
                      paper_longest=spectrum.paper_longest))
        st.markdown(f"**{t('wavelengths.conventions')}**")
        paper = cached_spectrum(d_model, positions, base, "paper")
        t2t = cached_spectrum(d_model, positions, base, "tensor2tensor")
        st.markdown(
            t("wavelengths.conventions_table", last_pair=last_pair,
              paper_shortest=paper.shortest, t2t_shortest=t2t.shortest,
              paper_ratio=paper.ratio, t2t_ratio=t2t.ratio,
              paper_longest=paper.longest, t2t_longest=t2t.longest)
        )
        explain(
            t("wavelengths.incomplete", positions=positions,
              incomplete=spectrum.incomplete_pairs, pairs=d_model // 2)
        )


@st.fragment(key=CLOCKS)
def clocks_section() -> None:
    """Each (sin, cos) pair as a clock hand; a slider moves them all."""
    d_model, positions, base, timescales = controls.values(*PAGE_WIDE)
    st.subheader(t("wavelengths.clocks"))
    explain(t("wavelengths.clocks_text"))
    dims, dims_name = dims_control(d_model)
    clocks = cached_clocks(positions, d_model, dims, base, timescales)
    if clocks.truncated:
        explain(
            t("wavelengths.clocks_truncated", last=MAX_CLOCK_FRAMES - 1, positions=positions),
            caption=True,
        )
    explain(
        t("wavelengths.clocks_pairs",
          pairs=markdown_text(", ".join(str(i) for i in clocks.pairs))),
        caption=True,
    )
    show_chart(
        make_clock_figure(clocks, start=min(7, positions - 1), lang=lang),
        key="clock_chart",
        name=file_stem("wavelength-clocks", *table_name(), dims_name),
    )


# One section at a time (in the URL as `view`): the clocks' animation frames are the heaviest
# figure of the page, drawn only when asked for.
controls.sections(
    {"curves": curves_section, "clocks": clocks_section},
)
