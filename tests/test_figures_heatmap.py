"""`make_pe_heatmap_figure`: traces, colour scale, axis titles and the overview note; the
formula in each exact cell's hover, the worked entry's outline, the entry a click picks; the zoom
window's live states (`add_zoom_window_states`)."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
import pytest

import core
from figures.common import array_of
from figures.heatmap import (
    FORMULA_HOVER_CELLS,
    FormulaTable,
    _as_printed,
    add_zoom_window_states,
    cell_entry,
    formula_number,
    formula_value,
    make_pe_heatmap_figure,
    zoom_live_values,
)
from tests import reference
from tests.live_states import assert_states_draw_the_servers_figures, live_states


def test_exact_heatmap_traces_and_axes():
    fig = make_pe_heatmap_figure(core.sinusoid_overview(5, 4), title="t")
    (heatmap,) = fig.data
    assert heatmap.type == "heatmap"
    assert (heatmap.zmin, heatmap.zmax, heatmap.zmid) == (-1.0, 1.0, 0.0)
    assert "position" in fig.layout.yaxis.title.text
    assert "dimension" in fig.layout.xaxis.title.text
    assert fig.layout.yaxis.autorange == "reversed"  # position 0 at the top
    assert "PE = %{z" in heatmap.hovertemplate
    np.testing.assert_array_equal(heatmap.x, [0, 1, 2, 3])
    assert not fig.layout.annotations


def test_overview_says_it_is_resampled_and_hovers_cell_sizes():
    overview = core.sinusoid_overview(1000, 1000, max_rows=10, max_cols=10)
    fig = make_pe_heatmap_figure(overview, title="t")
    (heatmap,) = fig.data
    assert np.asarray(heatmap.z).shape == (10, 10)
    assert "smoothed value" in heatmap.hovertemplate
    assert "cell of ~100" in heatmap.hovertemplate
    np.testing.assert_allclose(heatmap.y[:2], [49.5, 149.5])  # centres of positions 0-99, 100-199
    notes = fig.layout.annotations[0].text.split("<br>")
    assert notes[0].startswith("Overview: 10 x 10 cells, one every ~100 positions")
    assert notes[1] == ("Each column: ~100 neighbouring sines (or cosines), never a sine with a "
                        "cosine.")
    fast_pairs = int(np.sum(10000.0 ** (-np.arange(0, 1000, 2) / 1000) > np.pi * 10 / 1000))
    assert notes[2].startswith(f"Columns 0–{2 * fast_pairs - 1} change faster than one cell")


def test_exact_table_has_no_notes():
    fig = make_pe_heatmap_figure(core.sinusoid_overview(64, 32), title="t")
    assert len(fig.layout.annotations) == 0 and len(fig.layout.shapes) == 0


def test_figure_json_is_compact():
    # The JSON the chart element sends (ui.plotly_react.figure_json: numpy arrays as base64 typed
    # arrays, as plotly 7 writes them): the largest overview stays well under the 1.5 MB-per-rerun
    # budget.
    from ui.plotly_react import figure_json

    fig = make_pe_heatmap_figure(core.sinusoid_overview(8192, 4096), title="t")
    assert len(figure_json(fig).encode()) < 1_500_000


# --- the zoom window's live states (figures.common.add_live_states) ---------------------------
# The zoom chart as app_pages/heatmap.py draws it at a corner: the exact window, with the states
# of both corner sliders (their values spaced by zoom_live_values, and the corner drawn).
def zoom_figure(first_pos: int, first_dim: int, *, positions: int, d_model: int, size: int,
                base: float = 10000.0, layout: str = "interleaved"):
    rows, cols = min(size, positions), min(size, d_model)
    start, dim_start = min(first_pos, positions - rows), min(first_dim, d_model - cols)

    def window(pos, dim):
        return core.sinusoid_window(pos, rows, dim, cols, d_model, base=base, layout=layout)

    fig = make_pe_heatmap_figure(window(start, dim_start), title="Zoom window (exact)")
    for name, last in (("zoom_pos", positions - rows), ("zoom_dim", d_model - cols)):
        values = set(zoom_live_values(0, last, rows=rows, cols=cols))
        values.add(start if name == "zoom_pos" else dim_start)
        add_zoom_window_states(fig, name, [
            (v, window(v, dim_start) if name == "zoom_pos" else window(start, v))
            for v in sorted(values)])
    return fig


@pytest.mark.parametrize(("name", "drawn"), [("zoom_pos", 40), ("zoom_dim", 7)])
def test_zoom_window_states_draw_each_corner(name, drawn):
    def make(value):
        corner = {"zoom_pos": 40, "zoom_dim": 7, name: value}
        return zoom_figure(corner["zoom_pos"], corner["zoom_dim"], positions=100, d_model=64,
                           size=8, layout="concatenated")

    # 8 x 8 windows: every corner has a state (101 at most), the last where the table ends.
    last = 100 - 8 if name == "zoom_pos" else 64 - 8
    assert live_states(make(drawn), name)["values"] == [str(v) for v in range(last + 1)]
    assert_states_draw_the_servers_figures(make, name, drawn,
                                           values=[0, 1, drawn - 1, drawn, drawn + 1, last])


def test_zoom_window_states_are_spaced_when_every_corner_would_weigh_too_much():
    # 32 x 32 windows of a 128-row table: a state weighs 32 * 32 + 64 numbers and the two
    # sliders share 40,000, so 18 evenly spaced first positions of the 97, and the drawn one.
    def make(value):
        return zoom_figure(value, 0, positions=128, d_model=128, size=32)

    values = assert_states_draw_the_servers_figures(make, "zoom_pos", 50,
                                                    values=[0, 50, 96])
    numbers = [int(v) for v in values]
    assert len(numbers) == 19 and numbers[0] == 0 and numbers[-1] == 96 and 50 in numbers
    assert max(np.diff(numbers)) <= 6  # 96 / 17 ~ 5.6 positions between two states


def test_zoom_window_state_carries_the_exact_float32_entries():
    fig = zoom_figure(3, 4, positions=16, d_model=16, size=4)
    values = live_states(fig, "zoom_pos")
    data, layout, traces = values["updates"][values["values"].index("9")]
    assert (layout, traces) == ({}, [0])
    spec = data["z"][0]
    assert (spec["dtype"], spec["shape"]) == ("f4", "4, 4")
    z = array_of(spec)
    assert z.shape == (4, 4)
    # PE(9..12, 4..7) by the paper's formula, float64: sin at even columns, cos at odd.
    pos = np.arange(9, 13)[:, None]
    dims = np.arange(4, 8)[None, :]
    angle = pos / 10000.0 ** (2 * (dims // 2) / 16)
    expected = np.where(dims % 2 == 0, np.sin(angle), np.cos(angle))
    np.testing.assert_allclose(z, expected, atol=2e-7)
    assert data["y"] == [[9, 10, 11, 12]] and data["x"] == [[4, 5, 6, 7]]


def test_zoom_window_position_labels_keep_one_width_down_the_table():
    # A window moving past position 99 would widen its labels, and the margin with them (the
    # plot jumps sideways, plotly.js draws twice). Every label of every window the drag draws
    # has the last one's width: d3's format here is also Python's ("fill > width").
    fig = zoom_figure(0, 0, positions=1200, d_model=64, size=16)
    axis = fig.layout.yaxis
    assert axis.hoverformat == "d"  # the hover's position stays a plain number
    states = live_states(fig, "zoom_pos")
    labels = [format(int(pos), axis.tickformat)
              for data, _, _ in states["updates"] for pos in data["y"][0]]
    assert {len(label) for label in labels} == {len("1199")}
    assert format(7, axis.tickformat) == "\u2007\u2007\u20077"  # figure spaces: a digit wide
    # Across the dimensions the rows stay: their labels as they are.
    across = zoom_figure(0, 0, positions=16, d_model=64, size=16)
    assert across.layout.yaxis.tickformat is None


def test_zoom_window_too_large_to_preview_carries_no_states():
    # 256 x 256: one state alone would weigh more than the sliders' share of 40,000 numbers.
    fig = zoom_figure(0, 0, positions=1024, d_model=1024, size=256)
    assert not (fig.layout.meta or {}).get("live")


@pytest.mark.parametrize(("positions", "d_model", "size"),
                         [(128, 128, 32), (1024, 512, 8), (1024, 512, 13), (8192, 4096, 256)])
def test_zoom_window_states_weigh_at_most_a_third_of_a_megabyte(positions, d_model, size):
    # MAX_LIVE_NUMBERS bounds what a drag sends: 40,000 float32 as base64 (5.3 characters
    # each, 7% more where plotly's JSON writes "/" as "\u002f") and the axes' numbers.
    fig = zoom_figure(positions // 3, d_model // 3, positions=positions, d_model=d_model,
                      size=size)
    plain = go.Figure(fig)
    plain.layout.meta = None
    assert len(fig.to_json()) - len(plain.to_json()) < 330_000


# --- the formula in each cell's hover, the worked entry's outline, the cell a click picks -----
def formula_figure(positions: int, d_model: int, *, base: float = 10000.0,
                   layout: str = "interleaved", timescales: str = "paper",
                   mark: tuple[int, int] | None = None):
    """The heatmap as app_pages/heatmap.py draws an exact table: with each column's entry and
    the float64 table for the hover."""
    overview = core.sinusoid_overview(positions, d_model, base=base, layout=layout,
                                      timescales=timescales)
    formula = FormulaTable(
        [core.worked_entry(0, dim, d_model, base=base, layout=layout, timescales=timescales)
         for dim in range(d_model)],
        core.sinusoidal_encoding(positions, d_model, base=base, layout=layout,
                                 timescales=timescales, dtype=np.float64))
    return make_pe_heatmap_figure(overview, title="t", formula=formula, mark=mark)


def hover_of(fig, pos: int, dim: int) -> str:
    """The hover label plotly.js writes for cell (pos, dim): the template with the cell's data,
    d3's ".6~g" (six significant digits, trailing zeros dropped) and ".6f" read as Python's."""
    (heatmap,) = fig.data
    denominator, angle = (float(v) for v in np.asarray(heatmap.customdata)[pos, dim])
    z = float(np.asarray(heatmap.z)[pos, dim])
    function = fig.layout.xaxis.labelalias[format(dim, heatmap.xhoverformat)]
    number = {"customdata[0]": float(f"{denominator:.6g}"), "customdata[1]": float(f"{angle:.6g}")}
    text = heatmap.hovertemplate.replace("<extra></extra>", "")
    text = text.replace("%{y:d}", str(pos)).replace("%{x:d}", str(dim))
    text = text.replace("%{x}", function).replace("%{z:.6f}", f"{z:.6f}")
    for key, value in number.items():
        text = text.replace("%{" + key + ":.6~g}", f"{value:g}" if value else "0")
    return text


@pytest.mark.parametrize(("layout", "timescales", "base"), [
    ("interleaved", "paper", 10000.0), ("concatenated", "paper", 10000.0),
    ("concatenated", "tensor2tensor", 10000.0), ("interleaved", "paper", 500000.0)])
def test_hover_works_each_entrys_formula(layout, timescales, base):
    # PE(pos, 2i) = sin(pos / base^(2i/d)), PE(pos, 2i+1) = cos(...) (interleaved); the sines
    # then the cosines (concatenated); tensor2tensor's exponent i / (d/2 - 1).
    positions, d_model = 12, 16
    fig = formula_figure(positions, d_model, base=base, layout=layout, timescales=timescales)
    half = d_model // 2
    for pos in range(positions):
        for dim in range(d_model):
            i, is_sin = (dim // 2, dim % 2 == 0) if layout == "interleaved" else (
                dim % half, dim < half)
            exponent = 2 * i / d_model if timescales == "paper" else i / (half - 1)
            denominator = base ** exponent
            angle = pos / denominator
            value = math.sin(angle) if is_sin else math.cos(angle)
            name = "sin" if is_sin else "cos"
            assert hover_of(fig, pos, dim) == (
                f"PE({pos}, {dim}) = {name}({pos} / {float(f'{denominator:.6g}'):g}) = "
                f"{name}({float(f'{angle:.6g}'):g}) = {value + 0.0:.6f}"), (pos, dim)


def test_hover_numbers_are_sent_as_float32_typed_arrays_and_names_per_column():
    fig = formula_figure(5, 4)
    (heatmap,) = fig.data
    spec = fig.to_plotly_json()["data"][0]["customdata"]
    assert (spec["dtype"], spec["shape"]) == ("f4", "5, 4, 2")
    assert fig.layout.xaxis.labelalias == {"0000": "sin", "0001": "cos", "0002": "sin",
                                           "0003": "cos"}
    assert heatmap.xhoverformat == "04d"
    # PE(3, 1) = cos(3 / 1) = cos(3) = -0.989992 (the article's cos(3))
    assert hover_of(fig, 3, 1) == "PE(3, 1) = cos(3 / 1) = cos(3) = -0.989992"
    # z is the table rounded to the six decimals the hover shows, within float32 of it
    np.testing.assert_allclose(np.asarray(heatmap.z), reference.loop_interleaved(5, 4),
                               atol=6e-7)


def test_the_hovers_numbers_print_as_python_prints_the_exact_ones():
    # Six significant digits (or six decimals of an entry, in [-1, 1]) of a float64 survive
    # float32: near ties and powers of ten included.
    values = np.array([0.0, -0.0, 1e6, 999999.5, 0.5, 1.5, 2.5e-7, -2.5e-7, 0.0009765625,
                       1234565.0, 100000.5, 1e-8, 9.999995, 0.1234565, 133.35214, 5 / 133.35214])
    rng = np.random.default_rng(0)
    values = np.concatenate([values, rng.uniform(-1, 1, 2000), 10 ** rng.uniform(-9, 8.5, 2000)])
    def d3(value: float, spec: str) -> str:  # d3 writes no "-" on what rounds to zero
        text = f"{value:{spec}}"
        return text.lstrip("-") if float(text) == 0 else text

    for spec, numbers in ((".6g", values), (".6f", values[np.abs(values) <= 1])):  # entries
        printed = _as_printed(numbers, spec).astype(np.float32)
        assert [f"{float(v):{spec}}" for v in printed] == [d3(v, spec) for v in numbers], spec
    assert formula_value(-2.5e-7) == "0.000000" and formula_value(-0.989992) == "-0.989992"


@pytest.mark.parametrize(("value", "text"), [
    (0.0, "0"), (133.352142, "133.352"), (0.0374946, "0.0374946"), (1.0, "1"), (10000.0, "10000"),
    (5e-5, "0.00005"), (1e-6, "0.000001"), (1e-8, "1e-8"), (1e6, "1e+6"), (1234567.0, "1.23457e+6"),
    (999999.7, "1e+6"), (-0.25, "-0.25")])
def test_formula_numbers_are_written_as_javascripts_to_precision_6(value, text):
    # (x).toPrecision(6) with its trailing zeros dropped (d3's ".6~g"): fixed from 1e-6 up to
    # 1e6, the exponent unpadded ("1e-8", where Python writes "1e-08").
    assert formula_number(value) == text


def test_tables_over_the_cap_and_overviews_keep_their_hover():
    positions = FORMULA_HOVER_CELLS // 128 + 1  # exact, one row over the cap
    overview = core.sinusoid_overview(positions, 128)
    assert overview.exact
    formula = FormulaTable([core.worked_entry(0, d, 128) for d in range(128)],
                           core.sinusoidal_encoding(positions, 128, dtype=np.float64))
    (heatmap,) = make_pe_heatmap_figure(overview, title="t", formula=formula).data
    assert heatmap.customdata is None and "PE = %{z" in heatmap.hovertemplate
    block = core.sinusoid_overview(4096, 128)
    (heatmap,) = make_pe_heatmap_figure(block, title="t", formula=formula).data
    assert heatmap.customdata is None and "smoothed value" in heatmap.hovertemplate


def test_formula_hover_weighs_what_the_cap_allows():
    # The default table (128 x 128): ~11.8 characters a cell more (two float32 and a name a
    # column). At the cap the heatmap weighs less than the largest exact table without the
    # formula (131,072 cells): the page keeps to its 1.5 MB a rerun.
    default_plain = len(make_pe_heatmap_figure(core.sinusoid_overview(128, 128),
                                               title="t").to_json())
    default = len(formula_figure(128, 128, mark=(1, 2)).to_json())
    assert default - default_plain < 200_000
    largest_plain = len(make_pe_heatmap_figure(core.sinusoid_overview(128, 1024),
                                               title="t").to_json())
    for positions, d_model in ((FORMULA_HOVER_CELLS // 128, 128),
                               (FORMULA_HOVER_CELLS // 1024, 1024)):
        assert len(formula_figure(positions, d_model, mark=(1, 2)).to_json()) < largest_plain


def test_worked_entry_is_outlined_where_drawn():
    fig = make_pe_heatmap_figure(core.sinusoid_overview(10, 8), title="t", mark=(5, 3))
    (outline,) = fig.layout.shapes  # small cells' outline alone: no ring
    assert (outline.type, outline.x0, outline.x1, outline.y0, outline.y1) == (
        "rect", 2.5, 3.5, 4.5, 5.5)
    # past the table's end: nothing
    assert not make_pe_heatmap_figure(core.sinusoid_overview(10, 8), title="t",
                                      mark=(10, 3)).layout.shapes


def test_an_overviews_block_is_outlined_and_ringed():
    # 1000 positions in 10 rows of 100, 1000 columns in 10 of 100: entry (250, 730) lies in
    # rows 200-299, columns 700-799, drawn around centres 249.5 and 749.5, 100 wide.
    overview = core.sinusoid_overview(1000, 1000, max_rows=10, max_cols=10)
    rect = make_pe_heatmap_figure(overview, title="t", mark=(250, 730)).layout.shapes[-1]
    assert (rect.x0, rect.x1, rect.y0, rect.y1) == (699.5, 799.5, 199.5, 299.5)
    big = core.sinusoid_overview(4096, 128)  # 512 rows: cells under a pixel tall
    rect, ring = make_pe_heatmap_figure(big, title="t", mark=(4095, 0)).layout.shapes[-2:]
    assert (rect.y0, rect.y1) == (4087.5, 4095.5)  # the last block: positions 4088-4095
    assert (ring.type, ring.xsizemode, ring.ysizemode) == ("circle", "pixel", "pixel")
    assert (ring.xanchor, ring.yanchor, ring.x1 - ring.x0) == (0.0, 4091.5, 18)


def test_a_click_picks_the_cells_first_entry():
    exact = core.sinusoid_overview(10, 8)
    assert cell_entry(exact, 3.0, 7.0) == (7, 3)
    overview = core.sinusoid_overview(1000, 1000, max_rows=10, max_cols=10)
    assert cell_entry(overview, 749.5, 249.5) == (200, 700)  # the block's first entry
    assert cell_entry(overview, float("nan"), 249.5) is None
