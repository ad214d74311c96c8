"""A visitor's websocket "clear_cache" clears their own session state, never the caches every
visitor shares (server.guard)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
import streamlit as st
from streamlit.runtime.app_session import AppSession

from server.guard import close_clear_cache
from tests.apptest import notices, open_page

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
