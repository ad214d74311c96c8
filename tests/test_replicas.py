"""Replicas behind nginx (deploy/): two `streamlit run app.py` processes on loopback ports and
Debian's nginx in front of them (deploy/serve_replicas.py, the configuration users deploy), driven
through the proxy by headless Chromium.

Which replica served what is read from nginx itself: the X-Replica header it adds to every
response (the page, its assets, health checks, downloads) and its access log, which names the
affinity cookie and the upstream of every request, a websocket included (logged when it closes).
Without nginx these tests fail saying how to get it (`make test` installs it first).
"""

from __future__ import annotations

import re
import shutil
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from benchmarks.bench_browser import bench_control
from deploy import serve_replicas
from locales import message
from tests import browser_support
from tests.conftest import ARTIFACTS
from ui.pages import HOME, PAGES, PageInfo

# The sessions' test runs for minutes: started first (tests/conftest.py).
pytestmark = [pytest.mark.browser, pytest.mark.long]

ROOT = Path(__file__).resolve().parent.parent
WAIT_MS = 120_000  # two servers, nginx and four pages share two cores
# One line of the pe_replicas log format (deploy/nginx/pe-explorer.conf.template).
LOG_LINE = re.compile(r'"(?P<method>\S+) (?P<path>\S+) [^"]*" (?P<status>\d{3}) \d+ '
                      r'affinity=(?P<affinity>\S+) upstream=(?P<upstream>.*?) upstream_status=')
HEATMAP = next(page for page in PAGES if page.url_path == "heatmap")
HEATMAP_LINK = "/heatmap?d_model=64&positions=32"


def start_replicas(name: str) -> serve_replicas.Replicas:
    if serve_replicas.find_nginx() is None:
        pytest.fail(serve_replicas.NO_NGINX, pytrace=False)
    workdir = ARTIFACTS / name  # nginx's configuration and logs and each replica's log
    shutil.rmtree(workdir, ignore_errors=True)
    try:
        return serve_replicas.start(
            2, workdir=workdir, streamlit_args=("--client.showErrorDetails", "full"))
    except RuntimeError as error:
        pytest.fail(str(error), pytrace=False)


@pytest.fixture(scope="module")
def replicas():
    running = start_replicas("replicas")
    yield running
    running.stop()


def get(url: str, cookie: str | None = None, method: str = "GET", data: bytes | None = None):
    """(status, headers) of one request, errors included."""
    request = urllib.request.Request(url, method=method, data=data)
    if cookie:
        request.add_header("Cookie", cookie)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers
    except urllib.error.HTTPError as error:
        return error.code, error.headers


def served_by(upstream: str) -> str:
    """The replica that answered: the last address nginx tried (`a, b` when it moved on)."""
    return upstream.split(",")[-1].strip()


def test_nginx_sets_the_affinity_cookie_and_keeps_a_visitor_on_one_replica(replicas):
    status, headers = get(f"{replicas.url}/heatmap")
    assert status == 200
    cookie = headers["Set-Cookie"].split(";")[0]
    assert re.fullmatch(r"pe_replica=[0-9a-f]{32}", cookie), headers["Set-Cookie"]
    first = headers["X-Replica"]
    assert first in replicas.addresses
    # The cookie's value is the key the first request was hashed on: every later request of the
    # visitor lands where the first did, and nginx sets no new cookie.
    for path in ("/_stcore/health", "/_stcore/host-config", "/", "/alibi"):
        status, headers = get(f"{replicas.url}{path}", cookie=cookie)
        ours = [c for c in headers.get_all("Set-Cookie") or [] if c.startswith("pe_replica=")]
        assert (status, headers["X-Replica"], ours) == (200, first, []), path
    # Visitors are spread over both replicas, although every one comes from 127.0.0.1 (ip_hash
    # would put them all on one).
    seen = Counter(get(f"{replicas.url}/_stcore/health")[1]["X-Replica"] for _ in range(40))
    assert set(seen) == set(replicas.addresses), seen


