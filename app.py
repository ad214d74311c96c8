"""Positional Encoding Explorer: routing only. Run with `streamlit run app.py`."""

import streamlit as st

from ui.pages import HOME, PAGES

APP_TITLE = "Positional Encoding Explorer"

navigation = st.navigation(
    [st.Page(HOME.script, title=HOME.title, icon=HOME.icon, default=True)]
    + [st.Page(p.script, title=p.title, icon=p.icon, url_path=p.url_path) for p in PAGES]
)
# The browser tab (and a shared link's preview) names the page: "ALiBi · Positional Encoding …".
page_title = APP_TITLE if navigation.url_path == "" else f"{navigation.title} · {APP_TITLE}"
st.set_page_config(page_title=page_title, page_icon="🌀", layout="wide")
navigation.run()
