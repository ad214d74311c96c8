"""serve.py, the public entry, against a real server: the endpoints it closes, what a session is
told about the server, two-part addresses in Chromium; and odd spellings of URL numbers, which
the app rewrites into the address bar and the link (app.py, as the other browser tests)."""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from tests import browser_support
from tests.conftest import served
from tests.raw_session import RawSession, run_async


@pytest.fixture(scope="module")
def serve_url() -> Iterator[str]:
    """`streamlit run serve.py` on a free loopback port."""
    yield from served("serve.py", "serve-server.log")


def _status(url: str, method: str = "GET") -> int:
    request = urllib.request.Request(url, method=method, data=b"x" if method != "GET" else None)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def _new_session_script_path(url: str) -> str:
    """Open a websocket as the browser does, ask for a run (the home page) and wait for its end;
    NewSession's script path."""
    import websockets
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    async def probe() -> str:
        address = url.replace("http://", "ws://") + "/_stcore/stream"
        async with websockets.connect(address, subprotocols=["streamlit"]) as socket:
            rerun = BackMsg()
            rerun.rerun_script.query_string = ""
            await socket.send(rerun.SerializeToString())
            script_path = None
            for _ in range(2000):
                message = ForwardMsg()
                message.ParseFromString(await asyncio.wait_for(socket.recv(), 60))
                kind = message.WhichOneof("type")
                if kind == "new_session":
                    script_path = message.new_session.main_script_path
                if kind == "script_finished" and script_path is not None:
                    return script_path
        raise AssertionError("no run: new_session then script_finished")

    return run_async(probe())


def test_serve_closes_the_metrics_and_opens_the_upload_endpoint_to_the_uploader(serve_url):
    assert _status(f"{serve_url}/_stcore/health") == 200
    assert _status(f"{serve_url}/_stcore/metrics") == 404
    assert _status(f"{serve_url}/_stcore/metrics?families=cache_hits") == 404
    # A PUT reaches Streamlit's route (which wants the page's XSRF token first); any other
    # method or address there is closed.
    assert _status(f"{serve_url}/_stcore/upload_file/session/file", "PUT") == 403
    assert _status(f"{serve_url}/_stcore/upload_file/session/file", "POST") == 404
    assert _status(f"{serve_url}/_stcore/upload_file/session", "PUT") == 404


def test_streamlit_alone_cannot_close_the_metrics(app_url):
    """Pins Streamlit 1.67: `streamlit run app.py` answers /_stcore/metrics (sessions, and the
    st.cache_data/st.cache_resource functions by name with their hit counts) whatever the
    config: no option exists. Hence serve.py, and docs/deployment.md's proxy advice for app.py.
    Fails (and docs/deployment.md should change) the day Streamlit can turn it off."""
    with urllib.request.urlopen(f"{app_url}/_stcore/metrics", timeout=10) as response:
        assert response.status == 200
        assert "session_events_total" in response.read().decode()


def test_a_session_is_told_the_script_name_not_the_server_path(serve_url):
    assert _new_session_script_path(serve_url) == "app.py"


@pytest.mark.parametrize(("path", "lands_on", "heading"), [
    ("/heatmap/x", "/heatmap", "Sinusoid heatmap"),
    ("/heatmap/x/y?lang=zh", "/heatmap?lang=zh", "正弦编码热图"),
    ("/rope/../alibi/z", "/alibi", "ALiBi"),
])
def test_a_two_part_address_opens_its_page(browser, serve_url, path, lands_on, heading):
    page = browser.new_page()
    try:
        page.goto(serve_url + path)
        page.wait_for_selector(browser_support.IDLE_SELECTOR, timeout=60_000)
        page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length > 0",
                               timeout=60_000)
        assert page.url == serve_url + lands_on
        assert heading in page.locator("h1").first.inner_text()
    finally:
        page.close()


def test_an_unknown_two_part_address_says_page_not_found(browser, serve_url):
    page = browser.new_page()
    try:
        page.goto(serve_url + "/a/b")
        page.wait_for_selector(browser_support.IDLE_SELECTOR, timeout=60_000)
        # serve.py sends /a/b to /a, which app.py answers with the home page and a note
        page.get_by_text("There is no page at /a").wait_for(timeout=30_000)
        # and the home page under it: the app, not a blank document
        page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length > 0",
                               timeout=60_000)
    finally:
        page.close()


