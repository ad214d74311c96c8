"""A model's config in headless Chromium: two presets side by side and three configs overlaid on
the RoPE page (English, Chinese, presentation mode at 1920 x 1080) with no chart text colliding,
`factor` following the config and the link, variants pinned through the page and their link
opened in a fresh browser, pasted config.json files (usable ones travel in the link, unusable
ones get a notice), a paste without a head width drawn at the `head_dim` control's, the
difference view (each config minus a baseline) with every line in its legend, and the
extrapolation page's config panel. Screenshots in test-artifacts/ (rope-configs-*.png,
rope-difference.png; docs/screenshots/ has copies).
"""

from __future__ import annotations

import json
import re
from urllib.parse import urlencode

import pytest

from tests import browser_support
from tests.conftest import ARTIFACTS, new_page

pytestmark = pytest.mark.browser

SIDE_BY_SIDE = "/rope?config=llama-3.1-8b&compare=qwen2.5-7b-yarn&arrange=side"
SIX_CHARTS = ["config_wavelengths_chart", "compare_wavelengths_chart", "config_angles_chart",
              "compare_angles_chart", "config_logits_chart", "compare_logits_chart"]
# Llama 3.1 unscaled and with llama3 x16 pinned, and YaRN x16 with beta_fast 24 on the controls:
# the long-context engineer's question, one link (ui/rope_codes.py makes the overlay code).
OVERLAID = ("/rope?view=config&rope_type=yarn&factor=16&beta_fast=24&overlay=eNqLrlbKU7JS8slJz"
            "E1UMNYzVLBwUji0XSElNS2xNKdESUepACibA5LVBcrqWiQBhUqAQjAFtTrYDUhLTC7JL1IwNMNuRJqSVbUSRI"
            "2SlaFZbW0sAPASKIE")
THREE_CHARTS = ["config_wavelengths_chart", "config_angles_chart", "config_logits_chart"]


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
    """Click option `option` (its URL value) of radio `key` by its label, as a visitor does."""
    browser_support.radio_option(seen.page, key, option).first.click()
    seen.wait_idle()


def query(page) -> str:
    return page.url.split("?", 1)[1] if "?" in page.url else ""


def type_and_see(seen, box, text: str, in_url: str, in_table: str) -> None:
    """Type `text` into `box` and press Enter: the URL then holds `in_url`, the config table
    `in_table`."""
    box.fill(text)
    box.press("Enter")
    seen.page.wait_for_function(f"() => location.href.includes({in_url!r})", timeout=30_000)
    seen.wait_idle()
    seen.page.locator('[data-testid="stTable"]').filter(has_text=in_table).first.wait_for(
        timeout=30_000)


@pytest.mark.parametrize(("arrange", "name", "suffix", "width", "height"), [
    ("side", "en-1440", "", 1440, 900),
    ("side", "zh-present-1920", "&present=1&lang=zh", 1920, 1080),
    ("overlay", "zh-1440", "&lang=zh", 1440, 900),
    ("overlay", "present-1920", "&present=1", 1920, 1080),
])

