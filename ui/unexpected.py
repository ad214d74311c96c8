"""The one boundary for the unexpected: an exception nobody anticipated, anywhere in a page's run
or a fragment's, becomes a notice in the page, never Streamlit's error box.

serve.py hands `show_unexpected` to Streamlit as the app's ``on_script_error`` (``st.App``):
Streamlit calls it for every uncaught exception of a script run, a fragment's run or a widget's
callback (``streamlit.error_util.handle_user_script_exception``), after logging the exception
with its traceback (one ``Uncaught app execution`` entry in the server's log). It draws the
page's usual notice where the run stopped and tells Streamlit not to draw its own box. Pages
and fragments need nothing of their own: a new one is inside the boundary the day it lands.

`PE_GUARD=reraise` in the server's environment (the tests set it) leaves every exception to
Streamlit's own box, so a bug still fails its test. `streamlit run app.py` (for debugging) has
no boundary either.
"""

from __future__ import annotations

import os

import streamlit as st

from core._checks import shorten
from ui.i18n import t
from ui.text import markdown_text

GUARD_VARIABLE = "PE_GUARD"


def reraising() -> bool:
    """Whether exceptions go to Streamlit's own box (`PE_GUARD=reraise`: tests)."""
    return os.environ.get(GUARD_VARIABLE, "").strip().lower() == "reraise"


def show_unexpected(error: Exception) -> bool:
    """Streamlit's ``on_script_error``: the notice, and True (no error box of Streamlit's). False
    (Streamlit's box, its details hidden by config.toml) when re-raising or when even the notice
    cannot be drawn."""
    if reraising():
        return False
    problem = shorten(f"{type(error).__name__}: {error}", 160)
    try:
        st.warning(t("app.unexpected", problem=markdown_text(problem)),
                   icon=":material/warning:")
    except Exception:  # no page to draw in (a callback between runs): Streamlit's own box
        return False
    return True
