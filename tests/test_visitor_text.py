"""Text a visitor typed reaches Streamlit and plotly only through one function per sink:
`ui.text.markdown_text` where Streamlit reads markdown, `ui.text.html_text` in st.html,
`figures.common.plot_text` in a figure. The functions on their own, then every text field of
every page (tests/visitor_text.py derives them from the page registry and the codes) in every
view, with AppTest: each text the page sends is checked for what would come alive in its sink.
What Chromium makes of it: tests/test_browser_visitor_text.py."""

from __future__ import annotations

import html
import io
import json
import re

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from figures.common import plot_text
from tests.apptest import open_page, unescape
from tests.visitor_text import (
    HOSTILE,
    HOSTILE_TEXT,
    LIVE_IN_PLOTLY,
    PLOTLY_UNSHOWN,
    TEXT_PAGES,
    deck_query,
    deck_slides,
    hostile_json,
    hostile_settings,
    live_in_markdown,
    strings,
    typed,
)
from ui.pages import PAGES
from ui.params import TextParam
from ui.text import WORD_JOINER, html_text, markdown_text


# --- the functions ------------------------------------------------------------------------------
@pytest.mark.parametrize("text", [*HOSTILE, HOSTILE_TEXT, "WWW.E.COM", "a@e.com", "http://e.com",
                                  ":streamlit: :smile: :+1:", "a -> b <- c -- d >= e <= f ~= g"])
def test_markdown_text_leaves_nothing_live_and_reads_as_typed(text):
    escaped = markdown_text(text)
    assert not live_in_markdown(escaped), escaped
    # GFM autolinks (a bare www., scheme://, an e-mail address), icons and emoji shortcodes,
    # Streamlit's arrows and dashes: each pattern broken by a word joiner
    unjoined = escaped.replace("\\", "")
    assert not re.search(r"(?i)www\.|://|@\w|:[\w+-]+[:/]|(^|\s)(<->|->|<-|--|>=|<=|~=)(\s|$)",
                         unjoined), unjoined
    assert typed(unescape(escaped)) == text


@given(st.text(st.characters(blacklist_characters=WORD_JOINER, blacklist_categories=("Cs",))))
def test_markdown_text_reads_back_as_the_text(text):
    assert typed(unescape(markdown_text(text))) == text


@given(st.text(st.characters(blacklist_characters=WORD_JOINER, blacklist_categories=("Cs",))))
def test_plot_text_reads_back_as_the_text(text):
    drawn = plot_text(text)
    assert not LIVE_IN_PLOTLY.search(drawn) and "%{" not in drawn
    assert typed(html.unescape(drawn)) == text


def test_html_text_opens_no_tag():
    assert "<" not in html_text(HOSTILE_TEXT)
    assert html.unescape(html_text(HOSTILE_TEXT)) == HOSTILE_TEXT


# --- every sink of every page -------------------------------------------------------------------
# Fields of Streamlit's protos that it draws as markdown (a widget's label, help, a radio's
# options and captions; an alert's, a heading's or a markdown element's body). A text box's
# value, a select box's options and st.dataframe's cells are drawn as they are.
MARKDOWN_FIELDS = {"label", "help", "captions", "body"}
PLAIN_PROTOS = {"TextInput", "TextArea", "Selectbox", "MultiSelect", "Code"}


def _arrow_strings(data: bytes) -> list[str]:
    table = pa.ipc.open_stream(io.BytesIO(data)).read_all()
    out = [str(name) for name in table.column_names]
    for column in table.columns:
        if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
            out.extend(str(v) for v in column.to_pylist() if v is not None)
    metadata = table.schema.metadata or {}
    out.extend(strings(json.loads(metadata.get(b"pandas", b"{}"))))  # index and column names
    return out


def sent_texts(at) -> dict[str, list[str]]:
    """Every text the page sent, by how its sink reads it: markdown, html, plotly."""
    sent: dict[str, list[str]] = {"markdown": [], "html": [], "plotly": []}

    def visit(node) -> None:
        proto = getattr(node, "proto", None)
        kind = type(proto).__name__
        if kind == "PlotlyChart":
            sent["plotly"].extend(strings(json.loads(proto.spec), unshown=PLOTLY_UNSHOWN))
        elif kind == "Html":
            sent["html"].append(proto.body)
        elif kind == "Table":
            sent["markdown"].extend(_arrow_strings(proto.arrow_data.data))
            if proto.arrow_data.HasField("styler"):
                sent["markdown"].extend(_arrow_strings(proto.arrow_data.styler.display_values))
        elif proto is not None and hasattr(proto, "ListFields"):
            for field, value in proto.ListFields():
                if field.name not in MARKDOWN_FIELDS or (kind in PLAIN_PROTOS
                                                         and field.name != "label"):
                    continue
                sent["markdown"].extend([value] if isinstance(value, str) else
                                        [v for v in value if isinstance(v, str)])
            if kind == "Radio":
                sent["markdown"].extend(proto.options)
        for child in getattr(node, "children", {}).values():
            visit(child)

    visit(at._tree)
    return sent