def test_configs_side_by_side_and_overlaid(browser, app_url, arrange, name, suffix, width,
                                           height):
    seen = new_page(browser, app_url)
    try:
        page = seen.page
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{app_url}{SIDE_BY_SIDE if arrange == 'side' else OVERLAID}{suffix}")
        wait_for_charts(seen, 6 if arrange == "side" else 3)
        assert chart_keys(page) == (SIX_CHARTS if arrange == "side" else THREE_CHARTS)
        assert "view=config" in page.url
        if "present=1" in suffix:  # on a slide the view's controls are folded: unfold them
            for folded in page.get_by_text("控件" if "lang=zh" in suffix else "Controls",
                                           exact=True).all():
                folded.click()
            page.wait_for_timeout(300)
        if arrange == "side":
            assert "compare=qwen2.5-7b-yarn" in page.url
            assert "factor=" not in page.url  # the config's own: 8
            assert browser_support.shown_value(page, "factor") == "8"
        else:
            assert browser_support.shown_value(page, "factor") == "16"
        assert seen.exceptions() == [] and seen.dialogs == []
        assert page.evaluate(browser_support.CHART_TEXT_PROBLEMS_JS) == []
        table = page.locator('[data-testid="stTable"]').first.inner_text()
        assert "meta-llama/Llama-3.1-8B config.json" in table  # the numbers' sources
        if arrange == "side":
            assert "Qwen/Qwen2.5-7B-Instruct config.json" in table
        else:
            assert all(method in table for method in ("yarn ×16", "llama3 ×16"))
        name = name if arrange == "side" else f"overlay-{name}"
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
        seen.close()


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
    ('{"head_dim": 127, "max_position_embeddings": 8}', "rotated head width is 127"),
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
    assert "pasted 1" in page.locator('[data-testid="stTable"]').first.inner_text()
    # Its RoPE fields travel in the link (compressed: never the text), with its name.
    type_and_see(seen, page.locator(".st-key-name input").first, "My 8k model", "name=My",
                 "My 8k model")
    assert "pasted=" in page.url and "head_dim" not in page.url
    seen.screenshot("rope-configs-pasted")
    link = page.url
    fresh = new_page(seen.page.context.browser, seen.base_url, fresh=True)
    try:
        fresh.page.goto(link)
        wait_for_charts(fresh, 3)
        table = fresh.page.locator('[data-testid="stTable"]').first.inner_text()
        assert "My 8k model" in table and "linear ×2" in table and "Llama 3.1 8B" not in table
        assert fresh.exceptions() == [] and fresh.page.url == link
    finally:
        fresh.close()


def test_variants_pinned_through_the_page_open_the_same_in_a_fresh_browser(browser_page):
    """Llama 3.1 unscaled, with llama3 x16 and with YaRN x16 and beta_fast 24, built by clicks:
    the link opens the same table, legend and charts elsewhere."""
    seen, page = browser_page, browser_page.page
    seen.open("/rope?view=config", charts=3)

    def pin(count: int) -> None:
        page.locator(".st-key-pin_config button").first.click()
        seen.wait_idle()
        page.locator(".st-key-unpin_" + str(count - 1)).first.wait_for(timeout=30_000)

    choose(seen, "rope_type", "default")
    pin(1)
    choose(seen, "rope_type", "llama3")
    page.locator('.st-key-factor input[type="range"]').first.focus()
    for _ in range(8):
        page.keyboard.press("ArrowRight")
    page.wait_for_function("() => location.href.includes('factor=16')", timeout=30_000)
    seen.wait_idle()
    pin(2)
    choose(seen, "rope_type", "yarn")
    page.locator('[data-testid="stExpander"] summary').filter(
        has_text="rope_scaling fields").first.click()
    beta = page.locator(".st-key-beta_fast input").first
    beta.fill("24")
    beta.press("Enter")
    page.wait_for_function("() => location.href.includes('beta_fast=24')", timeout=30_000)
    seen.wait_idle()
    browser_support.wait_charts_drawn(page)
    link = page.url
    table = page.locator('[data-testid="stTable"]').first.inner_text()
    legend = page.evaluate(LEGEND_JS)
    assert "yarn ×16" in table and "llama3 ×16" in table and "no scaling" in table
    assert any("beta_fast 24" in name for name in legend), legend
    charts = page.evaluate(browser_support.CHART_SIGNATURE_JS)
    fresh = new_page(page.context.browser, seen.base_url, fresh=True)
    try:
        fresh.page.goto(link)
        wait_for_charts(fresh, 3)
        browser_support.wait_charts_drawn(fresh.page)
        assert fresh.page.url == link
        assert fresh.page.locator('[data-testid="stTable"]').first.inner_text() == table
        assert fresh.page.evaluate(LEGEND_JS) == legend
        assert fresh.page.evaluate(browser_support.CHART_SIGNATURE_JS) == charts
        assert fresh.exceptions() == [] and seen.exceptions() == []
    finally:
        fresh.close()


LEGEND_JS = """() => [...document.querySelectorAll('.st-key-config_logits_chart .legendtext')]
  .map(e => e.textContent)"""


