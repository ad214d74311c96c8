"""Streamlit's open doors the app does not use, closed from inside the process.

Any session can send ``clear_cache`` over its websocket (the viewer toolbar hides the menu item,
not the message): Streamlit then empties ``st.cache_data`` and ``st.cache_resource`` for every
visitor (``AppSession._handle_clear_cache_request``, ``streamlit/runtime/app_session.py``;
measured: a warm similarity rerun went from 0.22 s to 3.8-7.1 s after each foreign clear). The
app's caches are shared, bounded and rebuilt only as needed, so nothing a visitor does needs a
global clear. `close_clear_cache` makes the message clear the sender's own session state only.
"""

from __future__ import annotations

from streamlit.runtime.app_session import AppSession


def _clear_own_session_only(self: AppSession) -> None:
    """A visitor's "clear cache": their own session's state, never the shared caches."""
    self._session_state.clear()


def close_clear_cache() -> None:
    """Install the handler (idempotent; app.py calls it on every run)."""
    if AppSession._handle_clear_cache_request is not _clear_own_session_only:
        AppSession._handle_clear_cache_request = _clear_own_session_only
