"""Figure images in turn: the memory budget's queue (server.memory_budget.MemoryBudget), the images'
Chromium (export/chromium.py) and the Export menu's states (ui.charts.export_menu).

With room for one image, images asked for at once are drawn one at a time, in the order asked,
each waiter told how many are ahead; a waiter whose visitor leaves gives up its place; a drawing
stopped midway closes its tab and frees its share. PNGs drawn a strip at a time match plotly.js's
own PNG (kaleido's ``fig.to_image``). In the menu, a pressed image becomes a Save button, a second
press draws nothing more, and a failure is said, never raised."""

from __future__ import annotations

import contextlib
import io
import itertools
import os
import re
import signal
import subprocess
import threading
import time
import zlib

import numpy as np
import plotly.graph_objects as go
import pytest
from PIL import Image

import export.chromium
from export.chromium import CHROMIUM, browser_failure, png_file, process_tree
from export.files import ImageExportError, figure_image, find_browser, image_cost
from locales import message
from server import cache, memory_budget
from server.memory_budget import COMPUTE_COST, COMPUTE_SLOTS, MB, TREE_BUDGET, MemoryBudget
from tests.apptest import open_page
from tests.raw_session import run_async
from ui import charts

SMALL = {"d_model": "16", "positions": "8"}


@pytest.fixture(scope="module", autouse=True)
def chromium():
    if find_browser() is None:
        pytest.fail("no Chromium for the images: run `make test` (it installs Debian's chromium)")
    yield
    CHROMIUM.close()


def small_figure() -> go.Figure:
    """Lines, a heatmap and a rotated axis title: what the app's figures are made of."""
    return go.Figure(
        [go.Heatmap(z=np.arange(12.0).reshape(3, 4), colorscale="RdBu"),
         go.Scatter(x=[0, 1, 2, 3], y=[0.5, 2.0, 1.0, 1.5], name="sin")]
    ).update_layout(title="正弦位置编码 sinusoid", yaxis_title="position")


class Status:
    """Stands for the menu's st.status: the labels it was given."""

    def __init__(self) -> None:
        self.labels: list[str] = []

    def update(self, *, label: str) -> None:
        self.labels.append(label)


def waiting(ahead: int) -> str:
    return message("export_queue.waiting", "en", what=message("export.svg", "en"), ahead=ahead)


@pytest.fixture
def room_for_one(monkeypatch):
    """The exports' queue and the heavy work's of their own, and every drawing timed."""
    budget = MemoryBudget(1)
    monkeypatch.setattr(memory_budget, "EXPORTS", budget)
    monkeypatch.setattr(memory_budget, "HEAVY", MemoryBudget(COMPUTE_SLOTS * COMPUTE_COST))
    drawn: list[tuple[str, float, float]] = []  # (thread, start, end)
    real = charts.figure_image

    def timed(*args, **kwargs):
        start = time.monotonic()
        data = real(*args, **kwargs)
        drawn.append((threading.current_thread().name, start, time.monotonic()))
        return data

    monkeypatch.setattr(charts, "figure_image", timed)
    return budget, drawn


def ask(name: str, results: dict, statuses: dict) -> threading.Thread:
    """A visitor asking for the SVG of the small figure, in a thread named `name`."""
    statuses[name] = Status()

    def visitor() -> None:
        try:
            results[name] = charts._draw_in_turn(small_figure(), "svg", statuses[name])
        except BaseException as error:  # the test looks at it
            results[name] = error

    thread = threading.Thread(target=visitor, name=name)
    thread.start()
    return thread


# A Chromium told to close (or killed) is gone within seconds; on a loaded machine its process
# was seen still running just after the close returned (a full run: running() still true), and
# once still running 30 s after (the suite's load average at 13 on 2 cores).
GONE_S = 60


