"""The sinusoid table as a heatmap, with the formula worked for one entry and an exact zoom."""

import dataclasses

import numpy as np
import streamlit as st
from streamlit.errors import StreamlitAPIException

import core
from core import limits
from core.limits import DEFAULT_BASE
from export.files import TableExport
from figures.heatmap import (
    FORMULA_HOVER_CELLS,
    FormulaTable,
    add_zoom_window_states,
    cell_entry,
    formula_number,
    formula_value,
    make_pe_heatmap_figure,
    zoom_live_values,
)
from server.cache import MB, bounded_cache
from ui.charts import file_stem, show_chart
from ui.controls import start_page
from ui.i18n import current_language, t
from ui.plotly_react import clicked_cell
from ui.text import explain, on_slide, page_only


@bounded_cache(max_entries=16, max_bytes=8 * MB, worst_case=[
    (limits.MAX_POSITIONS, limits.MAX_D_MODEL, DEFAULT_BASE, "interleaved", "paper")])
def cached_overview(positions: int, d_model: int, base: float, layout: str,
                    timescales: str) -> core.Overview:
    return core.sinusoid_overview(positions, d_model, base=base, layout=layout,
                                  timescales=timescales)


# 16 of the largest windows (256 x 256 float32, 0.26 MB) fill 4.1 MB.
@bounded_cache(max_entries=16, max_bytes=9 * MB // 2, worst_case=[
    (limits.MAX_POSITIONS - limits.MAX_ZOOM_SIZE, limits.MAX_ZOOM_SIZE,
     limits.MAX_D_MODEL - limits.MAX_ZOOM_SIZE, limits.MAX_ZOOM_SIZE, limits.MAX_D_MODEL,
     DEFAULT_BASE, "interleaved", "paper")])
def cached_window(pos_start, pos_count, dim_start, dim_count, d_model, base, layout, timescales):
    return core.sinusoid_window(pos_start, pos_count, dim_start, dim_count, d_model, base=base,
                                layout=layout, timescales=timescales)


# The zoom window at the states of its corner's sliders (dragged, they preview them). Down the
# rows each is a block of the table across its whole width (core.sinusoid_window), ~3.4 ms at
# d_model 4096 on a 2-core machine: at most LIVE_WIDTH // d_model of them, ~50 ms a release.
# Across the columns they are cuts of one block.
LIVE_WIDTH = 60_000
# The largest entries (~0.15 MB): 13 x 13 windows, 101 states (MAX_LIVE_NUMBERS shared by two
# sliders).
_WORST_STARTS = tuple(range(101))


@bounded_cache(max_entries=4, max_bytes=MB // 2, worst_case=[
    (_WORST_STARTS, 13, 0, 13, 512, DEFAULT_BASE, "interleaved", "paper")])
def cached_windows_down(starts: tuple[int, ...], rows: int, dim_start: int, cols: int,
                        d_model: int, base: float, layout: str,
                        timescales: str) -> tuple[core.Overview, ...]:
    """The exact window at each first position of `starts`."""
    return tuple(core.sinusoid_window(pos, rows, dim_start, cols, d_model, base=base,
                                      layout=layout, timescales=timescales) for pos in starts)


@bounded_cache(max_entries=4, max_bytes=MB // 2, worst_case=[
    (0, 13, _WORST_STARTS, 13, 512, DEFAULT_BASE, "interleaved", "paper")])
def cached_windows_across(start: int, rows: int, dim_starts: tuple[int, ...], cols: int,
                          d_model: int, base: float, layout: str,
                          timescales: str) -> tuple[core.Overview, ...]:
    """The exact window at each first dimension of `dim_starts`: the same numbers as
    core.sinusoid_window draws there (it cuts the same block of rows)."""
    block = core.sinusoid_window(start, rows, 0, d_model, d_model, base=base, layout=layout,
                                 timescales=timescales)  # (rows, d_model)
    return tuple(dataclasses.replace(block, values=block.values[:, dim:dim + cols].copy(),
                                     col_edges=block.col_edges[dim:dim + cols + 1].copy())
                 for dim in dim_starts)


lang = current_language()
controls = start_page("heatmap")
# The fragments that draw with the page-wide controls: a change of one reruns these alone (not
# the sidebar, the title, the link, nor the views' own rows but the worked example's, whose
# help names the last dimension, and the zoom window's, whose first dimension's slider ends
# at the last). Each view's own controls rerun its drawing alone.
HEATMAP, WORKED, WORKED_ENTRY, ZOOM, ZOOM_CHART = (
    "heatmap/chart", "heatmap/worked", "heatmap/worked-entry", "heatmap/zoom",
    "heatmap/zoom-chart")
