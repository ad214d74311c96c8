"""`make_pe_heatmap_figure`: traces, colour scale, axis titles and the overview note; the zoom
window's live states (`add_zoom_window_states`)."""

from __future__ import annotations

import base64

import numpy as np
import plotly.graph_objects as go
import pytest

import core
from figures.heatmap import add_zoom_window_states, make_pe_heatmap_figure, zoom_live_values
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
    # plotly 7 sends numpy arrays as base64 typed arrays: the largest overview stays well under
    # the 1.5 MB-per-rerun budget.
    fig = make_pe_heatmap_figure(core.sinusoid_overview(8192, 4096), title="t")
    assert len(fig.to_json()) < 1_500_000


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
    z = np.frombuffer(base64.b64decode(spec["bdata"]), dtype="<f4").reshape(4, 4)
    # PE(9..12, 4..7) by the paper's formula, float64: sin at even columns, cos at odd.
    pos = np.arange(9, 13)[:, None]
    dims = np.arange(4, 8)[None, :]
    angle = pos / 10000.0 ** (2 * (dims // 2) / 16)
    expected = np.where(dims % 2 == 0, np.sin(angle), np.cos(angle))
    np.testing.assert_allclose(z, expected, atol=2e-7)
    assert data["y"] == [[9, 10, 11, 12]] and data["x"] == [[4, 5, 6, 7]]


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
