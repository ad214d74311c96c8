"""The presenter's window (`/tour?...&presenter=1`): a speaker's screen, as reveal.js's speaker
view and PowerPoint's presenter view are. No sidebar, no page controls: the slide shown and the
next one as small previews (each the audience's page itself in a frame, assets/preview.js, its
charts drawn), the slide's notes (the deck's note and the page's own explanations of the view,
which presentation mode hides from the audience), a large clock and the time elapsed
(assets/clock.js). The page runs out of sight for its explanations (its controls as the
slide's, its charts drawn hidden)."""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from ui.i18n import current_language, t
from ui.pages import PAGE_PARAMS, takeaway_key
from ui.player.common import PAGES_BY_PATH, asset, run_page, slide_query
from ui.text import collect_explanations, plain_text, slide_line
from ui.tour import Slide

_clock_element = None
_preview_element = None


def slide_title(slide: Slide) -> tuple[str, bool]:
    """A slide's title as its slide shows it: (its note, True) or (its view's takeaway, False)."""
    if slide.note:
        return slide.note, True
    views = {p.name: p.default for p in PAGE_PARAMS.get(slide.page, ())}
    key = takeaway_key(slide.page, slide.settings.get("view", views.get("view")),
                       slide.settings.get("source", views.get("source")))
    return (t(key) if key else PAGES_BY_PATH[slide.page].title_in(current_language())), False


def _title(slide: Slide, tag: str) -> None:
    """A slide's title: a deck's note as typed, a takeaway as markdown (its formulas typeset)."""
    title, is_note = slide_title(slide)
    if is_note:
        plain_text(title, tag=tag)
    else:
        st.markdown(f"{'#' * int(tag[1])} {title}" if tag.startswith("h") else title)


def _preview(slides: tuple[Slide, ...], number: int, code: str, *, key: str) -> None:
    """Slide `number` as its audience sees it, small (assets/preview.js): the audience's page in
    a frame, in this window's language, presenting."""
    global _preview_element
    if _preview_element is None:  # registered once per process
        _preview_element = st.components.v2.component(
            "pe_slide_preview", js=asset("preview.js"), css=asset("preview.css"),
            isolate_styles=False)
    query = slide_query(slides[number - 1], number, code,
                        current={"lang": current_language(), "present": "true"})
    _preview_element(key=key, height="content",
                     data={"url": "tour?" + urlencode(query),
                           "label": t("tour.presenter_preview", number=number)})


def presenter_view(slides: tuple[Slide, ...], number: int, code: str) -> None:
    """The presenter's window at slide `number` of `slides`."""
    global _clock_element
    slide = slides[number - 1]
    st.html(f"<style>\n{asset('presenter.css')}</style>")
    heading, clock = st.columns([3, 2], vertical_alignment="center")
    with heading:
        st.caption(t("tour.presenter_heading", number=number, count=len(slides)))
        _title(slide, "h3")
    with clock:
        if _clock_element is None:  # registered once per process
            _clock_element = st.components.v2.component(
                "pe_presenter_clock", html=asset("clock.html"), css=asset("clock.css"),
                js=asset("clock.js"), isolate_styles=False)
        _clock_element(key="presenter_clock", height="content",
                       data={"elapsed": t("tour.presenter_elapsed"),
                             "now": t("tour.presenter_now")})
    with collect_explanations() as explanations, st.container(key="pe-presenter-page"), \
            slide_line(slide.note or None):
        run_page(slide.page)
    now, upcoming = st.columns([3, 2], gap="large")
    with now:
        with st.container(key="pe-presenter-current"):
            _preview(slides, number, code, key="presenter_current")
        with st.container(key="pe-presenter-notes"):
            st.subheader(t("tour.presenter_notes"))
            for explanation in explanations:
                st.markdown(explanation)
    with upcoming:
        st.caption(t("tour.presenter_next"))
        if number < len(slides):
            with st.container(key="pe-presenter-next"):
                _preview(slides, number + 1, code, key="presenter_next")
                _title(slides[number], "p")
        else:
            st.markdown(t("tour.presenter_last"))
        st.caption(t("tour.presenter_keys"))