def until(condition, seconds: float = 60, waited_for: str = "") -> None:
    """Poll `condition` (a state another thread reaches: no event to wait on) for at most
    `seconds`, a bound generous for a loaded machine; failing, say what was waited for."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"not within {seconds} s: {waited_for or condition}"
        time.sleep(0.02)


def chromium_gone() -> None:
    """The images' Chromium told to close is gone (its memory back). It is forgotten as soon as
    its close begins: still running after GONE_S, it was never closed (an image still counted
    as drawing keeps it, by design), not slow to close."""
    until(lambda: not CHROMIUM.running(), GONE_S,
          "the images' Chromium still running: close_when_idle found an image still drawing, "
          "or its event loop did not run the close")


def queued(budget: MemoryBudget, n: int) -> bool:
    return budget.count("image", waiting=False) + budget.count("image", waiting=True) == n


def test_images_asked_at_once_are_drawn_one_at_a_time_in_the_order_asked(room_for_one):
    budget, drawn = room_for_one
    results, statuses = {}, {}
    threads = []
    for n, name in enumerate(["first", "second", "third"], start=1):
        threads.append(ask(name, results, statuses))
        until(lambda n=n: queued(budget, n))  # each asks once the one before is in the queue
    for thread in threads:
        thread.join(120)
    assert all(isinstance(results[name], bytes) and results[name].startswith(b"<svg")
               for name in ("first", "second", "third")), results
    order = [name for name, _, _ in sorted(drawn, key=lambda d: d[1])]
    assert order == ["first", "second", "third"]
    spans = sorted((start, end) for _, start, end in drawn)
    assert all(later[0] >= earlier[1] for earlier, later in itertools.pairwise(spans))
    # Each waiter was told its place: the third had two ahead, then one.
    assert statuses["first"].labels[0].startswith(message("export.svg", "en") + ": drawing")
    assert waiting(1) in statuses["second"].labels
    third = statuses["third"].labels
    assert waiting(2) in third and waiting(1) in third
    assert third.index(waiting(2)) < third.index(waiting(1))
    assert budget.used == 0 and not queued(budget, 1)


def test_a_waiter_whose_visitor_leaves_gives_up_its_place(room_for_one, monkeypatch):
    budget, drawn = room_for_one
    gone = threading.Event()
    monkeypatch.setattr(charts, "visitor_connected",
                        lambda: not (threading.current_thread().name == "leaves"
                                     and gone.is_set()))
    results, statuses = {}, {}
    threads = [ask("draws", results, statuses)]
    until(lambda: queued(budget, 1))
    threads.append(ask("leaves", results, statuses))
    until(lambda: queued(budget, 2))
    threads.append(ask("stays", results, statuses))
    until(lambda: queued(budget, 3))
    gone.set()
    until(lambda: "leaves" in results, 5)  # within a poll or two, while the first still draws
    assert isinstance(results["leaves"], charts._VisitorGoneError)
    assert budget.count("image", waiting=True) == 1
    for thread in threads:
        thread.join(120)
    assert [name for name, _, _ in sorted(drawn, key=lambda d: d[1])] == ["draws", "stays"]
    assert waiting(2) in statuses["stays"].labels and waiting(1) in statuses["stays"].labels
    assert budget.used == 0


def test_the_last_of_a_queue_refused_before_drawing_closes_the_chromium_kept_for_it(
        room_for_one, monkeypatch):
    """The image before it keeps Chromium up for it (it waits); refused for memory in its turn,
    it draws nothing, and nobody else waits: the browser closes all the same."""
    budget, _ = room_for_one
    real_memory = memory_budget.own_memory
    monkeypatch.setattr(memory_budget, "own_memory", lambda: TREE_BUDGET if (
        threading.current_thread().name == "refused") else real_memory())
    monkeypatch.setattr(memory_budget, "MEMORY_WAIT_S", 0.5)
    monkeypatch.setattr(memory_budget, "WAIT_POLL_S", 0.05)
    both_queued = threading.Event()  # the first draws once the second waits behind it
    timed = charts.figure_image

    def held(*args, **kwargs):
        both_queued.wait(60)
        return timed(*args, **kwargs)

    monkeypatch.setattr(charts, "figure_image", held)
    results, statuses = {}, {}
    threads = [ask("draws", results, statuses)]
    until(lambda: queued(budget, 1))
    threads.append(ask("refused", results, statuses))
    until(lambda: queued(budget, 2))
    both_queued.set()
    for thread in threads:
        thread.join(120)
    assert isinstance(results["draws"], bytes)
    assert isinstance(results["refused"], memory_budget.ServerBusyError), results["refused"]
    chromium_gone()


def test_a_drawing_its_caller_stops_ends_cancelled_not_as_a_browser_failure():
    """choreographer turns a cancelled send into its own error: a drawing (a figure's image or
    a slide's photograph) then ends cancelled, not with ImageExportError, which nobody would
    retrieve once its caller had stopped it ("Task exception was never retrieved" in the log)."""
    import asyncio

    async def drawing(started: asyncio.Event) -> None:
        try:
            try:
                started.set()
                await asyncio.sleep(60)
            except asyncio.CancelledError as stop:  # as choreographer's broker does
                raise RuntimeError("Executor is closed.") from stop
        except Exception as error:
            raise browser_failure(error) from error

    async def stopped() -> asyncio.Task:
        started = asyncio.Event()
        task = asyncio.create_task(drawing(started))
        await started.wait()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return task

    assert run_async(stopped()).cancelled()

    async def failed() -> BaseException:  # not stopped: the browser's failure, said as such
        return browser_failure(RuntimeError("gone"))

    failure = run_async(failed())
    assert isinstance(failure, ImageExportError) and "gone" in str(failure)


def test_a_drawing_stopped_midway_closes_its_tab_and_the_next_one_draws():
    class StopError(Exception):
        pass

    seen: list[float] = []

    def stop_after_a_second(seconds: float) -> None:
        seen.append(seconds)
        if seconds >= 1:
            raise StopError

    started = time.monotonic()
    with pytest.raises(StopError):
        figure_image(small_figure(), "png", scale=4, poll=stop_after_a_second)
    assert time.monotonic() - started < 15  # stopped, not drawn to the end
    # Nothing else drawing: its tab and the browser are gone, every renderer with them.
    chromium_gone()
    assert figure_image(small_figure(), "svg").startswith(b"<svg")


def test_a_drawing_stopped_while_chromium_makes_its_tab_closes_the_tab_once_made():
    """The tab Chromium is making when the drawing stops is made all the same (a renderer): it is
    waited for and closed. Before, it stayed open, unknown, until the browser closed."""
    import asyncio

    from export.chromium import _Chromium

    class Browser:  # choreographer's Browser, as far as a tab goes
        def __init__(self) -> None:
            self.asked = asyncio.Event()
            self.closed: list[str] = []

        async def create_tab(self, url: str):
            self.asked.set()
            await asyncio.sleep(0.2)  # Chromium at work: a stop lands here
            return type("Tab", (), {"target_id": "T1"})()

        async def close_tab(self, target_id: str) -> None:
            self.closed.append(target_id)

    async def stop_midway(browser: Browser) -> None:
        making = asyncio.ensure_future(_Chromium._new_tab(browser))
        await browser.asked.wait()
        making.cancel()
        with pytest.raises(asyncio.CancelledError):
            await making

    browser = Browser()
    run_async(stop_midway(browser))
    assert browser.closed == ["T1"]


def test_a_close_asked_while_a_drawing_still_ends_closes_once_it_has_ended():
    """A stopped slide's caller does not wait for its drawing to end (a cancelled future's
    result comes at once) and asks the browser to close meanwhile: that close waits for the
    drawing's end instead of being dropped (the hour's soak found Chromium up at idle)."""
    import asyncio

    figure_image(small_figure(), "svg")  # the browser is up
    loop = CHROMIUM._event_loop()

    def in_loop(call) -> None:  # the drawing count is the loop's own
        async def run() -> None:
            call()

        asyncio.run_coroutine_threadsafe(run(), loop).result(10)

    in_loop(lambda: setattr(CHROMIUM, "_drawing", CHROMIUM._drawing + 1))  # a drawing ending
    charts.close_browser_when_idle()
    assert CHROMIUM.running()  # kept for the drawing
    in_loop(CHROMIUM._drawing_done)
    chromium_gone()


def test_a_browser_that_never_closes_is_killed_within_the_cleanup_time(monkeypatch):
    """choreographer's close waits on Chromium's answer: one that never comes (a browser
    starting, or stopped, on a saturated machine) would keep its drawing counted forever."""
    import asyncio

    process = subprocess.Popen(["sleep", "600"])

    class Hung:
        subprocess = process

        async def close(self) -> None:
            await asyncio.sleep(3600)

    monkeypatch.setattr(export.chromium, "CLEANUP_S", 0.5)
    try:
        run_async(export.chromium._shut(Hung()))
        assert process.wait(10) == -signal.SIGKILL
    finally:
        process.kill()


def test_a_drawing_a_visitors_page_waits_behind_is_stopped_and_says_why(room_for_one,
                                                                         monkeypatch):
    """A visitor's cache miss waits behind a drawing at most VISITORS_WAIT_S: the drawing stops,
    and the menu says why (the page's computation then runs)."""
    monkeypatch.setattr(memory_budget, "VISITORS_WAIT_S", 0.5)
    computed = threading.Event()

    def visitor() -> None:
        until(lambda: memory_budget.HEAVY.count("image", waiting=False) == 1)  # drawing now
        with cache.ComputeSlot():
            computed.set()

    thread = threading.Thread(target=visitor)
    thread.start()
    at = press(open_menu(), "png4")  # 7680 x 4320: seconds to draw
    thread.join(60)
    assert computed.is_set()
    assert not at.exception
    label = message("export.png", "en", width=7680, height=4320)
    assert message("export_queue.failed_visitors", "en", what=label,
                   retry=memory_budget.RETRY_AFTER_S) in [c.value for c in at.caption]
    chromium_gone()


def test_a_drawing_that_takes_too_long_says_so():
    with pytest.raises(ImageExportError) as raised:
        figure_image(small_figure(), "png", scale=4, timeout=0.5)
    assert raised.value.reason == "timeout"
    chromium_gone()  # and its memory is back


def test_a_queue_of_images_starts_chromium_once():
    # A drawing an earlier test in this worker stopped ends within CLEANUP_S (a close Chromium
    # never answers is cut short by a kill): until then it is rightly counted, and kept open.
    until(lambda: CHROMIUM._drawing == 0, GONE_S, "an earlier drawing still counted")
    CHROMIUM.close()
    launches = CHROMIUM.launches
    for _ in range(3):
        figure_image(small_figure(), "svg")
    assert CHROMIUM.launches == launches + 1
    charts.close_browser_when_idle()
    chromium_gone()


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA")).astype(int)


def test_png_drawn_in_strips_matches_plotly_js_own_png(monkeypatch):
    """plotly's fig.to_image (kaleido: plotly.js's PNG from one canvas) is the reference. At
    3840 x 2160 the PNG is eight strips; only rotated text may be anti-aliased differently."""
    import plotly.io as pio

    monkeypatch.setenv("BROWSER_PATH", find_browser())
    fig = small_figure()
    ours = pixels(figure_image(fig, "png", scale=2))
    theirs = pixels(pio.to_image(fig, format="png", width=1920, height=1080, scale=2))
    assert ours.shape == theirs.shape == (2160, 3840, 4)
    differ = np.abs(ours - theirs).max(axis=2) > 0
    assert differ.mean() < 0.005, f"{differ.mean():.2%} of the pixels differ"
    assert np.abs(ours - theirs).mean() < 0.1


def test_png_file_wraps_a_zlib_stream_of_rows_into_a_png_pillow_reads():
    """PNG's own format (RFC 2083): rows each led by their filter byte (0: none), deflated."""
    rgba = np.random.default_rng(0).integers(0, 256, size=(5, 7, 4), dtype=np.uint8)
    rows = b"".join(b"\x00" + row.tobytes() for row in rgba)
    stream = zlib.compress(rows)
    png = png_file(7, 5, [stream[:10], stream[10:]])  # two IDAT chunks
    np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(png))), rgba)


