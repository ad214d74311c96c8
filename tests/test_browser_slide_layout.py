"""A slide is one screen, read from the back row: every slide of the tour and of a five-slide
deck shows its charts whole, without scrolling, on at least 40% of the screen, at 1920 x 1080
and 1280 x 720, in English and Chinese, light and dark; at 1920 x 1080 every text a chart draws
is at least 16 px, in the theme's own text colour. Every panel (each subplot's plot area) is
readable: at least 25% of its chart's height, and 200 px at 1920 x 1080; no tick label lies on
another of its axis; every legend lies inside its chart; and the Controls fold never sits between
two charts. On a phone held upright no chart title, modebar
or the slide's title lies under another or under the player's bar. And the presenter's window
keeps in step with the audience's, both ways, and blanks it."""

from __future__ import annotations

import pytest

from tests import browser_support
from tests.conftest import new_page
from ui.tour import TOUR, Slide, encode_deck

pytestmark = pytest.mark.browser

# Views the tour does not show, as a deck a lecturer makes of them (and a note on one).
DECK = (
    Slide("similarity", {"view": "anchor"}),
    Slide("alibi", {"view": "t5"}, note="T5 learns a bias per bucket of distances"),
    Slide("rope", {"view": "decay"}),
    Slide("learned-vs-sinusoidal", {"view": "space"}),
    Slide("vit-grid", {"view": "halves"}),
)

# The slide's charts as drawn (those on screen), against the window, and every text they draw.
SLIDE_JS = """() => {
  const width = innerWidth, height = innerHeight;
  const textColour = getComputedStyle(document.querySelector('[data-testid="stApp"]')).color;
  const charts = [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')]
    .filter(gd => gd.getBoundingClientRect().width > 0);
  let area = 0;
  const cut = [], small = [], coloured = [];
  for (const gd of charts) {
    const r = gd.getBoundingClientRect();
    if (r.top < -1 || r.left < -1 || r.bottom > height + 1 || r.right > width + 1) {
      cut.push([Math.round(r.left), Math.round(r.top), Math.round(r.right),
                Math.round(r.bottom)]);
    }
    area += Math.max(0, Math.min(r.right, width) - Math.max(r.left, 0))
      * Math.max(0, Math.min(r.bottom, height) - Math.max(r.top, 0));
    for (const text of gd.querySelectorAll('.main-svg text')) {
      if (!text.textContent.trim() || text.getBoundingClientRect().width < 1) continue;
      const look = getComputedStyle(text);
      const what = text.textContent.trim().slice(0, 30);
      if (parseFloat(look.fontSize) < 16) small.push([what, look.fontSize]);
      if (look.fill !== textColour) coloured.push([what, look.fill]);
    }
  }
  // Each panel: its plot area (plotly's drag rectangle over it) against its chart's height;
  // each legend inside its chart; tick labels of one axis apart.
  const panels = [], legends = [], ticks = [];
  const apart = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) <= 1
    || Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) <= 1;
  for (const gd of charts) {
    const r = gd.getBoundingClientRect();
    const name = (gd.querySelector('.gtitle')?.textContent || '').trim().slice(0, 24);
    for (const drag of gd.querySelectorAll('.draglayer .nsewdrag')) {
      const plot = drag.getBoundingClientRect().height;
      if (plot < 0.25 * r.height || (height >= 1080 && plot < 200)) {
        panels.push([name, Math.round(plot), Math.round(r.height)]);
      }
    }
    for (const legend of gd.querySelectorAll('.legend')) {
      const l = legend.getBoundingClientRect();
      if (l.width > 0 && (l.left < r.left - 1 || l.right > r.right + 1 || l.top < r.top - 1
                          || l.bottom > r.bottom + 1)) {
        legends.push([name, Math.round(l.left - r.left), Math.round(r.right - l.right),
                      Math.round(l.top - r.top), Math.round(r.bottom - l.bottom)]);
      }
    }
    for (const layer of gd.querySelectorAll('.xaxislayer-above, .yaxislayer-above')) {
      const labels = [...layer.querySelectorAll('text')].filter(t => t.textContent.trim())
        .map(t => [t.textContent.trim(), t.getBoundingClientRect()]).filter(([, b]) => b.width);
      for (let i = 1; i < labels.length; i++) {
        const j = labels.findIndex(([, b], k) => k < i && !apart(b, labels[i][1]));
        if (j >= 0) ticks.push([name, labels[j][0], labels[i][0]]);
      }
    }
  }
  // The Controls fold with a chart wholly above it and another wholly below.
  const folds = document.querySelectorAll('[data-testid="stMain"] [data-testid="stExpander"]');
  const between = [...folds]
    .map(fold => fold.getBoundingClientRect()).filter(f => f.height > 0)
    .some(f => charts.some(gd => gd.getBoundingClientRect().bottom <= f.top + 1)
               && charts.some(gd => gd.getBoundingClientRect().top >= f.bottom - 1));
  const main = document.querySelector('[data-testid="stMain"]');
  return {charts: charts.length, share: area / (width * height), cut, small: small.slice(0, 5),
          coloured: coloured.slice(0, 5), scrolls: main.scrollHeight > main.clientHeight + 1,
          panels: panels.slice(0, 5), legends, ticks: ticks.slice(0, 5), between};
}"""


