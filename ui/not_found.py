"""A link to a page that does not exist, said in the visitor's language.

Streamlit answers an unknown path (``/a/b``) by running the default page and sending the browser
a ``page_not_found`` message, which it shows as an English dialog ("Page not found ... Running
the app's main page"), whatever the page's language. `localise` replaces that message with a
note the app reads (`requested_page_missing`): app.py then opens the home page with the visitor's
URL parameters and says, in their language, that the page they asked for does not exist.
"""

from __future__ import annotations

import threading

import streamlit.commands.navigation as navigation

_seen = threading.local()  # a script run has its own thread


def _note_page_not_found(ctx) -> None:
    _seen.missing = True


def localise() -> None:
    """Install (idempotent): st.navigation notes an unknown page instead of telling the browser."""
    navigation.send_page_not_found = _note_page_not_found


def requested_page_missing() -> bool:
    """Whether this run's st.navigation found no page for the requested path (read once)."""
    missing = getattr(_seen, "missing", False)
    _seen.missing = False
    return missing
