"""Uploading a position table in headless Chromium, through serve.py (the public entry, whose
doors open the upload route to the uploader alone): a GPT-2-sized table (1024 x 768, written
here from a known formula) in each format is read and drawn at 1440 x 900; bad files get a
notice, never an error box. The screenshots of the first are committed in docs/screenshots/."""

from __future__ import annotations

import math
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file

from tests.browser_support import click_section
from tests.conftest import new_page, served

pytestmark = pytest.mark.browser

ROWS, WIDTH = 1024, 768  # GPT-2's wpe
SCREENSHOTS = Path(__file__).resolve().parent.parent / "docs" / "screenshots"


def gpt2_sized_table() -> np.ndarray:
    """(1024, 768) float32: column j a sine of period 1.5 x the sinusoid's 2 pi 10000^(2i/d)
    (i = j // 2), amplitude 0.1, phase j; position 0 an outlier of 0.4 everywhere."""
    positions = np.arange(ROWS)[:, None]
    j = np.arange(WIDTH)[None, :]
    period = 1.5 * 2 * math.pi * 10000 ** (2 * (j // 2) / WIDTH)
    table = 0.1 * np.sin(2 * math.pi * positions / period + j)
    table[0] = 0.4
    return table.astype(np.float32)


@pytest.fixture(scope="module")
def serve_url() -> Iterator[str]:
    yield from served("serve.py", "serve-upload.log")


@pytest.fixture
def upload_page(browser, serve_url):
    seen = new_page(browser, serve_url, viewport={"width": 1440, "height": 900})
    yield seen
    seen.close()


def write(tmp_path: Path, kind: str) -> Path:
    table = gpt2_sized_table()
    path = tmp_path / f"gpt2-wpe.{kind}"
    if kind == "npy":
        np.save(path, table)
    elif kind == "safetensors":
        save_file({"wte.weight": np.zeros((8, WIDTH), np.float32), "wpe.weight": table}, path)
    else:
        np.savetxt(path, table, delimiter="," if kind == "csv" else "\t", fmt="%.7g")
    return path


def upload(seen, path: Path, *, charts: int = 2) -> None:
    seen.open("/learned-vs-sinusoidal?source=upload", charts=0)
    page = seen.page
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(path))
    if charts:
        page.wait_for_function(
            "n => document.querySelectorAll('.js-plotly-plot .main-svg').length >= n",
            arg=charts, timeout=120_000)
    seen.wait_idle(timeout=120_000)


def alerts(seen) -> str:
    return "\n".join(seen.page.locator('[data-testid="stAlert"]').all_inner_texts())


@pytest.mark.parametrize("kind", ["npy", "safetensors", "csv"])
def test_a_gpt2_sized_table_is_read_and_drawn(upload_page, tmp_path, kind):
    upload(upload_page, write(tmp_path, kind))
    page = upload_page.page
    assert upload_page.exceptions() == []
    page.get_by_text("1024 positions x 768 dimensions").first.wait_for(timeout=30_000)
    assert "positions=1024" in page.url  # the whole table is shown, not MiniLM's 512 rows
    assert "source=upload" in page.url and "file=gpt2-wpe." in page.url
    if kind == "safetensors":
        assert "tensor=wpe.weight" in page.url
    if kind != "npy":
        return
    # What a person sees, one view at a time, kept as the docs' screenshots.
    for view, charts in (("tables", 2), ("similarity", 3), ("wavelengths", 1), ("space", 2),
                         ("extent", 1)):
        if view != "tables":
            click_section(upload_page, view, charts)
        assert upload_page.exceptions() == []
        page.evaluate("() => document.querySelector('.st-key-pe-view')"
                      ".scrollIntoView({block: 'start'})")
        page.wait_for_timeout(500)
        shot = upload_page.screenshot(f"learned-upload-gpt2-{view}-1440x900")
        shutil.copy(shot, SCREENSHOTS / shot.name)


@pytest.mark.parametrize(("name", "data", "says"), [
    ("nan.npy", "nan", "NaN or infinite"),
    ("table.npy", "pickle", "pickle"),
    ("cut.npy", "cut", "cut short"),
    ("vit.npy", "3d", "2-D"),
    ("text.npy", "csv", "is named .npy"),
    ("weights.pt", "zeros", "must end in one of"),
])
def test_a_bad_file_gets_a_notice_not_an_error_box(upload_page, tmp_path, name, data, says):
    import io
    import pickle

    good = np.ones((16, 4), np.float32)
    buffer = io.BytesIO()
    np.save(buffer, good)
    contents = {
        "nan": lambda: _npy(np.where(np.eye(16, 4) > 0, np.nan, good)),
        "pickle": lambda: pickle.dumps(good),
        "cut": lambda: buffer.getvalue()[:-7],
        "3d": lambda: _npy(np.ones((1, 16, 4), np.float32)),
        "csv": lambda: b"1,2\n3,4\n",
        "zeros": lambda: bytes(64),
    }[data]()
    path = tmp_path / name
    path.write_bytes(contents)
    upload(upload_page, path, charts=0)
    page = upload_page.page
    page.get_by_text("cannot be used").first.wait_for(timeout=30_000)
    assert upload_page.exceptions() == []
    assert says in alerts(upload_page) and name in alerts(upload_page)
    assert page.locator(".js-plotly-plot").count() == 0


def _npy(array: np.ndarray) -> bytes:
    import io

    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def test_a_file_past_the_cap_is_refused_by_the_uploader(upload_page, tmp_path):
    path = tmp_path / "big.npy"
    path.write_bytes(bytes(18 * 2**20))
    upload(upload_page, path, charts=0)
    page = upload_page.page
    page.get_by_text("17.0MB").first.wait_for(timeout=30_000)  # the uploader's own message
    assert upload_page.exceptions() == []
    assert page.locator(".js-plotly-plot").count() == 0


def test_a_vit_table_as_its_grid(upload_page, tmp_path):
    """A ViT-B/16-sized table (MAE's 2-D sin-cos, 197 x 768, plus a little noise: a learned
    table's look) read as 14 x 14 patches and a class token: the tiles, kept in docs/."""
    from core.vit_grid import sincos_2d_encoding

    rng = np.random.default_rng(0)
    table = sincos_2d_encoding(14, 14, 768, cls_token=True)
    table = (table + 0.2 * rng.standard_normal(table.shape)).astype(np.float32)
    path = tmp_path / "vit-b16-pos-embed.npy"
    np.save(path, table)
    upload(upload_page, path)
    click_section(upload_page, "grid", 1)
    page = upload_page.page
    assert upload_page.exceptions() == []
    assert "grid=14x14%2Bcls" in page.url or "grid=14x14+cls" in page.url
    page.evaluate("() => document.querySelector('.st-key-pe-view')"
                  ".scrollIntoView({block: 'start'})")
    page.wait_for_timeout(500)
    shot = upload_page.screenshot("learned-upload-vit-grid-1440x900")
    shutil.copy(shot, SCREENSHOTS / shot.name)


@pytest.mark.parametrize(("viewport", "scheme", "lang"), [
    ({"width": 390, "height": 844}, "dark", "zh"),
    ({"width": 390, "height": 844}, "light", "en"),
    ({"width": 1440, "height": 900}, "dark", "zh"),
])
def test_an_upload_on_a_phone_in_dark_and_in_chinese(browser, serve_url, tmp_path, viewport,
                                                      scheme, lang):
    seen = new_page(browser, serve_url, viewport=viewport, color_scheme=scheme)
    try:
        path = tmp_path / "gpt2-wpe.npy"
        np.save(path, gpt2_sized_table()[:256])
        seen.open(f"/learned-vs-sinusoidal?source=upload&lang={lang}", charts=0)
        seen.page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
            str(path))
        seen.page.wait_for_function(
            "() => document.querySelectorAll('.js-plotly-plot .main-svg').length >= 2",
            timeout=120_000)
        seen.wait_idle(timeout=120_000)
        held = "正在显示 gpt2-wpe.npy" if lang == "zh" else "Showing gpt2-wpe.npy"
        seen.page.get_by_text(held).first.wait_for(timeout=30_000)
        assert seen.exceptions() == []
        name = f"learned-upload-{viewport['width']}x{viewport['height']}-{scheme}-{lang}"
        shot = seen.screenshot(name)
        if viewport["width"] == 390 and lang == "zh":
            shutil.copy(shot, SCREENSHOTS / shot.name)
    finally:
        seen.close()