def test_nginx_closes_the_metrics_and_limits_bodies(replicas):
    # The upload endpoint reaches a replica (which wants the page's XSRF token first), up to
    # the table's 17 MB and framing; past 18 MB nginx refuses it.
    assert get(f"{replicas.url}/_stcore/upload_file/session/file", method="PUT",
               data=b"x")[0] == 403
    assert get(f"{replicas.url}/_stcore/upload_file/session/file", method="PUT",
               data=b"x" * (18 * 2**20 + 1))[0] == 413
    assert get(f"{replicas.url}/_stcore/metrics")[0] == 403
    # Straight to a replica, both answer: the proxy is what closes them.
    direct = f"http://{replicas.addresses[0]}"
    assert get(f"{direct}/_stcore/metrics")[0] == 200
    assert get(f"{replicas.url}/_stcore/health")[0] == 200
    assert get(f"{replicas.url}/", method="POST", data=b"x" * (2 << 20))[0] == 413


@dataclass
class Visitor:
    """One browser context (its own cookie jar: one visitor) and what it saw through the proxy."""

    page: object
    replica: str  # X-Replica of its first page
    cookie: str = ""
    served: list[tuple[str, str]] = field(default_factory=list)  # (url, X-Replica)
    websockets: list = field(default_factory=list)
    frames_sent: Counter = field(default_factory=Counter)  # per websocket
    page_errors: list[str] = field(default_factory=list)

    def exceptions(self) -> list[str]:
        return self.page.locator('[data-testid="stException"]').all_inner_texts()


def access_log(replicas: serve_replicas.Replicas, visitors: list[Visitor]) -> list[dict]:
    """nginx's access log, parsed, once it holds every visitor's websockets (nginx writes one
    when the connection has closed on both sides, a moment after the browser closed it): the
    file is polled, 30 s at most, and the reason said if it never holds them."""
    for _ in range(60):
        lines = replicas.access_log.read_text().splitlines()
        log = [m.groupdict() for m in map(LOG_LINE.search, lines) if m]
        logged = Counter(line["affinity"] for line in log if line["path"] == "/_stcore/stream")
        if all(logged[v.cookie] >= len(v.websockets) for v in visitors):
            return log
        time.sleep(0.5)
    raise AssertionError("nginx's access log lacks a closed websocket 30 s after its tab closed",
                         dict(logged))


def affinity_cookie(visitor: Visitor) -> str:
    return next(c["value"] for c in visitor.page.context.cookies() if c["name"] == "pe_replica")


def open_visitor(browser, url: str, path: str) -> Visitor:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    served: list[tuple[str, str]] = []
    page.on("response", lambda r: served.append((r.url, r.headers.get("x-replica", ""))))
    response = page.goto(f"{url}{path}", wait_until="commit", timeout=WAIT_MS)
    visitor = Visitor(page=page, replica=response.headers["x-replica"], served=served)

    def on_websocket(ws):
        visitor.websockets.append(ws)
        ws.on("framesent", lambda _: visitor.frames_sent.update([id(ws)]))

    page.on("websocket", on_websocket)
    page.on("pageerror", lambda error: visitor.page_errors.append(str(error)))
    return visitor


def open_visitors(browser, url: str, paths: list[str], per_replica: int) -> list[Visitor]:
    """`per_replica` visitors on each replica, the i-th opening paths[i % len(paths)]: a visitor
    whose replica already has its share is let go (nginx decides, not the test: each new
    visitor's replica is a fair coin, so 8 tries per share left one replica empty about once in
    128 warm-ups; 24 leave it empty once in ~8 million)."""
    visitors: list[Visitor] = []
    for _ in range(24 * per_replica):
        if len(visitors) == 2 * per_replica:
            break
        visitor = open_visitor(browser, url, paths[len(visitors) % len(paths)])
        if sum(v.replica == visitor.replica for v in visitors) < per_replica:
            visitors.append(visitor)
        else:
            visitor.page.context.close()
    assert len(visitors) == 2 * per_replica, Counter(v.replica for v in visitors)
    return visitors


def tab_title(page: PageInfo) -> str:
    """The browser tab's title on `page` (the home page's is the app's alone)."""
    app = message("app.title", "en")
    return app if page is HOME else f"{page.title} · {app}"


