"""The tour or a deck as one file (a PDF, or a ZIP of PNGs), drawn on the server: the menu in the
tour's sidebar, and the slide file's own sessions.

Slide by slide (export/slides.py): each slide computed by a session of the server's own (no
Chromium running, in turn with the visitors' computations), then photographed in its turn of
the exports' queue (server.memory_budget.image_turn). One file at a time per process (`FILES`,
first come first served, each waiting one told how many are ahead)."""

from __future__ import annotations

import secrets
from urllib.parse import urlencode

import streamlit as st

from server.memory_budget import MemoryBudget
from ui.charts import dark_theme, plain_charts
from ui.i18n import current_language, t
from ui.pages import TOUR_PAGE
from ui.player.common import slide_query
from ui.text import PAGE_ONLY
from ui.tour import MAX_FILE_COST, MAX_SLIDE_COST, Slide, file_cost

_FILE = "_tour_file"  # the session's last slide file: (kind, file name, bytes)
_FILE_KINDS = {"pdf": ("application/pdf", "pdf"), "zip": ("application/zip", "zip")}

# The slide file's own sessions (a slide's run, no browser: export.slides.compute_slide) name
# themselves with this (made per process, never shown): their charts come as st.plotly_chart's
# figures, which the file redraws, and a session is not kept once its socket closes. A visitor
# cannot guess it.
FILE_PARAM = "pe_file"
_FILE_SECRET = secrets.token_urlsafe(24)
_FILE_SESSION = "_slide_file_session"
# One slide file drawn at a time per process, first come first served (each waiting one told how
# many are ahead): its slides take their turns with the visitors' work, one at a time.
FILES = MemoryBudget(1)


def slide_file_session() -> bool:
    """Whether this session computes a slide for the slide file (its first address said so).
    Marked, on its first run, not to be kept for a reconnection: Streamlit would hold its state
    and fragments 30 s after its socket closes, a slide's worth per slide."""
    state = st.session_state
    if _FILE_SESSION not in state:
        state[_FILE_SESSION] = st.query_params.get(FILE_PARAM) == _FILE_SECRET
        if state[_FILE_SESSION]:
            _not_kept_after_it_closes()
            plain_charts()
    return state[_FILE_SESSION]


def _not_kept_after_it_closes() -> None:
    from streamlit.runtime import Runtime
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is not None and Runtime.exists():
        Runtime.instance().mark_session_nonresumable(ctx.session_id)


def _server() -> str:
    """This very server (its loopback address and base path): the file's sessions run the
    slides there like any visitor."""
    address = st.get_option("server.address") or "127.0.0.1"
    if address in ("0.0.0.0", "::", "localhost"):
        address = "127.0.0.1"
    base = (st.get_option("server.baseUrlPath") or "").strip("/")
    return f"http://{address}:{st.get_option('server.port')}" + (f"/{base}" if base else "")


def _file_slide_query(slides: tuple[Slide, ...], number: int, code: str) -> str:
    """Slide `number`'s own address (as the player writes it: no rewrite when it opens) in the
    visitor's language, presenting, for the file's own session."""
    query = slide_query(slides[number - 1], number, code,
                        current={"lang": current_language(), "present": "true"})
    query[FILE_PARAM] = _FILE_SECRET
    return urlencode(query)


