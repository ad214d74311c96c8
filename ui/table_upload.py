"""The learned-vs-sinusoidal page's table: MiniLM's, built in, or one the visitor uploads.

A control (`source`) chooses; with ``upload`` a file uploader takes a ``.safetensors`` (a tensor
picked from its names and shapes), ``.npy``, ``.csv`` or ``.tsv`` file that `core.learned_tables`
reads, in a compute slot as a cache miss is (server.memory_budget's queue). The table is the
visitor's alone: kept in their session state, never on disk and never in a shared cache (what
is computed from it is, keyed by its digest), dropped when the session ends or the file is
removed from the uploader. Every file it cannot read gets a notice saying why.

A link or a deck slide carries the file's name (`file`, `tensor`), never the table: opened where
no table is held (another browser, a slide drawn on the server), the page says so, naming the
file to upload again, instead of showing MiniLM's table under its name.
"""

from __future__ import annotations

import hashlib
import time
import weakref
from dataclasses import dataclass, field

import numpy as np
import streamlit as st

from core import learned_tables, limits
from core.learned_tables import TableFileError, TensorInfo
from locales import error_text
from server import memory_budget
from server.run_slots import in_compute_slot, run_slot_lent
from ui.controls import PageControls
from ui.i18n import current_language, t
from ui.pages import MAX_TABLE_NAME
from ui.text import markdown_text

UPLOADER = "table_file"  # the uploader's key
TENSOR_PICK = "table_tensor"  # the safetensors tensor's select box
_HELD = "_uploaded_table"  # session state: the HeldTable
_SHOW_ROWS = "_uploaded_table_rows"  # a new table's rows, for the positions control's next run


@dataclass(frozen=True, eq=False)
class HeldTable:
    """A table read from a visitor's file, as their session keeps it."""

    file_id: str  # the uploader's id of the file
    name: str  # the file's name, as the visitor's computer gave it
    tensor: str  # the safetensors tensor read ("" for the other formats)
    table: np.ndarray  # (n, d) float32, read-only
    digest: str  # sha256 of the table: the shared caches' key for what is computed from it
    # Its share of the memory: the file's bytes (Streamlit keeps them), and the table's unless it
    # is a view of them (float32 .npy and safetensors files are read without a copy).
    nbytes: int = field(default=0)

    @property
    def label(self) -> str:
        """The file (and tensor) as the page names it."""
        return f"{self.name} : {self.tensor}" if self.tensor else self.name


def read_held(data: bytes, name: str, file_id: str, tensor: str | None) -> HeldTable:
    """`core.learned_tables.read_table`, as a `HeldTable`; raises TableFileError."""
    table = learned_tables.read_table(data, name, tensor=tensor)
    digest = hashlib.sha256(table.tobytes() + str(table.shape).encode()).hexdigest()
    copied = not np.shares_memory(table, np.frombuffer(data, dtype=np.uint8))
    return HeldTable(file_id, name, tensor or "", table, digest,
                     len(data) + (table.nbytes if copied else 0))


class UploadsFullError(Exception):
    """The server held as many visitors' tables as it has room for, for UPLOAD_WAIT_S."""


def hold(held: HeldTable) -> HeldTable:
    """`held`, its bytes counted in server.memory_budget.HELD_UPLOADS until it is dropped (the
    session forgets it: a new file, the file removed, the visitor gone). Waits for room while
    others' tables fill it, saying its place, and gives up after UPLOAD_WAIT_S (UploadsFullError),
    its run slot lent to other sessions meanwhile."""
    place = st.empty()
    deadline = time.monotonic() + memory_budget.UPLOAD_WAIT_S

    def waiting(ahead: int) -> None:
        if time.monotonic() > deadline:
            raise UploadsFullError
        place.info(t("learned-vs-sinusoidal.upload_wait", ahead=ahead),
                   icon=":material/hourglass_top:")

    budget = memory_budget.HELD_UPLOADS
    try:
        with run_slot_lent():
            share = budget.acquire(held.nbytes, kind="table", on_wait=waiting)
    finally:
        place.empty()
    weakref.finalize(held, budget.release, share)
    return held


def show_new_tables_rows(name: str, maximum: int) -> None:
    """Before the positions control `name` is made: a table just read is shown whole (up to
    `maximum`), not at MiniLM's 512 rows."""
    rows = st.session_state.pop(_SHOW_ROWS, None)
    if rows is not None:
        st.session_state[name] = min(rows, maximum)


def held_table() -> HeldTable | None:
    """The table this session holds, if any."""
    return st.session_state.get(_HELD)


