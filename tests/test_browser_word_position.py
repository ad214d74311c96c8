"""The word-position page in headless Chromium, opened by deep links: charts drawn, no exception,
no dialog; screenshots in test-artifacts/."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from tests.browser_support import option_label

pytestmark = pytest.mark.browser

XSS = "<img src=x onerror=alert(1)>"


def alerts(browser_page) -> str:
    return "\n".join(browser_page.page.locator('[data-testid="stAlert"]').all_inner_texts())


def test_word_position_default_article(browser_page):
    browser_page.open("/word-position", charts=1)
    page = browser_page.page
    assert browser_page.exceptions() == []
    assert page.get_by_role("heading", name="Word + position").is_visible()
    assert page.get_by_text("The · 0", exact=True).is_visible()  # a token chip
    assert "the (position 4) and mat (position 5) land on the same point [1.8, 1.4]" in alerts(
        browser_page
    )
    browser_page.screenshot("word-position-article")
    page.get_by_role("heading", name="Projection").evaluate(
        "e => e.scrollIntoView({block: 'start'})"
    )
    page.wait_for_timeout(500)
    browser_page.screenshot("word-position-article-bottom")


def test_word_position_article_with_the_sinusoid(browser_page):
    browser_page.open("/word-position?encoding=sinusoidal", charts=1)
    assert "land on the same point" not in alerts(browser_page)  # real sinusoid: no collision
    assert browser_page.exceptions() == []
    browser_page.screenshot("word-position-article-sinusoidal")


def test_word_position_deep_link_minilm_3d(browser_page):
    browser_page.open("/word-position?embedding=minilm&projection=3-D", charts=1)
    page = browser_page.page
    assert browser_page.exceptions() == []
    assert page.get_by_role("radio", name=option_label("minilm"), exact=True).is_checked()
    assert page.get_by_role("radio", name=option_label("3-D"), exact=True).is_checked()
    assert page.locator(".js-plotly-plot .gl-container canvas").count() >= 1  # WebGL 3-D scene
    assert page.get_by_text("[CLS] · 0", exact=True).is_visible()
    browser_page.screenshot("word-position-minilm-3d")


def test_word_position_minilm_bert_input_2d(browser_page):
    browser_page.open("/word-position?embedding=minilm&encoding=learned&bert_input=true", charts=1)
    assert browser_page.exceptions() == []
    # the legend
    browser_page.page.get_by_text("BERT input (LayerNorm)").first.wait_for(
        state="attached", timeout=30_000)
    browser_page.screenshot("word-position-minilm-bert-input")


def test_word_position_xss_is_literal_text(browser_page):
    sentence = f"{XSS} **x**"
    browser_page.open(f"/word-position?embedding=random&sentence={quote(sentence)}", charts=1)
    page = browser_page.page
    assert browser_page.exceptions() == []
    assert page.get_by_text(f"Sentence: {sentence}", exact=True).is_visible()  # literal
    assert page.get_by_text("< · 0", exact=True).is_visible()  # a chip: the character, not a tag
    assert page.locator('img[src="x"]').count() == 0
    assert page.locator("strong", has_text="x").count() == 0  # **x** is not bold
    page.wait_for_timeout(500)
    assert browser_page.dialogs == []
    browser_page.screenshot("word-position-xss")


def test_word_position_chinese_and_bad_url(browser_page):
    browser_page.open(
        "/word-position?embedding=minilm&sentence=" + quote("猫坐在垫子上 😀") + "&seed=-3",
        charts=1,
    )
    text = alerts(browser_page)
    assert "5 of 9 tokens are [UNK]" in text
    assert "seed=-3 is out of range" in text or "seed=-3 is not allowed" in text
    assert browser_page.exceptions() == []
    browser_page.screenshot("word-position-chinese")
