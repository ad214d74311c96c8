"""Positional Encoding Explorer: routing only. Run with `streamlit run app.py`."""

import streamlit as st

from ui.pages import HOME, PAGES

st.set_page_config(page_title="Positional Encoding Explorer", page_icon="🌀", layout="wide")

navigation = st.navigation(
    [st.Page(HOME.script, title=HOME.title, icon=HOME.icon, default=True)]
    + [st.Page(p.script, title=p.title, icon=p.icon, url_path=p.url_path) for p in PAGES]
)
navigation.run()
