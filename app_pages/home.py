"""Home: a live picture of the encoding, what positional encoding is for, the formula, and a map
of the pages (presentation mode: the title slide, without the map)."""

import streamlit as st

import core
from figures.heatmap import make_pe_heatmap_figure
from ui.cache import MB, bounded_cache
from ui.charts import show_chart
from ui.i18n import current_language, presenting, t
from ui.pages import PAGES, TOUR_PAGE
from ui.text import explain, on_slide, takeaway

PICTURE = (100, 128)  # positions x d_model: every entry its own cell, drawn at once


@bounded_cache(max_entries=2, max_bytes=MB // 4, worst_case=[(100, 128)])
def cached_picture(positions: int, d_model: int) -> core.Overview:
    return core.sinusoid_overview(positions, d_model)


lang = current_language()
st.title(t("home.heading"))
takeaway(t("home.takeaway"))  # the title slide says why order matters
if not on_slide():  # the way into the tour (in presentation mode too: the title slide)
    st.page_link(TOUR_PAGE.script, label=t("tour.start"), icon=TOUR_PAGE.icon,
                 help=t("tour.start_help"), query_params={"present": "true"})
picture, words = st.columns([1, 1], gap="large")  # the picture first: on a phone it comes first
with picture:  # the page opens on the thing itself
    figure = make_pe_heatmap_figure(cached_picture(*PICTURE), title=t("home.picture_title"),
                                    lang=lang)
    # On a slide the picture fills the screen's height.
    figure.update_layout(height=560 if presenting() else 360, margin={"t": 40})
    show_chart(figure, key="home_picture", name="pe-home_d128_pos100")
    explain(t("home.picture_caption"), caption=True)
with words:
    explain(t("home.why"))
    st.latex(  # two lines: half the page is too narrow for one
        r"\begin{aligned} PE_{(pos,\,2i)} &= \sin\!\left(\frac{pos}{10000^{2i/d_{model}}}\right)"
        r"\\ PE_{(pos,\,2i+1)} &= \cos\!\left(\frac{pos}{10000^{2i/d_{model}}}\right)"
        r"\end{aligned}"
    )
    explain(t("home.clocks"))

if not presenting():  # a title slide in presentation mode, as the README says
    st.subheader(t("home.pages"))
    for page in PAGES:
        st.page_link(page.script, label=page.title_in(lang), icon=page.icon)
        st.caption(page.summary_in(lang))