def wait_drawn(visitors: list[Visitor], pages: list[PageInfo | None] | None = None) -> None:
    """Wait until each visitor's page has finished a run with a chart drawn (after a click in the
    sidebar, the run of its entry in `pages`: the previous page's chart is still there until it
    is replaced). All visitors at once, as their servers work at once: each is seen idle, then
    idle again after one shared pause of 300 ms (a run that had not begun has by then), then its
    chart is waited for."""
    pages = pages or [None] * len(visitors)
    for visitor, page_info in zip(visitors, pages, strict=True):
        if page_info:
            visitor.page.wait_for_function("t => document.title === t",
                                           arg=tab_title(page_info), timeout=WAIT_MS)
        visitor.page.wait_for_selector(browser_support.IDLE_SELECTOR, timeout=WAIT_MS)
    visitors[0].page.wait_for_timeout(300)
    for visitor in visitors:
        page = visitor.page
        page.wait_for_selector(browser_support.IDLE_SELECTOR, timeout=WAIT_MS)
        try:
            page.wait_for_function("() => document.querySelector('.js-plotly-plot .main-svg')",
                                   timeout=WAIT_MS)
        except Exception:
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / f"replicas-no-chart-{visitor.cookie}.png"))
            raise


def start_change(visitor: Visitor, url_path: str, step: int) -> str:
    """Change `url_path`'s benchmark control as a person does; returns the charts' signature
    before the change (wait_changed waits for the rerun to draw new data)."""
    page = visitor.page
    before = page.evaluate(browser_support.CHART_SIGNATURE_JS)
    key, kind = bench_control(url_path)
    if kind == "number" and page.locator(f".st-key-{key} input[type=range]").count():
        kind = "slider"
    action, selector, arg = browser_support.control_change(key, kind, step, down=step % 2 == 0)
    if action == "click":
        page.locator(selector).nth(arg).click()
    else:
        page.locator(selector).first.focus()
        page.keyboard.press(arg)
    return before


def wait_changed(visitor: Visitor, before: str) -> None:
    visitor.page.wait_for_function(
        f"""b => document.querySelector('{browser_support.IDLE_SELECTOR}')
                 && ({browser_support.CHART_SIGNATURE_JS})() !== b""",
        arg=before, timeout=WAIT_MS)


def download_csv(visitor: Visitor) -> bytes:
    """The first chart's Export menu, CSV (data): the file comes from the visitor's session."""
    page = visitor.page
    page.get_by_role("button", name="Export").first.click()
    button = page.get_by_role("button", name="CSV (data)").first
    button.wait_for(timeout=WAIT_MS)
    with page.expect_download(timeout=WAIT_MS) as download_info:
        button.click()
    return Path(download_info.value.path()).read_bytes()


def click_in_sidebar(visitor: Visitor, url: str, page: PageInfo) -> None:
    visitor.page.locator(f'[data-testid="stSidebarNav"] '
                         f'a[href="{url}/{page.url_path}"]').first.click()


