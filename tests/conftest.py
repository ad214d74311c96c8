"""Shared fixtures: hypothesis settings, and the real app in a real browser.

Browser tests start `streamlit run app.py` on a free port, wait for /_stcore/health, and drive
Debian's Chromium with Playwright. They never skip: without a Chromium they fail saying how to
get one (`make test` installs it first).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from safetensors.numpy import load_file
from streamlit import config as st_config
from streamlit.runtime.scriptrunner.script_cache import ScriptCache
from streamlit.testing.v1 import app_test, local_script_runner

from core import minilm
from tests import browser_support
from ui.unexpected import GUARD_VARIABLE

# config.toml hides error details from visitors; AppTest reads it too. A failing test should show
# the real exception, so the tests (only) turn the details back on.
st_config.set_option("client.showErrorDetails", "full")
# serve.py turns an unexpected exception into a notice (ui.unexpected): in every server the tests
# start it re-raises instead, so that a bug still fails its test (tests/test_guard.py serves the
# boundary itself).
os.environ[GUARD_VARIABLE] = "reraise"

# AppTest compiles the app and its page afresh on every run (a new ScriptCache each time, with
# Streamlit's magic rewriting the syntax tree: ~35 ms a run). A server compiles each script once
# and keeps it; so do the tests, in one cache per process (AppTest-heavy files: 68.6 -> 64.4 s).
_COMPILED = ScriptCache()
app_test.ScriptCache = local_script_runner.ScriptCache = lambda: _COMPILED

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"

# Machines are shared and noisy: no per-example deadline (speed is measured in benchmarks).
settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=60
)
settings.load_profile("default")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked `long` first, each module's tests kept together (its fixtures start once):
    pytest-xdist hands tests out in this order, so a test of minutes starts while the others
    still have work, instead of running alone at the end."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)  # a stable sort


def find_chromium() -> str:
    executable = browser_support.find_chromium()
    if executable is None:
        pytest.fail(browser_support.NO_CHROMIUM, pytrace=False)
    return executable


def served(script: str, log_name: str) -> Iterator[str]:
    """`streamlit run <script>` on a free loopback port, for a fixture: its URL, then stopped.
    Its log goes to test-artifacts/<log_name>; a server that does not start fails the test."""
    ARTIFACTS.mkdir(exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER")  # each pytest-xdist worker serves its own
    if worker:
        log_name = f"{worker}-{log_name}"
    try:
        server, url = browser_support.start_streamlit(script, ARTIFACTS / log_name)
    except RuntimeError as error:
        pytest.fail(str(error), pytrace=False)
    yield url
    browser_support.stop(server)


@pytest.fixture(autouse=True)
def images_start_at_once(monkeypatch):
    """The test process (pytest, torch, Playwright) is not a server: its own memory does not
    make an image wait (server.memory_budget.image_turn). Tests of that wait set `own_memory`
    themselves."""
    from server import memory_budget

    monkeypatch.setattr(memory_budget, "own_memory", lambda: 0)


@pytest.fixture(scope="session")
def app_url() -> Iterator[str]:
    """The app served by `streamlit run app.py` on a free loopback port."""
    yield from served("app.py", "streamlit-server.log")


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    executable = find_chromium()
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=executable, args=browser_support.TEST_CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


@dataclass
class BrowserPage:
    """A Playwright page plus what it saw: dialogs (alert/confirm), console errors and warnings,
    and the address of every request the page made. Made by `new_page`; `close()` when done."""

    page: object
    base_url: str
    dialogs: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    console_warnings: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    listeners: list[tuple[str, object]] = field(default_factory=list)
    tabs: TabPool | None = None  # where the page goes back to on close(), or None: it is closed
    closed: bool = False

    def listen(self, event: str, handler) -> None:
        """`page.on(event, handler)`, removed on close() (the tab serves the next test)."""
        self.page.on(event, handler)
        self.listeners.append((event, handler))

    def record_console_and_requests(self) -> None:
        self.listen("console", lambda m: m.type == "error" and self.console_errors.append(m.text))
        # plotly.js logs its warnings ("WARN: ...") with console.trace
        self.listen("console", lambda m: m.type in ("warning", "trace")
                    and self.console_warnings.append(m.text))
        self.listen("request", lambda request: self.requests.append(request.url))

    def open(self, path: str, *, charts: int = 1, timeout: float = 60_000) -> None:
        """Go to `path`, wait until the script has finished and `charts` plotly charts are drawn."""
        self.page.goto(f"{self.base_url}{path}")
        self.wait_idle(timeout=timeout)
        if charts:
            self.page.wait_for_function(
                "n => document.querySelectorAll('.js-plotly-plot .main-svg').length >= n",
                arg=charts, timeout=timeout,
            )

    def wait_idle(self, timeout: float = 60_000) -> None:
        # Streamlit marks the app container with the script's state; wait for a finished run.
        self.page.wait_for_selector(browser_support.IDLE_SELECTOR, timeout=timeout)
        self.page.wait_for_timeout(300)  # let the last delta paint
        self.page.wait_for_selector(browser_support.IDLE_SELECTOR, timeout=timeout)

    def exceptions(self) -> list[str]:
        return self.page.locator('[data-testid="stException"]').all_inner_texts()

    def screenshot(self, name: str) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path

    def close(self) -> None:
        """Done with the page: back to its pool, blank and reset, or closed with its context.
        A second call does nothing (the tab may already serve another test)."""
        if self.closed:
            return
        self.closed = True
        for event, handler in self.listeners:
            self.page.remove_listener(event, handler)
        self.listeners.clear()
        if self.tabs is None:
            self.page.context.close()
        else:
            self.tabs.give_back(self.page)


DEFAULT_VIEWPORT = {"width": 1400, "height": 1600}


class TabPool:
    """Warm Chromium tabs, one browser context per set of context options, handed to one test
    after another. A new tab spends 1-1.5 s more than a warm one (more on a loaded machine)
    starting its renderer and compiling Streamlit's 6 MB of JavaScript: a tab that has shown
    the app opens the next page in under half the time. A tab comes back blank (about:blank), its
    listeners removed, the app's local and session storage and the context's cookies cleared,
    its viewport and colour scheme as the context made them."""

    def __init__(self, browser, options: dict) -> None:
        self.options = {"viewport": DEFAULT_VIEWPORT, **options}
        self.context = browser.new_context(**self.options)
        self.free: list = []

    def take(self):
        while self.free:
            page = self.free.pop()
            if not page.is_closed():
                return page
        return self.context.new_page()

    def give_back(self, page) -> None:
        if page.is_closed():
            return
        try:
            if page.url.startswith("http"):
                page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
            self.context.clear_cookies()
            page.goto("about:blank")
            page.set_viewport_size(self.options["viewport"])
            page.emulate_media(media="screen",
                               color_scheme=self.options.get("color_scheme", "light"))
        except Exception:  # a crashed or hung tab: not worth keeping
            page.close()
            return
        for other in self.context.pages:  # popups and extra tabs the test left open
            if other is not page and other not in self.free:
                other.close()
        self.free.append(page)


_TAB_POOLS: dict[tuple, TabPool] = {}


def new_page(browser, base_url: str, *, fresh: bool = False, **context_options) -> BrowserPage:
    """A page on `base_url` in a warm tab of this worker's context for `context_options`
    (TabPool), or with `fresh` one in a new context (a browser that never saw the app: no
    cache, cookies or storage). Dialogs are recorded and dismissed. `close()` it when done."""
    if fresh:
        context = browser.new_context(**{"viewport": DEFAULT_VIEWPORT, **context_options})
        seen = BrowserPage(page=context.new_page(), base_url=base_url)
    else:
        key = (id(browser), repr(sorted(context_options.items())))
        tabs = _TAB_POOLS.get(key)
        if tabs is None or not browser.is_connected():
            tabs = _TAB_POOLS[key] = TabPool(browser, context_options)
        seen = BrowserPage(page=tabs.take(), base_url=base_url, tabs=tabs)
    seen.listen("dialog", lambda dialog: (seen.dialogs.append(dialog.message), dialog.dismiss()))
    return seen


@pytest.fixture
def browser_page(browser, app_url) -> Iterator[BrowserPage]:
    seen = new_page(browser, app_url)
    seen.record_console_and_requests()
    yield seen
    seen.close()


@pytest.fixture
def minilm_unavailable(monkeypatch):
    """The MiniLM package missing, as on a server without it (the app's caches cleared before
    and after, so neither this test nor the next sees results made with the other's model)."""
    from core import minilm
    from server.cache import clear_all
    from ui.model import release_minilm

    def unavailable():
        raise minilm.ModelUnavailableError.not_installed()

    release_minilm()
    clear_all()
    monkeypatch.setattr(minilm, "load_minilm", unavailable)
    yield
    monkeypatch.undo()
    release_minilm()
    clear_all()


@pytest.fixture(scope="module")
def weights() -> dict[str, np.ndarray]:
    return load_file(str(minilm.model_path() / "model.safetensors"))


@pytest.fixture(scope="module")
def learned_table(weights) -> np.ndarray:
    """MiniLM's position table, read from the file without `core`."""
    return weights["embeddings.position_embeddings.weight"].astype(np.float64)
