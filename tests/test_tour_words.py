"""Words for an audience: every slide of the tour, as its page draws it on a slide (the tour's own
code run by AppTest, in presentation mode), says what it shows in words or typeset notation.
In its charts' text (titles, axis titles, legend names and titles, annotations, colour-bar
titles, tick labels given as text) and in the presenter's notes (the page's explanations, their
formulas aside): no `_` written for a subscript, no `7.47e-8` for a number, and no "query" or
"key" a newcomer has not been told about (a chart may use the words once its legend or title
says what they are). The slides are the tour's list (ui.tour.TOUR), not a copy of it."""

from __future__ import annotations

import re

import pytest

from tests.apptest import open_page, plotly_figures
from ui.player.common import slide_query
from ui.tour import TOUR

# A subscript or a name written as code: "R_m", "P_i", "M_k", "λ_i".
UNDERSCORE = re.compile(r"\w_\w|_\{")
# A number in e-notation: "7.47e-8", "1e+04", "6e-15".
E_NOTATION = re.compile(r"\d(?:\.\d+)?[eE][-+−]?\d|%\{[^}]*:[^}]*[eg]\}")
# Transformer jargon: query and key vectors (en), and the words left in English in Chinese.
JARGON = re.compile(r"\b(?:quer(?:y|ies)|keys?)\b|查询|(?<!关)键|query|key", re.IGNORECASE)
# What query and key are, said where they are named (the slide's title or the note itself).
EXPLAINED = re.compile(r"attention('s)? score|注意力分数")


def figure_texts(figure: dict) -> list[str]:
    """Every text a figure draws that is not a number read off an axis."""
    layout = figure.get("layout", {})
    texts = []

    def title_of(part) -> None:
        if isinstance(part, dict):
            title = part.get("title")
            if isinstance(title, dict):
                texts.append(title.get("text") or "")
            elif isinstance(title, str):
                texts.append(title)

    title_of(layout)
    for name, part in layout.items():
        if re.fullmatch(r"[xy]axis\d*|coloraxis\d*|legend\d*", name) and isinstance(part, dict):
            title_of(part)
            title_of(part.get("colorbar"))
            texts.extend(str(text) for text in part.get("ticktext") or [])
    texts.extend(a.get("text") or "" for a in layout.get("annotations", []))
    for trace in figure.get("data", []):
        if trace.get("showlegend") is not False and trace.get("name"):
            texts.append(trace["name"])
        title_of(trace.get("colorbar"))
        drawn = trace.get("type") == "bar" or "text" in (trace.get("mode") or "")
        if drawn and isinstance(trace.get("text"), list):  # labels drawn on the plot
            texts.extend(str(text) for text in trace["text"])
        if drawn and trace.get("texttemplate") and "%{text}" not in trace["texttemplate"]:
            texts.append(trace["texttemplate"])  # plotly's own number format, e.g. %{y:.3g}
        texts.append(str((trace.get("legendgrouptitle") or {}).get("text") or ""))
    return [text for text in texts if text]


def without_formulas(markdown: str) -> str:
    """A note's words: its LaTeX (typeset on the page), code spans and links' addresses left
    out."""
    markdown = re.sub(r"\]\([^)]*\)", "]", markdown)
    markdown = re.sub(r"\$\$.+?\$\$", " ", markdown, flags=re.S)
    markdown = re.sub(r"\$.+?\$", " ", markdown)
    return re.sub(r"`[^`]*`", " ", markdown)


def run_slide(number: int, lang: str):
    """Slide `number` of the tour as the presenter's window runs it in presentation mode: the
    page under the slide's line, its charts styled for the slide, its explanations collected
    as the notes."""
    slide = TOUR[number - 1]
    query = slide_query(slide, number, "", current={"lang": lang, "present": "true",
                                                     "presenter": "1"})
    at = open_page("app_pages/tour.py", query, timeout=120)
    assert not at.exception, [e.message for e in at.exception]
    notes = [block.value for block in at.markdown
             if block.value and not block.value.startswith("<")]
    if number < len(TOUR):  # the last is the next slide's title: that slide's own
        notes = notes[:-1]
    return plotly_figures(at), notes


def problems(text: str, *, jargon_explained: bool) -> list[str]:
    found = []
    if UNDERSCORE.search(text):
        found.append("_")
    if E_NOTATION.search(text):
        found.append("e-notation")
    if not jargon_explained and JARGON.search(text):
        found.append("query/key")
    return found


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("number", range(1, len(TOUR) + 1))
def test_a_slide_and_its_notes_speak_to_an_audience(number, lang):
    figures, notes = run_slide(number, lang)
    assert figures, number
    title = next((note for note in notes if note.startswith("### ")), "")
    wrong = {}
    for figure in figures:  # what the audience reads: words, never the jargon
        for text in figure_texts(figure):
            if found := problems(text, jargon_explained=False):
                wrong[text[:60]] = found
    for note in notes:  # the title and the speaker's notes: query and key only explained
        words = without_formulas(note)
        explained = bool(EXPLAINED.search(title) or EXPLAINED.search(words))
        if found := problems(words, jargon_explained=explained):
            wrong[f"note: {note[:50]}"] = found
    assert not wrong, wrong