# Spellings Python's int()/float() read (underscores, a sign, spaces, an exponent, Devanagari
# and full-width digits): the value is used, and the address bar and the link say it plainly.
@pytest.mark.parametrize(("query", "key", "shown"), [
    ("positions=1_000", "positions", "1000"),
    ("positions=%2064", "positions", "64"),
    ("positions=%2B64", "positions", "64"),
    ("positions=6.4e1", "positions", "64"),
    ("positions=%E0%A5%AC%E0%A5%AA", "positions", "64"),  # ६४
    ("positions=%EF%BC%96%EF%BC%94", "positions", "64"),  # ６４
    ("pos=%2B5", "pos", "5"),
    ("base=5e5", "base", "500000"),
])
def test_odd_spellings_of_url_numbers_are_rewritten(browser_page, query, key, shown):
    browser_page.open(f"/heatmap?{query}")
    page = browser_page.page
    page.wait_for_function(f"() => location.search === '?{key}={shown}'", timeout=30_000)
    assert browser_support.shown_value(page, key) == shown
    link = page.locator(".pe-link code").first
    for _ in range(40):  # the link mirrors the address bar every 250 ms (ui/share.py)
        if link.text_content().strip() == page.url:
            break
        page.wait_for_timeout(250)
    assert link.text_content().strip().endswith(f"/heatmap?{key}={shown}")


# --- attacks on the public demo: each is what an unfriendly visitor sends --------------------
def _code(raw: bytes) -> str:
    import base64
    import zlib

    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")


# 52 characters of link: JSON nested 5000 deep, deflated (json.loads raised RecursionError).
NESTED = _code(b"[" * 5000 + b"]" * 5000)


@pytest.mark.parametrize(("page", "query", "notice"), [
    ("tour", f"deck={NESTED}", "This deck link cannot be read"),
    ("rope", f"view=config&overlay={NESTED}", "URL parameter overlay is not usable"),
    ("rope", f"view=config&pasted={NESTED}", "URL parameter pasted is not usable"),
])
def test_a_deeply_nested_code_in_a_link_gets_the_usual_notice(serve_url, page, query, notice):
    assert len(NESTED) < 60

    async def visit() -> RawSession:
        async with RawSession(serve_url, page, query) as session:
            await session.open()
            if page == "tour":  # the player puts the slide's own address in the address bar,
                session.query = "slide=1&present=true"  # and the browser runs it: the tour's
                await session.open()
            return session

    session = run_async(visit())
    assert session.exceptions == []
    assert any(notice in text.replace("\\", "") for text in session.texts), session.texts


def _subnormal_codes() -> dict[str, str]:
    """A YaRN config whose beta_slow is 1e-320 (a subnormal: 1 / beta overflows to inf), in the
    link's fields, as a pinned variant and as pasted fields."""
    from core.rope_config import PRESETS
    from ui.codec import pack
    from ui.rope_codes import rope_fields

    fields = rope_fields(PRESETS["qwen2.5-7b-yarn"])
    fields["rope_scaling"]["beta_slow"] = 1e-320
    return {
        "fields": "view=config&rope_type=yarn&beta_slow=1e-320",
        "overlay": "view=config&overlay=" + pack([{"n": "v", "p": "qwen2.5-7b-yarn", "t": "yarn",
                                                   "f": {"beta_slow": 5e-324}}]),
        "pasted": "view=config&pasted=" + pack(fields),
    }


@pytest.mark.parametrize("where", ["fields", "overlay", "pasted"])
def test_a_subnormal_rope_value_gets_a_notice_not_an_error(serve_url, where):
    """A YaRN beta_slow of 1e-320 was divided by (inf) and `math.ceil(inf)` raised: Streamlit's
    OverflowError box, from the link's field, a pinned variant or pasted fields alike. Now the
    page runs to its end (the tests' servers re-raise: no boundary hides an exception here)."""

    async def visit() -> RawSession:
        async with RawSession(serve_url, "rope", _subnormal_codes()[where]) as session:
            return await session.open()

    session = run_async(visit())
    assert session.exceptions == [], session.exceptions
    assert any("wavelength" in text for text in session.texts), session.texts  # the view ran


