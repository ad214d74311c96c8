"""The slide player (app_pages/tour.py): the slide the address bar names, run as its page
runs, under a bar of buttons and the presenter's keys.

A slide is a page's own script run inside the tour's page with the slide's settings in the
address bar, so every control on it is the page's, live and bound to its URL parameter as on the
page itself: `/tour?slide=4` names the slide, `/tour?slide=4&positions=100` is slide 4 with a
value changed. Moving to another slide (a key, a button) sets the address bar to the slide's
settings and runs again with the page's widgets forgotten, so the URL seeds them: the browser
keeps one history entry per slide (Streamlit pushes one when the server changes the query),
and its back button returns to the slide before, with the values it had.

The presenter's keys (a clicker sends PageDown/PageUp or the arrows) are read by a small
`st.components.v2` element listening on the page (assets/player.js): Right, PageDown and Space
go on; Left, PageUp and Shift+Space go back; Home and End go to the first and the last slide.
Keys typed into a control (a text box, a slider, a radio) stay the control's.
"""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from ui.controls import VIEW_BLOCK
from ui.i18n import current_language, language_asked, t
from ui.pages import PAGE_PARAMS
from ui.params import ParamError
from ui.player.common import (
    APP_PARAMS,
    AT,
    OWN_ADDRESS,
    TOUR_PARAMS,
    asset,
    run_page,
    slide_query,
)
from ui.player.deck import deck_editor
from ui.player.presenter import presenter_view
from ui.player.slide_file import FILE_PARAM, file_menu
from ui.text import PAGE_ONLY, SLIDE_ROW, SLIDE_TITLE, markdown_text, slide_line
from ui.tour import TOUR, DeckError, Slide, deck_language, decode_deck

_PRESENTED = "_tour_presented"  # presentation mode was switched on when the tour opened
# Per-page memories of ui.controls (kept values, a URL checked once): a slide starts afresh.
_FORGOTTEN = ("_kept:", "_url_checked:", "_reset:", "_notices:")
# Every control name of the pages: their widgets' keys, forgotten when a slide is entered.
_CONTROL_NAMES = sorted({p.name for params in PAGE_PARAMS.values() for p in params})


# The player: a bar of buttons and the counter, and the presenter's keys. A move is made in the
# browser, as its back button makes one: the slide's address pushed onto the history, then a
# popstate, which Streamlit answers with a run in which the URL decides every bound control
# (its value, or its default when the URL has none). `replace` rewrites a hand-made address
# (a link with no settings, a bad slide number) into the slide's own, in place.
# The audience's window and the presenter's (`presenter=1`) keep in step through a
# BroadcastChannel of the browser: a move in either is made in the other ("go"), and the
# presenter's follows the audience's ("at", each time a slide is shown there). In the audience's
# window B (or a clicker's "."), blanks the screen and brings it back; F goes full screen; B in
# the presenter's window blanks the audience's.
# Its bar is faint until pointed at or touched; buttons a thumb can reach on a phone (2.75rem).
# sidebar's opener and the menu, above the page's title, so it covers nothing at any scroll);
# on a phone, at the bottom centre where a thumb reaches, the page leaving room for it.
PLAYER_PAGE_CSS = f"<style>\n{asset('player-page.css')}</style>"
# A slide is one screen: its title (the takeaway, or the deck's note) and the view's charts
# filling the rest of the window, the view's own controls folded in one row between them. The
# page's furniture is left off the screen, still run (its controls stay bound to the link): its
# title and headings, prose, formulas and results, tables, captions, the view switcher, the
# Export menus, `ui.text.page_only` parts, and a column beside the charts with none of its own.
# Notices stay. The charts' blocks share the window's height (ui/chart/slide.js draws each at
# its block's height on a slide).
SLIDE = "pe-slide"
_CHART = (f':is(.pe-plotly-react, [data-testid="stPlotlyChart"])'
          f':not([class*="st-key-{PAGE_ONLY}"] *)')
SLIDE_CSS = "<style>\n" + asset("slide.css", slide=SLIDE, chart=_CHART,
                              fold='[data-testid="stExpander"]', view_block=VIEW_BLOCK,
                              slide_row=SLIDE_ROW, page_only=PAGE_ONLY,
                              slide_title=SLIDE_TITLE) + "</style>"
_player_element = None


