"""The "link to this view": the page's address with every control that differs from its
default, as the address bar shows it (Streamlit's bound widgets keep only those)."""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from core.params import Param, url_value
from ui.i18n import t

_VALUES = "_share_values"


def begin_run() -> None:
    """Forget the last run's values (app.py, before the controls of this run)."""
    st.session_state[_VALUES] = {}


def record(param: Param, value: object) -> None:
    """A control's value in this run (PageControls calls it for every control)."""
    st.session_state.setdefault(_VALUES, {})[param.name] = url_value(param, value)


def link() -> str:
    values = {k: v for k, v in st.session_state.get(_VALUES, {}).items() if v is not None}
    try:
        base = st.context.url or ""
    except Exception:  # no browser (a bare script run)
        base = ""
    return base + ("?" + urlencode(values) if values else "")


def show_link() -> None:
    """The link in the sidebar, in a code box with Streamlit's copy button."""
    with st.sidebar.expander(t("app.share"), icon=":material/link:"):
        st.caption(t("app.share_help"))
        st.code(link(), language=None, wrap_lines=True)
