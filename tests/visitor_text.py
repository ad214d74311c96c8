"""Text a visitor types, put in every place the app takes it, for the visitor-text tests
(tests/test_visitor_text.py with AppTest, tests/test_browser_visitor_text.py in Chromium).

The places are derived, never listed by hand: every `TextParam` of the page registry
(ui/pages.py, the tour's included), and inside a code every name the code carries, built with
the project's own encoders (`CODES`: a code field with no entry there fails the tests, so a new
field is covered the day it lands). A deck's slides carry their pages' text fields too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from urllib.parse import urlencode

from core.rope_config import PRESETS
from ui.pages import PAGES, TOUR_PAGE, PageInfo
from ui.params import TextParam
from ui.rope_codes import (
    MAX_NAME,
    config_from_fields,
    pack_overlay,
    pack_pasted,
    pinned,
    rope_fields,
    unpack_overlay,
    unpack_pasted,
)
from ui.text import WORD_JOINER
from ui.tour import MAX_NOTE, Slide, encode_deck

# Each becomes a link, an icon or a formula when Streamlit reads it as markdown, or a link in
# plotly. `www.e.com` comes first: a sink that quotes only a value's first word (a notice
# naming the word a parser refused) gets the one that backslash escapes alone leave a link.
HOSTILE = ("www.e.com", "[x](https://e.com)", "<a href=https://e.com>a</a>",
           ":material/warning:", "$x$")
HOSTILE_TEXT = " ".join(HOSTILE)


def pieces(limit: int) -> list[str]:
    """HOSTILE in order, joined into as few texts of at most `limit` characters as hold them."""
    out: list[str] = []
    for item in HOSTILE:
        if out and len(out[-1]) + 1 + len(item) <= limit:
            out[-1] += " " + item
        else:
            out.append(item)
    return out


def typed(text: str) -> str:
    """Text as a person reads it: without the invisible word joiners of ui.text.markdown_text
    and figures.common.plot_text."""
    return text.replace(WORD_JOINER, "")


# --- codes: the names they carry, built with their own encoders --------------------------------
def overlay_code() -> str:
    """Pinned configs of each kind of entry (a preset; pasted fields, as a variant), their names
    together holding every hostile text."""
    names = pieces(MAX_NAME)
    fields = config_from_fields(rope_fields(PRESETS["qwen2.5-7b-yarn"]), "")
    return pack_overlay([pinned(names[0], PRESETS["llama-3.1-8b"], None, {}),
                         pinned(names[-1], fields, "yarn", {"factor": 16})])


def pasted_code() -> str:
    """A usable pasted config (its name is the `name` field's)."""
    return pack_pasted(PRESETS["mistral-7b"])


# A check of a TextParam that reads a code -> the code to put there. A code's name travels in
# the code; a new kind of code needs its entry here (`hostile_value` fails without one).
CODES: dict[Callable, Callable[[], str]] = {unpack_overlay: overlay_code,
                                            unpack_pasted: pasted_code}


def hostile_value(param: TextParam) -> str:
    """The text to put in `param`: the hostile text (as much as its length takes), or a code
    carrying it. The tour's `deck` is a code its page decodes itself (`deck_code`)."""
    if param.check is None:
        return pieces(param.max_length)[0] if param.max_length < len(HOSTILE_TEXT) \
            else HOSTILE_TEXT
    if param.check not in CODES:
        raise AssertionError(f"{param.name}: a code with no hostile value in "
                             f"tests/visitor_text.py's CODES (its names would go untested)")
    return CODES[param.check]()


# Where a page draws its text fields (elsewhere they are kept, not drawn): the RoPE page's config
# view, its differences (the baseline's choice is captioned with the names), word + position's
# own vectors (the article's preset has its own sentence), the order page's facts (its second
# sentence), learned vs sinusoidal's uploaded table (a link names its file: the page asks for it).
SHOWN: dict[str, dict[str, str]] = {"rope": {"view": "config", "arrange": "difference"},
                                    "word-position": {"embedding": "random"},
                                    "order": {"view": "facts"},
                                    "learned-vs-sinusoidal": {"source": "upload"}}


def text_params(page: PageInfo) -> list[TextParam]:
    return [p for p in page.params if isinstance(p, TextParam)]


TEXT_PAGES = [page for page in PAGES if text_params(page)]


def hostile_settings(page: PageInfo) -> dict[str, str]:
    """Every text field of `page` holding hostile text, where the page draws it."""
    return {**SHOWN.get(page.url_path, {}),
            **{p.name: hostile_value(p) for p in text_params(page)}}


def deck_slides() -> list[Slide]:
    """A slide of every page with text fields, each with its hostile settings and a note."""
    note = pieces(MAX_NOTE)[0]
    assert note == HOSTILE_TEXT, "a note holds the whole hostile text"
    return [Slide(page.url_path, hostile_settings(page), note=note) for page in TEXT_PAGES]


def deck_query(number: int = 1) -> dict[str, str]:
    """The tour's address of slide `number` of the hostile deck, as the player writes it (so
    it runs the slide at once): the slide, the deck, the slide's settings, presentation mode."""
    deck_param = next(p for p in TOUR_PAGE.params if p.name == "deck")
    assert deck_param.check is None and len(text_params(TOUR_PAGE)) == 1, \
        "the tour's text fields: `deck` alone, read by ui.tour.decode_deck"
    slides = deck_slides()
    code = encode_deck(slides)
    assert len(code) <= deck_param.max_length, len(code)
    return {"slide": str(number), "deck": code, **slides[number - 1].settings,
            "present": "true"}


def query_string(settings: dict[str, str]) -> str:
    return urlencode(settings)


# --- what would be live: the hostile text not escaped for its sink ------------------------------
# In text Streamlit reads as markdown: a link, raw HTML, a formula (markdown's syntax: a
# backslash escapes it) ...
_LIVE_SYNTAX = re.compile(
    r"(?<!\\)\[x(?<!\\)\]"  # [x](...): a link
    r"|(?<!\\)<a\b"  # raw HTML
    r"|warning\\?:\s(?<!\\)\$x(?<!\\)\$"  # a formula (HOSTILE's, after the icon's text)
)
# ... and, in the text markdown reads out of it (escapes gone), a GFM autolink or an icon.
_LIVE_TEXT = re.compile(r"(?i)www\.e|https?:/+e|:material[/_]warning")


def live_in_markdown(text: str) -> bool:
    """Whether Streamlit's markdown makes a link, an icon or a formula of hostile text."""
    return bool(_LIVE_SYNTAX.search(text) or _LIVE_TEXT.search(re.sub(r"\\(.)", r"\1", text)))


# In text plotly draws: a tag (plotly draws <a href> as a link).
LIVE_IN_PLOTLY = re.compile(r"(?i)<a\b")


def strings(value: object, *, unshown: tuple[str, ...] = ()) -> Iterator[str]:
    """Every string in a JSON value, but those under a key in `unshown`."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            if key not in unshown:
                yield from strings(item, unshown=unshown)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item, unshown=unshown)


# Strings of a plotly figure that are names, never drawn: a legend group's (its title is
# `legendgrouptitle`), a trace's or a chart element's id.
PLOTLY_UNSHOWN = ("legendgroup", "uid")


def hostile_json() -> str:
    """A pasted config.json whose fields hold the hostile text (a notice quotes the field)."""
    return json.dumps({"head_dim": 128, "rope_theta": 10000.0, "max_position_embeddings": 4096,
                       "rope_scaling": {"rope_type": HOSTILE_TEXT, "factor": 2.0}})
