"""A view's own control reaches the address bar wherever the page was before: after another view
showed it, after a page-wide change moved what stands above it.

In Streamlit 1.67 a bound widget that is drawn in another block than in the run before (its
fragment moved down the page, or another view had it in another row) still redraws its view but
no longer writes its value into the URL, so the link silently shows an older state. Each flow
below broke that way before the pages kept such controls in one block (docs/design.md)."""

from __future__ import annotations

import pytest

from tests import browser_support

# (name, the page opened, then steps: (kind, control, value) with kind one of view (the `view`
# option), radio (an option's value), toggle, slider (a key pressed on it), text (typed)), and
# (control, value) the address bar holds after the last step.
FLOWS = [
    ("vit-grid patch in the tiles, halves and 2-D RoPE views", "/vit-grid",
     [("text", "patch", "2,3"), ("view", "view", "halves"), ("text", "patch", "3,4"),
      ("view", "view", "rope"), ("text", "patch", "1,1")], ("patch", "1,1")),
    ("rope factor in the extension and config views", "/rope?config=llama-3.1-8b",
     [("radio", "config", "qwen2.5-7b-yarn"), ("view", "view", "extension"),
      ("slider", "factor", "ArrowRight"), ("view", "view", "config"),
      ("slider", "factor", "ArrowRight")], ("factor", "5")),
    ("alibi causal in the heads and T5 views", "/alibi?view=heads",
     [("toggle", "causal", ""), ("view", "view", "t5"), ("toggle", "causal", ""),
      ("toggle", "causal", "")], ("causal", "false")),
    ("similarity metric and anchor across views", "/similarity?view=matrix",
     [("radio", "metric", "dot"), ("view", "view", "offset"), ("slider", "anchor", "ArrowRight"),
      ("view", "view", "rotation"), ("slider", "anchor", "ArrowRight")], ("anchor", "66")),
    ("word-position projection after a page-wide change", "/word-position",
     [("radio", "embedding", "random"), ("radio", "projection", "3-D")], ("projection", "3-D")),
    ("extrapolation config after the lengths change", "/extrapolation?target_length=2048",
     [("slider", "target_length", "ArrowRight"), ("radio", "config", "mistral-7b")],
     ("config", "mistral-7b")),
]


def act(seen, kind: str, name: str, value: str) -> None:
    page = seen.page
    box = page.locator(f".st-key-{name}").first
    if kind in ("view", "radio"):
        browser_support.radio_option(page, name, value).first.click()
    elif kind == "toggle":
        box.locator("label").first.click()
    elif kind == "slider":
        box.locator("input[type=range]").first.focus()
        page.keyboard.press(value)
    else:
        field = box.locator("input, textarea").first
        field.fill(value)
        field.press("Enter")
    page.wait_for_timeout(300)
    seen.wait_idle(timeout=120_000)


@pytest.mark.parametrize(("path", "steps", "expected"), [flow[1:] for flow in FLOWS],
                         ids=[flow[0] for flow in FLOWS])
def test_a_views_control_reaches_the_address_bar(browser_page, path, steps, expected):
    seen = browser_page
    seen.open(path, charts=1, timeout=120_000)
    for kind, name, value in steps:
        act(seen, kind, name, value)
    name, value = expected
    wanted = f"{name}={value.replace(',', '%2C')}"
    try:
        seen.page.wait_for_function("w => location.search.includes(w)", arg=wanted,
                                    timeout=10_000)
    except Exception:
        raise AssertionError(f"{wanted} is not in the address bar: {seen.page.url}") from None
    assert seen.exceptions() == []
