"""The MiniLM model, read once per process and shared by every session and page."""

from __future__ import annotations

import threading

import streamlit as st

from core import minilm, minilm_encoder
from locales import message
from server.memory_budget import reclaimable
from server.run_slots import ComputeSlot

# Shown while the tables load (a second, once per process). Fixed when the module is imported,
# before any visitor's language is known: both languages.
LOADING = f"{message('app.loading_model', 'en')} · {message('app.loading_model', 'zh')}"

_model: minilm.MiniLM | None = None
_reading = threading.Lock()  # one reading at a time; only ever taken inside a compute slot


def cached_minilm() -> minilm.MiniLM:
    """`core.minilm.load_minilm()`, once per process; raises `ModelUnavailableError` (saying
    how to install the package) when it is not installed. Errors are not kept: installing it
    needs no restart.

    Read in a compute slot, as a cache miss is (~50 MB while it loads), the slot taken before
    the reading's lock (server.cache's order): the pages ask for the model both inside their
    cache misses (which hold a slot) and outside them. Streamlit's cache_resource took its lock
    first, then the slot: a session holding that lock while it queued for a slot, behind an
    image's turn, and a cache miss holding a slot while it waited for that lock, kept every
    visitor's page waiting until one of them left. Dropped for an image's turn
    (`release_minilm`), it is not read again beside the image's Chromium."""
    model = _model
    if model is not None:
        return model
    with ComputeSlot(), _reading:
        return _read()


def _read() -> minilm.MiniLM:
    global _model
    if _model is None:
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

        if get_script_run_ctx(suppress_warning=True) is None:  # a download's or export's thread
            _model = minilm.load_minilm()
        else:
            with st.spinner(LOADING):
                _model = minilm.load_minilm()
    return _model


@reclaimable
def release_minilm() -> None:
    """Drop the model's tensors (~90 MB: embeddings and the six layers) for an image's turn
    (server.memory_budget.image_turn): Chromium needs the room more. Read again (about a second) by
    the next run that uses the model; a run using them now keeps its own reference until it
    ends."""
    global _model
    _model = None
    minilm.load_minilm.cache_clear()
    minilm_encoder.load_encoder.cache_clear()