HOSTILE_NAME = '<a href="https://example.com/pwn">click me</a>'


def _links_to_example(page) -> list[str]:
    return page.evaluate("""() => [...document.querySelectorAll('a')]
        .map(a => a.getAttribute('href') || a.getAttribute('xlink:href') || '')
        .filter(href => href.includes('example.'))""")


def test_a_config_name_is_drawn_as_text_never_as_a_link(browser, serve_url):
    """A pinned config's name and a pasted config's name holding a link: plotly drew <a href>
    as a live link in the legend, the title and the hover; Streamlit's markdown one in a
    button. Every one is shown as the characters typed."""
    from urllib.parse import urlencode

    from core.rope_config import PRESETS
    from ui.rope_codes import pack_overlay, pack_pasted, pinned

    query = urlencode({
        "view": "config", "overlay": pack_overlay([pinned(HOSTILE_NAME, PRESETS["llama-3.1-8b"],
                                                          None, {})]),
        "pasted": pack_pasted(PRESETS["mistral-7b"]),
        "name": "[md](https://example.com/md) www.example.org " + HOSTILE_NAME})
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    try:
        page.goto(f"{serve_url}/rope?{query}")
        page.wait_for_selector(browser_support.IDLE_SELECTOR, timeout=60_000)
        page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot .legend')"
                               ".length >= 3", timeout=60_000)
        assert _links_to_example(page) == []
        legends = " ".join(page.locator(".js-plotly-plot .legend").all_text_contents())
        assert HOSTILE_NAME in legends  # drawn, as typed
        assert page.locator('[data-testid="stException"]').count() == 0
    finally:
        page.close()


def test_a_deck_note_is_shown_as_typed(browser, serve_url):
    """A URL in a slide's note became a live link, and a Material shortcode an icon."""
    from urllib.parse import urlencode

    from ui.tour import Slide, encode_deck

    note = "see https://example.com/x and www.example.org :material/warning: **bold**"
    deck = encode_deck([Slide("heatmap", {}, note=note)])
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    try:
        page.goto(f"{serve_url}/tour?{urlencode({'deck': deck})}")
        page.wait_for_selector(browser_support.IDLE_SELECTOR, timeout=60_000)
        line = page.locator("[data-testid=stMain] h4").first
        line.wait_for(timeout=60_000)
        assert line.text_content() == note
        assert line.locator("a, [data-testid=stIconMaterial], strong").count() == 0
        assert _links_to_example(page) == []
    finally:
        page.close()


def test_an_oversized_frame_is_refused_before_it_is_read(serve_url):
    """One 190 MB websocket frame took the server's tree to ~740 MB (Streamlit buffers a frame
    whole up to server.maxMessageSize, 200 MB by default, before its own 25 MB check): now the
    connection closes as the frame starts, and the server holds what it held."""
    import psutil
    import websockets

    from benchmarks.export_cost import TreeSampler, tree_uss_mb

    pid = next(p.pid for p in psutil.process_iter(["cmdline"])
               if "serve.py" in " ".join(p.info["cmdline"] or [])
               and serve_url.rsplit(":", 1)[1] in " ".join(p.info["cmdline"] or []))
    before = tree_uss_mb(pid)[0]
    sampler = TreeSampler(pid, every_s=0.05)

    async def send() -> str:
        address = serve_url.replace("http://", "ws://") + "/_stcore/stream"
        async with websockets.connect(address, subprotocols=["streamlit"],
                                      origin=serve_url) as socket:
            try:
                await socket.send(b"\x00" * (60 * 2**20))
                await asyncio.wait_for(socket.recv(), 30)
            except websockets.ConnectionClosed as closed:
                return f"closed {closed.rcvd.code if closed.rcvd else None}"
            return "open"

    said = run_async(send())
    peak = sampler.stop()
    assert said == "closed 1009", said  # 1009: message too big
    assert peak - before < 20, (before, peak)
