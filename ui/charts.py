"""Showing a figure: presentation styling, the modebar's download settings, and an Export menu
(PNG and SVG drawn on the server, the data as CSV and .npy) under every chart.

The menu's buttons exist only while it is open, and files are made only when a button is
clicked (Streamlit's deferred `data` callables): a rerun of the page costs nothing for them.
File names say what and with which parameters (`pe-heatmap_d128_pos64_interleaved.png`, see
`file_stem`).
"""

from __future__ import annotations

import dataclasses
import logging
import pickle
import re
from collections.abc import Callable

import plotly.graph_objects as go
import streamlit as st

from export.files import (
    ImageExportError,
    TableExport,
    close_browser_when_idle,
    figure_csv,
    figure_image,
    figure_npy,
    image_cost,
    image_export_problem,
)
from figures.common import (
    EXPORT_HEIGHT,
    EXPORT_WIDTH,
    export_style,
    presentation_style,
    without_notes,
)
from figures.contrast import ensure_contrast
from server.memory_budget import (
    MEMORY_WAIT_S,
    RETRY_AFTER_S,
    ServerBusyError,
    VisitorsWaitingError,
    exports_waiting,
    image_turn,
)
from server.run_slots import run_slot_lent
from ui import follow, plotly_react
from ui.i18n import current_language, presenting, t
from ui.text import on_slide

_LOGGER = logging.getLogger(__name__)

PNG_SCALES = (2, 4)  # 3840 x 2160 (a 4K slide) and 7680 x 4320, both 16:9
DEFAULT_PNG_SCALE = 2


def file_stem(chart: str, *parts: object) -> str:
    """`pe-<chart>_<part>_<part>...`, safe on every file system: file_stem("heatmap", "d128",
    "pos64", "interleaved") -> "pe-heatmap_d128_pos64_interleaved"."""
    words = [f"pe-{chart}", *(str(part) for part in parts if part not in (None, ""))]
    return "_".join(re.sub(r"[^A-Za-z0-9.+-]+", "-", word).strip("-") for word in words)


_PLAIN_CHARTS = "_pe_plain_charts"


def plain_charts() -> None:
    """This session's charts are st.plotly_chart's, never the Plotly.react element: a session
    that reads the figures from the messages (a slide file's, ui.player) finds them there."""
    st.session_state[_PLAIN_CHARTS] = True


def dark_theme() -> bool:
    try:
        return st.context.theme.type == "dark"
    except Exception:  # no browser: the light theme
        return False


def show_chart(fig: go.Figure, *, key: str, name: str, table: TableExport | None = None,
               on_click: Callable[[], None] | None = None) -> None:
    """`st.plotly_chart` with the app's settings: `key` names the chart (CSS class st-key-<key>),
    `name` is the file stem of its downloads (`file_stem`). A heatmap of a table passes `table`:
    its CSV and .npy then carry the table's numbers, not the picture's. With `on_click`, a click
    on a point calls it before the rerun (`ui.plotly_react.clicked_point(key)` says where)."""
    if on_slide():  # a slide says what its audience needs: no notes on sampling
        fig = without_notes(fig)
    if presenting():
        fig = presentation_style(fig, dark=dark_theme())
        theme = None  # the clean template itself, not Streamlit's
    else:
        theme = "streamlit"
    # Every line, marker and label at 3:1 on both themes' backgrounds (WCAG 1.4.11): on a
    # session's first run the server cannot tell the theme.
    fig = ensure_contrast(fig)
    config = {
        "displaylogo": False,
        # The modebar's camera button: a 16:9 PNG named like the Export menu's.
        "toImageButtonOptions": {
            "format": "png", "filename": name, "width": EXPORT_WIDTH, "height": EXPORT_HEIGHT,
            "scale": DEFAULT_PNG_SCALE,
        },
    }
    if plotly_react.enabled() and not st.session_state.get(_PLAIN_CHARTS):
        # the same chart, kept across reruns (ui/plotly_react.py)
        plotly_react.plotly_react_chart(fig, key=key, theme=theme, config=config,
                                        on_click=on_click, follows=follow.followable())
    elif on_click is not None:  # a click selects its point
        st.plotly_chart(fig, key=key, theme=theme, config=config, on_select=on_click,
                        selection_mode="points")
    else:
        st.plotly_chart(fig, key=key, theme=theme, config=config)
    export_menu(KeptFigure.of(fig), key=key, name=name, table=table)


