"""The Streamlit the app is built on: the release requirements.txt pins is the one installed (the
one this suite ran on), and every private internal the app relies on is where it expects it.

server/guard.py replaces four of AppSession's and NumberInputSerde's methods, and ui/controls.py
reads the run context's history flag and registers a component with the v2 API. A release that
moves one of them breaks the hosted demo without an error at import: each test here names the
internal, what uses it and why, so a failure after an upgrade says what to port."""

from __future__ import annotations

import dataclasses
import inspect
import re
from importlib.metadata import version
from pathlib import Path

import pytest
import streamlit as st
from streamlit.elements.widgets.number_input import NumberInputSerde
from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.proto.NewSession_pb2 import NewSession
from streamlit.runtime.app_session import AppSession
from streamlit.runtime.fragment import MemoryFragmentStorage
from streamlit.runtime.scriptrunner_utils.script_run_context import ScriptRunContext

ROOT = Path(__file__).resolve().parent.parent


def test_requirements_pin_the_streamlit_minor_release_installed():
    """Hosting installs requirements.txt alone: a range would let it take a release no test ran
    on (the app uses 1.67's fragment reruns, widget binding and components v2)."""
    pins = re.findall(r"^streamlit==(\d+)\.(\d+)\.\*\s*$",
                      (ROOT / "requirements.txt").read_text(), flags=re.M)
    assert len(pins) == 1, "requirements.txt must pin streamlit==<major>.<minor>.*"
    major, minor, *_ = version("streamlit").split(".")
    assert pins[0] == (major, minor), (pins[0], version("streamlit"))


def _parameters(function) -> list[str]:
    return list(inspect.signature(function).parameters)


# (internal, what relies on it, check)
INTERNALS = [
    ("AppSession._handle_clear_cache_request(self)",
     "server.guard.close_clear_cache: a visitor's clear_cache clears their own state only",
     lambda: _parameters(AppSession._handle_clear_cache_request) == ["self"]),
    ("AppSession.request_rerun(self, client_state)",
     "server.guard.rerun_unknown_fragments_in_full: a reconnected session reruns whole",
     lambda: _parameters(AppSession.request_rerun) == ["self", "client_state"]),
    ("AppSession.has_fragment and self._fragment_storage",
     "server.guard.rerun_unknown_fragments_in_full reads whether the session ran the page",
     lambda: callable(getattr(AppSession, "has_fragment", None))
     and "self._fragment_storage" in inspect.getsource(AppSession.__init__)),
    ("MemoryFragmentStorage._fragments",
     "server.guard.rerun_unknown_fragments_in_full: an empty storage = a session that never ran",
     lambda: "self._fragments" in inspect.getsource(MemoryFragmentStorage.__init__)),
    ("ClientState.fragment_id",
     "server.guard.rerun_unknown_fragments_in_full clears it to rerun the whole page",
     lambda: "fragment_id" in ClientState.DESCRIPTOR.fields_by_name),
    ("AppSession._create_new_session_message(self, page_script_hash, ...)",
     "server.guard.hide_script_path: the first message names the script, not its absolute path",
     lambda: _parameters(AppSession._create_new_session_message)[:2]
     == ["self", "page_script_hash"]),
    ("NewSession.main_script_path",
     "server.guard.hide_script_path rewrites it",
     lambda: "main_script_path" in NewSession.DESCRIPTOR.fields_by_name),
    ("NumberInputSerde.deserialize(self, ui_value)",
     "server.guard.pass_nonfinite_ints: a crafted NaN or inf gets a notice, not an error box",
     lambda: _parameters(NumberInputSerde.deserialize) == ["self", "ui_value"]),
    ("ScriptRunContext.is_history_navigation",
     "ui.controls.history_navigation: back and forward let the URL decide every choice",
     lambda: "is_history_navigation" in {f.name for f in dataclasses.fields(ScriptRunContext)}),
    ("ScriptRunContext.reset makes a new parallel_coordinator per run",
     "ui.follow: a followed drag's value is drawn by the run it started, and no later one",
     lambda: "self.parallel_coordinator = ParallelFragmentCoordinator("
     in inspect.getsource(ScriptRunContext.reset)),
    ("st.components.v2.component(name, *, js, css, isolate_styles)",
     "ui.controls' pe_choice_address (a choice rewrites the address in place) and "
     "ui.plotly_react's chart element",
     lambda: {"js", "css", "isolate_styles"} <= set(_parameters(st.components.v2.component))),
]


@pytest.mark.parametrize(("internal", "user", "check"), INTERNALS,
                         ids=[internal.split("(")[0] for internal, *_ in INTERNALS])
def test_each_private_streamlit_internal_the_app_relies_on_is_there(internal, user, check):
    assert check(), (f"Streamlit {version('streamlit')} moved {internal}, which {user}: port "
                     "it before upgrading")
