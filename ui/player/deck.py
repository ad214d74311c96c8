"""My deck: "Add this view to my deck" in the sidebar of every page, and the deck's editor in the
tour's sidebar (reorder, remove, a note each).

A deck is built from any page (the view's settings as its link has them) and kept in the
session until it is opened as a link (`ui.tour.encode_deck`): the link is the deck; nothing is
stored on the server. Every edit is a new link (the address bar)."""

from __future__ import annotations

import streamlit as st

from ui import share
from ui.controls import option_label
from ui.i18n import current_language, t
from ui.pages import MAX_DECK_LENGTH, MAX_DECK_SLIDES, PAGE_PARAMS, TOUR_PAGE
from ui.player.common import AT, MY_DECK, OWN_ADDRESS, PAGES_BY_PATH
from ui.text import markdown_text
from ui.tour import TOUR, Slide, clean_note, encode_deck, moved


def add_view(page: str) -> None:
    """A callback: the view shown (its page, and its settings as its link has them: those of
    the run before this callback, fragments' included) joins the session's deck."""
    deck = st.session_state.get(MY_DECK, ())
    if len(deck) >= MAX_DECK_SLIDES:
        st.session_state["_deck_full"] = True
        return
    names = {p.name for p in PAGE_PARAMS.get(page, ())}
    settings = {k: v for k, v in share.values().items() if k in names}
    slides = (*deck, Slide(page, settings))
    length = len(encode_deck(slides, lang=current_language()))
    if length > MAX_DECK_LENGTH:  # a view's long codes (pinned configs): its link would fail
        st.session_state["_deck_too_long"] = length
        return
    st.session_state[MY_DECK] = slides


def deck_sidebar(page: str) -> None:
    """In the sidebar of every page but the tour: add this view; open the deck."""
    deck = st.session_state.get(MY_DECK, ())
    st.button(t("tour.add"), key="deck_add", icon=":material/add_to_queue:",
              on_click=add_view, args=(page,), help=t("tour.add_help"))
    if st.session_state.pop("_deck_full", False):
        st.caption(t("tour.full", maximum=MAX_DECK_SLIDES))
    if (length := st.session_state.pop("_deck_too_long", None)) is not None:
        st.caption(t("tour.view_too_long", length=length, maximum=MAX_DECK_LENGTH))
    if deck:
        st.page_link(TOUR_PAGE.script, label=t("tour.open", count=len(deck)),
                     icon=":material/slideshow:",
                     query_params={"deck": encode_deck(deck, lang=current_language()),
                                   "present": "true"})


def deck_editor(slides: tuple[Slide, ...], number: int) -> None:
    """The deck's slides in the sidebar: reorder, remove, a note each; every change is a new
    link (the address bar), and the session's deck follows it."""
    st.session_state[MY_DECK] = slides
    with st.sidebar:
        st.subheader(t("tour.deck"))
        for index, slide in enumerate(slides):
            title = PAGES_BY_PATH[slide.page].title_in(current_language())
            view = slide.settings.get("view")
            label = f"{index + 1}. {title}" + (f" · {option_label(view)}" if view else "")
            with st.container(key=f"pe-deck-slide-{index}"):
                st.markdown(f"**{markdown_text(label)}**" if index + 1 == number
                            else markdown_text(label))
                with st.container(horizontal=True, gap="small"):
                    st.button(":material/arrow_upward:", key=f"deck_up_{index}",
                              disabled=index == 0, help=t("tour.up"),
                              on_click=_edit, args=(slides, number, ("move", index, -1)))
                    st.button(":material/arrow_downward:", key=f"deck_down_{index}",
                              disabled=index == len(slides) - 1, help=t("tour.down"),
                              on_click=_edit, args=(slides, number, ("move", index, 1)))
                    st.button(":material/delete:", key=f"deck_remove_{index}",
                              help=t("tour.remove"),
                              on_click=_edit, args=(slides, number, ("remove", index, 0)))
                st.text_input(t("tour.note"), value=slide.note, key=f"deck_note_{index}",
                              max_chars=120, on_change=_edit,
                              args=(slides, number, ("note", index, 0)))


def _edit(slides: tuple[Slide, ...], number: int, change: tuple[str, int, int]) -> None:
    """A deck editor's callback: the deck changed, its link (the address bar) with it."""
    kind, index, step = change
    if kind == "move":
        new = moved(slides, index, step)
    elif kind == "remove":
        new = slides[:index] + slides[index + 1:]
    else:
        note = clean_note(st.session_state.get(f"deck_note_{index}", ""))
        new = (*slides[:index], Slide(slides[index].page, slides[index].settings, note=note),
               *slides[index + 1:])
    for key in [k for k in st.session_state if isinstance(k, str) and k.startswith("deck_note_")]:
        del st.session_state[key]
    st.session_state[MY_DECK] = new
    # The last slide removed: the built-in tour.
    code, shown = (encode_deck(new, lang=current_language()), min(number, len(new))) if new \
        else ("", 1)
    was, now = slides[number - 1], (new or TOUR)[shown - 1]
    if code:
        st.query_params["deck"] = code
    else:
        st.query_params.pop("deck", None)
    st.query_params["slide"] = str(shown)
    if (now.page, now.settings) == (was.page, was.settings):  # the same view: its widgets stay
        st.session_state[AT] = (code, shown)
    else:  # another slide, entered at its own address (none of the last one's settings, which
        # the address bar still has and the page's widgets own)
        st.session_state[AT] = None
        st.session_state[OWN_ADDRESS] = True

