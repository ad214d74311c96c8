"""Slides: the built-in tour (the source articles' story, one live view per slide) and a
visitor's own deck, carried whole in a link.

A slide is a page (its url_path) with the settings of its controls, as the page's own URL
writes them (`ui.pages`: every value is checked by the page's parameter specs), plus a
takeaway (the tour's: a catalogue key) or a note (a deck's: the visitor's line).

A deck travels in one URL parameter, ``deck``: the slides as compact JSON
(``[[page, query, note], ...]``), deflated and written in URL-safe base64, so that a link of
a dozen slides stays a few hundred characters and nothing is stored on the server. Decoding
checks everything a hand-made link could put there: the length of the code, what it inflates
to, its shape, each page, each setting (by the page's parameter specs) and each note; a bad
deck raises `DeckError` (a catalogue message, in the visitor's language).

Free of Streamlit: the tests and the player (app_pages/tour.py) both use it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode

from core._checks import shorten
from core.word_position import MAX_TOKENS
from locales import LANGUAGES, Lang, LocalizedError
from ui.codec import pack, unpack
from ui.pages import HOME, MAX_DECK_LENGTH, MAX_DECK_SLIDES, PAGE_PARAMS, takeaway_key
from ui.params import ChoiceParam, IntParam, ParamError, TextParam, url_value

MAX_NOTE = 120  # characters of a slide's note: one line on a slide
# What drawing a slide file may cost (`file_cost`): a slide at its page's defaults costs 1, one at
# sizes far past them, with a 3-D scene or the model, up to MAX_SLIDE_COST (`slide_cost`, as the
# pages' parameters declare it from benchmarks/slide_cost.py). The built-in tour costs 15; 30
# slides at the largest sizes, or 30 3-D scenes of MiniLM's vectors, would hold the server's one
# slide file for minutes (a default slide takes ~5 s), and are refused with the cost said.
MAX_SLIDE_COST = 3.0
MAX_FILE_COST = 40.0
_MAX_INFLATED = 16 * 1024  # bytes a deck may inflate to: no zip bomb
# Characters of one slide's settings: the RoPE view's config codes take up to ~10,000 (the
# deck's own cap, MAX_DECK_LENGTH deflated, is what bounds a deck).
_QUERY_LENGTH = 12_000


class DeckError(LocalizedError):
    """A `deck` parameter that is not a deck (the message says what is wrong)."""


@dataclass(frozen=True)
class Slide:
    page: str  # a url_path of ui.pages ("" is the home page)
    settings: dict[str, str] = field(default_factory=dict)  # URL values, as the page writes them
    takeaway: str | None = None  # the key of the line its view shows (ui.pages.takeaway_key)
    note: str = ""  # a deck's one line, as the visitor typed it

    def __hash__(self) -> int:
        return hash((self.page, tuple(sorted(self.settings.items())), self.takeaway, self.note))

    @property
    def query(self) -> str:
        return urlencode(self.settings)


def _view(page: str, **settings: object) -> Slide:
    """A slide of `page` with these settings; its line is its view's (the page's default view
    when the settings name none)."""
    views = {p.name: p.default for p in PAGE_PARAMS.get(page, ())}
    view = settings.get("view", views.get("view"))
    source = settings.get("source", views.get("source"))
    return Slide(page, {k: str(v) for k, v in settings.items()},
                 takeaway_key(page, str(view) if view else None, str(source) if source else None))


# The articles' order: why order matters, the formula and its table, wavelengths, the dot
# product (offset only, blind to direction, shift as rotation), 2-D grids, word + position;
# then beyond them: a real model without its positions, learned vs sinusoidal, RoPE (1-D and
# 2-D), ALiBi, extrapolation. Settings are the pages' defaults unless a slide needs another.
TOUR: tuple[Slide, ...] = (
    _view(""),
    _view("heatmap"),
    _view("wavelengths"),
    _view("wavelengths", view="clocks"),
    _view("similarity"),
    _view("similarity", view="offset", offset=10),  # +-3's two diamonds touch on a slide
    _view("similarity", view="rotation"),
    _view("vit-grid"),
    _view("word-position"),
    _view("order", view="facts"),
    _view("learned-vs-sinusoidal", view="similarity"),
    _view("rope", view="relative"),
    _view("vit-grid", view="rope"),
    _view("alibi", view="heads"),
    _view("extrapolation"),
)


def checked_settings(page: str, settings: dict[str, str]) -> dict[str, str]:
    """`settings` for `page` as its URL writes them (a default dropped), or a DeckError naming
    the first one the page does not take."""
    if page != HOME.url_path and page not in PAGE_PARAMS:
        raise DeckError("tour.bad_page", page=shorten(page, 40))
    specs = {p.name: p for p in PAGE_PARAMS.get(page, ())}
    out: dict[str, str] = {}
    for name, raw in settings.items():
        spec = specs.get(name)
        if spec is None:
            raise DeckError("tour.bad_setting", page=page or "/", name=shorten(name, 40))
        try:
            text = url_value(spec, spec.parse(raw))
        except ParamError as error:
            raise DeckError("tour.bad_value", page=page or "/", error=str(error)) from None
        if text is not None:
            out[name] = text
    return out


def slide_cost(slide: Slide) -> float:
    """What drawing `slide` costs, as its page's parameters declare it (ui.pages): 1 at the
    page's defaults; the sizes the work grows with (widths, counts, the grid:
    `IntParam.sizes_work`) past their defaults, log-scaled: log2(product of value / default) / 4;
    plus what a chosen value adds (`ChoiceParam.work`: a 3-D scene, the model) and each word of a
    text the model reads past its default's (`TextParam.work_per_word`). At most
    MAX_SLIDE_COST."""
    growth, extra = 1.0, 0.0
    for spec in PAGE_PARAMS.get(slide.page, ()):
        raw = slide.settings.get(spec.name)
        if raw is None:
            continue
        if isinstance(spec, IntParam) and spec.sizes_work:
            growth *= max(1.0, spec.parse(raw) / spec.default)
        elif isinstance(spec, ChoiceParam):
            work = dict(spec.work)
            extra += work.get(spec.parse(raw), 0.0) - work.get(spec.default, 0.0)
        elif isinstance(spec, TextParam) and spec.work_per_word:
            words = min(len(spec.parse(raw).split()), MAX_TOKENS)
            extra += max(0, words - len(spec.default.split())) * spec.work_per_word
    return min(MAX_SLIDE_COST, 1 + math.log2(growth) / 4 + extra)


def file_cost(slides: tuple[Slide, ...] | list[Slide]) -> float:
    """What drawing these slides as one file costs (at most MAX_FILE_COST is drawn)."""
    return sum(slide_cost(slide) for slide in slides)


def encode_deck(slides: list[Slide] | tuple[Slide, ...], *, lang: Lang | None = None) -> str:
    """The `deck` parameter of these slides (their pages, settings and notes), and the language
    it was made in, if given: `[lang, [page, query(, note)], ...]`."""
    rows = [[s.page, s.query, s.note] if s.note else [s.page, s.query] for s in slides]
    return pack([lang, *rows] if lang else rows)


def _rows(code: str) -> list:
    if len(code) > MAX_DECK_LENGTH:
        raise DeckError("tour.too_long", length=len(code), maximum=MAX_DECK_LENGTH)
    try:
        rows = unpack(code, max_inflated=_MAX_INFLATED)
    except ValueError:
        raise DeckError("tour.not_a_deck") from None
    if not isinstance(rows, list) or not rows:
        raise DeckError("tour.not_a_deck")
    return rows


def deck_language(code: str) -> Lang | None:
    """The language a `deck` parameter was made in (None: it does not say, or is no deck)."""
    try:
        first = _rows(code)[0]
    except DeckError:
        return None
    return first if first in LANGUAGES else None


def decode_deck(code: str) -> tuple[Slide, ...]:
    """The slides of a `deck` parameter, every part checked (DeckError otherwise)."""
    rows = _rows(code)
    if isinstance(rows[0], str):  # the language it was made in
        if rows[0] not in LANGUAGES:
            raise DeckError("tour.not_a_deck")
        rows = rows[1:]
    if not rows:
        raise DeckError("tour.not_a_deck")
    if len(rows) > MAX_DECK_SLIDES:
        raise DeckError("tour.too_many", count=len(rows), maximum=MAX_DECK_SLIDES)
    slides = []
    for row in rows:
        if (not isinstance(row, list) or len(row) not in (2, 3)
                or not all(isinstance(part, str) for part in row)):
            raise DeckError("tour.not_a_deck")
        page, query = row[0], row[1]
        note = row[2] if len(row) == 3 else ""
        if len(query) > _QUERY_LENGTH:
            raise DeckError("tour.not_a_deck")
        pairs = parse_qsl(query, keep_blank_values=True)
        if len({name for name, _ in pairs}) != len(pairs):
            raise DeckError("tour.not_a_deck")
        slides.append(Slide(page, checked_settings(page, dict(pairs)), note=clean_note(note)))
    return tuple(slides)


def clean_note(note: str) -> str:
    """A note as a slide shows it: one line, at most MAX_NOTE characters."""
    return " ".join(note.split())[:MAX_NOTE]


def moved(slides: tuple[Slide, ...], index: int, step: int) -> tuple[Slide, ...]:
    """`slides` with the one at `index` moved `step` places (kept within the deck)."""
    target = min(max(index + step, 0), len(slides) - 1)
    order = list(slides)
    order.insert(target, order.pop(index))
    return tuple(order)