PAGE_WIDE = ("d_model", "base", "layout", "timescales")
# Page-wide: what every view of the table draws (the heatmap, the worked entry, the zoom).
# The number of positions is the heatmap's own control (the zoom window reads it).
with st.sidebar:
    controls.stops("d_model", redraws=(HEATMAP, WORKED, ZOOM))
    controls.stops("base", redraws=(HEATMAP, WORKED, ZOOM_CHART))
    controls.choice("layout", redraws=(HEATMAP, WORKED, ZOOM_CHART))
    controls.choice("timescales", redraws=(HEATMAP, WORKED, ZOOM_CHART))
# The number of positions the zoom window's sliders were made for: set by the zoom view, read
# by the heatmap's view when it reruns alone. Forgotten at each run of the whole page (this
# line runs only then), which draws both.
ZOOM_MADE_FOR = "_heatmap_zoom_positions"
st.session_state.pop(ZOOM_MADE_FOR, None)


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


def formula_table(positions: int) -> FormulaTable:
    """The numbers an exact heatmap's hover works the formula with: each column's entry (its
    function and denominator) and the table in float64. Made for up to FORMULA_HOVER_CELLS
    cells (~13 ms at 1024 columns, the most an exact table has), so not cached."""
    d_model, base, layout, timescales = table()
    columns = [core.worked_entry(0, dim, d_model, base=base, layout=layout, timescales=timescales)
               for dim in range(d_model)]
    return FormulaTable(columns, core.sinusoidal_encoding(
        positions, d_model, base=base, layout=layout, timescales=timescales, dtype=np.float64))


HEATMAP_CHART = "heatmap_chart"
# The entry a click picked, until the worked example's boxes take it (`worked_example`).
PICKED = "_heatmap_picked"


def pick_entry() -> None:
    """A click on a heatmap cell makes its entry the worked one (on an overview, the first entry
    of the block clicked): pos and dim take it before the heatmap (its outline) and the worked
    example rerun, and the link with them."""
    cell = clicked_cell(HEATMAP_CHART)
    if cell is None:
        return
    x, y = cell
    entry = cell_entry(cached_overview(controls.current("positions"), *table()), x, y)
    if entry is None:
        return
    st.session_state["pos"], st.session_state["dim"] = st.session_state[PICKED] = entry
    if st.config.get_option("global.appTest"):
        return  # AppTest reruns the whole page
    try:
        st.rerun(scope=[HEATMAP, WORKED])  # the number boxes too: they write the link
    except StreamlitAPIException:  # a part not drawn (a run that stopped early): the default
        return


def zoom_shape() -> tuple[int, int, int, int]:
    """The table's positions and d_model, and the zoom window's rows and columns in it."""
    positions, d_model, zoom_size = controls.values("positions", "d_model", "zoom_size")
    return positions, d_model, min(zoom_size, positions), min(zoom_size, d_model)


# Each view reruns on its own (fragments): the heatmap with its number of positions, the worked
# example with its entry, the zoom window with its corner and size.
@st.fragment
def heatmap_view() -> None:
    (positions_column,) = controls.view_row(1)
    with positions_column:
        # The zoom view too: its first position's slider ends where the table does.
        positions = controls.stops("positions", redraws=(HEATMAP, ZOOM))
    made_for = st.session_state.get(ZOOM_MADE_FOR)
    if made_for is not None and made_for != positions:  # the exact box: this view alone reran
        st.session_state[ZOOM_MADE_FOR] = positions
        st.rerun(scope="app")
    heatmap_chart()


@st.fragment(key=HEATMAP)
def heatmap_chart() -> None:
    d_model, base, layout, timescales = table()
    positions = controls.current("positions")
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
    # Each cell's hover works the formula where the table is exact and small enough to carry
    # it (figures.heatmap.FORMULA_HOVER_CELLS); the worked entry is outlined.
    hover_formula = overview.exact and overview.values.size <= FORMULA_HOVER_CELLS
    pos, dim = controls.values("pos", "dim")
    fig = make_pe_heatmap_figure(
        # The layout's name in the visitor's language: "interleaved" is "交错" in Chinese.
        overview, title=t("heatmap.chart_title", layout=layout_name[layout]), lang=lang,
        formula=formula_table(positions) if hover_formula else None,
        # The worked entry's outline (a dimension past the table: the last, its notice); a
        # slide shows no worked example, so no outline its audience could not read.
        mark=None if on_slide() else (pos, min(dim, d_model - 1)),
    )
    show_chart(
        fig,
        key=HEATMAP_CHART,
        name=file_stem("heatmap", *table_name(positions)),
        # The downloads carry the table itself (built only when a button is pressed), not the
        # overview drawn on screen, up to export.files's caps.
        table=TableExport(
            overview, (positions, d_model),
            lambda: core.sinusoidal_encoding(positions, d_model, base=base, layout=layout,
                                             timescales=timescales),
        ),
        on_click=pick_entry,
    )
    with page_only("heatmap-hint"):  # a slide shows no worked example to click into
        explain(t("heatmap.chart_hint") if hover_formula else t("heatmap.chart_hint_click"),
                caption=True)


