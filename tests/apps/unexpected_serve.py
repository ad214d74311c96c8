"""tests/apps/unexpected.py served with what the public entry adds to app.py (serve.PUBLIC)."""

from pathlib import Path

import streamlit as st

from serve import PUBLIC

app = st.App(Path(__file__).with_name("unexpected.py"), **PUBLIC)
