"""Figure export: PNG and SVG drawn by kaleido on the server, CSV and .npy of the data, the
presentation style, and what the Export menu says when the server cannot draw images."""

from __future__ import annotations

import csv
import io
import json
import struct
import xml.etree.ElementTree as ET

import numpy as np
import plotly.graph_objects as go
import pytest
from streamlit.testing.v1 import AppTest

import core
from export.files import (
    EXPORT_MAX_CELLS_NPY,
    TableExport,
    figure_csv,
    figure_image,
    figure_npy,
    figure_rows,
    find_browser,
    image_export_problem,
)
from figures.common import (
    EXPORT_HEIGHT,
    EXPORT_WIDTH,
    OKABE_ITO,
    PRESENTATION_FONT_SIZE,
    export_style,
    presentation_style,
)
from figures.heatmap import make_pe_heatmap_figure
from locales import message
from tests import reference
from tests.apptest import open_page
from ui.charts import file_stem
from ui.pages import PAGES

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from the PNG's IHDR chunk (the first one, right after the magic)."""
    assert data[:8] == PNG_MAGIC
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


@pytest.fixture(scope="module")
def kaleido_server():
    """The images' Chromium (export/chromium.py), closed after this module's exports."""
    if find_browser() is None:
        pytest.fail("no Chromium for kaleido: run `make test` (it installs Debian's chromium)")
    from export.chromium import CHROMIUM

    yield
    CHROMIUM.close()


def small_figure() -> go.Figure:
    return go.Figure(
        [go.Scatter(x=[0, 1, 2], y=[0.5, -1.0, 2.0], name="sin", line={"color": "#1f77b4"}),
         go.Scatter(x=[0, 1], y=[3.0, 4.0], name="位置", marker={"color": "#d62728", "size": 6})]
    ).update_layout(title="正弦位置编码 sinusoid")


# --- data ----------------------------------------------------------------------------------------
def test_csv_of_a_heatmap_is_its_matrix():
    overview = core.sinusoid_overview(5, 4)
    fig = make_pe_heatmap_figure(overview, title="t")
    rows = list(csv.reader(io.StringIO(figure_csv(fig).decode("utf-8"))))
    assert rows[0][1:] == ["0", "1", "2", "3"]  # dimensions across
    assert [r[0] for r in rows[1:]] == ["0", "1", "2", "3", "4"]  # positions down
    table = np.array([[float(v) for v in r[1:]] for r in rows[1:]])
    # The article's d=4 table (source 000), e.g. PE(1, 0) = sin(1) = 0.841470...
    assert table[1, 0] == pytest.approx(np.sin(1.0), abs=1e-6)
    assert table[2, 3] == pytest.approx(np.cos(2 / 100), abs=1e-6)
    npy = np.load(io.BytesIO(figure_npy(fig)))
    assert npy.shape == (5, 4)
    np.testing.assert_allclose(npy, table, atol=1e-6)


def test_table_export_carries_the_exact_table_not_the_overview():
    """A 2048 x 512 heatmap draws a resampled overview; its downloads are the table itself."""
    overview = core.sinusoid_overview(2048, 512)
    assert not overview.exact
    export = TableExport(overview, (2048, 512), lambda: core.sinusoidal_encoding(2048, 512))
    assert export.file_name("pe-heatmap_d512_pos2048_interleaved", "npy") == (
        "pe-heatmap_d512_pos2048_interleaved.npy")
    table = np.load(io.BytesIO(export.npy()), allow_pickle=False)
    assert table.shape == (2048, 512) and table.dtype == np.float32
    np.testing.assert_allclose(table, reference.loop_interleaved(2048, 512), atol=2e-7)
    rows = list(csv.reader(io.StringIO(export.csv().decode("utf-8"))))
    assert rows[0][:3] == ["position \\ dimension", "0", "1"] and rows[0][-1] == "511"
    assert [r[0] for r in rows[1:4]] == ["0", "1", "2"] and len(rows) == 2049
    assert float(rows[2][1]) == pytest.approx(np.sin(1.0), abs=1e-7)  # PE(1, 0)


def test_table_export_above_the_caps_says_overview_and_names_the_ranges():
    overview = core.sinusoid_overview(8192, 4096)
    export = TableExport(overview, (8192, 4096), lambda: pytest.fail("must not build 128 MB"))
    assert EXPORT_MAX_CELLS_NPY < 8192 * 4096
    assert export.file_name("pe-heatmap_d4096_pos8192_interleaved", "csv") == (
        "pe-heatmap_d4096_pos8192_interleaved_overview.csv")
    assert export.file_name("x", "npy") == "x_overview.npy"
    np.testing.assert_array_equal(np.load(io.BytesIO(export.npy())), overview.values)
    rows = list(csv.reader(io.StringIO(export.csv().decode("utf-8"))))
    assert rows[0][0].startswith("overview: position \\ dimension")
    assert rows[0][1:3] == ["0-7", "8-15"]  # 4096 dimensions in 512 cells
    assert [r[0] for r in rows[1:3]] == ["0-31", "32-63"]  # 8192 positions in 256 cells
    assert len(rows) == 257 and len(rows[0]) == 513