def next_slide(seen, number: int) -> None:
    """The clicker's key to slide `number`, and its run."""
    seen.page.keyboard.press("ArrowRight")
    seen.page.wait_for_function(
        "n => document.querySelector('.pe-tour-count').textContent.startsWith(n + ' ')",
        arg=number, timeout=60_000)
    seen.wait_idle(timeout=120_000)
    seen.page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=stMain] .js-plotly-plot')]"
        ".some(gd => gd.querySelector('.main-svg'))", timeout=120_000)


def walk(seen, count: int, *, check_text: bool) -> dict:
    """Every slide from the first, by the clicker's key: what is wrong with each, by number."""
    wrong = {}
    for number in range(1, count + 1):
        if number > 1:
            next_slide(seen, number)
        browser_support.wait_charts_drawn(seen.page)
        found = seen.page.evaluate(SLIDE_JS)
        problems = {k: found[k] for k in ("cut", "small", "coloured", "panels", "legends",
                                          "ticks", "between") if found[k]}
        if not check_text:
            problems.pop("small", None)
            problems.pop("coloured", None)
        if found["share"] < 0.4:
            problems["share"] = round(found["share"], 2)
        if found["scrolls"]:
            problems["scrolls"] = True
        if problems:
            wrong[number] = problems
            seen.screenshot(f"slide-layout-{number}-{seen.page.viewport_size['width']}")
        assert seen.exceptions() == [], number
    return wrong


# Each size in both languages and both themes: (size, language, theme).
LOOKS = [((1920, 1080), "zh", "dark"), ((1920, 1080), "en", "light"),
         ((1280, 720), "en", "light"), ((1280, 720), "zh", "dark")]


@pytest.mark.parametrize(("size", "lang", "theme"), LOOKS,
                         ids=[f"{w}x{h}-{lang}-{theme}" for (w, h), lang, theme in LOOKS])
@pytest.mark.parametrize("deck", ["tour", "deck"])
def test_every_slide_is_one_screen_of_charts_read_from_the_back_row(browser, app_url, size,
                                                                    lang, theme, deck):
    width, height = size
    seen = new_page(browser, app_url, viewport={"width": width, "height": height},
                    color_scheme=theme)
    code = encode_deck(DECK) if deck == "deck" else ""
    try:
        seen.open(f"/tour?slide=1&lang={lang}" + (f"&deck={code}" if code else ""),
                  charts=1, timeout=120_000)
        wrong = walk(seen, len(DECK) if code else len(TOUR), check_text=width == 1920)
    finally:
        seen.close()
    assert wrong == {}


