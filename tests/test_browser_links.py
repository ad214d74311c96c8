"""Every control of every page, set through its widget in Chromium, ends up in the link: for each
page, each view in turn is chosen and every control it shows is changed once as a person changes
it (a slider by an arrow key, a number box by its + button, an option or a switch by a click, a
text box typed into), the heatmap's fragment controls included. After each view the "Link to
this view" box shows the address bar's link; at the end a fresh browser opening that link keeps
it in its address bar, draws the same charts and shows the same value in every control."""

from __future__ import annotations

import pytest

from tests import browser_support
from tests.browser_support import option_label
from tests.conftest import BrowserPage, new_page
from tests.test_browser_share import same_link, shown_link
from ui.pages import PAGE_PARAMS, PAGES
from ui.params import BoolParam, ChoiceParam, FloatParam, IntParam, TextParam

pytestmark = pytest.mark.browser

# What is typed into a text control (each accepted by its page: a notice would also pass, but
# these are the values a person would try).
TYPED = {"dims": "0,1,9", "patch": "2,3", "sentence": "A dog ran to the park",
         "text": "A dog ran to the park", "other": "The park ran to a dog"}

# The option a choice is set to when not simply the first other one: a config whose rope_scaling
# has a factor (the extrapolation page shows `factor` only then); YaRN, the method with the most
# rope_scaling fields (the RoPE config view shows a method's fields only).
CHOSEN = {"config": "llama-3.1-8b", "rope_type": "yarn"}

# Controls that no view shows with the page's other controls at their defaults, and why.
NOT_REACHED = {
    # Shown only with embedding=random / encoding=learned and BERT's inputs: the word-position
    # tests change them (tests/test_app_word_position.py); here the page keeps its article preset.
    "word-position": {"seed", "bert_input", "special_tokens"},
    # The RoPE config view's pinned and pasted configs are set by its Pin button and paste box,
    # not typed (tests/test_browser_rope_config.py opens such a link fresh); llama3's two
    # fields show only while the method is llama3, and here it becomes yarn; `baseline` only
    # with arrange=difference (here arrange becomes side), `head_dim` and
    # `max_position_embeddings` only for a pasted config without a head width or a context
    # (tests/test_rope_config_pages.py and test_browser_rope_config.py).
    "rope": {"overlay", "pasted", "name", "low_freq_factor", "high_freq_factor", "baseline",
             "head_dim", "max_position_embeddings"},
    # An upload without a file stops the page at its notice (no views to walk), so `source` is
    # kept (KEPT): the upload's link is tested with a file (tests/test_browser_learned_upload.py);
    # its file, tensor and grid shape are written by the page, not typed.
    "learned-vs-sinusoidal": {"source", "file", "tensor", "grid"},
}
# Controls on screen that this walk leaves as they are (NOT_REACHED says why).
KEPT = {"learned-vs-sinusoidal": {"source"}}

# A control in a folded expander (the RoPE config view's rope_scaling fields) is on screen once
# the expander is opened: it is opened, as a person would.
_UNFOLD_JS = """e => { const d = e.closest('details');
  if (!d || d.open) return false; d.querySelector('summary').click(); return true; }"""


def unfold(seen: BrowserPage, box) -> None:
    if box.count() and not box.first.is_visible() and box.first.evaluate(_UNFOLD_JS):
        seen.page.wait_for_timeout(300)


def control_value(seen: BrowserPage, name: str) -> str | None:
    """What control `name` shows: a slider's or box's value, the checked option, a switch's
    state; None when it is not on screen."""
    box = seen.page.locator(f".st-key-{name}")
    unfold(seen, box)
    if box.count() == 0 or not box.first.is_visible():
        return None
    checked = box.locator("label:has(input[type=radio]:checked)")
    if checked.count():  # the option's label, as a person reads it
        return checked.first.text_content().strip()
    for selector, read in (("input[type=range]", "e => e.value"),
                           ("input[type=checkbox]", "e => String(e.checked)"),
                           ("input, textarea", "e => e.value")):
        found = box.locator(selector)
        if found.count():
            return found.first.evaluate(read)
    return None