@st.fragment(key=WORKED)
def worked_example() -> None:
    st.subheader(t("heatmap.worked"))
    sub_left, sub_right = controls.view_row(2)
    d_model = controls.current("d_model")
    picked = st.session_state.pop(PICKED, None)
    if picked is not None:
        # A click on the heatmap (`pick_entry`): set again in this run, before the boxes, so
        # that they show it and write the link (the callback's own setting was settled when its
        # rerun began, and a box shows only a value set in the run that makes it).
        st.session_state["pos"], st.session_state["dim"] = picked
    with sub_left:
        controls.number("pos", t("heatmap.position"), help=t("heatmap.position_help"),
                        redraws=(WORKED_ENTRY, HEATMAP))  # the heatmap outlines the entry
    with sub_right:
        controls.number("dim", t("heatmap.dimension"),
                        help=t("heatmap.dimension_help", last=d_model - 1),
                        redraws=(WORKED_ENTRY, HEATMAP))
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
        rf" = \{entry.function}\!\left(\frac{{{entry.position}}}"
        rf"{{{formula_number(entry.denominator)}}}\right)\\ &= \{entry.function}"
        rf"({formula_number(entry.angle)}) = {formula_value(entry.value)}\end{{aligned}}"
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


@st.fragment(key=ZOOM)
def zoom_window() -> None:
    st.subheader(t("heatmap.zoom"))
    # The corner's sliders run over the corners the table has (a window past its end is drawn
    # at the end, and a link's such value kept as a stop of its own); dragged, they move the
    # window in the browser (its states) before the release draws it.
    positions, d_model, rows, cols = zoom_shape()
    st.session_state[ZOOM_MADE_FOR] = positions
    # Two rows (one fold when presenting): a slider and its exact box need half the column.
    (rows_holder,) = controls.view_row(1)
    pos_column, dim_column = controls.view_row(2, within=rows_holder)
    with pos_column:
        controls.stops("zoom_pos", t("heatmap.zoom_pos"), range(positions - rows + 1),
                       redraws=(ZOOM_CHART,))
    with dim_column:
        controls.stops("zoom_dim", t("heatmap.zoom_dim"), range(d_model - cols + 1),
                       redraws=(ZOOM_CHART,))
    size_column, _ = controls.view_row(2, within=rows_holder)
    with size_column:
        controls.number("zoom_size", redraws=(ZOOM,))  # the sliders end elsewhere
    zoom_chart()


@st.fragment(key=ZOOM_CHART)
def zoom_chart() -> None:
    d_model, base, layout, timescales = table()
    zoom_pos, zoom_dim, zoom_size = controls.values("zoom_pos", "zoom_dim", "zoom_size")
    positions, _, rows, cols = zoom_shape()  # positions: the heatmap view's control
    start = min(zoom_pos, positions - rows)  # a window past the table's end is drawn at its end
    window = cached_window(start, rows, zoom_dim, zoom_size, d_model, base, layout, timescales)
    dim_start = int(window.col_edges[0])
    fig = make_pe_heatmap_figure(window, title=t("heatmap.zoom_title"), lang=lang)
    # Each corner slider's states: the window at evenly spaced values, and where it is drawn.
    steps = []  # the largest step a drag previews, where that is more than one
    for name, last in (("zoom_pos", positions - rows), ("zoom_dim", d_model - cols)):
        most = max(2, min(101, LIVE_WIDTH // d_model)) if name == "zoom_pos" else 101
        values = zoom_live_values(0, last, rows=rows, cols=cols, most=most)
        if not values:
            continue
        if name == "zoom_pos":
            found = cached_windows_down(tuple(values), rows, dim_start, cols, d_model, base,
                                        layout, timescales)
        else:
            found = cached_windows_across(start, rows, tuple(values), cols, d_model, base,
                                          layout, timescales)
        windows = dict(zip(values, found, strict=True))
        windows[start if name == "zoom_pos" else dim_start] = window
        add_zoom_window_states(fig, name, sorted(windows.items()))
        if len(values) <= last:  # fewer states than stops: a drag previews the nearest
            steps.append(last / (len(values) - 1))
    explain(
        t("heatmap.zoom_caption", first_pos=window.row_edges[0], last_pos=window.row_edges[-1] - 1,
          first_dim=window.col_edges[0], last_dim=window.col_edges[-1] - 1)
        + (t("heatmap.zoom_preview", step=round(max(steps))) if steps else ""),
        caption=True,
    )
    show_chart(
        fig,
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
