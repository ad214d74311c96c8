"""The tour's slide-file menu (ui/player/slide_file.py) when a file cannot be made: the server's
memory never left the drawing its room, visitors' pages waited behind the drawing, Chromium
timed out or failed. The menu says which, keeps no file, and its buttons can be pressed again.
(tests/test_slide_files.py makes real files on serve.py; here the slide's computation and
photograph are replaced, to reach each refusal.)"""

from __future__ import annotations

import pytest

import export.slides
from export.chromium import ImageExportError
from locales import message
from server.memory_budget import (
    MB,
    MEMORY_WAIT_S,
    RETRY_AFTER_S,
    ServerBusyError,
    VisitorsWaitingError,
)
from tests.apptest import open_page, unescape
from ui.player.common import slide_query
from ui.tour import TOUR


class _Content:
    draw_cost = MB  # what image_turn weighs: a small slide


REFUSALS = {
    "memory": (ServerBusyError(900 * MB, 600 * MB), "export_queue.failed_memory",
               {"allowed": 600, "waited": round(MEMORY_WAIT_S), "retry": RETRY_AFTER_S}),
    "visitors": (VisitorsWaitingError("visitors waited"), "export_queue.failed_visitors",
                 {"retry": RETRY_AFTER_S}),
    "timeout": (ImageExportError("timeout", "as a test"), "export_queue.failed_timeout", {}),
    "browser": (ImageExportError("browser", "as a test"), "export_queue.failed_browser", {}),
}


# English only: AppTest formats the theme radio's labels outside the run when the button's click
# is sent, and its labels' language is then the default (a zh run fails on AppTest, not the app).
@pytest.mark.parametrize("refusal", REFUSALS)
def test_a_slide_file_that_cannot_be_made_says_why(monkeypatch, refusal):
    lang = "en"
    error, key, values = REFUSALS[refusal]
    photographed = []

    def photograph(content, poll=None):
        photographed.append(content)
        raise error

    monkeypatch.setattr(export.slides, "compute_slide", lambda *args, **kwargs: _Content())
    monkeypatch.setattr(export.slides, "photograph_slide", photograph)
    # the first slide at its own address (a tour opened bare is sent there first)
    at = open_page("app_pages/tour.py", slide_query(TOUR[0], 1, "", current={
        "lang": lang, "present": "true"}))
    at.button(key="tour_file_pdf").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(photographed) == 1  # the first slide: the file stops there
    said = message(key, lang, what="PDF", **values)
    assert said in [unescape(w.value) for w in at.warning], [w.value for w in at.warning]
    assert "_tour_file" not in at.session_state  # no file kept
    assert not at.get("download_button")
    assert not at.button(key="tour_file_pdf").disabled  # pressed again, it tries again