def _forget_removed_file() -> None:
    """The uploader's change: a file removed (its ✕) drops the table it gave."""
    if st.session_state.get(UPLOADER) is None:
        st.session_state.pop(_HELD, None)


def _tensor_label(tensors: dict[str, TensorInfo], name: str) -> str:
    info = tensors[name]
    return f"{name}  ({' x '.join(map(str, info.shape))}, {info.dtype})"


def _pick_tensor(data: bytes) -> str | None:
    """A safetensors file's table: a select box over its usable tensors (2-D, within the
    caps), the likeliest first chosen. None when it has no usable one (the read says why)."""
    infos = learned_tables.list_tensors(data)
    usable = {info.name: info for info in infos if info.usable}
    if not usable:
        return None
    names = list(usable)
    if st.session_state.get(TENSOR_PICK) not in usable:
        st.session_state[TENSOR_PICK] = learned_tables.position_tensor(infos)
    return st.selectbox(
        t("learned-vs-sinusoidal.tensor"), names, key=TENSOR_PICK,
        format_func=lambda name: _tensor_label(usable, name),
        help=t("learned-vs-sinusoidal.tensor_help", count=len(infos), usable=len(names)),
    )


def _notice(error: TableFileError, name: str) -> None:
    st.warning(markdown_text(t("learned-vs-sinusoidal.bad_file", name=name,
                               problem=error_text(error, current_language(), "learned_table"))),
               icon=":material/warning:")


def choose_table(controls: PageControls) -> HeldTable | None:
    """The source control and, for an upload, the uploader: the visitor's table, or None for
    MiniLM's. Stops the page (with a notice) when an upload is chosen and no table is held."""
    source = controls.choice("source")
    if source == "minilm":  # a table held stays for the session: back to it without a re-upload
        controls.carry("file", "")
        controls.carry("tensor", "")
        return None
    upload = st.file_uploader(
        t("learned-vs-sinusoidal.upload"), key=UPLOADER, max_upload_size=limits.MAX_TABLE_FILE_MB,
        on_change=_forget_removed_file,
        help=t("learned-vs-sinusoidal.upload_help", max_rows=limits.MAX_TABLE_POSITIONS,
               max_cols=limits.MAX_TABLE_WIDTH, max_mb=limits.MAX_TABLE_FILE_MB),
    )
    held = held_table()
    if upload is not None:
        data = upload.getvalue()
        try:
            tensor = (_pick_tensor(data)
                      if learned_tables.table_format(upload.name) == "safetensors" else None)
            if held is None or held.file_id != upload.file_id or held.tensor != (tensor or ""):
                st.session_state.pop(_HELD, None)  # the file it came from is replaced
                held = hold(in_compute_slot(read_held, data, upload.name, upload.file_id,
                                            tensor)())
                st.session_state[_HELD] = held
                st.session_state[_SHOW_ROWS] = held.table.shape[0]
                st.rerun()  # the positions control, made above, shows the new table's rows
        except TableFileError as error:
            st.session_state.pop(_HELD, None)
            _notice(error, upload.name)
            held = None
        except UploadsFullError:
            st.warning(t("learned-vs-sinusoidal.uploads_full",
                         seconds=round(memory_budget.UPLOAD_WAIT_S)),
                       icon=":material/hourglass_disabled:")
            held = None
    if held is None:
        wanted = controls.carry("file", controls.current("file"))
        tensor = controls.carry("tensor", controls.current("tensor"))
        if wanted:  # a link's or a slide's table, which the link cannot carry
            st.info(markdown_text(t("learned-vs-sinusoidal.not_in_link",
                                    name=f"{wanted} : {tensor}" if tensor else wanted)),
                    icon=":material/upload_file:")
        elif upload is None:
            st.info(t("learned-vs-sinusoidal.upload_first", max_rows=limits.MAX_TABLE_POSITIONS,
                      max_cols=limits.MAX_TABLE_WIDTH, max_mb=limits.MAX_TABLE_FILE_MB),
                    icon=":material/upload_file:")
        controls.stop()
    controls.carry("file", held.name[:MAX_TABLE_NAME])
    controls.carry("tensor", held.tensor[:MAX_TABLE_NAME])
    rows, cols = held.table.shape
    st.caption(markdown_text(t("learned-vs-sinusoidal.held", name=held.label, rows=rows,
                               cols=cols)))
    most = controls.params["positions"].maximum
    if rows > most:  # the lenses stop at the positions control's largest value
        st.caption(t("learned-vs-sinusoidal.held_beyond", shown=most, last=rows - 1))
    return held