def test_csv_between_the_caps_is_exact_only_where_it_fits():
    """4096 x 1024 is 4M cells: exact in .npy (up to 2^22), the overview in CSV (over 2^20)."""
    overview = core.sinusoid_overview(4096, 1024)
    export = TableExport(overview, (4096, 1024), lambda: core.sinusoidal_encoding(4096, 1024))
    assert export.file_name("t", "npy") == "t.npy"
    assert export.file_name("t", "csv") == "t_overview.csv"
    assert np.load(io.BytesIO(export.npy())).shape == (4096, 1024)


def test_heatmap_csv_headers_are_clean_numbers():
    """Cell centres such as 0.30000000000000004 became header cells; now 0.3 (or 2 for 2.0)."""
    fig = go.Figure(go.Heatmap(z=[[1, 2], [3, 4]], x=[0.1 + 0.2, 2.0], y=[357.90000000000003, 5]))
    rows = list(csv.reader(io.StringIO(figure_csv(fig).decode("utf-8"))))
    assert rows[0] == ["y \\ x", "0.3", "2"]
    assert [r[0] for r in rows[1:]] == ["357.9", "5"]


def test_csv_and_npy_of_curves_are_one_row_per_point():
    fig = small_figure()
    rows = list(csv.reader(io.StringIO(figure_csv(fig).decode("utf-8"))))
    assert rows[0] == ["trace", "x", "y"]
    assert rows[1:] == [["sin", "0", "0.5"], ["sin", "1", "-1.0"], ["sin", "2", "2.0"],
                        ["位置", "0", "3.0"], ["位置", "1", "4.0"]]
    array = np.load(io.BytesIO(figure_npy(fig)), allow_pickle=False)
    assert array.dtype.names == ("trace", "x", "y")
    assert array["trace"].tolist() == ["sin"] * 3 + ["位置"] * 2
    np.testing.assert_array_equal(array["y"], [0.5, -1.0, 2.0, 3.0, 4.0])


def test_rows_of_a_3d_scatter_keep_z():
    fig = go.Figure(go.Scatter3d(x=[1, 2], y=[3, 4], z=[5, 6], name="p"))
    columns, rows = figure_rows(fig)
    assert columns == ["trace", "x", "y", "z"]
    assert rows == [("p", 1, 3, 5), ("p", 2, 4, 6)]


# --- images --------------------------------------------------------------------------------------
@pytest.mark.parametrize("scale", [2, 4])
def test_png_is_a_16_9_image_of_the_chosen_scale(kaleido_server, scale):
    png = figure_image(export_style(small_figure()), "png", scale=scale)
    assert png_size(png) == (EXPORT_WIDTH * scale, EXPORT_HEIGHT * scale)
    assert len(png) > 10_000


def test_svg_is_a_vector_image_with_the_text(kaleido_server):
    svg = figure_image(small_figure(), "svg").decode("utf-8")
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    assert float(root.get("width")) == EXPORT_WIDTH and float(root.get("height")) == EXPORT_HEIGHT
    assert "正弦位置编码" in svg  # Chinese text kept as text


def test_bad_export_arguments_are_refused():
    with pytest.raises(ValueError, match="fmt="):
        figure_image(small_figure(), "jpg")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="scale="):
        figure_image(small_figure(), "png", scale=100)


def main_figure(page) -> go.Figure:
    """The page's first chart as the browser receives it (AppTest sees its JSON spec)."""
    at = open_page(page.script)
    assert not at.exception, [e.value for e in at.exception]
    charts = at.get("plotly_chart")
    assert charts, f"{page.url_path}: no chart"
    return go.Figure(json.loads(charts[0].proto.spec))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.url_path)
def test_every_pages_main_figure_exports_as_png_and_svg(kaleido_server, page):
    fig = export_style(main_figure(page))
    png = figure_image(fig, "png", scale=2)
    assert png_size(png) == (2 * EXPORT_WIDTH, 2 * EXPORT_HEIGHT)
    svg = figure_image(fig, "svg")
    assert ET.fromstring(svg).tag.endswith("svg")
    # The data too: CSV with a header and rows, .npy readable without pickle.
    assert len(figure_csv(fig).splitlines()) > 2
    assert np.load(io.BytesIO(figure_npy(fig)), allow_pickle=False).size > 1


