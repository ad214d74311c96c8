"""The MiniLM model, read once per process and shared by every session and page."""

from __future__ import annotations

import streamlit as st

from core import minilm, minilm_encoder
from locales import message
from server.memory_budget import reclaimable
from server.run_slots import in_compute_slot

# Shown by the cache while the tables load (a second, once per process). The decorator's text is
# fixed when the module is imported, before any visitor's language is known: both languages.
LOADING = f"{message('app.loading_model', 'en')} · {message('app.loading_model', 'zh')}"


@st.cache_resource(max_entries=1, show_spinner=LOADING)
def cached_minilm():
    """`core.minilm.load_minilm()`; raises `ModelUnavailableError` (saying how to install
    the package) when it is not installed. Errors are not cached: installing it needs no
    restart. Read in a compute slot, as a cache miss is (~50 MB while it loads): dropped for an
    image's turn (`release_minilm`), it is not read again beside the image's Chromium."""
    return in_compute_slot(minilm.load_minilm)()


@reclaimable
def release_minilm() -> None:
    """Drop the model's tensors (~90 MB: embeddings and the six layers) for an image's turn
    (server.memory_budget.image_turn): Chromium needs the room more. Read again (about a second) by
    the next run that uses the model; a run using them now keeps its own reference until it
    ends."""
    cached_minilm.clear()
    minilm.load_minilm.cache_clear()
    minilm_encoder.load_encoder.cache_clear()
