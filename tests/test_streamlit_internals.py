"""The Streamlit the app is built on: the release requirements.txt pins is the one installed (the
one this suite ran on), and every private internal the app relies on is where it expects it.

server/guard.py replaces four of AppSession's and NumberInputSerde's methods; ui/ reads the run
context (its session, script path, fragments, history flag, page script cache) and asks the
Runtime about sessions; ui/not_found.py replaces st.navigation's "page not found" message;
export/slides.py speaks the browser's websocket protocol (/_stcore/stream, BackMsg and ForwardMsg)
to the server itself; server/sessions.py shuts down and drops the sessions Streamlit keeps past
their TTL. A release that moves one of them breaks the hosted demo without an error at
import: each test here names the internal, what uses it and why, so a failure after an upgrade
says what to port. Found by grepping app.py, serve.py, app_pages/, ui/, server/ and export/ for
`._`, `streamlit.runtime`, `streamlit.proto`, `streamlit.web`, `streamlit.commands`,
`get_script_run_ctx` and hidden config options; tests/test_plotly_internals.py does the same for
plotly."""

from __future__ import annotations

import dataclasses
import inspect
import re
from importlib.metadata import version
from pathlib import Path

import pytest
import streamlit as st
import streamlit.commands.navigation as navigation
from starlette.datastructures import Headers
from starlette.formparsers import MultiPartParser
from streamlit.elements.lib.utils import _compute_element_id
from streamlit.elements.widgets.number_input import NumberInputSerde
from streamlit.errors import StreamlitAPIException
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.Block_pb2 import Block
from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.proto.Delta_pb2 import Delta
from streamlit.proto.Element_pb2 import Element
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.NewSession_pb2 import NewSession
from streamlit.proto.NumberInput_pb2 import NumberInput
from streamlit.runtime import Runtime
from streamlit.runtime.app_session import AppSession
from streamlit.runtime.caching.ttl_cache import TTLCache
from streamlit.runtime.fragment import MemoryFragmentStorage
from streamlit.runtime.memory_session_storage import MemorySessionStorage
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.scriptrunner.script_runner import ScriptRunner
from streamlit.runtime.scriptrunner_utils.script_run_context import (
    ScriptRunContext,
    get_script_run_ctx,
)
from streamlit.runtime.session_manager import SessionInfo
from streamlit.runtime.websocket_session_manager import WebsocketSessionManager
from streamlit.testing.v1 import app_test, local_script_runner
from streamlit.testing.v1.app_test import AppTest
from streamlit.web.server import app_discovery
from streamlit.web.server.starlette import starlette_websocket
from streamlit.web.server.starlette.starlette_routes import create_upload_routes

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


def _context_fields() -> set[str]:
    return {field.name for field in dataclasses.fields(ScriptRunContext)}


def _proto_fields(message, *names: str) -> bool:
    return set(names) <= set(message.DESCRIPTOR.fields_by_name)


def _oneof(message, *names: str) -> bool:
    return set(names) <= {field.name for field in message.DESCRIPTOR.oneofs_by_name["type"].fields}


def _is_classmethod(cls, name: str) -> bool:
    return isinstance(inspect.getattr_static(cls, name, None), classmethod)


def _expired_pairs() -> bool:
    clock = [0.0]
    cache = TTLCache(maxsize=4, ttl=1, timer=lambda: clock[0])
    cache["a"] = "session"
    clock[0] = 2.0
    return cache.currsize == 0 and cache.expire() == [("a", "session")] and not cache.expire()