def test_sessions_open_every_page_through_the_proxy_each_on_its_replica(replicas, browser):
    """Four visitors, two per replica. One per replica opens the home page and clicks through
    every page in the sidebar (all over one websocket; on a cold server this also loads what the
    pages import one session at a time, see below); then one more per replica opens a deep
    link (the heatmap's, a page's), both replicas now serving two sessions at once. All four go
    to the heatmap and move its d_model twice (a rerun per click); one per replica downloads a
    CSV from the Export menu. Every response, the websocket and the downloads of a visitor come
    from the replica its first page came from; no exception box, no page error.

    The walk is one session per replica, as the load test's warm-up: a cold server can fail a
    concurrent first visit (plotly checks `isinstance(v, pd.Series)` on the pandas module it
    finds in sys.modules, `get_module("pandas", should_load=False)`, which is half-imported
    while another session's page imports it: "partially initialized module 'pandas' has no
    attribute 'Series'"). That is the app's to fix, not the proxy's; the sessions at once here
    meet warm replicas. Two per replica are enough: the cookie decides the replica per
    visitor, and two at once on one replica show that it holds for each."""
    tour = [HOME, *PAGES]
    walkers = open_visitors(browser, replicas.url, ["/"], 1)
    visitors = list(walkers)
    try:
        wait_drawn(walkers)
        reruns = Counter()  # runs each visitor asked for over its websocket
        opened = {id(walker): {walker.page.title()} for walker in walkers}
        for page in PAGES:
            for walker in walkers:
                click_in_sidebar(walker, replicas.url, page)
            wait_drawn(walkers, [page] * len(walkers))
            for walker in walkers:
                reruns[id(walker)] += 1
                opened[id(walker)].add(walker.page.title())
        for walker in walkers:
            assert opened[id(walker)] == {tab_title(page) for page in tour}, opened[id(walker)]

        # Two sessions at once on each replica from here on.
        newcomers = open_visitors(browser, replicas.url, [HEATMAP_LINK, "/rope"], 1)
        visitors += newcomers
        wait_drawn(newcomers)
        for visitor in visitors:
            visitor.cookie = affinity_cookie(visitor)
        # The deep link's values are the controls' values.
        linked = next(v for v in newcomers if v.page.url.endswith(HEATMAP_LINK))
        assert browser_support.shown_value(linked.page, "d_model") == "64"
        assert browser_support.shown_value(linked.page, "positions") == "32"

        # Reruns on one page: every visitor goes to the heatmap and moves d_model twice.
        for visitor in visitors:
            if visitor.page.title() != tab_title(HEATMAP):
                click_in_sidebar(visitor, replicas.url, HEATMAP)
                reruns[id(visitor)] += 1
        wait_drawn(visitors, [HEATMAP] * len(visitors))
        for step in range(2):
            before = [start_change(visitor, "heatmap", step) for visitor in visitors]
            for visitor, signature in zip(visitors, before, strict=True):
                wait_changed(visitor, signature)
                reruns[id(visitor)] += 1

        # The Export menu through the proxy, once on each replica.
        for replica in replicas.addresses:
            visitor = next(v for v in newcomers if v.replica == replica)
            rows = download_csv(visitor).decode().splitlines()
            assert len(rows) > 10 and rows[0].count(",") > 10, rows[:2]

        for visitor in visitors:
            assert visitor.exceptions() == [] and visitor.page_errors == []
            # One websocket carried every rerun (a rerun is at least one message).
            assert len(visitor.websockets) == 1, [ws.url for ws in visitor.websockets]
            assert visitor.frames_sent[id(visitor.websockets[0])] >= reruns[id(visitor)]
            # Every answer through nginx came from the visitor's replica.
            others = [(u, r) for u, r in visitor.served if r and r != visitor.replica]
            assert others == [], (visitor.replica, others[:5])
            assert sum(1 for _, r in visitor.served if r) > 20
    finally:
        for visitor in visitors:
            visitor.page.context.close()

    # nginx's side: each visitor's requests, websocket and downloads went to one replica, with
    # no retry elsewhere and no server error. (A websocket is logged once it has closed.)
    log = access_log(replicas, visitors)
    for visitor in visitors:
        mine = [line for line in log if line["affinity"] == visitor.cookie]
        assert {line["upstream"] for line in mine} == {visitor.replica}
        assert not [line for line in mine if line["status"].startswith("5")]
        websockets = [line for line in mine if line["path"] == "/_stcore/stream"]
        assert [line["status"] for line in websockets] == ["101"]
    # The two CSVs came from Streamlit's media endpoint of each visitor's own replica.
    downloads = [line for line in log if line["path"].startswith("/media/")]
    assert {line["upstream"] for line in downloads} == set(replicas.addresses), downloads


