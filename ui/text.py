"""Showing text: user-supplied text safely, explanations only outside presentation mode."""

from __future__ import annotations

import contextlib
import html
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


# A deck slide's note (ui.player): shown under the page's title in place of the view's line.
_slide = threading.local()


# Streamlit's own look for a markdown heading (its h4: 1.5rem, semibold), which st.html does not
# give an element.
_PLAIN_STYLE = {"h4": "font-size:1.5rem;font-weight:600;line-height:1.2;margin:0;"
                      "padding:0.5rem 0 1rem;"}


def plain_text(text: str, *, tag: str = "p") -> None:
    """A visitor's text shown as the characters typed, in an HTML element `tag` ("h4"): no
    markdown at all. Escaping markdown is not enough for Streamlit: it still turns a bare
    ``https://...`` or ``www.`` into a live link and ``:material/warning:`` into an icon."""
    st.html(f'<{tag} class="pe-plain" style="{_PLAIN_STYLE.get(tag, "")}">'
            f"{html.escape(text)}</{tag}>")


@contextlib.contextmanager
def slide_line(note: str | None) -> Iterator[None]:
    """Around a page run as a slide of the tour or of a deck. A deck's note (the visitor's
    text, shown as typed: `plain_text`) is the slide's one line, shown by the first `takeaway`
    call (`start_page` makes one under the title) in place of the view's takeaway; without a
    note the view's own shows."""
    _slide.active, _slide.note, _slide.shown = True, note, False
    try:
        yield
    finally:
        _slide.active, _slide.note = False, None


def on_slide() -> bool:
    """Whether the page runs as a slide of the tour or of a deck (`slide_line`)."""
    return getattr(_slide, "active", False)


def takeaway(markdown: str | None = None) -> None:
    """A slide's one-line point, shown only in presentation mode (where `explain` is hidden):
    what the audience should leave with. On a deck's slide with a note, the note instead
    (once), whatever the page passes."""
    from ui.i18n import presenting

    note = getattr(_slide, "note", None)
    if note is not None:
        if _slide.shown:
            return
        _slide.shown = True
        if presenting():
            plain_text(note, tag="h4")
        return
    if markdown and presenting():
        st.markdown(f"#### {markdown}")
