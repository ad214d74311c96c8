"""The RoPE, ALiBi and extrapolation pages in headless Chromium, opened by deep links."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def _drawn_charts(browser_page) -> int:
    return browser_page.page.locator(".js-plotly-plot .main-svg").count()


def _screenshot_whole_page(browser_page, name: str) -> None:
    """Streamlit scrolls inside its main section, so a full-page screenshot shows only the top:
    grow the viewport to the content's height first, let plotly re-lay out, then shoot."""
    page = browser_page.page
    height = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('section, [data-testid=stMain]')]"
        ".map(e => e.scrollHeight), document.body.scrollHeight)"
    )
    page.set_viewport_size({"width": 1400, "height": min(int(height) + 100, 12000)})
    page.wait_for_timeout(1000)
    browser_page.screenshot(name)


def _number(page, label: str) -> str:
    """The value of the number input labelled `label` (its help button has a similar label)."""
    return page.get_by_role("spinbutton", name=label, exact=True).input_value()


def test_rope_deep_link(browser_page):
    browser_page.open(
        "/rope?d_head=64&base=500000&layout=half_split&positions=300"
        "&scaling=position_interpolation&factor=8",
        charts=4,
    )
    page = browser_page.page
    assert _number(page, "d_head (even)") == "64"
    assert _number(page, "base") == "500000"
    assert page.get_by_role("radio", name="half_split").is_checked()
    assert page.get_by_role("radio", name="position_interpolation").is_checked()
    assert page.get_by_text("Relative position without adding anything").is_visible()
    assert page.get_by_text("Context extension ×8").count() >= 1
    assert browser_page.exceptions() == []
    assert browser_page.dialogs == []
    _screenshot_whole_page(browser_page, "rope-deep-link")


def test_alibi_deep_link(browser_page):
    browser_page.open("/alibi?num_heads=12&positions=64&causal=false&head=10", charts=4)
    page = browser_page.page
    assert _number(page, "num_heads") == "12"
    assert _number(page, "head to enlarge") == "10"
    assert page.get_by_text("Head 10: bias").count() >= 1
    assert browser_page.exceptions() == []
    assert browser_page.dialogs == []
    _screenshot_whole_page(browser_page, "alibi-deep-link")


def test_extrapolation_deep_link(browser_page):
    browser_page.open("/extrapolation?train_length=1024&target_length=6000&d_model=256", charts=3)
    page = browser_page.page
    assert _number(page, "train_length L") == "1024"
    assert _number(page, "target_length T") == "6000"
    assert page.get_by_text("RoPE (d_head = 256)").count() == 1
    assert _drawn_charts(browser_page) >= 3
    assert browser_page.exceptions() == []
    assert browser_page.dialogs == []
    _screenshot_whole_page(browser_page, "extrapolation-deep-link")


def test_bad_url_values_show_notices_not_tracebacks(browser_page):
    browser_page.open("/rope?d_head=7&scaling=%3Cb%3Eyarn%3C%2Fb%3E", charts=4)
    text = "\n".join(browser_page.page.locator('[data-testid="stAlert"]').all_inner_texts())
    assert "d_head=7 is not allowed" in text
    assert "scaling=<b>yarn</b> is not allowed" in text  # literal, not HTML
    assert browser_page.exceptions() == []
    assert browser_page.dialogs == []
    _screenshot_whole_page(browser_page, "rope-bad-url")
