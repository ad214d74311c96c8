"""The visitor's language and presentation mode, read by every page.

Both are app-wide controls (`app.py`, in the sidebar and in the URL as ``lang`` and
``present``); their widgets run before the page, so a page reads their current values here.
"""

from __future__ import annotations

import streamlit as st

from locales import LANGUAGES, Lang, language_from_locale, message


def browser_language() -> Lang:
    """The language of the visitor's browser (``st.context.locale``), when the URL says none."""
    try:
        locale = st.context.locale
    except Exception:  # no browser (a bare script run): the default language
        locale = None
    return language_from_locale(locale)


_ASKED = "_lang_asked"  # an address of the session named a language


def note_asked_language() -> None:
    """Before the language switch runs (app.py): whether the address names a language. The
    switch drops a `lang` equal to its default (the browser's), so an explicit lang=zh in a
    Chinese browser leaves no trace in the address once it has run."""
    if st.query_params.get("lang") in LANGUAGES:
        st.session_state[_ASKED] = True


def language_asked() -> bool:
    """Whether an address of this session named the language (or the visitor chose one), as
    noted before the switch ran: on the tour the switch writes its value, the browser's too."""
    return bool(st.session_state.get(_ASKED))


def current_language() -> Lang:
    """The language switch's value; before the switch exists (the first run), the URL's."""
    value = st.session_state.get("lang")
    if value in LANGUAGES:
        return value
    value = st.query_params.get("lang")
    return value if value in LANGUAGES else browser_language()


def t(key: str, /, **values: object) -> str:
    """The message `key` of the catalogue (locales) in the visitor's language."""
    return message(key, current_language(), **values)


def presenting() -> bool:
    """Presentation mode (``present=1``): explanations hidden, figures restyled for slides.
    The toggle's value; before the toggle exists (the first run), the URL's."""
    if "present" in st.session_state:
        return st.session_state["present"] is True
    return st.query_params.get("present", "").strip().lower() in ("true", "1", "yes", "on")