@dataclasses.dataclass(frozen=True, eq=False)
class KeptFigure:
    """A figure as a fragment keeps it between runs: its properties pickled, one block of bytes.

    Streamlit keeps a fragment's arguments as long as the session, and a session 30 s after its
    visitor has left. A go.Figure is thousands of small Python objects (the home page's: ~1 MB
    a visitor); freed, they leave Python's allocator arenas spread out, and the arenas stay: 200
    quiet visitors gone, their sessions forgotten, left +224 MB kept as figures, +36 MB pickled
    (tests/test_serve_memory.py). Pickling costs ~10 ms a figure in each run that draws it,
    rebuilding 0.1-0.3 s, only while its Export menu is open (a loaded 2-core machine)."""

    pickled: bytes

    @classmethod
    def of(cls, fig: go.Figure) -> KeptFigure:
        # Its validated properties as they are (as plotly_react.figure_json reads them), not
        # `to_dict`'s deep copy.
        props = (fig._data, fig._layout, [frame._props for frame in fig._frame_objs])
        return cls(pickle.dumps(props, protocol=pickle.HIGHEST_PROTOCOL))

    def figure(self) -> go.Figure:
        data, layout, frames = pickle.loads(self.pickled)  # bytes this process pickled
        return go.Figure({"data": data, "layout": layout, "frames": frames})


IMAGE_KINDS = {"png2": ("png", 2), "png4": ("png", 4), "svg": ("svg", 1)}  # menu order
IMAGE_MIME = {"png": "image/png", "svg": "image/svg+xml"}
# The last image drawn for this session, offered by its Save button until the session ends (one
# per session: the heatmap's largest PNG is 10 MB of server memory):
# {"chart": (key, name, lang, presenting, dark), "kind", "data"}.
IMAGE_FILE = "pe_image_file"


class _VisitorGoneError(Exception):
    """The session's browser has gone: its image is not drawn (its place is given up)."""


def visitor_connected() -> bool:
    """Whether this session's browser is still connected (a tab closed mid-export is not)."""
    from streamlit.runtime import Runtime
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None or not Runtime.exists():
        return True  # no server (AppTest): nobody can leave
    return Runtime.instance().is_active_session(ctx.session_id)


def _in_fragment_run() -> bool:
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    return bool(ctx and ctx.fragment_ids_this_run)


def _image_label(kind: str) -> str:
    fmt, scale = IMAGE_KINDS[kind]
    if fmt == "svg":
        return t("export.svg")
    return t("export.png", width=EXPORT_WIDTH * scale, height=EXPORT_HEIGHT * scale)


def size_text(nbytes: int) -> str:
    return f"{nbytes / 2**20:.1f} MB" if nbytes >= 2**20 else f"{max(1, nbytes // 1024)} KB"


def _ask_for_image(job_key: str, kind: str) -> None:
    """A menu's image button: the next run of the menu (this click's) draws `kind`."""
    st.session_state.setdefault(job_key, kind)


def busy_message(what: str, busy: ServerBusyError) -> str:
    """Why an export was refused (its memory never came), and when to ask again."""
    return t("export_queue.failed_memory", what=what, allowed=busy.allowed // 2**20,
             waited=round(MEMORY_WAIT_S), retry=RETRY_AFTER_S)


def _draw_in_turn(printable: go.Figure, kind: str, status) -> bytes:
    """`kind` of `printable`, drawn in its turn of the process's heavy work
    (server.memory_budget.image_turn: first come first served, alone), `status` saying
    meanwhile where it is. Raises _VisitorGoneError when the session's browser goes away (its place
    in the queue is given up, its drawing stopped), ImageExportError when it cannot be drawn."""
    fmt, scale = IMAGE_KINDS[kind]
    label = _image_label(kind)

    def waiting(ahead: int) -> None:
        if not visitor_connected():
            raise _VisitorGoneError
        status.update(label=t("export_queue.waiting", what=label, ahead=ahead) if ahead
                      else t("export_queue.waiting_computation", what=label))

    def memory(held: int, allowed: int, seconds_left: float) -> None:
        if not visitor_connected():
            raise _VisitorGoneError
        status.update(label=t("export_queue.waiting_memory", what=label,
                              held=round(held / 2**20), allowed=round(allowed / 2**20),
                              seconds=max(0, round(seconds_left))))

    try:
        with image_turn(image_cost(fmt, scale), on_wait=waiting,
                        on_memory_wait=memory) as visitors_waiting:

            def drawing(seconds: float) -> None:
                if not visitor_connected():
                    raise _VisitorGoneError
                visitors_waiting()
                status.update(label=t("export_queue.drawing", what=label,
                                      seconds=round(seconds)))

            try:
                drawing(0)
                return figure_image(printable, fmt, scale=scale, poll=drawing)
            finally:
                # Chromium stays for the next image in the queue; with none waiting, its memory
                # goes back to the system (within this turn: it is counted until it has gone).
                if exports_waiting("image") == 0:
                    close_browser_when_idle()
    finally:
        # A turn that ends before drawing (its visitor gone, or refused for memory) may be the
        # last of a queue for which the image before it kept Chromium up: closed here too, or
        # it stayed (~150 MB) until the next image anyone asked for.
        if exports_waiting("image") == 0:
            close_browser_when_idle()


