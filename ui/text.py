"""Showing text: user-supplied text safely, explanations only outside presentation mode."""

from __future__ import annotations

import contextlib
import html
import re
import threading
from collections.abc import Iterator

import streamlit as st

# Text a visitor typed (a name, a note, a sentence, a pasted config's field, a URL's value)
# reaches Streamlit through one function per kind of sink: `markdown_text` where Streamlit reads
# markdown (st.markdown, captions, alerts, subheaders, widget labels, radio options and
# captions, buttons, expanders, st.table's headers and cells), `html_text` in st.html. Plotly
# has its own (figures.common.plot_text). Sinks that show text as it is (a text box's value, a
# select box's options, st.dataframe's canvas) take it unchanged.

# Every character CommonMark (and Streamlit's $...$ LaTeX, :emoji: shortcodes) gives a meaning.
# export/slide_text.py reads escaped text back with this same set.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&])")

# An invisible character that joins what it stands between (U+2060, WORD JOINER: no width, no
# line break, drawn by no font).
WORD_JOINER = "\u2060"
# Where Streamlit's markdown finds meaning in text that a backslash cannot escape, because it
# looks at the text after markdown has read it: GFM's autolinks of a bare www. or scheme://
# and of an e-mail address, `:material/name:` icons, `:streamlit:` and `:emoji:` shortcodes
# (Streamlit and remark-emoji match them in the text itself), and the arrows and dashes that
# Streamlit's typography makes of ->, <-, --, >=, <= and ~=. A word joiner at each place
# breaks the pattern, and the text still reads as typed.
_LIVE_TEXT = re.compile(
    r"(?i)(?<=www)(?=\.)"  # www.example.com
    r"|(?<=:)(?=//)"  # https://example.com
    r"|(?<=@)(?=\w)"  # someone@example.com
    r"|(?<=:)(?=[\w+-]+[:/])"  # :material/warning:, :streamlit:, :smile:
    r"|(?<=[-<>~])(?=[->=])"  # -> <- -- >= <= ~=
)


def markdown_text(text: str) -> str:
    """`text` for a Streamlit sink that reads markdown, shown as the characters typed: markdown
    and HTML backslash-escaped (`**x**`, `[x](url)`, `<a href>`, `$x$`), and a word joiner
    where Streamlit would still make a link, an icon or an emoji of the text (`_LIVE_TEXT`)."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", _LIVE_TEXT.sub(WORD_JOINER, text))


def html_text(text: str) -> str:
    """`text` for st.html: HTML-escaped (no markdown is read there)."""
    return html.escape(text)


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
            f"{html_text(text)}</{tag}>")


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
