"""Showing text: user-supplied text safely, explanations only outside presentation mode."""

from __future__ import annotations

import re

import streamlit as st

# Every character CommonMark (and Streamlit's $...$ LaTeX, :emoji: shortcodes) gives a meaning.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&])")


def escape_markdown(text: str) -> str:
    """Backslash-escape markdown: `**x**`, links and HTML then show literally in st.markdown."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def explain(markdown: str, *, caption: bool = False) -> None:
    """Explanatory prose: shown normally, hidden in presentation mode (`present=1`), where only
    titles, controls, numbers and figures stay on screen."""
    from ui.i18n import presenting

    if presenting():
        return
    if caption:
        st.caption(markdown)
    else:
        st.markdown(markdown)


def takeaway(markdown: str) -> None:
    """A slide's one-line point, shown only in presentation mode (where `explain` is hidden):
    what the audience should leave with."""
    from ui.i18n import presenting

    if presenting():
        st.markdown(f"#### {markdown}")
