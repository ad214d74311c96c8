"""Home: what positional encoding is for, the formula, and a map of the pages."""

import streamlit as st

from ui.i18n import current_language, t
from ui.pages import PAGES
from ui.text import explain

st.title(t("home.heading"))
explain(t("home.why"))
st.latex(
    r"PE_{(pos,\,2i)} = \sin\!\left(\frac{pos}{10000^{2i/d_{model}}}\right), \qquad "
    r"PE_{(pos,\,2i+1)} = \cos\!\left(\frac{pos}{10000^{2i/d_{model}}}\right)"
)
explain(t("home.clocks"))

st.subheader(t("home.pages"))
lang = current_language()
for page in PAGES:
    st.page_link(page.script, label=page.title_in(lang), icon=page.icon)
    st.caption(page.summary_in(lang))