def change(seen: BrowserPage, spec) -> bool:
    """Change control `spec.name` once through its widget and wait for the address bar to
    follow; False when it is not on screen (hidden in this view)."""
    page = seen.page
    box = page.locator(f".st-key-{spec.name}")
    unfold(seen, box)
    if box.count() == 0 or not box.first.is_visible():
        return False
    before = page.url
    attempts = []
    if isinstance(spec, ChoiceParam):
        wanted = CHOSEN.get(spec.name)
        if wanted is not None and control_value(seen, spec.name) != option_label(wanted):
            attempts.append(lambda: option(seen, spec.name, wanted).first.click())
        else:
            attempts.append(lambda: box.locator("label:has(input:not(:checked))").first.click())
    elif isinstance(spec, BoolParam):
        attempts.append(lambda: box.locator("label").first.click())
    elif isinstance(spec, TextParam):
        def typed():
            field = box.locator("input, textarea").first
            field.fill(TYPED[spec.name])
            field.press("Enter")
        attempts.append(typed)
    elif box.locator("input[type=range]").count():
        for key in ("ArrowRight", "ArrowLeft"):  # the other way at the end of the scale
            attempts.append(lambda key=key: (box.locator("input[type=range]").first.focus(),
                                             page.keyboard.press(key)))
    else:
        for button in ("stNumberInputStepUp", "stNumberInputStepDown"):
            attempts.append(lambda button=button: box.locator(
                f'[data-testid="{button}"]').first.click())
    for attempt in attempts:
        attempt()
        try:  # the rerun writes the address bar
            page.wait_for_function("u => location.href !== u", arg=before, timeout=5_000)
        except Exception:
            seen.wait_idle(timeout=120_000)  # a slow rerun, or one that changed nothing
            if page.url == before:
                continue
        seen.wait_idle(timeout=120_000)
        return True
    raise AssertionError(f"{spec.name}: no change reached the address bar")


def option(seen: BrowserPage, name: str, value: str):
    """The radio option of choice `name` whose URL value is `value` (found by its label)."""
    return browser_support.radio_option(seen.page, name, value)


def choose_view(seen: BrowserPage, view: str) -> None:
    page = seen.page
    if control_value(seen, "view") == option_label(view):
        return
    before = page.url
    option(seen, "view", view).first.click()
    page.wait_for_function("u => location.href !== u", arg=before, timeout=30_000)
    seen.wait_idle(timeout=120_000)
    # On a loaded machine the view's rerun may begin after the page looked idle: wait until
    # the view shown is the one chosen and its charts are drawn before looking for controls.
    page.wait_for_function(
        "v => { const c = document.querySelector('.st-key-view label:has(input:checked)');"
        " return c && c.textContent.trim() === v; }", arg=option_label(view), timeout=60_000)
    page.wait_for_timeout(300)
    seen.wait_idle(timeout=120_000)


def link_matches_address_bar(seen: BrowserPage) -> None:
    seen.page.wait_for_timeout(400)  # the link element re-reads the address bar every 250 ms
    link = shown_link(seen)
    assert same_link(link, seen.page.url), (link, seen.page.url)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.url_path)
def test_every_control_set_through_its_widget_is_in_the_link(browser, app_url, page):
    specs = [s for s in PAGE_PARAMS[page.url_path]
             if isinstance(s, IntParam | FloatParam | ChoiceParam | BoolParam | TextParam)]
    views = next((s.choices for s in specs if s.name == "view"), (None,))
    first = new_page(browser, app_url)
    fresh = new_page(browser, app_url, fresh=True)
    try:
        first.open(f"/{page.url_path}", charts=1, timeout=120_000)
        changed: set[str] = set()
        for view in views:
            if view is not None:
                choose_view(first, view)
            for _ in range(2):  # again: a control an earlier change brought on screen
                for spec in specs:
                    if (spec.name != "view" and spec.name not in changed
                            and spec.name not in KEPT.get(page.url_path, set())
                            and change(first, spec)):
                        changed.add(spec.name)
            link_matches_address_bar(first)
            assert first.exceptions() == [], (view, first.exceptions())
        expected_changed = {s.name for s in specs if s.name != "view"} - NOT_REACHED.get(
            page.url_path, set())
        assert changed >= expected_changed, sorted(expected_changed - changed)

        link = shown_link(first)
        browser_support.wait_charts_drawn(first.page)
        charts = first.page.evaluate(browser_support.CHART_SIGNATURE_JS)
        values = {s.name: control_value(first, s.name) for s in specs}
        fresh.page.goto(link)
        fresh.wait_idle(timeout=120_000)
        fresh.page.wait_for_function(
            "n => document.querySelectorAll('.js-plotly-plot .main-svg').length >= n",
            arg=charts.count("|") + 1, timeout=60_000)
        fresh.wait_idle(timeout=120_000)
        browser_support.wait_charts_drawn(fresh.page)
        assert same_link(fresh.page.url, link), (fresh.page.url, link)
        assert fresh.page.evaluate(browser_support.CHART_SIGNATURE_JS) == charts
        assert {s.name: control_value(fresh, s.name) for s in specs} == values
        assert fresh.exceptions() == []
        fresh.screenshot(f"round-trip-{page.url_path}")
    finally:
        first.close()
        fresh.close()
