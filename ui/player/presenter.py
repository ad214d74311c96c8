"""The presenter's window (`/tour?...&presenter=1`): the slide's title, its notes (the deck's
note and the page's own explanations of the view, which presentation mode hides from the
audience), the next slide's title and a clock (assets/clock.js). The page runs out of sight for
its explanations (its controls as the slide's, its charts drawn hidden)."""

from __future__ import annotations

import streamlit as st

from ui.i18n import current_language, t
from ui.pages import PAGE_PARAMS, takeaway_key
from ui.player.common import PAGES_BY_PATH, asset, run_page
from ui.text import collect_explanations, plain_text, slide_line
from ui.tour import Slide

_clock_element = None


def slide_title(slide: Slide) -> tuple[str, bool]:
    """A slide's title as its slide shows it: (its note, True) or (its view's takeaway, False)."""
    if slide.note:
        return slide.note, True
    views = {p.name: p.default for p in PAGE_PARAMS.get(slide.page, ())}
    key = takeaway_key(slide.page, slide.settings.get("view", views.get("view")))
    return (t(key) if key else PAGES_BY_PATH[slide.page].title_in(current_language())), False



def presenter_view(slides: tuple[Slide, ...], number: int, code: str) -> None:
    """The presenter's window at slide `number` of `slides`."""
    global _clock_element
    slide = slides[number - 1]
    st.html(f"<style>\n{asset('presenter.css')}</style>")
    st.caption(t("tour.presenter_heading", number=number, count=len(slides)))
    title, is_note = slide_title(slide)
    if is_note:
        plain_text(title, tag="h3")
    else:
        st.markdown(f"### {title}")
    with collect_explanations() as explanations, st.container(key="pe-presenter-page"), \
            slide_line(slide.note or None):
        run_page(slide.page)
    with st.container(key="pe-presenter-notes"):
        st.subheader(t("tour.presenter_notes"))
        for explanation in explanations:
            st.markdown(explanation)
    if number < len(slides):
        upcoming, upcoming_is_note = slide_title(slides[number])
        st.caption(t("tour.presenter_next"))
        if upcoming_is_note:
            plain_text(upcoming)
        else:
            st.markdown(upcoming)
    else:
        st.caption(t("tour.presenter_last"))
    if _clock_element is None:  # registered once per process
        _clock_element = st.components.v2.component(
            "pe_presenter_clock", html=asset("clock.html"), css=asset("clock.css"),
            js=asset("clock.js"),
            isolate_styles=False)
    _clock_element(key="presenter_clock", height="content",
                   data={"elapsed": t("tour.presenter_elapsed"), "now": t("tour.presenter_now")})
    st.caption(t("tour.presenter_keys"))