# --- presentation style ---------------------------------------------------------------------
def test_presentation_style_uses_colour_blind_safe_colours_and_larger_type():
    fig = small_figure()
    styled = presentation_style(fig)
    assert styled.data[0].line.color == OKABE_ITO["blue"]
    assert styled.data[1].marker.color == OKABE_ITO["vermillion"]
    assert styled.data[1].marker.size > 6
    assert styled.layout.font.size == PRESENTATION_FONT_SIZE
    assert styled.layout.template.layout.plot_bgcolor == "white"  # simple_white
    assert fig.data[0].line.color == "#1f77b4"  # the original is untouched
    dark = presentation_style(fig, dark=True)
    assert dark.layout.template.layout.paper_bgcolor == "rgb(17,17,17)"  # plotly_dark


def test_presentation_keeps_the_diverging_scale_centred_on_zero():
    styled = presentation_style(make_pe_heatmap_figure(core.sinusoid_overview(8, 8), title="t"))
    heatmap = styled.data[0]
    assert (heatmap.zmin, heatmap.zmid, heatmap.zmax) == (-1.0, 0.0, 1.0)


# --- file names and the menu ----------------------------------------------------------------
def test_file_stems_say_what_and_with_which_parameters():
    assert file_stem("heatmap", "d128", "pos64", "interleaved") == (
        "pe-heatmap_d128_pos64_interleaved"
    )
    assert file_stem("word", "a/b c", None, "") == "pe-word_a-b-c"


def _why_figures() -> list[go.Figure]:
    from core.why_sinusoid import why_sinusoid
    from figures.why_sinusoid import make_code_figure, make_nearby_figure, make_shift_figure

    why = why_sinusoid()
    return [make(why, lang="en") for make in (make_code_figure, make_nearby_figure,
                                               make_shift_figure)]


def test_the_menu_rebuilds_the_figure_it_keeps_pickled_as_the_chart_drew_it():
    """The Export menu keeps its chart's figure pickled between runs (ui.charts.KeptFigure: a
    session keeps its fragments' arguments as long as it lives): rebuilt, it is the figure the
    chart drew, with its frames, sliders, live states and arrays (as numpy arrays)."""
    import plotly.io as pio

    from figures.contrast import ensure_contrast
    from ui.charts import KeptFigure

    heatmap = make_pe_heatmap_figure(core.sinusoid_overview(8192, 4096), title="t")
    for fig in [*_why_figures(), heatmap]:
        fig = ensure_contrast(fig)
        rebuilt = KeptFigure.of(fig).figure()
        assert json.loads(pio.to_json(rebuilt)) == json.loads(pio.to_json(fig))
    assert isinstance(rebuilt.data[0].z, np.ndarray)


def open_export_menu(at):
    """Open the main chart's Export popover (its buttons exist only while it is open)."""
    at.session_state["heatmap_chart_export"] = True
    return at.run()


def menu_buttons(at) -> dict:
    """The open menu's buttons by key: the images' (drawn when pressed) and the data's
    (downloads)."""
    buttons = {b.proto.id.rsplit("-", 1)[-1]: b.proto for b in at.get("download_button")}
    return {**buttons, **{b.key: b.proto for b in at.button}}


def test_export_buttons_exist_only_while_the_menu_is_open():
    at = open_page("app_pages/heatmap.py", {"d_model": "16", "positions": "8"})
    def menu(at) -> list:  # the menu's buttons (not the sidebar's "Add this view to my deck")
        return [b for b in at.button if b.key != "deck_add"]

    assert len(at.get("download_button")) == 0 and len(menu(at)) == 0
    at = open_export_menu(at)
    assert len(at.get("download_button")) == 2 and len(menu(at)) == 3  # data; images


def test_heatmap_export_buttons_are_named_after_the_view():
    at = open_export_menu(open_page("app_pages/heatmap.py", {"d_model": "128", "positions": "64"}))
    buttons = menu_buttons(at)
    assert {"heatmap_chart_png2", "heatmap_chart_png4", "heatmap_chart_svg",
            "heatmap_chart_csv", "heatmap_chart_npy"} <= set(buttons)
    assert buttons["heatmap_chart_png2"].label == "PNG 3840 x 2160"
    assert not buttons["heatmap_chart_png2"].disabled
    config = json.loads(at.get("plotly_chart")[0].proto.config)  # the modebar's camera button
    assert config["toImageButtonOptions"]["filename"] == "pe-heatmap_d128_pos64_interleaved"
    assert config["toImageButtonOptions"]["width"] == EXPORT_WIDTH


