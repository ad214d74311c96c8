"""A model's config in headless Chromium: two presets side by side on the RoPE page (English,
Chinese, presentation mode at 1920 x 1080) with no chart text colliding, `factor` following the
config and the link, pasted config.json files that cannot be used, and the extrapolation page's
config panel. Screenshots in test-artifacts/ (rope-configs-*.png; docs/screenshots/ has copies).
"""

from __future__ import annotations

import json

import pytest

from tests import browser_support
from tests.conftest import ARTIFACTS
from tests.test_browser_share import new_page

pytestmark = pytest.mark.browser

SIDE_BY_SIDE = "/rope?config=llama-3.1-8b&compare=qwen2.5-7b-yarn"
SIX_CHARTS = ["config_wavelengths_chart", "compare_wavelengths_chart", "config_angles_chart",
              "compare_angles_chart", "config_logits_chart", "compare_logits_chart"]


def chart_keys(page) -> list[str]:
    """The `key` of every drawn chart (Streamlit's class st-key-<key> on its container)."""
    return page.evaluate(
        "() => [...document.querySelectorAll('.js-plotly-plot')].map(gd => {"
        " const box = gd.closest('[class*=\"st-key-\"]');"
        " return box ? [...box.classList].find(c => c.startsWith('st-key-')).slice(7) : null; })"
    )


def wait_for_charts(seen, count: int) -> None:
    seen.wait_idle(timeout=120_000)
    seen.page.wait_for_function(
        "n => document.querySelectorAll('.js-plotly-plot .main-svg').length >= n", arg=count,
        timeout=60_000)
    seen.page.wait_for_timeout(800)  # plotly's text layout after the last paint


def alerts(page) -> str:
    return "\n".join(page.locator('[data-testid="stAlert"]').all_inner_texts())


def choose(seen, key: str, option: str) -> None:
    """Click option `option` of radio `key` (its text is the URL value), as a visitor does."""
    seen.page.locator(f".st-key-{key} label").filter(has_text=option).first.click()
    seen.wait_idle()


def query(page) -> str:
    return page.url.split("?", 1)[1] if "?" in page.url else ""


@pytest.mark.parametrize(("name", "suffix", "width", "height"), [
    ("en-1440", "", 1440, 900),
    ("zh-1440", "&lang=zh", 1440, 900),
    ("present-1920", "&present=1", 1920, 1080),
    ("zh-present-1920", "&present=1&lang=zh", 1920, 1080),
])
def test_two_presets_side_by_side(browser, app_url, name, suffix, width, height):
    seen = new_page(browser, app_url)
    try:
        page = seen.page
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{app_url}{SIDE_BY_SIDE}{suffix}")
        wait_for_charts(seen, 6)
        assert chart_keys(page) == SIX_CHARTS
        assert "view=config" in page.url and "compare=qwen2.5-7b-yarn" in page.url
        assert "factor=" not in page.url  # the config's own: 8
        if "present=1" in suffix:  # on a slide the view's controls are folded: unfold them
            page.get_by_text("控件" if "lang=zh" in suffix else "Controls",
                             exact=True).first.click()
            page.wait_for_timeout(300)
        assert browser_support.shown_value(page, "factor") == "8"
        assert seen.exceptions() == [] and seen.dialogs == []
        assert page.evaluate(browser_support.CHART_TEXT_PROBLEMS_JS) == []
        table = page.locator('[data-testid="stTable"]').first.inner_text()
        assert "Qwen/Qwen2.5-7B-Instruct config.json" in table  # the numbers' sources
        assert "meta-llama/Llama-3.1-8B config.json" in table
        # The shot: the first row of charts, the two configs side by side, at the window's top.
        # (Streamlit's header covers the window's top 60 px: the chart's title just below it.)
        page.locator(".st-key-config_wavelengths_chart").evaluate(
            "e => { e.scrollIntoView({block: 'start'});"
            " for (const s of [window, document.querySelector('[data-testid=stMain]')])"
            " if (s) s.scrollBy(0, -70); }")
        page.wait_for_timeout(500)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"rope-configs-{name}.png"))
    finally:
        page.context.close()


