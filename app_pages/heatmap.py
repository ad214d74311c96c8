"""The sinusoid table as a heatmap, with the formula worked for one entry and an exact zoom."""

import streamlit as st

import core
from core import limits
from core.limits import DEFAULT_BASE
from figures.export import TableExport
from figures.heatmap import make_pe_heatmap_figure
from ui.cache import MB, bounded_cache
from ui.charts import file_stem, show_chart
from ui.controls import start_page
from ui.i18n import current_language, t
from ui.text import explain, page_only


@bounded_cache(max_entries=16, max_bytes=8 * MB, worst_case=[
    (limits.MAX_POSITIONS, limits.MAX_D_MODEL, DEFAULT_BASE, "interleaved", "paper")])
def cached_overview(positions: int, d_model: int, base: float, layout: str,
                    timescales: str) -> core.Overview:
    return core.sinusoid_overview(positions, d_model, base=base, layout=layout,
                                  timescales=timescales)


@bounded_cache(max_entries=16, max_bytes=6 * MB, worst_case=[
    (limits.MAX_POSITIONS - limits.MAX_ZOOM_SIZE, limits.MAX_ZOOM_SIZE,
     limits.MAX_D_MODEL - limits.MAX_ZOOM_SIZE, limits.MAX_ZOOM_SIZE, limits.MAX_D_MODEL,
     DEFAULT_BASE, "interleaved", "paper")])
def cached_window(pos_start, pos_count, dim_start, dim_count, d_model, base, layout, timescales):
    return core.sinusoid_window(pos_start, pos_count, dim_start, dim_count, d_model, base=base,
                                layout=layout, timescales=timescales)


lang = current_language()
controls = start_page("heatmap")
# The fragments that draw with the page-wide controls: a change of one reruns these alone (not
# the sidebar, the title, the link, nor the views' own rows but the worked example's, whose
# help names the last dimension). Each view's own controls rerun its drawing alone.
HEATMAP, WORKED, WORKED_ENTRY, ZOOM = ("heatmap/chart", "heatmap/worked", "heatmap/worked-entry",
                                       "heatmap/zoom")
PAGE_WIDE = ("d_model", "base", "layout", "timescales")
# Page-wide: what every view of the table draws (the heatmap, the worked entry, the zoom).
# The number of positions is the heatmap's own control (the zoom window reads it).
with st.sidebar:
    controls.stops("d_model", redraws=(HEATMAP, WORKED, ZOOM))
    controls.stops("base", redraws=(HEATMAP, WORKED, ZOOM))
    controls.choice("layout", redraws=(HEATMAP, WORKED, ZOOM))
    controls.choice("timescales", redraws=(HEATMAP, WORKED, ZOOM))


def table() -> tuple[int, float, str, str]:
    """d_model, base, layout and timescales, read in the run of the part that draws them (a
    fragment rerun alone sees this module's variables of an older run)."""
    return controls.values(*PAGE_WIDE)


def table_name(positions: int) -> list:
    """Files name the table: pe-heatmap_d128_pos64_interleaved (base and timescales only when
    not the paper's)."""
    d_model, base, layout, timescales = table()
    return [f"d{d_model}", f"pos{positions}", layout,
            None if base == DEFAULT_BASE else f"base{base:g}",
            None if timescales == "paper" else timescales]


def zoom_rows(positions: int, zoom_pos: int, zoom_size: int) -> tuple[int, int]:
    """The zoom window's first row and row count in a table of `positions` rows."""
    rows = min(zoom_size, positions)
    return min(zoom_pos, positions - rows), rows


# Each view reruns on its own (fragments): the heatmap with its number of positions, the worked
# example with its entry, the zoom window with its corner and size.
@st.fragment
def heatmap_view() -> None:
    (positions_column,) = controls.view_row(1)
    with positions_column:
        controls.stops("positions", redraws=(HEATMAP,))
    heatmap_chart()


@st.fragment(key=HEATMAP)
def heatmap_chart() -> None:
    d_model, base, layout, timescales = table()
    positions = controls.current("positions")
    drawn_with = st.session_state.get("_heatmap_zoom_positions")
    corner = controls.current("zoom_pos"), controls.current("zoom_size")
    if drawn_with is not None and zoom_rows(drawn_with, *corner) != zoom_rows(positions, *corner):
        st.session_state["_heatmap_zoom_positions"] = positions
        st.rerun(scope="app")  # the zoom window no longer fits this table: redraw it too
    layout_name = {"interleaved": t("heatmap.layout_interleaved"),
                   "concatenated": t("heatmap.layout_concatenated")}
    layout_text = {
        "interleaved": t("heatmap.summary_interleaved"),
        "concatenated": t("heatmap.summary_concatenated"),
    }
    explain(
        t("heatmap.summary", positions=positions, d_model=d_model, base=base, layout=layout)
        + layout_text[layout]
        + (t("heatmap.summary_tensor2tensor") if timescales == "tensor2tensor" else "")
    )
    overview = cached_overview(positions, d_model, base, layout, timescales)
    show_chart(
        # The layout's name in the visitor's language: "interleaved" is "交错" in Chinese.
        make_pe_heatmap_figure(overview, title=t("heatmap.chart_title", layout=layout_name[layout]),
                               lang=lang),
        key="heatmap_chart",
        name=file_stem("heatmap", *table_name(positions)),
        # The downloads carry the table itself (built only when a button is pressed), not the
        # overview drawn on screen, up to figures.export's caps.
        table=TableExport(
            overview, (positions, d_model),
            lambda: core.sinusoidal_encoding(positions, d_model, base=base, layout=layout,
                                             timescales=timescales),
        ),
    )


