"""A visitor's websocket "clear_cache" clears their own session state, never the caches every
visitor shares (ui.guard)."""

from __future__ import annotations

from types import SimpleNamespace

import streamlit as st
from streamlit.runtime.app_session import AppSession

from ui.guard import close_clear_cache

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
