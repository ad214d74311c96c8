"""Home: why sines and cosines (three live pictures, one per property), then the formula with a
picture of the table, and a map of the pages (presentation mode: the title slide, the three
pictures side by side)."""

import streamlit as st

import core
from core.why_sinusoid import WhySinusoid, why_sinusoid
from figures.heatmap import make_pe_heatmap_figure
from figures.why_sinusoid import (
    make_code_figure,
    make_nearby_figure,
    make_shift_figure,
    shift_offsets,
)
from server.cache import MB, bounded_cache
from ui.charts import show_chart
from ui.i18n import current_language, presenting, t
from ui.pages import PAGES, TOUR_PAGE
from ui.text import explain, on_slide, page_only, takeaway

PICTURE = (100, 128)  # positions x d_model: every entry its own cell, drawn at once


@bounded_cache(max_entries=2, max_bytes=MB // 4, worst_case=[(100, 128)])
def cached_picture(positions: int, d_model: int) -> core.Overview:
    return core.sinusoid_overview(positions, d_model)


@bounded_cache(max_entries=1, max_bytes=MB // 16, worst_case=[()])  # ~45 KB
def cached_why() -> WhySinusoid:
    return why_sinusoid()


lang = current_language()
st.title(t("home.heading"))
takeaway(t("home.takeaway"))  # the title slide says why sines and cosines
if not on_slide():  # the way into the tour (in presentation mode too: the title slide)
    st.page_link(TOUR_PAGE.script, label=t("tour.start"), icon=TOUR_PAGE.icon,
                 help=t("tour.start_help"), query_params={"present": "true"})

why = cached_why()
last = int(why.positions[-1])
if not presenting():
    st.header(t("home.why_heading"), anchor="why-sines-and-cosines")
explain(t("home.why"))
# One column per property: side by side on a laptop and on a slide, one under the other on a phone.
wavelengths = ", ".join(f"{length:,.0f}" if length >= 10 else f"{length:.1f}"
                        for length in why.clocks.wavelengths)
claims = (
    (make_code_figure(why, lang=lang), "home_why_code", "pe-why-code",
     t("home.code_caption", wavelengths=wavelengths, last=last, nearest=why.nearest,
       norm=why.norm)),
    (make_nearby_figure(why, lang=lang), "home_why_nearby", "pe-why-nearby",
     t("home.nearby_caption")),
    (make_shift_figure(why, lang=lang), "home_why_shift", "pe-why-shift",
     # the error the chart states for each k its slider reaches, at its largest
     t("home.shift_caption", pair=why.pair, last=last, last_offset=int(shift_offsets(why)[-1]),
       residual=float(why.residuals[shift_offsets(why)].max()))),
)
for column, (figure, key, name, caption) in zip(st.columns(3, gap="medium"), claims,
                                                  strict=True):
    with column:
        show_chart(figure, key=key, name=name)
        explain(caption, caption=True)

with page_only("home-formula"):  # the tour's first slide is the three pictures
    if not presenting():
        st.header(t("home.formula_heading"))
    picture, words = st.columns([1, 1], gap="large")  # the picture first: first on a phone
    with picture:
        figure = make_pe_heatmap_figure(cached_picture(*PICTURE), title=t("home.picture_title"),
                                        lang=lang)
        figure.update_layout(height=360, margin={"t": 40})
        show_chart(figure, key="home_picture", name="pe-home_d128_pos100")
        explain(t("home.picture_caption"), caption=True)
    with words:
        st.latex(  # two lines: half the page is too narrow for one
            r"\begin{aligned} "
            r"PE_{(pos,\,2i)} &= \sin\!\left(\frac{pos}{10000^{2i/d_{model}}}\right)"
            r"\\ PE_{(pos,\,2i+1)} &= \cos\!\left(\frac{pos}{10000^{2i/d_{model}}}\right)"
            r"\end{aligned}"
        )
        explain(t("home.clocks"))

if not presenting():  # a title slide in presentation mode, as the README says
    st.subheader(t("home.pages"))
    for page in PAGES:
        st.page_link(page.script, label=page.title_in(lang), icon=page.icon)
        st.caption(page.summary_in(lang))
