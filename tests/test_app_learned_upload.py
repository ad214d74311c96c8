"""The learned-vs-sinusoidal page with a table the visitor uploads, through AppTest: MiniLM's own
table uploaded gives exactly the built-in numbers and charts, a sinusoid gives what the formula
says, every bad file gets a notice (never an error box), a safetensors file's tensor is picked
by name, and a link that names an uploaded file says the table is not in it."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from safetensors.numpy import save as save_safetensors

import core
from locales import message
from tests import reference
from tests.apptest import decode, notices, open_page, plotly_figures, unescape
from tests.test_learned_tables import BAD_FILES, csv_bytes, npy_bytes

LEARNED = "app_pages/learned_vs_sinusoidal.py"
VIEWS = ("tables", "similarity", "offset", "space", "wavelengths", "grid", "extent")
TRACE_DATA = ("x", "y", "z", "customdata")


def comparable(values) -> str:
    """A trace's array as text that compares equal exactly when the values do (NaN too)."""
    array = decode(values)
    return repr(array.tolist()) if array.dtype.kind in "OUS" else repr(array.dtype) + \
        array.tobytes().hex()


def snapshot(at) -> dict:
    """What each view shows in numbers: the metrics, the texts' numbers, every trace's data."""
    shown: dict = {"metrics": [m.value for m in at.metric]}
    for view in VIEWS:
        at.radio(key="view").set_value(view).run()
        assert not at.exception, [e.value for e in at.exception]
        shown[view] = {
            # (an upload's third column: MiniLM's heading, and its share in a sentence)
            "numbers": [found for m in at.markdown if "MiniLM's own" not in m.value
                        if (found := re.findall(r"\d+\.\d+(?:e-?\d+)?", m.value))],
            "data": [[{key: comparable(trace[key]) for key in TRACE_DATA if key in trace}
                      for trace in figure["data"]] for figure in plotly_figures(at)],
        }
    at.radio(key="view").set_value("tables").run()
    return shown


def upload(at, name: str, data: bytes):
    at.file_uploader(key="table_file").set_value((name, data, "application/octet-stream"))
    return at.run()


def choose_upload(at):
    at.radio(key="source").set_value("upload").run()
    assert not at.exception and plotly_figures(at) == []
    intro = unescape(at.markdown[0].value)  # the page speaks of the visitor's table
    assert "Here is yours, the table you upload" in intro and "the real one of" not in intro
    assert any("Upload a position table" in i.value for i in at.info)
    return at


@pytest.mark.parametrize("kind", ["npy", "safetensors"])
def test_minilm_uploaded_gives_exactly_the_built_in_numbers(weights, kind):
    table = weights["embeddings.position_embeddings.weight"]  # (512, 384) float32
    at = open_page(LEARNED)
    built_in = snapshot(at)
    choose_upload(at)
    data = npy_bytes(table) if kind == "npy" else save_safetensors({
        "embeddings.word_embeddings.weight": weights["embeddings.token_type_embeddings.weight"],
        "embeddings.position_embeddings.weight": table})
    upload(at, f"minilm.{kind}", data)
    assert not at.exception and notices(at) == []
    held = next(unescape(c.value) for c in at.caption if "Showing" in c.value)
    assert f"minilm.{kind}" in held and "512 positions x 384 dimensions" in held
    if kind == "safetensors":  # the position table picked among the file's tensors
        assert at.selectbox(key="table_tensor").value == "embeddings.position_embeddings.weight"
    shown = snapshot(at)
    # Beside an upload, MiniLM's own table, for comparison: a line of numbers, a third similarity
    # matrix. Here it is the very table uploaded: the built-in page's learned numbers once more.
    compared = next(unescape(c.value) for c in at.caption if "For comparison" in c.value)
    assert re.findall(r"\*\*([\d.]+)\*\*", compared) == built_in["metrics"][:3]
    similarity = shown["similarity"]["data"]
    assert similarity == built_in["similarity"]["data"] + built_in["similarity"]["data"][:1]
    shown["similarity"]["data"] = similarity[:2]
    assert shown == built_in
    assert at.query_params["source"] == "upload"
    assert at.query_params["file"] == f"minilm.{kind}"


