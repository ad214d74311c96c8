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


_explanations = threading.local()


@contextlib.contextmanager
def collect_explanations() -> Iterator[list[str]]:
    """Around a page's run: its explanations (`explain`) go into the list yielded instead of
    the page (the presenter's notes, ui.player)."""
    collected: list[str] = []
    _explanations.collected = collected
    try:
        yield collected
    finally:
        _explanations.collected = None


def explain(markdown: str, *, caption: bool = False) -> None:
    """Explanatory prose: shown normally, hidden in presentation mode (`present=1`), where only
    titles, controls, numbers and figures stay on screen."""
    from ui.i18n import presenting

    collected = getattr(_explanations, "collected", None)
    if collected is not None:
        collected.append(markdown)
        return
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


# A slide's title (ui.player's slide layout styles it): the takeaway, or the deck's note.
SLIDE_TITLE = "pe-slide-title"


def takeaway(markdown: str | None = None) -> None:
    """A slide's one-line point, shown only in presentation mode (where `explain` is hidden):
    what the audience should leave with. On a deck's slide with a note, the note instead
    (once), whatever the page passes. On a slide it is the slide's title."""
    from ui.i18n import presenting

    note = getattr(_slide, "note", None)
    if note is not None and _slide.shown:
        return
    if not presenting() or not (markdown or note):
        return
    with st.container(key=SLIDE_TITLE) if on_slide() else contextlib.nullcontext():
        if note is not None:
            _slide.shown = True
            plain_text(note, tag="h4")
        else:
            st.markdown(f"#### {markdown}")


@contextlib.contextmanager
def page_only(name: str) -> Iterator[None]:
    """Around a part of a page that is not its slide's (a worked example, a second drawing, a
    table beside the chart): on a slide of the tour or a deck it is left off the screen
    (ui.player's slide layout), still run, its controls still bound to the link. `name` keys
    its block, the same on every run (a bound widget whose block moves loses its link)."""
    with st.container(key=f"{PAGE_ONLY}{name}"):
        yield


PAGE_ONLY = "pe-page-only-"


@contextlib.contextmanager
def slide_row(name: str) -> Iterator[None]:
    """Around a page's parts that stand one under the other (a chart and another chart, or two
    rows of them): on a slide they stand side by side, sharing the window's height
    (ui.player's slide layout). `name` keys its block, as `page_only`'s."""
    with st.container(key=f"{SLIDE_ROW}{name}"):
        yield


SLIDE_ROW = "pe-slide-row-"