@st.fragment(key=WORKED)
def worked_example() -> None:
    st.subheader(t("heatmap.worked"))
    sub_left, sub_right = controls.view_row(2)
    d_model = controls.current("d_model")
    with sub_left:
        controls.number("pos", t("heatmap.position"), help=t("heatmap.position_help"),
                        redraws=(WORKED_ENTRY,))
    with sub_right:
        controls.number("dim", t("heatmap.dimension"),
                        help=t("heatmap.dimension_help", last=d_model - 1),
                        redraws=(WORKED_ENTRY,))
    worked_entry()


@st.fragment(key=WORKED_ENTRY)
def worked_entry() -> None:
    d_model, base, layout, timescales = table()
    pos, dim = controls.values("pos", "dim")
    if dim >= d_model:
        st.info(t("heatmap.no_such_dimension", dim=dim, d_model=d_model, last=d_model - 1))
        dim = d_model - 1
    entry = core.worked_entry(pos, dim, d_model, base=base, layout=layout, timescales=timescales)
    i = entry.pair
    # The exponent as the convention writes it: 2i/d (paper) or i/(d/2 - 1) (tensor2tensor).
    exponent = (rf"2\cdot {i}/{d_model}" if timescales == "paper"
                else rf"{i}/{max(d_model // 2 - 1, 1)}")
    st.latex(
        rf"\begin{{aligned}}PE_{{({entry.position},\,{entry.dimension})}} &= \{entry.function}"
        rf"\!\left(\frac{{{entry.position}}}{{{base:g}^{{{exponent}}}}}\right)"
        rf" = \{entry.function}\!\left(\frac{{{entry.position}}}{{{entry.denominator:.6g}}}"
        rf"\right)\\ &= \{entry.function}({entry.angle:.6g}) = {entry.value:.6f}\end{{aligned}}"
    )
    where = {
        ("sin", "interleaved"): t("heatmap.where_sin_interleaved"),
        ("cos", "interleaved"): t("heatmap.where_cos_interleaved"),
        ("sin", "concatenated"): t("heatmap.where_sin_concatenated"),
        ("cos", "concatenated"): t("heatmap.where_cos_concatenated"),
    }[entry.function, layout]
    st.markdown(
        t("heatmap.worked_text", dim=dim, function=entry.function, i=i, where=where,
          frequency=entry.frequency, wavelength=entry.wavelength)
    )


@st.fragment
def zoom_window() -> None:
    st.subheader(t("heatmap.zoom"))
    z1, z2, z3 = controls.view_row(3)
    with z1:
        controls.number("zoom_pos", redraws=(ZOOM,))
    with z2:
        controls.number("zoom_dim", redraws=(ZOOM,))
    with z3:
        controls.number("zoom_size", redraws=(ZOOM,))
    zoom_chart()


@st.fragment(key=ZOOM)
def zoom_chart() -> None:
    d_model, base, layout, timescales = table()
    zoom_pos, zoom_dim, zoom_size = controls.values("zoom_pos", "zoom_dim", "zoom_size")
    positions = controls.current("positions")  # the heatmap view's control
    st.session_state["_heatmap_zoom_positions"] = positions
    start, rows = zoom_rows(positions, zoom_pos, zoom_size)
    window = cached_window(start, rows, zoom_dim, zoom_size, d_model, base, layout, timescales)
    explain(
        t("heatmap.zoom_caption", first_pos=window.row_edges[0], last_pos=window.row_edges[-1] - 1,
          first_dim=window.col_edges[0], last_dim=window.col_edges[-1] - 1),
        caption=True,
    )
    show_chart(
        make_pe_heatmap_figure(window, title=t("heatmap.zoom_title"), lang=lang),
        key="zoom_chart",
        name=file_stem("heatmap-zoom", *table_name(positions), f"p{start}",
                       f"dim{window.col_edges[0]}", f"size{zoom_size}"),
    )


heatmap_view()
with page_only("heatmap-details"):  # a slide shows the table alone
    left, right = st.columns(2, gap="large")
    with left:
        worked_example()
    with right:
        zoom_window()