def _raises(call, error: type[BaseException]) -> bool:
    try:
        call()
    except error:
        return True
    except Exception:
        return False
    return False


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
    # --- the run context and the Runtime, read by ui/ ------------------------------------------
    ("streamlit.runtime.scriptrunner_utils.script_run_context.get_script_run_ctx("
     "suppress_warning)",
     "ui.charts, ui.controls, ui.follow, ui.player and ui.plotly_react read the run's context "
     "through it, quietly outside a run",
     lambda: _parameters(get_script_run_ctx) == ["suppress_warning"]),
    ("ScriptRunContext.session_id",
     "ui.charts.visitor_connected and ui.player's slide-file session name their session by it",
     lambda: "session_id" in _context_fields()),
    ("ScriptRunContext.main_script_path",
     "ui.plotly_react: plotly.js is copied into static/ beside the main script, where "
     "Streamlit's static serving finds it",
     lambda: "main_script_path" in _context_fields()),
    ("ScriptRunContext.fragment_ids_this_run",
     "ui.charts: an export's Save button reruns its fragment alone when the run is a "
     "fragment's (st.rerun(scope='fragment') raises in a full run)",
     lambda: "fragment_ids_this_run" in _context_fields()),
    ("ScriptRunContext.pages_manager.get_page_script_byte_code(self, script_path)",
     "ui.player: a slide runs its page's own script from Streamlit's bytecode cache, as a "
     "page opened from the navigation runs",
     lambda: "pages_manager" in _context_fields()
     and _parameters(PagesManager.get_page_script_byte_code) == ["self", "script_path"]),
    ("Runtime.exists() and Runtime.instance()",
     "ui.charts.visitor_connected, ui.player's slide-file session and server.memory_probe "
     "reach the running server (none under AppTest)",
     lambda: _is_classmethod(Runtime, "exists") and _is_classmethod(Runtime, "instance")),
    ("Runtime.is_active_session(self, session_id)",
     "ui.charts.visitor_connected: an export whose tab has closed gives up its place",
     lambda: _parameters(Runtime.is_active_session) == ["self", "session_id"]),
    ("Runtime.mark_session_nonresumable(self, session_id)",
     "ui.player: a slide file's own sessions are not kept 30 s for a reconnection after "
     "their socket closes",
     lambda: _parameters(Runtime.mark_session_nonresumable) == ["self", "session_id"]),
    # --- reruns of a fragment by key, and AppTest's flag ---------------------------------------
    ("MemoryFragmentStorage.resolve_target raises StreamlitAPIException for a key never drawn",
     "ui.controls, ui.follow and app_pages.heatmap catch it around st.rerun(scope=[keys]): a "
     "fragment that was not drawn (a run stopped early) is skipped, not an error box",
     lambda: _raises(lambda: MemoryFragmentStorage().resolve_target(["pe-never-drawn"]),
                     StreamlitAPIException)),
    ("AppTest makes each run's script cache as `ScriptCache()`, by that name in "
     "streamlit.testing.v1.app_test and local_script_runner",
     "tests/conftest.py hands every AppTest run one cache per process (a server's way: each "
     "script compiled once); renamed, the tests would compile afresh every run, unseen",
     lambda: all("ScriptCache()" in inspect.getsource(module) and hasattr(module, "ScriptCache")
                 for module in (app_test, local_script_runner))),
    ("config option global.appTest, set by AppTest's runs",
     "app_pages.heatmap, ui.controls and ui.plotly_react: under AppTest (no browser) a change "
     "reruns the whole page and charts go through st.plotly_chart",
     lambda: st.config.get_option("global.appTest") is False
     and '"global.appTest": True' in inspect.getsource(AppTest)),
    # --- st.navigation's unknown page ----------------------------------------------------------
    ("streamlit.commands.navigation.send_page_not_found(ctx), called by its module name",
     "ui.not_found.localise replaces it: an unknown page gets a notice in the visitor's "
     "language, not Streamlit's English dialog",
     lambda: _parameters(navigation.send_page_not_found) == ["ctx"]
     and re.search(r"^\s+send_page_not_found\(ctx\)$", inspect.getsource(navigation),
                   flags=re.M) is not None),
    # --- serve.py: the ASGI app ---------------------------------------------------------------
    ("streamlit.web.server.app_discovery finds serve.py's `app = st.App(...)`",
     "serve.py: `streamlit run serve.py` serves the ASGI app (its doors middleware and the "
     "unexpected-error boundary), not serve.py as a plain script without them",
     lambda: app_discovery.discover_asgi_app(ROOT / "serve.py").import_string == "serve:app"),
    # --- server/guard.py, beyond the methods it replaces ---------------------------------------
    ("AppSession._session_state",
     "server.guard.close_clear_cache: a visitor's clear_cache clears that session's state",
     lambda: "self._session_state" in inspect.getsource(AppSession.__init__)),
    ("NumberInputSerde.data_type and NumberInput.INT",
     "server.guard.pass_nonfinite_ints tells an integer box from a float box by them",
     lambda: "data_type" in {field.name for field in dataclasses.fields(NumberInputSerde)}
     and NumberInput.DataType.Name(NumberInput.INT) == "INT"),
    ("MemoryUploadedFileManager.file_storage ({session: {file_id: rec}}), ._lock, "
     "add_file(session_id, file), remove_file(session_id, file_id)",
     "server.guard.one_upload_per_session drops a session's other files before adding one",
     lambda: "self.file_storage" in inspect.getsource(MemoryUploadedFileManager.__init__)
     and "self._lock" in inspect.getsource(MemoryUploadedFileManager.__init__)
     and _parameters(MemoryUploadedFileManager.add_file) == ["self", "session_id", "file"]
     and _parameters(MemoryUploadedFileManager.remove_file) == ["self", "session_id",
                                                                 "file_id"]),
    ("starlette's MultiPartParser.spool_max_size (a class attribute, read per file part), and "
     "Streamlit's upload route parses its body with request.form()",
     "server.guard.keep_uploads_in_memory: an uploaded table never spools to a file on disk",
     lambda: "SpooledTemporaryFile(max_size=self.spool_max_size)"
     in inspect.getsource(MultiPartParser)
     and "await limited_request.form()" in inspect.getsource(create_upload_routes)),
    # --- server/sessions.py: departed sessions forgotten past their TTL ----------------------
    ("Runtime._session_mgr: _storage_lock, list_active_sessions(), _session_storage._cache",
     "server.sessions.forget_expired_sessions reaches the stored sessions through them (under "
     "the manager's own lock), and tells an idle server by them",
     lambda: "self._session_mgr" in inspect.getsource(Runtime.__init__)
     and "self._storage_lock" in inspect.getsource(WebsocketSessionManager.__init__)
     and "self._session_storage" in inspect.getsource(WebsocketSessionManager.__init__)
     and _parameters(WebsocketSessionManager.list_active_sessions) == ["self"]
     and "self._cache" in inspect.getsource(MemorySessionStorage.__init__)),
    ("TTLCache.expire() returns the expired (key, value) pairs it removes; currsize",
     "server.sessions.forget_expired_sessions shuts down each session it drops (Streamlit's own "
     "reaping, when the next session is saved, never does), and reads currsize for none left",
     lambda: _expired_pairs()),
    ("SessionInfo.session; AppSession.shutdown(self)",
     "server.sessions shuts an expired session down as Streamlit's close_session does",
     lambda: "session" in SessionInfo.__dataclass_fields__
     and _parameters(AppSession.shutdown) == ["self"]),
    ("a script run's thread is named \"ScriptRunner.scriptThread\"",
     "server.sessions refreezes the libraries (server.runtime.refreeze_when_idle) only once no "
     "run is left, and server.memory_probe counts them",
     lambda: 'name="ScriptRunner.scriptThread"' in inspect.getsource(ScriptRunner.start)),
    # --- server/memory_probe.py (only with PE_MEMORY_PROBE set) --------------------------------
    ("TTLCache._data (an expired entry stays there until reaped), AppSession.__init__ and "
     "._state",
     "server.memory_probe counts the sessions kept, expired ones included, and every session "
     "alive with its state",
     lambda: "self._data" in inspect.getsource(TTLCache.__init__)
     and "self._state" in inspect.getsource(AppSession.__init__)),
    # --- export/slides.py: a websocket session of the server's own ----------------------------
    ("the websocket route /_stcore/stream, subprotocol \"streamlit\"",
     "export.slides.compute_slide: a slide's page runs in a session it opens on this server, "
     "as a browser would",
     lambda: [route.path for route in starlette_websocket.create_websocket_routes(None, None)]
     == ["/_stcore/stream"]
     and starlette_websocket._parse_subprotocols(
         Headers({"sec-websocket-protocol": "streamlit"}))[0] == "streamlit"),
    ("BackMsg.rerun_script: ClientState.query_string and page_name",
     "export.slides: the session's one message asks for the slide's page with its settings",
     lambda: _oneof(BackMsg, "rerun_script")
     and _proto_fields(ClientState, "query_string", "page_name")),
    ("ForwardMsg: delta, script_finished (FINISHED_EARLY_FOR_RERUN), metadata.delta_path",
     "export.slides reads the run's elements by their place until a run ends that was not cut "
     "short by a rerun",
     lambda: _oneof(ForwardMsg, "delta", "script_finished")
     and "FINISHED_EARLY_FOR_RERUN" in ForwardMsg.ScriptFinishedStatus.DESCRIPTOR.values_by_name
     and "delta_path" in ForwardMsg.DESCRIPTOR.fields_by_name["metadata"]
     .message_type.fields_by_name),
    ("Delta.add_block / new_element; Block.id; Element.markdown.body, html.body, "
     "plotly_chart.spec",
     "export.slides._Content: a slide's title (a #### heading or the deck's note) and its "
     "charts' figures",
     lambda: _oneof(Delta, "add_block", "new_element") and _proto_fields(Block, "id")
     and _proto_fields(Element, "markdown", "html", "plotly_chart")
     and all("body" in Element.DESCRIPTOR.fields_by_name[kind].message_type.fields_by_name
             for kind in ("markdown", "html"))
     and "spec" in Element.DESCRIPTOR.fields_by_name["plotly_chart"]
     .message_type.fields_by_name),
    ("a keyed block's id ends with its key ($$ID-<hash>-<key>)",
     "export.slides._Content leaves out the blocks ui.text.page_only keys (what only the page "
     "shows), as the slide layout does",
     lambda: _compute_element_id("container", "pe-page-only-x").endswith("-pe-page-only-x")),
]


@pytest.mark.parametrize(("internal", "user", "check"), INTERNALS,
                         ids=[internal.split("(")[0] for internal, *_ in INTERNALS])
def test_each_private_streamlit_internal_the_app_relies_on_is_there(internal, user, check):
    assert check(), (f"Streamlit {version('streamlit')} moved {internal}, which {user}: port "
                     "it before upgrading")