def test_without_a_browser_the_menu_says_why(monkeypatch):
    monkeypatch.setenv("BROWSER_PATH", "/nonexistent/chromium")
    assert image_export_problem() == "no_browser"
    at = open_export_menu(open_page("app_pages/heatmap.py", {"d_model": "16", "positions": "8"}))
    assert not at.exception
    reason = message("export.reason_no_browser", "en")
    assert any(reason in c.value for c in at.caption)
    buttons = menu_buttons(at)
    assert buttons["heatmap_chart_png2"].disabled and buttons["heatmap_chart_svg"].disabled
    assert reason in buttons["heatmap_chart_svg"].help  # the button itself says why
    assert not buttons["heatmap_chart_csv"].disabled  # the data still downloads
    with pytest.raises(RuntimeError, match="no_browser"):
        figure_image(small_figure(), "png")


def test_without_kaleido_the_menu_says_so(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "kaleido" else real(name, *a))
    assert image_export_problem() == "no_kaleido"
    at = open_export_menu(
        open_page("app_pages/heatmap.py", {"d_model": "16", "positions": "8", "lang": "zh"}))
    reason = message("export.reason_no_kaleido", "zh")
    assert any(reason in c.value for c in at.caption)


def test_chinese_is_drawn_with_real_glyphs_in_exported_pngs(kaleido_server):
    """Without a CJK font every character is the same empty box ("tofu"), so two titles with the
    same characters in another order give the same image (checked here with Javanese, which has
    no font on these machines: ꦏꦐ and ꦐꦏ draw alike); with the font they differ."""
    def title_png(title: str) -> bytes:
        fig = go.Figure(go.Scatter(x=[0, 1], y=[0, 1])).update_layout(title=title)
        return figure_image(export_style(fig), "png", scale=1)

    assert title_png("位置编码") != title_png("编码位置")


WAVELENGTHS, SIMILARITY = "app_pages/wavelengths.py", "app_pages/similarity.py"
WAVELENGTHS_SMALL = {"d_model": "32", "positions": "64"}
SIMILARITY_SMALL = {"d_model": "32", "positions": "64", "anchor": "20", "offset": "3"}


def test_download_file_names_say_what_and_with_which_parameters():
    """The modebar's PNG and the Export menu's files are named after the chart's parameters."""
    def names(at: AppTest) -> list[str]:
        return [json.loads(chart.proto.config)["toImageButtonOptions"]["filename"]
                for chart in at.get("plotly_chart")]

    at = open_page(WAVELENGTHS, {"dims": "2,3", **WAVELENGTHS_SMALL})
    assert names(at) == ["pe-wavelength-curves_d32_pos64_dims2-3",
                         "pe-wavelength-spectrum_d32_pos64"]
    at = open_page(SIMILARITY, {"lang": "zh", "metric": "dot", "base": "500", **SIMILARITY_SMALL})
    assert names(at) == ["pe-similarity-matrix_d32_pos64_base500_dot"]
    at = open_page(SIMILARITY, {"view": "rotation", **SIMILARITY_SMALL})
    assert names(at) == ["pe-similarity-shift-matrix_d32_k3",
                         "pe-similarity-rotation_d32_pair0_p20_k3"]


def test_an_exported_title_starts_over_the_plot_not_at_the_images_edge():
    fig = make_pe_heatmap_figure(core.sinusoid_overview(8, 16), title="PE")
    title = export_style(fig).layout.title
    assert (title.xref, title.x, title.xanchor) == ("paper", 0, "left")


_EXPORT_AFTER_START = """
import json, sys
sys.path.insert(0, {root!r})
import plotly.graph_objects as go
from export.files import figure_image
from export.slides import import_libraries, slides_pdf, slides_zip
import_libraries()
before = set(sys.modules)
fig = go.Figure(go.Heatmap(z=[[1, 2], [3, 4]]), layout={{"title": "正弦"}})
png = figure_image(fig, "png")
figure_image(fig, "svg")
slides_pdf([png]), slides_zip([png], "deck")
print(json.dumps(sorted(set(sys.modules) - before)))
"""


def test_after_the_servers_start_an_export_imports_no_library():
    """serve.py imports the exports' libraries at its start (`import_libraries`): imported in
    a session instead, ~300 modules stayed for good, a rise of the idle server's floor."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    result = subprocess.run([sys.executable, "-c", _EXPORT_AFTER_START.format(root=str(root))],
                            capture_output=True, text=True, cwd=root, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    new = json.loads(result.stdout.strip().splitlines()[-1])
    libraries = ("choreographer", "kaleido", "fpdf", "fontTools", "PIL", "logistro")
    assert [m for m in new if m.split(".")[0] in libraries] == []