def test_a_stopped_replicas_sessions_reconnect_to_the_other(browser):
    """Two visitors on each replica; one replica stops. Its visitors' pages reconnect through
    nginx to the other replica (Streamlit's reconnect: a new session there) and work again: the
    chart is still drawn, a control change reruns on the surviving replica and draws new data,
    and the Export menu downloads from it. The surviving replica's visitors are untouched: same
    websocket, same session, their next change answered as before."""
    replicas = start_replicas("replicas-failover")
    visitors: list[Visitor] = []
    try:
        visitors = open_visitors(browser, replicas.url, [HEATMAP_LINK], 2)
        wait_drawn(visitors)
        for visitor in visitors:
            visitor.cookie = affinity_cookie(visitor)
        stopped, survivor = replicas.addresses
        moved = [v for v in visitors if v.replica == stopped]
        stayed = [v for v in visitors if v.replica == survivor]
        signatures = {id(v): v.page.evaluate(browser_support.CHART_SIGNATURE_JS) for v in stayed}

        replicas.stop_replica(0)
        for visitor in moved:
            # The frontend's reconnect opens a second websocket, through nginx to the survivor:
            # waited for as it is seen (its backoff grows to seconds), WAIT_MS at most.
            deadline = time.monotonic() + WAIT_MS / 1000
            while len(visitor.websockets) < 2 and time.monotonic() < deadline:
                visitor.page.wait_for_timeout(200)  # Playwright delivers events while it waits
            assert len(visitor.websockets) == 2, (
                f"no reconnect through nginx within {WAIT_MS // 1000} s of the stop",
                [ws.url for ws in visitor.websockets])
            visitor.page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached",
                                           timeout=WAIT_MS)
            wait_drawn([visitor])
            assert visitor.page.url.endswith(HEATMAP_LINK)  # the same view, deep link kept
            # At once, before any full rerun: the Export menu (a fragment the new session has
            # not run) opens with its buttons and downloads from the survivor.
            rows = download_csv(visitor).decode().splitlines()
            assert len(rows) > 10
        for visitor in [*moved, *stayed]:
            wait_changed(visitor, start_change(visitor, "heatmap", 0))
        for visitor in moved:
            assert visitor.exceptions() == [] and visitor.page_errors == []
            # Health checks and downloads after the stop were answered by the survivor.
            answered = [r for u, r in visitor.served if "/_stcore/health" in u]
            assert served_by(answered[-1]) == survivor, answered
        for visitor in stayed:
            assert len(visitor.websockets) == 1
            assert visitor.exceptions() == [] and visitor.page_errors == []
            assert visitor.page.evaluate(browser_support.CHART_SIGNATURE_JS) != signatures[
                id(visitor)]
        for visitor in visitors:
            visitor.page.context.close()
        # nginx's side: a moved visitor's first websocket went to the stopped replica and the
        # next to the survivor; a stayed visitor's one websocket never left the survivor.
        log = access_log(replicas, visitors)
        for visitor in visitors:
            streams = [served_by(line["upstream"]) for line in log
                       if line["affinity"] == visitor.cookie
                       and line["path"] == "/_stcore/stream"]
            assert streams == ([stopped, survivor] if visitor in moved else [survivor]), streams
    finally:
        for visitor in visitors:
            visitor.page.context.close()
        replicas.stop()


def test_compose_and_kubernetes_run_the_same_proxy_settings():
    """deploy/compose.yaml renders the same nginx template (no Docker daemon in CI to run it),
    and the Kubernetes example keeps a browser on one pod and checks /_stcore/health."""
    compose = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text(encoding="utf-8"))
    proxy, app = compose["services"]["proxy"], compose["services"]["app"]
    template = "./nginx/pe-explorer.conf.template:/etc/nginx/templates/pe-explorer.conf.template:ro"
    assert template in proxy["volumes"]
    names = set(re.findall(r"\$\{(\w+)\}", serve_replicas.TEMPLATE.read_text(encoding="utf-8")))
    assert names == set(proxy["environment"])
    assert proxy["depends_on"]["app"]["condition"] == "service_healthy"
    assert app["build"]["context"] == ".." and app["deploy"]["replicas"] >= 2
    assert "app:8501" in proxy["environment"]["PE_UPSTREAM_SERVERS"]

    documents = list(yaml.safe_load_all(
        (ROOT / "deploy" / "kubernetes" / "pe-explorer.yaml").read_text(encoding="utf-8")))
    kinds = {d["kind"]: d for d in documents}
    assert set(kinds) == {"Deployment", "Service", "Ingress"}
    container = kinds["Deployment"]["spec"]["template"]["spec"]["containers"][0]
    assert container["readinessProbe"]["httpGet"]["path"] == "/_stcore/health"
    assert kinds["Deployment"]["spec"]["replicas"] >= 2
    annotations = kinds["Ingress"]["metadata"]["annotations"]
    assert annotations["nginx.ingress.kubernetes.io/affinity"] == "cookie"
