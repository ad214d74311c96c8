"""Views as units, seen in the browser: a view's own controls sit above its chart (on a phone
too, without opening the sidebar), a change inside a view reruns that view alone and the link
box follows it, and presentation mode never traps a presenter on a slide."""

from __future__ import annotations

import base64
from urllib.parse import parse_qs, urlsplit

import pytest

from tests import browser_support
from tests.conftest import new_page

pytestmark = pytest.mark.browser

SIDEBAR_OPENER = '[data-testid="stExpandSidebarButton"]'


def box(page, selector: str) -> dict:
    found = page.locator(selector).first.bounding_box()
    assert found is not None, f"{selector} is not on screen"
    return found


def test_a_slide_keeps_a_way_to_the_controls_the_pages_and_out(browser, app_url):
    """At 1920 x 1080 with present=1 the sidebar starts folded but its opener is on screen;
    opened, it lists the pages and the presentation switch, which turns presentation off."""
    seen = new_page(browser, app_url)
    page = seen.page
    page.set_viewport_size({"width": 1920, "height": 1080})
    try:
        seen.open("/heatmap?present=1", charts=1)
        opener = page.locator(SIDEBAR_OPENER)
        assert opener.is_visible()
        assert not page.locator('[data-testid="stSidebarNav"]').is_visible()  # folded
        seen.screenshot("views-slide-1920x1080-folded")
        opener.click()
        nav = page.locator('[data-testid="stSidebarNav"]')
        nav.wait_for(state="visible")
        assert nav.locator("a").count() >= 10  # every page, reachable from the slide
        seen.screenshot("views-slide-1920x1080-sidebar")
        page.locator('.st-key-present [data-testid="stWidgetLabel"]').click()
        page.wait_for_function("() => !window.location.search.includes('present=')")
        seen.wait_idle()
        assert page.locator('[data-testid="stSidebar"] .st-key-present input').is_checked() \
            is False
        assert seen.exceptions() == []
    finally:
        seen.close()


def test_a_slides_view_controls_are_folded_and_stay_live(browser, app_url):
    """On a slide a view's controls are folded under "Controls" above the chart; unfolded, a
    change repaints the chart in place (the sidebar stays closed)."""
    seen = new_page(browser, app_url)
    page = seen.page
    page.set_viewport_size({"width": 1920, "height": 1080})
    try:
        seen.open("/heatmap?present=1&positions=64", charts=1)
        slider = page.locator(".st-key-positions input[type=range]")
        assert not slider.is_visible()  # folded: the slide is clean
        page.get_by_text("Controls", exact=True).first.click()
        slider.wait_for(state="visible")
        assert box(page, ".st-key-positions")["y"] < box(page, ".st-key-heatmap_chart")["y"]
        before = page.evaluate(browser_support.CHART_SIGNATURE_JS)
        slider.focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_function("() => window.location.search.includes('positions=100')")
        page.wait_for_function(f"(b) => ({browser_support.CHART_SIGNATURE_JS})() !== b",
                               arg=before)
        assert not page.locator('[data-testid="stSidebarNav"]').is_visible()
        assert seen.exceptions() == []
    finally:
        seen.close()


def test_on_a_phone_a_views_controls_are_above_its_chart(browser, app_url):
    seen = new_page(browser, app_url)
    page = seen.page
    page.set_viewport_size({"width": 390, "height": 844})
    try:
        seen.open("/heatmap", charts=1)
        slider = box(page, ".st-key-positions")
        chart = box(page, ".st-key-heatmap_chart")
        assert slider["y"] + slider["height"] <= chart["y"]
        assert slider["x"] >= 0 and slider["x"] + slider["width"] <= 390
        assert not page.locator('[data-testid="stSidebar"]').is_visible()
        seen.screenshot("views-phone-heatmap")
    finally:
        seen.close()