def test_factor_follows_the_config_unless_the_link_carries_it(browser_page):
    seen, page = browser_page, browser_page.page
    seen.open("/rope?config=llama-3.1-8b", charts=3)
    assert query(page) == "view=config"  # a config without a view: the config view
    assert browser_support.shown_value(page, "factor") == "8"
    seen.open("/rope?config=llama-3.1-8b&factor=16", charts=3)
    assert sorted(query(page).split("&")) == ["factor=16", "view=config"]
    assert browser_support.shown_value(page, "factor") == "16"
    assert "llama3 ×16" in page.locator('[data-testid="stTable"]').first.inner_text()
    choose(seen, "config", "qwen2.5-7b-yarn")  # another config: its own factor, not 16
    assert browser_support.shown_value(page, "factor") == "4"
    assert sorted(query(page).split("&")) == ["config=qwen2.5-7b-yarn", "view=config"]
    choose(seen, "view", "extension")  # factor's other meaning: the extension's default 4
    assert browser_support.shown_value(page, "factor") == "4" and "factor=" not in page.url
    choose(seen, "view", "config")
    # A factor set by its slider is in the link, and the link gives it back.
    page.locator('.st-key-factor input[type="range"]').first.focus()
    page.keyboard.press("ArrowRight")
    seen.wait_idle()
    page.wait_for_function("() => location.href.includes('factor=5')", timeout=10_000)
    link = page.url
    seen.open(link.replace(seen.base_url, ""), charts=3)
    assert browser_support.shown_value(page, "factor") == "5"
    assert "yarn ×5" in page.locator('[data-testid="stTable"]').first.inner_text()
    assert seen.exceptions() == []


def test_links_to_the_other_rope_views_keep_their_factor(browser_page):
    seen, page = browser_page, browser_page.page
    seen.open("/rope?view=extension&factor=8", charts=1)
    assert browser_support.shown_value(page, "factor") == "8"
    page.get_by_text("Context extension ×8").first.wait_for(state="attached", timeout=30_000)
    assert chart_keys(page) == ["extension_chart"]
    assert seen.exceptions() == []


def paste(seen, text: str) -> None:
    box = seen.page.locator(".st-key-pasted_config textarea")
    if not box.is_visible():
        seen.page.locator('[data-testid="stExpander"] summary').filter(
            has_text="config.json").first.click()
    box.fill(text)
    box.press("Control+Enter")  # a text area sends its text on Ctrl+Enter or when it loses focus
    seen.wait_idle()


BAD_PASTES = [
    ("[" * 200_000 + "]" * 200_000, "config has 400000 characters: at most 65536"),
    ('{"head_dim": 128, "x": "' + "a" * 1_000_000 + '"}', "has 1000026 characters: at most"),
    ('{"a": ' * 20 + "1" + "}" * 20, "nests deeper than 8 levels"),
    ('{"head_dim": 128, "max_position_embeddings": 4096, "rope_theta": NaN}', "NaN"),
    ('{"max_position_embeddings": 4096, "rope_theta": 10000}', "no head width: give head_dim"),
    ('{"head_dim": 64, "max_position_embeddings": 8, "rope_scaling": '
     '{"type": "<img src=x onerror=alert(1)>", "factor": 2}}', "<img src=x onerror=alert(1)>"),
]


def test_unusable_pasted_configs_give_notices_and_keep_the_preset(browser_page):
    seen, page = browser_page, browser_page.page
    seen.open("/rope?view=config", charts=3)
    for text, field in BAD_PASTES:
        paste(seen, text)
        # the rerun that answers a paste can start after wait_idle saw the page idle: wait for it
        page.locator('[data-testid="stAlert"]').filter(has_text=field).first.wait_for(
            timeout=30_000)
        shown = alerts(page)
        assert "The pasted config.json is not used (the preset is)" in shown, field
        assert field in shown, (field, shown[:300])
        assert chart_keys(page) == ["config_wavelengths_chart", "config_angles_chart",
                                    "config_logits_chart"]
        assert "Llama 3.1 8B" in page.locator('[data-testid="stTable"]').first.inner_text()
        assert seen.exceptions() == []
    assert page.locator('img[src="x"]').count() == 0 and seen.dialogs == []
    good = {"head_dim": 64, "max_position_embeddings": 8192, "rope_theta": 10000.0,
            "rope_scaling": {"type": "linear", "factor": 2}}
    paste(seen, json.dumps(good))
    assert "The pasted config.json is not used" not in alerts(page)
    assert "Pasted config.json" in page.locator('[data-testid="stTable"]').first.inner_text()
    assert "pasted" not in page.url and "head_dim" not in page.url  # never in the link
    seen.screenshot("rope-configs-pasted")


def test_extrapolation_panel_for_a_config(browser_page):
    seen, page = browser_page, browser_page.page
    seen.open("/extrapolation?config=llama-3.1-8b&factor=12&compare=qwen2.5-7b-yarn", charts=4)
    assert browser_support.shown_value(page, "factor") == "12"
    page.get_by_text("Largest angle of each pair · Llama 3.1 8B, factor 12").first.wait_for(
        state="attached", timeout=30_000)
    keys = chart_keys(page)
    assert "rope_chart" in keys and "compare_rope_chart" in keys
    assert page.evaluate(browser_support.CHART_TEXT_PROBLEMS_JS) == []
    assert seen.exceptions() == []
    seen.screenshot("rope-configs-extrapolation")