def test_a_sinusoid_uploaded_is_offset_only_and_on_its_ladder():
    n, d = 256, 64
    sinusoid = reference.loop_interleaved(n, d)  # float64 loops: the paper's formula
    at = choose_upload(open_page(LEARNED))
    upload(at, "sinusoid.csv", csv_bytes(sinusoid))
    assert not at.exception and notices(at) == []
    at.radio(key="view").set_value("similarity").run()
    share = next(m.value for m in at.markdown if "offset alone explains" in m.value)
    assert "learned **1.000**, sinusoid **1.000**" in share
    # MiniLM's own share beside them, over its first 256 rows: computed here from its weights
    minilm = next(unescape(m.value) for m in at.markdown if "MiniLM's own" in m.value)
    weights = core.load_minilm().position_embeddings[:n].astype(np.float64)
    unit = weights / np.linalg.norm(weights, axis=1, keepdims=True)
    assert f"first {n} positions: the offset alone explains " \
        f"**{reference.offset_only_share(unit @ unit.T):.3f}** of its similarity (yours: " \
        "**1.000**" in minilm
    at.radio(key="view").set_value("wavelengths").run()
    (figure,) = plotly_figures(at)
    ladder, dominant = figure["data"]
    truth = np.array([2 * math.pi * 10000 ** (2 * (j // 2) / d) for j in range(d)])
    np.testing.assert_allclose(decode(ladder["y"]), truth, rtol=1e-12)
    periods = decode(dominant["y"])
    m = n - 1  # positions 1..n-1: bins 1/m apart
    seen = truth <= m / 2
    assert np.abs(m / periods[seen] - m / truth[seen]).max() <= 0.5


@pytest.mark.parametrize("case", ["file_too_large", "too_large", "not_2d", "not_finite",
                                  "pickle", "pickle_named_npy", "truncated",
                                  "truncated_safetensors", "not_format", "format", "ragged",
                                  "not_number", "empty", "dtype"])
def test_every_bad_file_gets_a_notice_naming_it(case):
    data, name = BAD_FILES[case]
    at = choose_upload(open_page(LEARNED))
    upload(at, name, data)
    assert not at.exception and not at.error, case
    (notice,) = notices(at)
    assert notice.startswith(f"{name} cannot be used: "), notice
    assert plotly_figures(at) == []
    # a good file then replaces it, and the notice goes
    upload(at, "good.npy", npy_bytes(np.random.default_rng(0).standard_normal((20, 6))))
    assert notices(at) == [] and len(plotly_figures(at)) == 2


def test_a_safetensors_tensor_is_picked_by_name():
    rng = np.random.default_rng(1)
    file = save_safetensors({
        "transformer.wte.weight": rng.standard_normal((5000, 8)).astype(np.float32),  # too long
        "transformer.wpe.weight": rng.standard_normal((64, 8)).astype(np.float32),
        "extra.pos_table": rng.standard_normal((40, 6)).astype(np.float32),
        "ln.bias": np.zeros(8, np.float32),  # 1-D
    })
    at = choose_upload(open_page(LEARNED))
    upload(at, "gpt2-ish.safetensors", file)
    box = at.selectbox(key="table_tensor")
    assert sorted(box.options) == ["extra.pos_table  (40 x 6, F32)",
                                   "transformer.wpe.weight  (64 x 8, F32)"]  # usable tables
    assert box.value == "transformer.wpe.weight"  # the one whose name says positions
    assert any("wpe.weight: 64 positions x 8" in unescape(c.value) for c in at.caption)
    box.set_value("extra.pos_table").run()
    assert any("40 positions x 6" in unescape(c.value) for c in at.caption)
    assert at.query_params["tensor"] == "extra.pos_table"


def test_removing_the_file_drops_the_table():
    at = choose_upload(open_page(LEARNED))
    upload(at, "t.npy", npy_bytes(np.ones((8, 4)) + np.arange(8)[:, None]))
    assert len(plotly_figures(at)) == 2
    at.file_uploader(key="table_file").set_value(None).run()
    assert plotly_figures(at) == [] and "_uploaded_table" not in at.session_state


def test_a_link_naming_an_uploaded_file_says_the_table_is_not_in_it():
    at = open_page(LEARNED, {"source": "upload", "file": "gpt2-wpe.npy", "view": "similarity"})
    assert not at.exception and plotly_figures(at) == []
    (info,) = [unescape(i.value) for i in at.info]
    assert "gpt2-wpe.npy" in info
    assert "upload" in info and "a link cannot carry a table" in info
    # MiniLM's numbers are not shown under the file's name
    assert at.metric == [] or not any("MiniLM" in m.value for m in at.markdown)


def test_a_deck_slide_of_an_uploaded_table_says_so():
    from ui.tour import Slide, encode_deck

    slide = Slide("learned-vs-sinusoidal", {"source": "upload", "file": "my-model.safetensors",
                                           "tensor": "wpe.weight"})
    at = open_page("app_pages/tour.py", {"deck": encode_deck([slide]), "slide": "1",
                                         "present": "true", **slide.settings})
    assert not at.exception, [e.value for e in at.exception]
    texts = " ".join(unescape(i.value) for i in at.info)
    assert "my-model.safetensors : wpe.weight" in texts
    assert "a link cannot carry a table" in texts
    # its title is the uploaded table's takeaway, not MiniLM's
    title = " ".join(unescape(m.value) for m in at.markdown if m.value.startswith("#"))
    assert "Your learned table" in title and "MiniLM" not in title, title


def test_presenting_an_uploaded_table_speaks_of_it_not_of_minilm():
    """Each view's line in presentation mode, the upload's (ui.pages.takeaway_key reads the
    page's `source`) and MiniLM's for comparison: a link with no table shows its notice, the
    line above it already the upload's."""
    for source, view in [("minilm", "similarity"), *(("upload", view) for view in VIEWS)]:
        at = open_page(LEARNED, {"present": "true", "source": source, "view": view})
        assert not at.exception, [e.value for e in at.exception]
        line = " ".join(unescape(m.value) for m in at.markdown)
        expected = message(f"takeaway.learned-vs-sinusoidal.{'upload.' * (source == 'upload')}"
                           f"{view}")
        assert expected in line, (source, view)
        assert ("MiniLM" in expected) == (source == "minilm")


def test_held_tables_are_counted_and_one_past_the_room_waits_then_hears_why(monkeypatch):
    """Each held table takes its file's bytes and its own from the uploads' budget until it is
    dropped; an upload that finds no room waits (its place said), then gets a notice; room
    given back lets the next try in."""
    import gc

    from server import memory_budget

    table = (np.arange(64)[:, None] + np.ones((64, 16))).astype(np.float32)
    data = npy_bytes(table)
    cost = len(data)  # a float32 .npy: the table is a view of the file's bytes
    budget = memory_budget.MemoryBudget(2 * cost)
    monkeypatch.setattr(memory_budget, "HELD_UPLOADS", budget)
    monkeypatch.setattr(memory_budget, "UPLOAD_WAIT_S", 1.0)
    first, second, third = (choose_upload(open_page(LEARNED)) for _ in range(3))
    upload(first, "a.npy", data)
    upload(second, "b.npy", data)
    assert budget.used == 2 * cost and len(plotly_figures(second)) == 2
    upload(third, "c.npy", data)
    assert not third.exception and plotly_figures(third) == []
    assert any("upload yours again in a minute" in n for n in notices(third))
    assert not any("waits for one to go" in i.value for i in third.info)  # the wait's line gone
    first.file_uploader(key="table_file").set_value(None).run()
    gc.collect()
    assert budget.used == cost
    upload(third, "c.npy", data)
    assert len(plotly_figures(third)) == 2 and budget.used == 2 * cost


def test_a_float32_table_is_a_view_of_the_files_bytes(weights):
    """What a held table counts: the file's bytes, and the table's only where it is a copy."""
    from ui.table_upload import read_held

    table = weights["embeddings.position_embeddings.weight"]
    for data, name, copied in ((npy_bytes(table), "f32.npy", 0),
                               (save_safetensors({"pos": table}), "f32.safetensors", 0),
                               (npy_bytes(table.astype(np.float64)), "f64.npy", table.nbytes),
                               (csv_bytes(table[:8]), "text.csv", table[:8].nbytes)):
        held = read_held(data, name, "id", None)
        assert held.nbytes == len(data) + copied, name


def test_a_vit_table_read_as_its_grid_gives_maes_tiles():
    """MAE's 2-D sin-cos table (197 x 768: a class token and 14 x 14 patches) uploaded: the grid
    view offers 14 x 14 + class token first and draws the tiles of the 2-D grids page."""
    from core import vit_grid

    table = vit_grid.sincos_2d_encoding(14, 14, 768, cls_token=True)  # float32
    at = choose_upload(open_page(LEARNED))
    upload(at, "mae-pos-embed.npy", npy_bytes(table))
    at.radio(key="view").set_value("grid").run()
    assert not at.exception, [e.value for e in at.exception]
    (box,) = [b for b in at.selectbox if b.key.startswith("grid_shape_")]
    assert box.value == "14x14+cls" and box.options[0] == "14 x 14 + class token"
    (figure,) = plotly_figures(at)
    expected = vit_grid.sincos_similarity_tiles(14, 14, 768).mosaic()
    np.testing.assert_allclose(decode(figure["data"][0]["z"]), expected, atol=1e-6)
    assert at.query_params["grid"] == "14x14+cls"
    box.set_value("7x28+cls").run()  # another reading of the same 196 patches
    assert at.query_params["grid"] == "7x28+cls" and not at.exception


def test_a_table_longer_than_the_lenses_draw_says_which_rows_are_left_out():
    at = choose_upload(open_page(LEARNED))
    upload(at, "long.npy", npy_bytes(np.random.default_rng(5).standard_normal((4096, 4))))
    assert not at.exception and notices(at) == []
    assert int(at.select_slider(key="positions").value) == 2048  # as far as the lenses go
    said = [unescape(c.value) for c in at.caption if "The lenses draw" in c.value]
    assert said == [message("learned-vs-sinusoidal.held_beyond", shown=2048, last=4095)]
    at.radio(key="view").set_value("extent").run()  # where it stops: every row, as said
    (extent,) = plotly_figures(at)
    assert len(decode(extent["data"][0]["y"])) == 4096
