"""Streamlit's doors (server.guard): a visitor's websocket "clear_cache" clears their own session
state, never the caches every visitor shares; a crafted widget value gets a notice. And the one
boundary for the unexpected (ui.unexpected): any exception of a page, a fragment or a callback
is a notice and a logged traceback on the public entry, Streamlit's box in the tests."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
import streamlit as st
from streamlit.runtime.app_session import AppSession

from locales import message
from server.guard import close_clear_cache
from tests import browser_support
from tests.apptest import notices, open_page
from tests.conftest import ARTIFACTS
from tests.raw_session import RawSession, run_async
from ui.unexpected import GUARD_VARIABLE, show_unexpected

calls = []


@st.cache_data(max_entries=2)
def cached_square(x: int) -> int:
    calls.append(x)
    return x * x


def test_a_foreign_clear_cache_keeps_the_shared_caches():
    close_clear_cache()
    assert cached_square(3) == 9 and calls == [3]
    cleared = []
    session = SimpleNamespace(_session_state=SimpleNamespace(clear=lambda: cleared.append(1)))
    AppSession._handle_clear_cache_request(session)  # what the websocket message runs
    assert cleared == [1]  # the sender's own state
    assert cached_square(3) == 9 and calls == [3]  # still cached: not recomputed
    close_clear_cache()  # idempotent
    assert AppSession._handle_clear_cache_request.__name__ == "_clear_own_session_only"


# --- values a crafted client sends over the websocket -------------------------------------------
# AppTest sends each value as the browser's websocket message would (a WidgetState proto in a
# rerun request) and Streamlit deserializes it on the same path (SessionState -> the widget's
# serde); only the transport is skipped. Streamlit 1.67's radios send their option's text, not an
# index: an index of 99 or -1 arrives as an option text the radio does not have, which Streamlit
# passes on and ui.controls answers with a notice (AppTest cannot send it: it only picks options).
HEATMAP = "app_pages/heatmap.py"


def _value(at, key):
    return next(w.value for w in at.number_input if w.key == key)


@pytest.mark.parametrize("sent", [math.nan, math.inf, -math.inf])
def test_an_integer_box_given_a_nonfinite_number_says_so_and_keeps_working(sent):
    at = open_page(HEATMAP)
    at = next(w for w in at.number_input if w.key == "pos").set_value(sent).run()
    assert not at.exception, [e.value for e in at.exception]
    assert [n for n in notices(at) if n.startswith(f"URL parameter pos={sent} is not allowed")]
    assert _value(at, "pos") == 1  # the default
    at = next(w for w in at.number_input if w.key == "pos").set_value(7).run()  # still working
    assert not at.exception and _value(at, "pos") == 7
    assert any(r"PE_{(7," in latex.value for latex in at.latex)


def _exact_box(at):
    """d_model's exact box, its popover opened first (the box exists only while it is open)."""
    if not [w for w in at.number_input if w.key.startswith("_exact_d_model")]:
        at.session_state["_exact_box_d_model"] = True
        at.run()
    return next(w for w in at.number_input if w.key.startswith("_exact_d_model"))


@pytest.mark.parametrize("sent", [math.nan, math.inf])
def test_an_exact_box_given_a_nonfinite_number_says_so_and_keeps_the_slider(sent):
    at = open_page(HEATMAP)
    at = _exact_box(at).set_value(sent).run()
    assert not at.exception, [e.value for e in at.exception]
    assert [n for n in notices(at) if n.startswith(f"d_model={sent} is not allowed")]
    assert at.select_slider(key="d_model").value == 128  # as it was
    at = _exact_box(at).set_value(96).run()
    assert not at.exception and at.select_slider(key="d_model").value == 96


# --- the one boundary for the unexpected (ui.unexpected, served by serve.public_app) -------------
@pytest.fixture(scope="module")
def guarded_server() -> Iterator[tuple[str, Path]]:
    """tests/apps/unexpected.py served as serve.py serves the app, the boundary on (the other
    test servers re-raise): (url, its log)."""
    ARTIFACTS.mkdir(exist_ok=True)
    log = ARTIFACTS / f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')}-unexpected.log"
    process, url = browser_support.start_streamlit("tests/apps/unexpected_serve.py", log,
                                                   env={GUARD_VARIABLE: ""})
    try:
        yield url, log
    finally:
        browser_support.stop(process)


