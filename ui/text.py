"""Showing user-supplied text safely."""

from __future__ import annotations

import re

# Every character CommonMark (and Streamlit's $...$ LaTeX, :emoji: shortcodes) gives a meaning.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&])")


def escape_markdown(text: str) -> str:
    """Backslash-escape markdown: `**x**`, links and HTML then show literally in st.markdown."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)