def assert_nothing_live(at) -> dict[str, list[str]]:
    assert not at.exception, [e.value for e in at.exception]
    sent = sent_texts(at)
    live = ([t for t in sent["markdown"] if live_in_markdown(t)]
            + [t for t in sent["html"] if LIVE_IN_PLOTLY.search(t)]  # a tag: <a href>
            + [t for t in sent["plotly"] if LIVE_IN_PLOTLY.search(t)])
    assert live == [], live
    return sent


def _reached(sent: dict[str, list[str]]) -> str:
    """What a person reads of every text the page sent."""
    return typed(" ".join([unescape(t) for t in sent["markdown"]]
                          + [html.unescape(t) for t in sent["html"] + sent["plotly"]]))


@pytest.mark.parametrize("page", [page.url_path for page in TEXT_PAGES])
def test_every_text_field_reaches_every_view_escaped(page):
    info = next(p for p in TEXT_PAGES if p.url_path == page)
    reached = []
    for view in info.views:
        query = {**hostile_settings(info), **({"view": view} if view else {})}
        reached.append(_reached(assert_nothing_live(open_page(info.script, query))))
    assert any("www" in text for text in reached)  # it reached the page (order: as tokens)


@pytest.mark.parametrize("number", range(1, len(deck_slides()) + 1))
def test_every_slide_of_a_deck_shows_its_note_and_fields_escaped(number):
    sent = assert_nothing_live(open_page("app_pages/tour.py", deck_query(number)))
    assert HOSTILE_TEXT in _reached(sent)  # the note, as typed


@pytest.mark.parametrize(("script", "query"), [("app_pages/rope.py", {"view": "config"}),
                                               ("app_pages/extrapolation.py", {})])
def test_a_pasted_configs_fields_are_quoted_escaped(script, query):
    from ui.rope_config import PASTE_KEY

    at = open_page(script, query)
    at.session_state[PASTE_KEY] = hostile_json()
    at.run()
    sent = assert_nothing_live(at)
    assert HOSTILE_TEXT in _reached(sent)  # the notice quotes the field as typed


@pytest.mark.parametrize("page", [page.url_path for page in PAGES])
def test_a_refused_url_value_is_quoted_escaped(page):
    """Every parameter of every page given text it refuses: the notice quotes it as typed."""
    info = next(p for p in PAGES if p.url_path == page)
    query = {param.name: HOSTILE[0] for param in info.params
             if not isinstance(param, TextParam) or param.check is not None}
    sent = assert_nothing_live(open_page(info.script, query))
    assert HOSTILE[0] in _reached(sent)


def test_an_uploaded_files_names_reach_every_view_escaped():
    """A table uploaded under a hostile file name, its tensor named with hostile text too: the
    notice of a bad file, the caption, the titles and the link's notice quote them as typed."""
    import numpy as np
    from safetensors.numpy import save

    name = f"{HOSTILE[1]} {HOSTILE[3]} {HOSTILE[4]}.safetensors"
    tensor = f"{HOSTILE[0]} {HOSTILE[2]} position"
    data = save({tensor: np.random.default_rng(0).standard_normal((32, 8)).astype(np.float32)})
    at = open_page("app_pages/learned_vs_sinusoidal.py", {"source": "upload"})
    at.file_uploader(key="table_file").set_value((f"{HOSTILE[1]}.npy", b"x", "text/plain"))
    assert "cannot be used" in _reached(assert_nothing_live(at.run()))  # the bad file's notice
    at.file_uploader(key="table_file").set_value((name, data, "application/octet-stream"))
    at.run()
    for view in next(p for p in PAGES if p.url_path == "learned-vs-sinusoidal").views:
        at.radio(key="view").set_value(view).run()
        reached = _reached(assert_nothing_live(at))
        assert name in reached and tensor in reached, view
