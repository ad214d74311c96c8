"""The MiniLM model, read once per process and shared by every session and page."""

from __future__ import annotations

import streamlit as st

import core


@st.cache_resource(max_entries=1, show_spinner="Reading the MiniLM embedding tables ...")
def cached_minilm():
    """`core.load_minilm()`; raises `core.minilm.ModelUnavailableError` (saying how to install
    the package) when it is not installed. Errors are not cached: installing it needs no
    restart."""
    return core.load_minilm()