# A phone: the chart titles, the modebars, the slide's title and the player's bar, where they are
# drawn (empty: nothing lies under anything else).
PHONE_JS = """() => {
  const boxes = [];
  const add = (what, e) => {
    const r = e.getBoundingClientRect();
    if (r.width > 1 && r.height > 1 && getComputedStyle(e).visibility !== 'hidden'
        && getComputedStyle(e).display !== 'none') boxes.push({what, r});
  };
  document.querySelectorAll('[data-testid=stMain] .js-plotly-plot .gtitle')
    .forEach(e => e.textContent.trim() && add('chart title', e));
  document.querySelectorAll('[data-testid=stMain] .js-plotly-plot .modebar')
    .forEach(e => add('modebar', e));
  document.querySelectorAll('.st-key-pe-slide-title').forEach(e => add('slide title', e));
  document.querySelectorAll('.pe-tour').forEach(e => add('player', e));
  const overlaps = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i].r, b = boxes[j].r;
    if (Math.min(a.right, b.right) - Math.max(a.left, b.left) > 2
        && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 2) {
      overlaps.push([boxes[i].what, boxes[j].what]);
    }
  }
  return overlaps;
}"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_tour_slide_on_a_phone_keeps_titles_modebars_and_the_player_apart(browser, app_url,
                                                                           lang):
    seen = new_page(browser, app_url, viewport={"width": 390, "height": 844}, is_mobile=True,
                    has_touch=True)
    wrong = {}
    try:
        seen.open(f"/tour?slide=1&lang={lang}", charts=1, timeout=120_000)
        for number in range(1, len(TOUR) + 1):
            if number > 1:
                next_slide(seen, number)
            browser_support.wait_charts_drawn(seen.page)
            if overlaps := seen.page.evaluate(PHONE_JS):
                wrong[number] = overlaps
                seen.screenshot(f"slide-phone-{lang}-{number}")
    finally:
        seen.close()
    assert wrong == {}


def test_the_presenter_view_follows_the_audience_and_moves_it(browser, app_url):
    """Two windows of one browser: the audience's (the slides) and the presenter's
    (`presenter=1`: the slide's notes, the next slide, a clock). A move in either is made in the
    other; B in the presenter's blanks the audience's screen, B again brings it back."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        audience, presenter = context.new_page(), context.new_page()
        count = len(TOUR)

        def shown(page) -> str:
            return page.locator(".pe-tour-count").inner_text()

        def wait_for(page, number: int) -> None:
            page.wait_for_function(
                "n => document.querySelector('.pe-tour-count')?.textContent.startsWith(n + ' ')",
                arg=number, timeout=60_000)
            page.wait_for_selector(browser_support.IDLE_SELECTOR, timeout=120_000)

        audience.goto(f"{app_url}/tour?slide=1")
        presenter.goto(f"{app_url}/tour?slide=1&presenter=1")
        for page in (audience, presenter):
            wait_for(page, 1)
        assert presenter.get_by_text("Presenter view · slide 1 of").count() == 1
        assert presenter.get_by_text("Next slide").count() == 1
        assert presenter.locator(".pe-clock").inner_text().startswith("Elapsed")
        assert presenter.get_by_text("Link to this view").count() == 0  # nothing to share
        audience.bring_to_front()
        audience.keyboard.press("ArrowRight")  # the clicker, in the audience's window
        wait_for(audience, 2)
        wait_for(presenter, 2)
        assert "presenter=1" in presenter.url and "slide=2" in presenter.url
        presenter.bring_to_front()
        presenter.keyboard.press("ArrowRight")  # the presenter's own keys
        wait_for(presenter, 3)
        wait_for(audience, 3)
        assert shown(audience) == shown(presenter) == f"3 / {count}"
        assert "presenter" not in audience.url
        presenter.keyboard.press("b")
        audience.wait_for_selector("#pe-blank", timeout=10_000)
        presenter.keyboard.press("b")
        audience.wait_for_selector("#pe-blank", state="detached", timeout=10_000)
        # The presenter reads the view's explanations, which the audience's slide leaves out.
        notes = presenter.locator(".st-key-pe-presenter-notes").inner_text()
        assert "Notes" in notes and len(notes) > 100
    finally:
        context.close()
