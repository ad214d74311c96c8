"""Streamlit's open doors the app does not use, closed from inside the process.

- Any session can send ``clear_cache`` over its websocket (the viewer toolbar hides the menu item,
  not the message): Streamlit then empties ``st.cache_data`` and ``st.cache_resource`` for every
  visitor (``AppSession._handle_clear_cache_request``, ``streamlit/runtime/app_session.py``;
  measured: a warm similarity rerun went from 0.22 s to 3.8-7.1 s after each foreign clear). The
  app's caches are shared, bounded and rebuilt only as needed, so nothing a visitor does needs a
  global clear. `close_clear_cache` makes the message clear the sender's own session state only.
- An integer number box given ``NaN`` or ``inf`` over the websocket (the box itself cannot send
  them) makes Streamlit raise inside ``st.number_input`` (``NumberInputSerde.deserialize`` calls
  ``int()`` before its finiteness check): an error box instead of the page. `pass_nonfinite_ints`
  hands such a value to the page unchanged, where `ui.controls` checks every control's value
  against its spec: a notice naming the parameter, and the default.
- Every session's first message (``NewSession``) carries the server's absolute script path
  (``main_script_path``; the browser only hashes it into an anonymous app id).
  `hide_script_path` sends the script's file name instead.

- A session that has not run the page yet (a visitor whose replica stopped reconnects to
  another: a new session there, the old page still on screen) drops a rerun of a fragment it
  does not know (``AppSession.request_rerun``): the page's fragments were dead until a full
  rerun (an Export menu opened at once stayed empty). `rerun_unknown_fragments_in_full` runs
  the whole page instead, in such a session only (one that has run keeps Streamlit's rule).

- The upload route (opened for the one uploader: server/doors.py) parses its body with
  Starlette, which spools a file past 1 MB to a temporary file on disk
  (``MultiPartParser.spool_max_size``): a visitor's table must never reach the disk.
  `keep_uploads_in_memory` raises the spool's threshold above the largest body the doors let
  through. Streamlit's ``MemoryUploadedFileManager`` keeps every file a session PUTs, under any
  id, until the session ends: a crafted client could fill the memory with 17 MB files.
  `one_upload_per_session` keeps a session's newest file only (the app's one uploader takes one
  file; a file replaced in it is deleted by the browser all the same).

`close_doors` installs them all (idempotent) when serve.py starts the server, before the first
session; app.py calls it on every run without the path's (see `close_doors`).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from starlette.formparsers import MultiPartParser
from streamlit.elements.widgets.number_input import NumberInputSerde
from streamlit.proto.NumberInput_pb2 import NumberInput as NumberInputProto
from streamlit.runtime.app_session import AppSession
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager

from server.doors import UPLOAD_BODY_BYTES


def _clear_own_session_only(self: AppSession) -> None:
    """A visitor's "clear cache": their own session's state, never the shared caches."""
    self._session_state.clear()


def close_clear_cache() -> None:
    """Install the handler (idempotent)."""
    if AppSession._handle_clear_cache_request is not _clear_own_session_only:
        AppSession._handle_clear_cache_request = _clear_own_session_only


class UnusableNumber(float):
    """A non-finite value sent for an integer box: NaN to arithmetic and comparisons (so that
    Streamlit's bounds check lets it through to the page's own check), the value as it was sent
    in text (so that the notice names it: ``pos=inf``)."""

    sent: float

    def __new__(cls, sent: float) -> UnusableNumber:
        number = super().__new__(cls, math.nan)
        number.sent = sent
        return number

    def __str__(self) -> str:
        return str(self.sent)

    __repr__ = __str__


_streamlit_deserialize = NumberInputSerde.deserialize


def _deserialize_passing_nonfinite(self: NumberInputSerde, ui_value: Any) -> Any:
    """Streamlit's own, except that an integer box's non-finite value reaches the page as an
    `UnusableNumber` (Streamlit would raise ValueError or OverflowError from ``int()``)."""
    if (self.data_type == NumberInputProto.INT and isinstance(ui_value, float)
            and not math.isfinite(ui_value)):
        return UnusableNumber(ui_value)
    return _streamlit_deserialize(self, ui_value)


def pass_nonfinite_ints() -> None:
    """Install the deserializer (idempotent)."""
    NumberInputSerde.deserialize = _deserialize_passing_nonfinite


_streamlit_new_session_message = AppSession._create_new_session_message


def _new_session_message_without_path(self: AppSession, *args: Any, **kwargs: Any):
    msg = _streamlit_new_session_message(self, *args, **kwargs)
    msg.new_session.main_script_path = Path(msg.new_session.main_script_path).name
    return msg


def hide_script_path() -> None:
    """Install the message builder (idempotent)."""
    AppSession._create_new_session_message = _new_session_message_without_path


_streamlit_request_rerun = AppSession.request_rerun


def _request_rerun_whole_in_a_new_session(self: AppSession, client_state) -> None:
    if (client_state is not None and client_state.fragment_id
            and not self.has_fragment(client_state.fragment_id)
            and not getattr(self._fragment_storage, "_fragments", True)):
        client_state.fragment_id = ""  # no fragment yet: this session never ran the page
    return _streamlit_request_rerun(self, client_state)


def rerun_unknown_fragments_in_full() -> None:
    """Install the rerun rule (idempotent)."""
    AppSession.request_rerun = _request_rerun_whole_in_a_new_session


def keep_uploads_in_memory() -> None:
    """Starlette's multipart parser keeps a file of up to the doors' largest body in memory
    (idempotent)."""
    MultiPartParser.spool_max_size = max(MultiPartParser.spool_max_size, UPLOAD_BODY_BYTES)


_streamlit_add_file = MemoryUploadedFileManager.add_file


def _add_file_alone(self: MemoryUploadedFileManager, session_id: str, file) -> None:
    """Streamlit's own, after dropping the session's other files."""
    with self._lock:
        others = [f for f in self.file_storage.get(session_id, {}) if f != file.file_id]
    for file_id in others:
        self.remove_file(session_id, file_id)
    _streamlit_add_file(self, session_id, file)


def one_upload_per_session() -> None:
    """Install the file manager's rule (idempotent)."""
    MemoryUploadedFileManager.add_file = _add_file_alone


def close_doors(*, hide_path: bool = True) -> None:
    """Install them. `hide_path` only before the first session starts (serve.py): a session
    whose first run was told the full path and a later run only the name is, to the browser, a
    different app, and it puts every widget back to its default (the slider just moved shows its
    old value while the URL has the new one), so app.py leaves the message as it is."""
    close_clear_cache()
    pass_nonfinite_ints()
    rerun_unknown_fragments_in_full()
    keep_uploads_in_memory()
    one_upload_per_session()
    if hide_path:
        hide_script_path()