def test_extrapolation_panel_for_a_config(browser_page):
    seen, page = browser_page, browser_page.page
    seen.open("/extrapolation?config=llama-3.1-8b&factor=12&compare=qwen2.5-7b-yarn", charts=4)
    assert browser_support.shown_value(page, "factor") == "12"
    page.locator(".st-key-rope_chart .legendtext").filter(
        has_text="Llama 3.1 8B, factor 12").first.wait_for(state="attached", timeout=30_000)
    keys = chart_keys(page)
    assert keys[-2:] == ["rope_chart", "alibi_chart"]  # both configs on one panel
    assert page.evaluate(browser_support.CHART_TEXT_PROBLEMS_JS) == []
    assert seen.exceptions() == []
    seen.screenshot("rope-configs-extrapolation")


QWEN_SNIPPET = ('{"rope_theta": 1000000.0, "max_position_embeddings": 32768, "rope_scaling": '
                '{"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}}')


def test_a_paste_without_a_head_width_gets_a_head_width_control(browser_page):
    """Qwen2.5's RoPE fields alone: drawn, with a head_dim control (128, said) beside the paste;
    64 set there is in the link, and the link opens the same view in a fresh browser."""
    seen, page = browser_page, browser_page.page
    seen.open("/rope?view=config", charts=3)
    paste(seen, QWEN_SNIPPET)
    box = page.locator(".st-key-head_dim input").first
    box.wait_for(timeout=30_000)
    assert box.input_value() == "128"
    shown = page.locator('[data-testid="stMain"]').inner_text()
    assert "The paste gives no head width" in shown
    assert "Not drawn: the pasted config.json is shown in its place" in shown
    assert alerts(page) == ""  # accepted, not refused
    type_and_see(seen, box, "64", "head_dim=64", "yarn ×4")
    link = page.url
    assert "pasted=" in link
    fresh = new_page(seen.page.context.browser, seen.base_url, fresh=True)
    try:
        fresh.page.goto(link)
        wait_for_charts(fresh, 3)
        assert fresh.page.locator(".st-key-head_dim input").first.input_value() == "64"
        rows = fresh.page.locator('[data-testid="stTable"]').first.inner_text()
        assert re.search(r"d_head \(rotated columns\)\s+64\s", rows) and "yarn ×4" in rows
        assert fresh.exceptions() == []
    finally:
        fresh.close()
    assert seen.exceptions() == []


def qwen_difference_path() -> str:
    """Qwen2.5 with beta_fast 64 on the controls, the published one pinned, their difference."""
    from core.rope_config import PRESETS
    from ui.rope_codes import pack_overlay, pinned

    overlay = pack_overlay([pinned("Qwen2.5 7B + YaRN", PRESETS["qwen2.5-7b-yarn"], None, {})])
    return "/rope?" + urlencode({"view": "config", "config": "qwen2.5-7b-yarn",
                                 "beta_fast": "64", "overlay": overlay,
                                 "arrange": "difference", "baseline": "pin1"})


def test_the_difference_view_at_1440(browser, app_url):
    """beta_fast 32 -> 64 on Qwen2.5, drawn as its difference from the published config: both
    charts, every line named in its legend, no chart text colliding. The shot: the per-pair
    difference at the window's top, at 1440 x 900."""
    seen = new_page(browser, app_url)
    try:
        page = seen.page
        page.set_viewport_size({"width": 1440, "height": 900})
        page.goto(app_url + qwen_difference_path())
        wait_for_charts(seen, 2)
        assert chart_keys(page) == ["difference_wavelengths_chart", "difference_logits_chart"]
        assert seen.exceptions() == [] and alerts(page) == ""
        assert page.evaluate(browser_support.CHART_TEXT_PROBLEMS_JS) == []
        legend = page.evaluate("""() => [...document.querySelectorAll(
            '.st-key-difference_wavelengths_chart .legendtext')].map(e => e.textContent)""")
        assert "band edge beta_fast = 64: λ = L/64 = 512" in legend
        assert "band edge beta_fast = 32: λ = L/32 = 1,024" in legend
        assert "Qwen2.5 7B + YaRN (baseline: 0)" in legend
        page.locator(".st-key-difference_wavelengths_chart").evaluate(
            "e => { e.scrollIntoView({block: 'start'});"
            " for (const s of [window, document.querySelector('[data-testid=stMain]')])"
            " if (s) s.scrollBy(0, -70); }")
        page.wait_for_timeout(500)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "rope-difference.png"))
    finally:
        seen.close()
