"""A choice's options are read by their labels in the visitor's language (a screen reader's
accessible name, Ctrl-F, a copy), while its links keep the options' values: clicking an option
writes its value into the address bar, in place, and a fresh browser opening that address
shows the same option chosen. The labels are written out here as a Chinese reader sees them."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.conftest import new_page

pytestmark = pytest.mark.browser

# /wavelengths: the view switch ("显示", curves or clocks) and the timescales choice.
VIEW_LABELS = {"curves": "曲线", "clocks": "时钟"}
PAPER = "论文公式"  # timescales=paper, the default


def radio(page, name: str):
    """The option whose accessible name is `name`."""
    return page.get_by_role("radio", name=name, exact=True)


def click(page, name: str) -> None:
    """Click the option named `name` as a person does (on its label)."""
    page.locator("label").filter(has=radio(page, name)).click()


def test_options_are_read_in_chinese_and_links_keep_the_values(browser, app_url):
    seen = new_page(browser, app_url)
    fresh = new_page(browser, app_url, fresh=True)
    try:
        page = seen.page
        seen.open("/wavelengths?lang=zh", charts=1, timeout=120_000)
        # The accessible names are the labels alone (not "curves曲线": the value in the page
        # and the label drawn after it).
        options = page.get_by_role("radiogroup", name="显示", exact=True).get_by_role("radio")
        expect(options).to_have_count(len(VIEW_LABELS))
        for index, label in enumerate(VIEW_LABELS.values()):
            expect(options.nth(index)).to_have_accessible_name(label)
        assert radio(page, VIEW_LABELS["curves"]).is_checked()
        assert radio(page, PAPER).is_checked()
        # What a search or a copy finds: the labels, never the URL's values.
        text = page.locator(".st-key-view").inner_text()
        assert VIEW_LABELS["clocks"] in text
        assert "clocks" not in text and "curves" not in text, text

        history = page.evaluate("history.length")
        click(page, VIEW_LABELS["clocks"])
        page.wait_for_function("() => location.search.includes('view=clocks')",
                               timeout=30_000)
        seen.wait_idle(timeout=120_000)
        assert radio(page, VIEW_LABELS["clocks"]).is_checked()
        assert page.url == f"{app_url}/wavelengths?lang=zh&view=clocks"  # the value, no label
        # Written in place, as Streamlit's bound widgets write theirs: Back leaves the page.
        assert page.evaluate("history.length") == history

        fresh.open("/wavelengths?lang=zh&view=clocks", charts=1, timeout=120_000)
        assert radio(fresh.page, VIEW_LABELS["clocks"]).is_checked()
        assert not radio(fresh.page, VIEW_LABELS["curves"]).is_checked()
        assert seen.exceptions() == [] and fresh.exceptions() == []
    finally:
        seen.close()
        fresh.close()


def test_changing_the_language_keeps_the_chosen_options(browser_page):
    """The browser sends back the label an option shows: the choice stays the same when the
    labels change language with it."""
    seen, page = browser_page, browser_page.page
    seen.open("/wavelengths?lang=zh&view=clocks&timescales=tensor2tensor", charts=1,
              timeout=120_000)
    click(page, "en")  # the language switch: en (English), zh (中文)
    page.wait_for_function("() => !location.search.includes('lang=')", timeout=30_000)
    seen.wait_idle(timeout=120_000)
    assert radio(page, "clocks").is_checked()
    assert radio(page, "tensor2tensor (authors' code)").is_checked()
    assert "view=clocks" in page.url and "timescales=tensor2tensor" in page.url
    assert seen.exceptions() == []


# The address bar as the browser's side writes it on a click, and as the run then writes it
# (Streamlit reads the query with parse_qs and writes it with urlencode): the same text, or the
# browser would add a history entry per click. (query, name, value or None to drop, expected)
ADDRESSES = [
    ("lang=zh", "view", "clocks", "lang=zh&view=clocks"),
    ("view=clocks&lang=zh", "view", None, "lang=zh"),
    ("view=clocks&d_model=64", "view", "curves", "view=curves&d_model=64"),  # in its place
    ("name=My+8k+model&dims=0,1,9", "layout", "half_split",
     "name=My+8k+model&dims=0%2C1%2C9&layout=half_split"),
    ("name=a~b*c(d)!%27", "view", "x", "name=a~b%2Ac%28d%29%21%27&view=x"),
    ("name=%E6%A8%A1%E5%9E%8B", "view", "x", "name=%E6%A8%A1%E5%9E%8B&view=x"),
    ("a=1&b=2&a=3", "c", "x", "a=1&a=3&b=2&c=x"),  # a repeated parameter: together
    ("flag&x=1", "x", None, "flag="),
]


def test_the_browser_writes_the_address_as_the_server_does(browser):
    from urllib.parse import parse_qs, urlencode

    from ui.controls import _CHOICE_ADDRESS_JS

    page = browser.new_page()
    try:
        page.evaluate("src => { window.written = new Function(src.replace("
                      "'export default function', 'function unused') + '; return written;')(); }",
                      _CHOICE_ADDRESS_JS)
        for query, name, value, expected in ADDRESSES:
            fields = {k: v[0] if len(v) == 1 else v
                      for k, v in parse_qs(query, keep_blank_values=True).items()}
            if value is None:
                fields.pop(name, None)
            else:
                fields[name] = value
            assert urlencode(fields, doseq=True) == expected, query  # the server's
            assert page.evaluate("a => window.written(...a)", [query, name, value]) == expected, \
                query
    finally:
        page.close()
