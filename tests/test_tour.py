"""The tour's slides and the deck link (ui/tour.py): every slide a valid view with its line in
both languages, and a deck that travels whole in its link and refuses anything else."""

from __future__ import annotations

import base64
import json
import zlib
from urllib.parse import parse_qsl

import pytest
from hypothesis import given
from hypothesis import strategies as st

from locales import LANGUAGES, catalogue
from ui.pages import HOME, MAX_DECK_LENGTH, MAX_DECK_SLIDES, PAGE_PARAMS, PAGES, takeaway_key
from ui.tour import (
    MAX_NOTE,
    TOUR,
    DeckError,
    Slide,
    checked_settings,
    clean_note,
    deck_language,
    decode_deck,
    encode_deck,
    moved,
)


def raw_deck(rows) -> str:
    """A deck code made by hand (as a crafted link would be), not by encode_deck."""
    text = json.dumps(rows).encode()
    return base64.urlsafe_b64encode(zlib.compress(text)).decode().rstrip("=")


def test_the_tour_follows_the_articles_story():
    stops = [(s.page, s.settings.get("view")) for s in TOUR]
    story = [("", None), ("heatmap", None), ("wavelengths", None), ("similarity", None),
             ("similarity", "offset"), ("similarity", "rotation"), ("vit-grid", None),
             ("word-position", None), ("learned-vs-sinusoidal", "similarity"),
             ("rope", "relative"), ("alibi", "heads"), ("extrapolation", None)]
    assert [stop for stop in stops if stop in story] == story  # in this order
    assert 12 <= len(TOUR) <= MAX_DECK_SLIDES
    assert {s.page for s in TOUR} >= {p.url_path for p in PAGES}  # every page has a slide


@pytest.mark.parametrize("slide", TOUR, ids=[f"{s.page or 'home'}-{s.takeaway}" for s in TOUR])
def test_each_tour_slide_is_a_view_its_page_takes_with_a_line_in_each_language(slide):
    assert checked_settings(slide.page, slide.settings) == slide.settings
    for lang in LANGUAGES:
        line = catalogue(lang)[slide.takeaway]
        assert 20 < len(line) < 200 and "\n" not in line


def test_no_two_tour_slides_are_the_same_view():
    assert len({(s.page, s.query) for s in TOUR}) == len(TOUR)


settings_of = {
    "heatmap": st.fixed_dictionaries({}, optional={
        "d_model": st.sampled_from(["64", "256", "4096"]),
        "positions": st.integers(1, 8192).map(str),
        "layout": st.just("concatenated")}),
    "similarity": st.fixed_dictionaries({}, optional={
        "view": st.sampled_from(["offset", "rotation"]),
        "offset": st.integers(-4095, 4095).filter(lambda k: k != 3).map(str)}),
    "order": st.fixed_dictionaries({}, optional={"text": st.text(min_size=1, max_size=40)}),
    "": st.just({}),
}
slides = st.sampled_from(sorted(settings_of)).flatmap(
    lambda page: st.builds(Slide, st.just(page), settings_of[page],
                           note=st.text(max_size=MAX_NOTE).map(clean_note)))


@given(st.lists(slides, min_size=1, max_size=12))
def test_a_deck_comes_back_from_its_link_as_it_went(deck):
    deck = [Slide(s.page, checked_settings(s.page, s.settings), note=s.note) for s in deck]
    code = encode_deck(deck)
    assert set(code) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    assert decode_deck(code) == tuple(deck)


def test_a_deck_carries_the_language_it_was_made_in():
    deck = (Slide("similarity", {"view": "offset"}),
            Slide("heatmap", {"d_model": "512"}, note="整张表"))
    made = encode_deck(deck, lang="zh")
    assert deck_language(made) == "zh" and decode_deck(made) == deck
    # A deck from before decks said their language, and one that is no deck, say none.
    assert deck_language(encode_deck(deck)) is None and decode_deck(encode_deck(deck)) == deck
    assert deck_language("not a deck") is None
    for code in (raw_deck(["zh"]), raw_deck(["xx", ["heatmap", ""]])):  # no slide; no language
        with pytest.raises(DeckError):
            decode_deck(code)


def test_a_deck_of_a_dozen_views_is_a_short_link():
    deck = (*TOUR[:12], Slide("heatmap", {"d_model": "512"}, note="The full table, d = 512"))
    assert len(encode_deck(deck)) < 400


def test_a_setting_equal_to_the_default_is_not_carried():
    assert checked_settings("heatmap", {"d_model": "128", "positions": "0100"}) == {
        "positions": "100"}