@st.fragment
def export_menu(kept: KeptFigure, *, key: str, name: str,
                table: TableExport | None = None) -> None:
    """The Export popover: PNG at 2x and 4x of 1920 x 1080 (16:9), SVG, CSV and .npy.

    Its buttons exist only while it is open: opening it reruns this fragment alone, and a rerun
    of the page (a control changed) does not redraw five hidden buttons per chart. Its figure
    is kept pickled between runs (`KeptFigure`), rebuilt while it is open.

    An image is drawn on the server when its button is pressed, in its turn of the process's heavy
    work (server.memory_budget.image_turn: one at a time, first come first served). Meanwhile
    the menu says where it is (waiting, with how many images ahead, then drawing) and its image
    buttons are disabled, so a second press draws nothing more; once drawn, the button becomes
    "Save ...", which downloads it. A page rerun, a closed tab or a failure ends the wait
    (its turn given up) and the menu says why on its next opening."""
    menu = st.popover(t("export.menu"), icon=":material/download:", help=t("export.menu_help"),
                      key=f"{key}_export", on_change="rerun")
    if not menu.open:
        return
    fig = kept.figure()
    printable = fig if presenting() else export_style(fig)
    problem = image_export_problem()
    job_key, note_key = f"{key}_image_job", f"{key}_image_note"
    chart = (key, name, current_language(), presenting(), presenting() and dark_theme())
    drawn = st.session_state.get(IMAGE_FILE)
    if drawn is not None and drawn["chart"] != chart:
        drawn = None
    # The image this run draws: asked for by the press that started it (a button's callback).
    # Taken now, so that a run that ends before it is drawn (a page rerun, a stop) does not
    # leave it to a later one: the menu then says it was not drawn.
    note = st.session_state.pop(note_key, None)  # why the last image asked for did not come
    job = st.session_state.pop(job_key, None)
    if job is not None and (problem or (drawn is not None and drawn["kind"] == job)):
        job = None  # impossible, or drawn already (a second press)
    if job is not None:  # until it is drawn, the next run says it was not
        st.session_state[note_key] = t("export_queue.stopped", what=_image_label(job))
    with menu:
        why = None  # the disabled image buttons say why, in the menu and on hover
        if problem:
            reasons = {"no_kaleido": t("export.reason_no_kaleido"),
                       "no_browser": t("export.reason_no_browser")}
            why = t("export.unavailable", reason=reasons[problem])
            st.caption(why)
        if note and job is None:
            st.caption(note)
        status_slot = None
        for kind, (fmt, _scale) in IMAGE_KINDS.items():
            label = _image_label(kind)
            if drawn is not None and drawn["kind"] == kind:
                st.download_button(
                    t("export_queue.save", what=label, size=size_text(len(drawn["data"]))),
                    data=drawn["data"], file_name=f"{name}.{fmt}", mime=IMAGE_MIME[fmt],
                    key=f"{key}_{kind}_file", on_click="ignore", type="primary",
                    icon=":material/download:", width="stretch",
                )
            else:
                st.button(
                    label, key=f"{key}_{kind}", on_click=_ask_for_image, args=(job_key, kind),
                    disabled=problem is not None or job is not None, help=why,
                    icon=":material/draw:" if fmt == "svg" else ":material/image:",
                    width="stretch",
                )
            if kind == job:
                status_slot = st.empty()
        st.download_button(
            t("export.csv"), data=table.csv if table else lambda: figure_csv(fig),
            file_name=table.file_name(name, "csv") if table else f"{name}.csv",
            mime="text/csv", key=f"{key}_csv", on_click="ignore", icon=":material/table:",
            width="stretch",
        )
        st.download_button(
            t("export.npy"), data=table.npy if table else lambda: figure_npy(fig),
            file_name=table.file_name(name, "npy") if table else f"{name}.npy",
            mime="application/octet-stream", key=f"{key}_npy", on_click="ignore",
            icon=":material/data_array:", width="stretch",
        )
    if job is None or status_slot is None:
        return
    what = _image_label(job)
    status = status_slot.status(t("export_queue.queued", what=what), state="running")
    try:
        with run_slot_lent():
            data = _draw_in_turn(printable, job, status)
    except _VisitorGoneError:
        return  # nobody to tell
    except ServerBusyError as busy:  # the server's memory left no room for Chromium: not drawn
        st.session_state[note_key] = busy_message(what, busy)
    except VisitorsWaitingError:  # stopped: other visitors' pages waited behind it
        st.session_state[note_key] = t("export_queue.failed_visitors", what=what,
                                       retry=RETRY_AFTER_S)
    except ImageExportError as error:
        reasons = {"timeout": t("export_queue.failed_timeout", what=what),
                   "figure": t("export_queue.failed_figure", what=what)}
        st.session_state[note_key] = reasons.get(
            error.reason, t("export_queue.failed_browser", what=what))
    except Exception:  # never an error box: the menu says it failed
        _LOGGER.exception("image export failed")
        st.session_state[note_key] = t("export_queue.failed_browser", what=what)
    else:
        st.session_state[IMAGE_FILE] = {"chart": chart, "kind": job, "data": data}
        st.session_state.pop(note_key, None)
    # Redrawn: the Save button in place of the pressed one, the others enabled again.
    st.rerun(scope="fragment" if _in_fragment_run() else "app")
