"""Showing text: user-supplied text safely, explanations only outside presentation mode."""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterator

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


# A tour slide's own line (ui.player): shown under the page's title in place of the page's.
_slide = threading.local()


@contextlib.contextmanager
def slide_line(markdown: str) -> Iterator[None]:
    """Around a page run as a slide of the tour or of a deck: its takeaway (or the deck's note)
    is the page's one line, shown by the first `takeaway` call (`start_page` makes one under
    the title); the page's own takeaway is not shown beside it. Markdown: a visitor's note
    comes escaped (`escape_markdown`)."""
    _slide.markdown, _slide.shown = markdown, False
    try:
        yield
    finally:
        _slide.markdown = None


def on_slide() -> bool:
    """Whether the page runs as a slide of the tour or of a deck (`slide_line`)."""
    return getattr(_slide, "markdown", None) is not None


def takeaway(markdown: str | None = None) -> None:
    """A slide's one-line point, shown only in presentation mode (where `explain` is hidden):
    what the audience should leave with. On a slide of the tour, the slide's line instead
    (once), whatever the page passes."""
    from ui.i18n import presenting

    line = getattr(_slide, "markdown", None)
    if line is not None:
        if _slide.shown:
            return
        _slide.shown, markdown = True, line
    if markdown and presenting():
        st.markdown(f"#### {markdown}")