@pytest.mark.parametrize(("code", "key"), [
    ("not a deck", "tour.not_a_deck"),
    (raw_deck([[]]), "tour.not_a_deck"),  # a slide without a page
    (raw_deck([]), "tour.not_a_deck"),
    (raw_deck({"heatmap": ""}), "tour.not_a_deck"),
    (raw_deck([["heatmap", "d_model=64&d_model=32"]]), "tour.not_a_deck"),
    (raw_deck([["heatmap", 64]]), "tour.not_a_deck"),
    (raw_deck([["admin", ""]]), "tour.bad_page"),
    (raw_deck([["tour", ""]]), "tour.bad_page"),
    (raw_deck([["heatmap", "colour=red"]]), "tour.bad_setting"),
    (raw_deck([["heatmap", "d_model=99999"]]), "tour.bad_value"),
    (raw_deck([["similarity", "view=nope"]]), "tour.bad_value"),
    (raw_deck([["", ""]] * (MAX_DECK_SLIDES + 1)), "tour.too_many"),
    ("A" * (MAX_DECK_LENGTH + 1), "tour.too_long"),
    # a small code that inflates past what a deck can be: refused before it is read whole
    (base64.urlsafe_b64encode(zlib.compress(b"[" + b" " * 10**6 + b"]")).decode(),
     "tour.not_a_deck"),
])
def test_a_bad_deck_is_refused_with_what_is_wrong_in_each_language(code, key):
    with pytest.raises(DeckError) as caught:
        decode_deck(code)
    assert caught.value.text.key == key
    for lang in LANGUAGES:
        assert caught.value.in_language(lang)  # the message exists and fills


def test_a_bad_value_names_the_page_and_the_setting():
    with pytest.raises(DeckError, match=r"/heatmap: d_model=99999 is not allowed"):
        decode_deck(raw_deck([["heatmap", "d_model=99999"]]))


def test_a_note_is_one_line_of_at_most_its_length():
    assert clean_note("  two\nlines\tand  spaces ") == "two lines and spaces"
    assert len(clean_note("x" * 500)) == MAX_NOTE
    deck = decode_deck(raw_deck([["", "", "a\nnote " + "y" * 300]]))
    assert deck[0].note == clean_note("a note " + "y" * 300)


def test_moving_a_slide_keeps_the_others_in_order():
    a, b, c = (Slide("", note=n) for n in "abc")
    assert moved((a, b, c), 0, 1) == (b, a, c)
    assert moved((a, b, c), 2, -1) == (a, c, b)
    assert moved((a, b, c), 0, -1) == (a, b, c)  # kept within the deck
    assert moved((a, b, c), 2, 5) == (a, b, c)


def test_every_page_setting_a_view_can_hold_is_one_a_deck_can_carry():
    # A deck takes exactly the pages' own parameters: a link's settings, no others.
    for page, params in PAGE_PARAMS.items():
        for param in params:
            default = str(param.default).lower() if isinstance(param.default, bool) else str(
                param.default)
            assert checked_settings(page, {param.name: default}) == {}
    assert dict(parse_qsl(TOUR[5].query)) == TOUR[5].settings


def test_every_view_of_every_page_has_a_takeaway_in_each_language():
    """Presentation mode shows each view's one line under the title (ui.controls.start_page)."""
    missing = []
    for page in (HOME, *PAGES):
        views = {p.name: p for p in PAGE_PARAMS.get(page.url_path, ())}.get("view")
        for view in views.choices if views else (None,):
            key = takeaway_key(page.url_path, view)
            if key is None or any(len(catalogue(lang).get(key, "")) < 20 for lang in LANGUAGES):
                missing.append((page.slug, view))
    assert missing == []


def test_a_view_carrying_pinned_and_pasted_configs_travels_in_a_deck():
    """The RoPE config view's codes (three pinned LongRoPE configs and a pasted one: ~1,700
    characters of settings) fit a slide, and come back the same."""
    import json

    from core.rope_config import PRESETS, parse_config
    from ui.rope_codes import pack_overlay, pack_pasted, pinned

    phi = parse_config(json.dumps(PRESETS["phi-3-mini-128k"].to_config_json()))
    settings = {"view": "config", "pasted": pack_pasted(phi),
                "overlay": pack_overlay([pinned(f"x{n}", phi, None, {"factor": 8 * n})
                                         for n in (1, 2, 3)])}
    assert sum(map(len, settings.values())) > 1500
    [slide] = decode_deck(encode_deck([Slide("rope", settings)]))
    assert slide.settings == settings


def test_a_view_too_long_for_a_deck_stays_out_and_says_so(monkeypatch):
    from tests.apptest import open_page
    from ui import player
    from ui.player import deck

    monkeypatch.setattr(deck, "MAX_DECK_LENGTH", 20)  # any view's deck is longer
    at = open_page("app_pages/heatmap.py", {"d_model": "64"})
    at.button(key="deck_add").click().run()
    assert player.MY_DECK not in at.session_state or not at.session_state[player.MY_DECK]
    shown = [c.value for c in at.sidebar.caption]
    assert any(text.startswith("This view did not join the deck") for text in shown), shown