# --- the menu -------------------------------------------------------------------------------
def open_menu(query: dict[str, str] = SMALL):
    at = open_page("app_pages/heatmap.py", query)
    at.session_state["heatmap_chart_export"] = True
    return at.run()


def press(at, kind: str):
    return at.button(key=f"heatmap_chart_{kind}").click().run(timeout=120)


def test_a_pressed_image_becomes_a_save_button_with_its_file():
    at = press(open_menu(), "png2")
    assert not at.exception
    saves = {b.proto.id.rsplit("-", 1)[-1]: b.proto for b in at.get("download_button")}
    label = message("export.png", "en", width=3840, height=2160)
    data = at.session_state[charts.IMAGE_FILE]["data"]
    assert saves["heatmap_chart_png2_file"].label == message(
        "export_queue.save", "en", what=label, size=charts.size_text(len(data)))
    assert Image.open(io.BytesIO(data)).size == (3840, 2160)
    assert [b.key for b in at.button if b.key.startswith("heatmap_chart")] == [
        "heatmap_chart_png4", "heatmap_chart_svg"]
    assert not any(b.disabled for b in at.button)


def test_a_second_press_of_the_same_image_draws_nothing_more(monkeypatch):
    calls = []
    real = charts.figure_image
    monkeypatch.setattr(charts, "figure_image",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    at = press(open_menu(), "svg")
    assert len(calls) == 1
    # A press the browser sent before the first drawing disabled the button: its callback runs
    # once that drawing has ended.
    at.session_state["heatmap_chart_image_job"] = "svg"
    at.run()
    assert len(calls) == 1 and not at.exception
    assert "heatmap_chart_svg_file" in [b.proto.id.rsplit("-", 1)[-1]
                                        for b in at.get("download_button")]


@pytest.mark.parametrize("reason,key", [("timeout", "export_queue.failed_timeout"),
                                        ("browser", "export_queue.failed_browser"),
                                        ("figure", "export_queue.failed_figure")])
def test_an_image_that_cannot_be_drawn_is_said_in_the_visitors_language(monkeypatch, reason, key):
    def fails(*args, **kwargs):
        raise ImageExportError(reason, "as a test")

    monkeypatch.setattr(charts, "figure_image", fails)
    at = press(open_menu({**SMALL, "lang": "zh"}), "png4")
    assert not at.exception
    what = message("export.png", "zh", width=7680, height=4320)
    assert message(key, "zh", what=what) in [c.value for c in at.caption]
    assert charts.IMAGE_FILE not in at.session_state
    assert not any(b.disabled for b in at.button)  # press again


def test_an_image_waits_for_the_computation_before_it_and_leaves_the_caches_be(monkeypatch):
    """The compute slot is the images' queue too: an image starts when the cache miss before it
    has ended, a cache miss asked meanwhile waits for the image, and while the image is drawn
    the caches keep what they hold (the server's memory leaves the image its room here:
    tests/test_memory_budget.py has what they give back when it does not)."""
    monkeypatch.setattr(memory_budget, "HEAVY", MemoryBudget(COMPUTE_SLOTS * COMPUTE_COST))
    release, events, during = threading.Event(), [], {}

    @cache.bounded_cache(max_entries=16, max_bytes=16 * MB)
    def table(n: int) -> np.ndarray:
        events.append(f"compute {n}")
        if n == 0:
            release.wait(10)
        return np.zeros(MB // 8)  # 1 MB

    for n in range(1, 9):
        table(n)
    assert table.store.nbytes > 8 * MB
    first = threading.Thread(target=table, args=(0,))
    first.start()
    until(lambda: memory_budget.HEAVY.count("compute", waiting=False) == 1)

    def draw() -> None:
        with memory_budget.image_turn(COMPUTE_COST + cache.TOTAL_CACHE_BYTES // 2):
            events.append("image")
            during.update(room=cache.cache_room(), kept=table.store.nbytes)
            time.sleep(0.5)
        events.append("image done")

    image = threading.Thread(target=draw)
    image.start()
    until(lambda: memory_budget.HEAVY.count("image", waiting=True) == 1)
    later = threading.Thread(target=table, args=(99,))
    later.start()
    until(lambda: memory_budget.HEAVY.count("compute", waiting=True) == 1)
    release.set()
    for thread in (first, image, later):
        thread.join(20)
    assert events[8:] == ["compute 0", "image", "image done", "compute 99"]
    assert during["room"] == cache.TOTAL_CACHE_BYTES
    assert during["kept"] > 8 * MB
    assert cache.cache_room() == cache.TOTAL_CACHE_BYTES and memory_budget.HEAVY.used == 0


def test_an_image_behind_a_computation_says_it_waits_for_the_computation(monkeypatch):
    heavy = MemoryBudget(COMPUTE_SLOTS * COMPUTE_COST)
    monkeypatch.setattr(memory_budget, "HEAVY", heavy)
    computation = heavy.acquire(COMPUTE_COST, kind="compute")
    results, statuses = {}, {}
    thread = ask("image", results, statuses)
    until(lambda: heavy.count("image", waiting=True) == 1)
    until(lambda: statuses["image"].labels)
    svg = message("export.svg", "en")
    assert statuses["image"].labels[0] == message("export_queue.waiting_computation", "en",
                                                  what=svg)
    heavy.release(computation)
    thread.join(60)
    assert results["image"].startswith(b"<svg")


def test_an_image_says_it_waits_for_the_servers_memory_to_fall(monkeypatch):
    """With the server's own memory too high for the image beside it, the menu says so (what is
    held, what lets the drawing start, how long it may still wait), then the image is drawn once
    the memory has fallen."""
    monkeypatch.setattr(memory_budget, "HEAVY", MemoryBudget(COMPUTE_SLOTS * COMPUTE_COST))
    monkeypatch.setattr(memory_budget, "WAIT_POLL_S", 0.05)
    readings = iter([TREE_BUDGET] * 3)
    monkeypatch.setattr(memory_budget, "own_memory", lambda: next(readings, 0))
    results, statuses = {}, {}
    ask("image", results, statuses).join(60)
    assert results["image"].startswith(b"<svg")
    allowed = (TREE_BUDGET - image_cost("svg")) // MB
    said = re.escape(message("export_queue.waiting_memory", "en",
                             what=message("export.svg", "en"), held=TREE_BUDGET // MB,
                             allowed=allowed, seconds=999)).replace("999", "([0-9]+)")
    seconds = [re.fullmatch(said, label) for label in statuses["image"].labels[:3]]
    assert all(seconds), statuses["image"].labels
    assert all(0 <= int(s.group(1)) <= memory_budget.MEMORY_WAIT_S for s in seconds)
    assert statuses["image"].labels[3].startswith(
        message("export_queue.drawing", "en", what=message("export.svg", "en"), seconds=0))


def test_a_browser_that_stops_answering_is_replaced_for_the_next_image():
    """A Chromium alive but answering nothing (its processes stopped here with SIGSTOP; under
    load a test run saw one so for minutes): the image waiting on it times out, and the next
    image is drawn by a new browser instead of waiting on the same one again."""
    figure_image(small_figure(), "svg")
    stuck = CHROMIUM._browser.subprocess
    stopped = []
    for pid in process_tree(stuck.pid):  # a helper process may end between listing and stopping
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGSTOP)
            stopped.append(pid)
    assert stuck.pid in stopped
    try:
        with pytest.raises(ImageExportError, match="timeout"):
            figure_image(small_figure(), "svg", timeout=3)
        started = time.monotonic()
        svg = figure_image(small_figure(), "svg", timeout=60)
        assert svg.lstrip().startswith(b"<svg")
        assert time.monotonic() - started < 30
        assert CHROMIUM._browser.subprocess.pid != stuck.pid
    finally:
        for pid in stopped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
        charts.close_browser_when_idle()