def test_a_change_inside_a_view_reruns_it_alone_and_the_link_follows(browser_page):
    """The zoom window's first position reruns its chart only: the heatmap is not redrawn,
    no control is sent again, and the link box shows the new value. (The heatmap's positions
    rerun the zoom view too: its first position's slider ends where the table does.)"""
    browser_page.open("/heatmap?positions=64", charts=2)
    page = browser_page.page
    page.evaluate("""() => {
        window.__peHeatmapDrawn = 0;
        const heatmap = document.querySelector('.st-key-heatmap_chart .js-plotly-plot');
        heatmap.on('plotly_afterplot', () => { window.__peHeatmapDrawn += 1; });
    }""")
    received = received_elements(page)
    before = page.evaluate(browser_support.CHART_SIGNATURE_JS)
    page.locator(".st-key-zoom_pos input[type=range]").focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(f"(b) => ({browser_support.CHART_SIGNATURE_JS})() !== b", arg=before)
    browser_page.wait_idle()
    assert page.evaluate("() => window.__peHeatmapDrawn") == 0
    kinds = [kind for kind, _ in received]
    assert not {"slider", "number_input", "radio", "heading"} & set(kinds), kinds
    link = page.locator(".pe-link code").inner_text()
    assert parse_qs(urlsplit(link).query)["zoom_pos"] == ["1"]
    assert link == page.url


def received_elements(page):
    """A list that fills with (type, delta path) of every element the server sends the page
    from now on (the websocket's ForwardMsg deltas, read through the DevTools protocol)."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    received = []

    def frame(event) -> None:
        response = event["response"]
        if response.get("opcode") != 2:
            return
        message = ForwardMsg()
        message.ParseFromString(base64.b64decode(response["payloadData"]))
        if message.WhichOneof("type") != "delta":
            return
        delta = message.delta
        kind = delta.WhichOneof("type")
        if kind == "new_element":
            kind = delta.new_element.WhichOneof("type")
        elif kind == "add_block":
            kind = delta.add_block.WhichOneof("type")
        received.append((kind, tuple(message.metadata.delta_path)))

    session = page.context.new_cdp_session(page)
    session.send("Network.enable")
    session.on("Network.webSocketFrameReceived", frame)
    return received


def test_a_page_wide_change_redraws_the_views_not_the_controls(browser_page):
    """d_model (the sidebar) reruns the heatmap page's three drawings alone: its charts and the
    worked entry come again, no slider does but the zoom window's corner (not the sidebar's,
    not the heatmap view's own), and the link follows."""
    browser_page.open("/heatmap?positions=64", charts=2)
    page = browser_page.page
    received = received_elements(page)
    change_slider(browser_page, "d_model")
    kinds = [kind for kind, _ in received]
    # The zoom view's two corner sliders, whose first dimension's ends at the last.
    assert kinds.count("slider") == 2 and "radio" not in kinds, kinds
    assert "heading" in kinds  # the worked example's view, whose help names the last dimension
    assert kinds.count("bidi_component") + kinds.count("plotly_chart") == 2, kinds
    assert "d_model=160" in page.url  # the next stop after 128: a head width
    page.wait_for_timeout(400)  # the link element re-reads the address bar every 250 ms
    assert page.locator(".pe-link code").inner_text() == page.url
    assert browser_page.exceptions() == []


def change_slider(seen, key: str) -> None:
    """One stop up on slider `key`, waited for until a chart shows new data."""
    page = seen.page
    before = page.evaluate(browser_support.CHART_SIGNATURE_JS)
    address = page.url
    page.locator(f".st-key-{key} input[type=range]").first.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(f"(b) => ({browser_support.CHART_SIGNATURE_JS})() !== b", arg=before)
    seen.wait_idle()
    assert page.url != address


# A page-wide slider of each page whose page-wide changes rerun its drawings alone
# (docs/design.md); word-position and order rerun the page.
PAGE_WIDE_SLIDERS = [("/wavelengths", "positions"), ("/similarity", "positions"),
                     ("/vit-grid", "grid_h"), ("/learned-vs-sinusoidal", "positions"),
                     ("/rope", "d_head"), ("/alibi", "num_heads"),
                     ("/extrapolation", "train_length")]


def test_a_page_wide_change_does_not_send_the_sidebar_again(browser_page):
    """On every page but word-position and order, a page-wide control's change reruns the
    parts drawn with it (keyed fragments): nothing in the sidebar is sent again, nor the title,
    and the charts show the new value (a part that read a stale value would draw the old one:
    tests/test_browser_control_effects.py compares them with a fresh load)."""
    for path, key in PAGE_WIDE_SLIDERS:
        browser_page.open(path, charts=1, timeout=120_000)
        received = received_elements(browser_page.page)
        change_slider(browser_page, key)
        sent = [(kind, where) for kind, where in received]
        assert not [s for s in sent if s[1][:1] == (1,)], (path, sent)  # the sidebar's root
        assert "heading" not in [kind for kind, where in sent if len(where) == 2], (path, sent)
        assert browser_page.exceptions() == [], path