def test_an_unexpected_exception_becomes_a_notice_and_a_logged_traceback(guarded_server):
    """In a page's run, a fragment's rerun and a widget's callback: the page's notice naming the
    problem, in the place the run stopped; never Streamlit's error box; each one traceback in
    the server's log. Nothing in the page asked for it: the boundary is the app's own."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    url, log = guarded_server

    async def visit() -> dict[str, RawSession]:
        seen = {}
        async with RawSession(url, "", "fail=page") as page:
            seen["page"] = await page.open()
        async with RawSession(url, "", "") as fragment:
            await fragment.open()
            fragment.texts.clear()
            await fragment.press("fail")
            await fragment.run_ends()
            seen["fragment"] = fragment
        async with RawSession(url, "", "") as callback:
            await callback.open()
            callback.texts.clear()
            await callback.rerun([WidgetState(id=callback.ids["callback"], bool_value=True)])
            await callback.run_ends()
            seen["callback"] = callback
        return seen

    seen = run_async(visit())
    notice = message("app.unexpected", "en", problem="\0").split("\0")[0]
    for where, problem in (("page", "OverflowError"), ("fragment", "ZeroDivisionError"),
                           ("callback", "KeyError")):
        said = [text for text in seen[where].texts if text.startswith(notice)]
        assert said and problem in said[0], (where, seen[where].texts)
        assert not seen[where].exceptions, (where, seen[where].exceptions)
    logged = re.sub(r"\x1b\[[0-9;]*m", "", log.read_text(encoding="utf-8"))  # rich's colours
    assert logged.count("Traceback") == 3, logged[-3000:]
    assert all(problem in logged for problem in ("OverflowError", "ZeroDivisionError", "KeyError"))


def test_the_boundary_reraises_when_the_tests_say_so(monkeypatch):
    """PE_GUARD=reraise (every other test server): Streamlit's own box, so a bug fails its test."""
    monkeypatch.setenv(GUARD_VARIABLE, "reraise")
    assert show_unexpected(ValueError("a bug")) is False


# --- the upload door: one file a session, in memory, within the cap ----------------------------
def test_a_session_keeps_its_newest_upload_only():
    from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
    from streamlit.runtime.uploaded_file_manager import UploadedFileRec

    from server.guard import one_upload_per_session

    one_upload_per_session()
    manager = MemoryUploadedFileManager("/_stcore/upload_file")
    for session, file_id in (("a", "1"), ("a", "2"), ("b", "3"), ("a", "4")):
        manager.add_file(session, UploadedFileRec(file_id, f"{file_id}.npy", "x", b"12345"))
    assert {s: list(files) for s, files in manager.file_storage.items()} == {"a": ["4"],
                                                                            "b": ["3"]}
    assert manager._total_bytes == 10 and manager._file_count == 2  # its own bookkeeping


def test_an_upload_is_parsed_in_memory_up_to_the_largest_body():
    from starlette.formparsers import MultiPartParser

    from core import limits
    from server.doors import UPLOAD_BODY_BYTES
    from server.guard import keep_uploads_in_memory
    from tests.test_deployment import load_config

    keep_uploads_in_memory()
    assert MultiPartParser.spool_max_size >= UPLOAD_BODY_BYTES > limits.MAX_TABLE_FILE_BYTES
    # Streamlit's own cap is the table file's, in the same megabytes (2**20 bytes)
    assert load_config()["server"]["maxUploadSize"] == limits.MAX_TABLE_FILE_MB


@pytest.mark.parametrize(("method", "path", "length", "status"), [
    ("PUT", "/_stcore/upload_file/session/file", 1000, 200),
    ("DELETE", "/_stcore/upload_file/session/file", 0, 200),
    ("OPTIONS", "/_stcore/upload_file/session/file", 0, 200),
    ("POST", "/_stcore/upload_file/session/file", 1000, 404),
    ("GET", "/_stcore/upload_file/session/file", 0, 404),
    ("PUT", "/_stcore/upload_file", 10, 404),
    ("PUT", "/_stcore/upload_file/session", 10, 404),
    ("PUT", "/_stcore/upload_file/a/b/c", 10, 404),
    ("PUT", "/_stcore/upload_file/session/file", 18 * 2**20 + 1, 413),
    ("GET", "/_stcore/metrics", 0, 404),
])
def test_the_doors_let_through_what_the_uploader_sends(method, path, length, status):
    from server.doors import PublicDoors
    from tests.raw_session import run_async

    async def app(scope, receive, send):  # Streamlit's routes, standing in: 200
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    sent = []

    async def call():
        async def receive():
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message):
            sent.append(message)

        scope = {"type": "http", "method": method, "path": path, "query_string": b"",
                 "headers": [(b"content-length", str(length).encode())]}
        await PublicDoors(app)(scope, receive, send)

    run_async(call())
    assert sent[0]["status"] == status