def _player(counter: str, number: int, slides: list[str], replace: str | None, *,
            presenter: bool) -> None:
    """The player: `slides` the address of each slide (the browser adds the window's
    APP_PARAMS when it moves)."""
    global _player_element
    if _player_element is None:  # registered once per process
        _player_element = st.components.v2.component(
            "pe_tour_player", html=asset("player.html"), css=asset("player.css"),
            js=asset("player.js"),
            isolate_styles=False)
    count = len(slides)
    targets = {"first": 1 if number > 1 else None, "prev": number - 1 if number > 1 else None,
               "next": number + 1 if number < count else None,
               "last": count if number < count else None}
    st.html(PLAYER_PAGE_CSS)
    with st.container(key="pe-tour-bar", width="content"):
        _player_element(
            key="tour_player", height="content", width="content",
            data={"counter": counter, "number": number, "slides": slides, "targets": targets,
                  "mode": "presenter" if presenter else "audience", "replace": replace,
                  "keep": APP_PARAMS,
                  "label": t("pages.tour.title"),
                  "labels": {"first": t("tour.first"), "prev": t("tour.prev"),
                             "next": t("tour.next"), "last": t("tour.last")}})



def slides_of(code: str) -> tuple[tuple[Slide, ...], str | None]:
    """The slides a `deck` parameter names (empty: the tour), and a notice when it names none."""
    if not code:
        return TOUR, None
    try:
        TOUR_PARAMS["deck"].parse(code)
        return decode_deck(code), None
    except (DeckError, ParamError) as error:
        return TOUR, t("tour.deck_notice", error=error.in_language(current_language()))



def play() -> None:
    """The tour page: the slide the address bar names, run as its page runs, with the player."""
    state = st.session_state
    current = st.query_params.to_dict()
    code = current.get("deck", "")
    slides, deck_notice = slides_of(code)
    notices = [deck_notice] if deck_notice else []
    if deck_notice:
        code = ""
    count = len(slides)
    try:
        number = TOUR_PARAMS["slide"].parse(st.query_params.get_all("slide") or "1")
        if number > count:
            raise ValueError(number)
    except ValueError:
        notices.append(t("tour.slide_notice", value=current["slide"][:20],
                         count=count))
        number = 1
    slide = slides[number - 1]
    try:
        presenter = TOUR_PARAMS["presenter"].parse(current.get("presenter", "false"))
    except ParamError:
        presenter = False
    replace = None
    if state.get(AT) != (code, number) or notices:  # arrived here: a link, a move, back
        state[AT] = (code, number)
        for key in [k for k in state if isinstance(k, str) and k.startswith(_FORGOTTEN)]:
            del state[key]
        for name in _CONTROL_NAMES:  # what the URL says, not the last slide's widgets
            state.pop(name, None)
        names = {p.name for p in PAGE_PARAMS.get(slide.page, ())}
        wanted = slide_query(slide, number, code, current=current)
        if not state.pop(OWN_ADDRESS, False):
            wanted.update({k: v for k, v in current.items() if k in names})  # a link's values
        if not state.get(_PRESENTED):  # the tour opens in presentation mode, once a session
            state[_PRESENTED] = True
            if not presenter:  # (the presenter reads the page's explanations)
                wanted.setdefault("present", "true")
            # in the deck's language, unless the address names one
            if code and not language_asked() and (made_in := deck_language(code)):
                wanted["lang"] = made_in
        if wanted != {k: v for k, v in current.items() if k != FILE_PARAM}:
            replace = "?" + urlencode(wanted)
            state["_tour_notices"] = notices
    _player(t("tour.counter", number=number, count=count), number,
            ["?" + urlencode(slide_query(s, n, code, current={}))
             for n, s in enumerate(slides, start=1)],
            replace, presenter=presenter)
    if replace:  # the page runs once the address is the slide's (the browser asks at once)
        st.stop()
    if presenter:
        presenter_view(slides, number, code)
        return
    for notice in state.pop("_tour_notices", None) or notices:  # they quote the link's text
        st.warning(markdown_text(notice), icon=":material/warning:")
    if code:
        deck_editor(slides, number)
    with st.sidebar:
        st.link_button(t("tour.presenter_open"), "tour?" + urlencode(
            {**slide_query(slide, number, code, current={"lang": current_language()}),
             "presenter": "1"}), icon=":material/co_present:", help=t("tour.presenter_help"))
        file_menu(code, slides)
    st.html(SLIDE_CSS)
    with st.container(key=SLIDE), slide_line(slide.note or None):
        run_page(slide.page)