@st.fragment
def file_menu(code: str, slides: tuple[Slide, ...]) -> None:
    """These slides as one file (a PDF, or a ZIP of PNGs), drawn on the server: pressing a button
    reruns this menu alone, which says where the file is (waiting for the server's other one,
    computing or drawing slide n of m), then offers it. A file too costly to draw is refused
    with its cost said, before anything is drawn."""
    from export.chromium import ImageExportError
    from export.files import close_browser_when_idle, image_export_problem
    from export.slides import (
        compute_slide,
        photograph_slide,
        slides_pdf,
        slides_zip,
    )
    from server.memory_budget import (
        RETRY_AFTER_S,
        ServerBusyError,
        VisitorsWaitingError,
        image_turn,
    )
    from server.run_slots import run_slot_lent
    from ui.charts import busy_message, size_text, visitor_connected

    st.subheader(t("tour.file"))
    problem = image_export_problem()
    if problem:
        reasons = {"no_kaleido": t("export.reason_no_kaleido"),
                   "no_browser": t("export.reason_no_browser")}
        st.caption(t("export.unavailable", reason=reasons[problem]))
        return
    # The theme the deck is shown in, or the other (a light PDF of a talk given dark).
    theme = st.radio(t("tour.file_theme"), ("light", "dark"), horizontal=True,
                     index=1 if dark_theme() else 0, key="tour_file_theme",
                     format_func=lambda choice: t("tour.file_theme_dark") if choice == "dark"
                     else t("tour.file_theme_light"), help=t("tour.file_theme_help"))
    count, cost = len(slides), file_cost(slides)
    too_costly = cost > MAX_FILE_COST
    if too_costly:
        st.caption(t("tour.file_too_costly", count=count, cost=f"{cost:.0f}",
                     maximum=f"{MAX_FILE_COST:.0f}", most=f"{MAX_SLIDE_COST:.0f}"))
    with st.container(horizontal=True, gap="small"):
        asked = [kind for kind, label in (("pdf", t("tour.file_pdf")), ("zip", t("tour.file_zip")))
                 if st.button(label, key=f"tour_file_{kind}", help=t("tour.file_help"),
                              disabled=too_costly,
                              icon=":material/picture_as_pdf:" if kind == "pdf"
                              else ":material/folder_zip:")]
    stem = "pe-deck" if code else "pe-tour"
    if asked and not too_costly:
        kind = asked[0]
        what = kind.upper()
        status = st.empty()

        def still_there() -> None:
            if not visitor_connected():
                raise _VisitorGoneError

        def files_ahead(ahead: int) -> None:
            still_there()
            status.caption(t("tour.file_waiting", ahead=ahead))

        def waiting(ahead: int) -> None:
            still_there()
            status.caption(t("export_queue.waiting", what=what, ahead=ahead) if ahead
                           else t("export_queue.waiting_computation", what=what))

        def memory(held: int, allowed: int, seconds_left: float) -> None:
            still_there()
            status.caption(t("export_queue.waiting_memory", what=what, held=held // 2**20,
                             allowed=allowed // 2**20, seconds=max(0, round(seconds_left))))

        server = _server()
        try:
            with run_slot_lent(), FILES.share(1, kind="file", on_wait=files_ahead):
                images: list[bytes] = []
                bar = status.progress(0.0, text=t("tour.file_computing", number=1, count=count))
                for number in range(1, count + 1):
                    # First the slide's numbers and figures, with no Chromium running (in turn
                    # with the visitors' computations); then its photograph, alone.
                    bar.progress((number - 1) / count,
                                 text=t("tour.file_computing", number=number, count=count))
                    content = compute_slide(server, TOUR_PAGE.url_path,
                                            _file_slide_query(slides, number, code),
                                            hidden=PAGE_ONLY, dark=theme == "dark",
                                            poll=still_there)
                    with image_turn(content.draw_cost, on_wait=waiting, on_memory_wait=memory,
                                    kind="slide") as visitors_waiting:
                        bar = status.progress((number - 0.5) / count, text=t(
                            "tour.file_drawing", number=number, count=count))

                        def drawing() -> None:
                            still_there()
                            visitors_waiting()

                        try:
                            images.append(photograph_slide(content, poll=drawing))
                        finally:
                            close_browser_when_idle()  # in the turn: counted until it has gone
            data = slides_pdf(images) if kind == "pdf" else slides_zip(images, stem)
            st.session_state[_FILE] = (kind, f"{stem}.{_FILE_KINDS[kind][1]}", data)
            status.empty()
        except _VisitorGoneError:
            return  # nobody to tell
        except ServerBusyError as busy:
            status.warning(busy_message(what, busy))
            return
        except VisitorsWaitingError:
            status.warning(t("export_queue.failed_visitors", what=what, retry=RETRY_AFTER_S))
            return
        except ImageExportError as error:
            status.warning(t("export_queue.failed_timeout", what=what)
                           if error.reason == "timeout"
                           else t("export_queue.failed_browser", what=what))
            return
    made = st.session_state.get(_FILE)
    if made is not None:
        kind, file_name, data = made
        st.download_button(
            t("export_queue.save", what=file_name, size=size_text(len(data))), data=data,
            file_name=file_name, mime=_FILE_KINDS[kind][0], key="tour_file_save",
            on_click="ignore", type="primary", icon=":material/download:")


class _VisitorGoneError(Exception):
    """The visitor who asked for the file has gone: it is not drawn (its place given up)."""
