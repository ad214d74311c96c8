"""Every control visibly changes its view, reaches the link, or is not shown in that view; and
the link a visitor's changes made opens the same page in a fresh browser.

Each page is opened in a real browser at its defaults (and where a choice shows controls that the
defaults hide, in that setting too). In each view, every control on screen is changed as a
visitor changes it, and the view's charts must then draw something else (CHART_DATA: their
numbers, their marks, their outlines, an animation's stops), and the address bar must change with
it. A control that changes only a sentence, or nothing, fails; so does one that is shown but
cannot be changed (disabled), and one whose change the link does not keep.

A change is the smallest a visitor makes: a slider's next stop (when that draws nothing new, the
one before), the number box's step up (or down), each other option in turn, the switch, new
text; then it is undone, so each control is tried in the view as it opened. Page-wide controls
are changed in every view, since each view must redraw with them. One session per setting, the
views picked with their radio: a page load per change would take minutes. A setting beyond the
defaults tries the controls it shows that had not yet redrawn that view (one already tried there
is only checked to be changeable). Every control of a page must be shown, and so tried, in some
view of some setting (NEVER_SHOWN says why not). After each view the "Link to this view" box
shows the address bar's link.

In the defaults' last view the sliders', boxes' and texts' changes are kept and its choices and
switches changed once more, then the page's first view chosen: a fresh browser opening the link
then keeps it in its address bar (the other view's values with it), draws the same charts and
shows the same value in every control.
"""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from core.rope_config import PRESETS
from tests import browser_support
from tests.browser_support import RunsEnded
from tests.conftest import BrowserPage, new_page
from tests.test_browser_share import same_link, shown_link
from ui.pages import PAGES
from ui.params import BoolParam, ChoiceParam
from ui.rope_codes import pack_pasted

pytestmark = pytest.mark.browser

# What a view draws: each chart's traces (type, numbers, text, the name its legend shows), its
# shapes (a marked cell, an outlined panel), its annotations (those placed on an axis with their
# text: a labelled point; titles and notes by their colours and borders alone: a panel's title
# outlined), and the stops of its slider (an animation's frames): one string per chart. Plotly
# keeps numpy arrays as {dtype, bdata}, whose base64 text is the data.
CHART_DATA = """() => {
  const text = v => v == null ? '' : (v.bdata !== undefined ? v.bdata : JSON.stringify(v));
  const on = (m, a) => [m[a + 'ref'], m[a + 'anchor'], m[a + '0'], m[a + '1'], m[a]];
  const colours = m => [m.bordercolor, (m.font || {}).color, m.bgcolor];
  const marks = layout => (layout.shapes || []).map(m => JSON.stringify([...on(m, 'x'),
      ...on(m, 'y'), m.path])).concat((layout.annotations || []).map(m =>
      JSON.stringify(m.xref === 'paper' && m.yref === 'paper' ? colours(m)
                     : [...on(m, 'x'), ...on(m, 'y'), m.text, ...colours(m)])));
  const stops = layout => (layout.sliders || []).map(s => (s.steps || []).map(t => t.label));
  return [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')].map(gd =>
      (gd.data || []).map(t => [t.type, text(t.x), text(t.y), text(t.z), text(t.r),
                                text(t.theta), text(t.text),
                                t.showlegend === false ? '' : t.name].join('|')).join(';')
      + '#' + marks(gd.layout || {}).join(';') + '#' + JSON.stringify(stops(gd.layout || {})));
}"""
# The heatmap's worked example draws a formula, not a chart: its controls change that.
FORMULAS = """() => [...document.querySelectorAll('[data-testid="stMain"] .katex-display')]
    .map(e => e.textContent)"""
FORMULA_CONTROLS = {("heatmap", "pos"), ("heatmap", "dim")}

# What the view draws once a change has redrawn it: polled until it differs from `before`
# (true: its runs finished, its charts drawn, it still differs) or `patience` ms pass and no
# run is going on; or, with `same`, until it is `before` again (a change undone).
REDRAWN = """async ([before, patience, same]) => {
  const drawn = %s;
  const drawing = () => JSON.stringify((%s)());
  const idle = () => document.querySelector('%s') !== null;
  const wanted = JSON.stringify(before);
  const start = performance.now();
  while (performance.now() - start < patience) {
    if ((drawing() === wanted) === same && idle()) {
      await drawn();
      if ((drawing() === wanted) === same && idle()) break;
    }
    await new Promise(resolve => setTimeout(resolve, 50));
  }
  while (!idle() && performance.now() - start < 120000) {
    await new Promise(resolve => setTimeout(resolve, 50));
  }
  await drawn();
  return JSON.parse(drawing());
}"""
# ms for a change's run to draw once the server has ended it (RunsEnded): a run still going then
# is waited for. Before, the 3 s counted from the key press, and a server that began the run
# later than that (the machine's load at 10-20 times its cores) failed a control that works.
CHANGE_PATIENCE = 3_000

# The control named, if it is on screen (not in a hidden group, nor a folded expander): its
# kind, whether it can be changed, and where it stands.
CONTROL = """(name) => {
  const box = [...document.querySelectorAll('.st-key-' + name)]
      .find(e => e.checkVisibility() && e.getBoundingClientRect().width > 0
                 && e.getBoundingClientRect().height > 0);
  if (!box) return null;
  const slider = box.querySelector('input[type="range"]');
  const radios = [...box.querySelectorAll('input[type="radio"]')];
  const field = box.querySelector('input:not([type]), input[type="text"], input[type="number"],'
                                  + ' textarea');
  const step = direction => box.querySelector(`[data-testid="stNumberInputStep${direction}"]`);
  const kind = slider ? 'slider' : radios.length ? 'radio'
      : box.querySelector('input[type="checkbox"]') ? 'toggle'
      : step('Up') ? 'number' : field ? 'text' : 'other';
  const inputs = [...box.querySelectorAll('input, textarea')];
  return {kind, disabled: inputs.length > 0 && inputs.every(e => e.disabled),
          up: slider ? slider.value !== slider.max : kind === 'number' && !step('Up').disabled,
          down: slider ? slider.value !== slider.min
                       : kind === 'number' && !step('Down').disabled,
          options: radios.length, checked: radios.findIndex(e => e.checked),
          text: field ? field.value : null};
}"""

# The folded expanders of the page's main area that hold one of these controls: a visitor
# unfolds them to change what is inside (the RoPE config's rope_scaling fields).
FOLDED = """(names) => [...document.querySelectorAll('[data-testid="stMain"] details:not([open])')]
    .filter(d => names.some(n => d.querySelector('.st-key-' + n)))
    .map(d => d.querySelector('summary').textContent)"""

# New text for the text boxes: the first that differs from the box's text.
NEW_TEXT = {
    "sentence": ("A dog ran to the red house", "The cat sat"),
    "text": ("The dog chased the cat", "The cat sat"),  # order: the first sentence
    "other": ("The cat chased the dog", "The mat sat"),  # ... and the second
    "dims": ("0,1,2,3", "4,5"),
    "patch": ("1,2", "2,1"),
    "name": ("My config", "Another config"),  # rope: a pasted config's name
}


# Where a choice shows controls that a page's defaults hide: the settings (queries) opened too.
SETTINGS = {
    # the random vectors' width, seed and layout; MiniLM's markers and BERT's input
    "word-position": ["embedding=random&encoding=sinusoidal",
                      "embedding=minilm&encoding=sinusoidal"],
    # a scaling's factor; a YaRN config's fields; a second config and a baseline; a pasted
    # config without a head width nor a context (its width, its context and its name)
    "rope": ["view=rotation&scaling=yarn", "view=relative&scaling=yarn",
             "view=config&config=qwen2.5-7b-yarn",
             "view=config&compare=mistral-7b&arrange=difference",
             "view=config&" + urlencode({"pasted": pack_pasted(
                 PRESETS["mistral-7b"], head_width=False, context=False)})],
    "extrapolation": ["config=llama-3.1-8b"],  # the config's factor
}
# Parameters no view shows as a control, and why.
NEVER_SHOWN = {
    # codes the page writes itself: the Pin button's overlay, the paste box's config
    "rope": {"overlay", "pasted"},
    # the uploaded table's file and tensor, the grid view's shape as its picker last chose it
    "learned-vs-sinusoidal": {"file", "tensor", "grid"},
}
# Controls shown that may leave the chart as it is, and why (each has tests of its own).
MAY_NOT_REDRAW = {
    # YaRN's mscale and mscale_all_dim weigh the attention factor only together (transformers'
    # rule: m = mscale(s, mscale) / mscale(s, mscale_all_dim) when both are set), so one alone
    # moved from 0 draws the same (tests/test_rope_config_pages.py pins the rule).
    ("rope", "mscale"), ("rope", "mscale_all_dim"),
    # A pasted config's name labels it in the table and, beside another config, the legend.
    ("rope", "name"),
    # The preset choice, greyed while a pasted config is drawn, says so (the issue asks it).
    ("rope", "config"),
}
# Controls the round trip leaves as they are: an upload without a file stops the page at its
# notice (tests/test_browser_learned_upload.py opens an upload's link with its file).
KEPT = {("learned-vs-sinusoidal", "source")}
PARAMS = {p.url_path: p.params for p in PAGES}
PARAM = {(page, p.name): p for page, params in PARAMS.items() for p in params}

# s for the "Link to this view" box to show the address bar's link: it re-reads it every 250 ms.
LINK_SHOWN_S = 10


def views_of(page: str, query: str) -> list[str | None]:
    """The views to test: the one the query names, else every view of the page (None: the
    page has no views)."""
    named = parse_qs(query).get("view")
    if named:
        return named
    view = next((p for p in PARAMS[page] if p.name == "view"), None)
    return list(view.choices) if isinstance(view, ChoiceParam) else [None]


def controls_of(page: str) -> list[str]:
    """The page's controls but the view, choices and switches last: they may show or hide
    others, so the others are tried first in the view as it opened."""
    params = [p for p in PARAMS[page] if p.name != "view"]
    return [p.name for p in sorted(params, key=lambda p: isinstance(p, ChoiceParam | BoolParam))]


def moves(name: str, control: dict) -> list[tuple[tuple, tuple]]:
    """The changes to try in turn, each with the change that undoes it, the nearest first: a
    slider's next stop, else the one before; the number's step up, else down; each other
    option; the switch; new text."""
    kind = control["kind"]
    if kind in ("slider", "number"):
        up, down = (("key", "ArrowRight"), ("key", "ArrowLeft")) if kind == "slider" else (
            ("step", "Up"), ("step", "Down"))
        return ([(up, down)] if control["up"] else []) + (
            [(down, up)] if control["down"] else [])
    if kind == "radio":
        back = ("option", control["checked"])
        return [(("option", i), back) for i in range(control["options"])
                if i != control["checked"]]
    if kind == "toggle":
        return [(("toggle", None), ("toggle", None))]
    if kind == "text":
        new = next(text for text in NEW_TEXT[name] if text != control["text"])
        return [(("text", new), ("text", control["text"]))]
    raise AssertionError(f"{name}: a control this test cannot change ({kind})")


def act(seen, name: str, move: tuple) -> None:
    """A visitor's change of control `name`."""
    page = seen.page
    box = page.locator(f".st-key-{name}").filter(visible=True).first
    how, what = move
    if how == "key":
        box.locator('input[type="range"]').first.focus()
        page.keyboard.press(what)
    elif how == "step":
        box.locator(f'[data-testid="stNumberInputStep{what}"]').first.click()
    elif how == "option":
        box.locator('[data-testid="stRadioOption"]').nth(what).click()
    elif how == "toggle":
        box.locator("label").first.click()
    else:
        field = box.locator("input, textarea").first
        field.fill(what)
        field.press("Enter")


def open_view(seen, page: str, query: str, view: str | None, first: bool) -> None:
    """The page at `query`, then each view as a visitor picks it (its radio)."""
    if first:
        seen.open(f"/{page}" + (f"?{query}" if query else ""), charts=1, timeout=120_000)
    elif view is not None:
        choices = next(p.choices for p in PARAMS[page] if p.name == "view")
        seen.page.locator('.st-key-view [data-testid="stRadioOption"]').nth(
            choices.index(view)).click()
        seen.page.wait_for_function("v => location.search.includes('view=' + v)", arg=view)
        seen.wait_idle(timeout=120_000)
    browser_support.wait_charts_drawn(seen.page)


@pytest.mark.parametrize("page", PARAMS)
def test_every_control_shown_redraws_its_view_and_is_in_the_link(browser, app_url, page):
    seen = new_page(browser, app_url)
    seen.record_console_and_requests()
    runs = RunsEnded(seen.page)
    failures: list[str] = []
    shown: set[str] = set()
    linked: set[str] = set()  # controls whose change the address bar took
    redrew: set[tuple[str | None, str]] = set()  # (view, control) seen to redraw the view
    try:
        for query in ["", *SETTINGS.get(page, [])]:
            views = views_of(page, query)
            for number, view in enumerate(views):
                open_view(seen, page, query, view, first=number == 0)
                where = page + (f"?{query}" if query else "") + f" view={view}"
                # The defaults' last view keeps its sliders', boxes' and texts' changes, for
                # the round trip that follows it.
                keep = query == "" and number == len(views) - 1
                failures += changes_in_view(seen, runs, page, view, where, shown, linked,
                                            redrew, keep=keep)
                failures += link_shown(seen, where)
                if keep and not failures:
                    round_trip(browser, app_url, seen, runs, page)
            assert seen.exceptions() == [], (query, seen.exceptions())
        assert not failures, "\n".join(failures)
        controls = {p.name for p in PARAMS[page]} - {"view"}
        assert controls - NEVER_SHOWN.get(page, set()) == shown  # each shown somewhere, tried
        assert linked == shown, sorted(shown - linked)
    finally:
        runs.close()
        seen.close()


def changes_in_view(seen, runs: RunsEnded, page: str, view: str | None, where: str,
                    shown: set[str], linked: set[str], redrew: set[tuple[str | None, str]],
                    keep: bool = False) -> list[str]:
    """Each control on screen changed: what failed to change the view or the link. A control
    already seen to redraw this view in an earlier setting is not changed again (the settings
    are there to show the controls the defaults hide), but it must still be one a visitor can
    change. One that may leave the chart as it is (MAY_NOT_REDRAW) is changed once, for the
    link. With `keep`, a slider's, a box's or a text's change that worked is not undone (the
    choices and switches, which may hide other controls, are)."""
    failures = []
    for name in controls_of(page):
        control = shown_control(seen, name)
        if control is None:
            continue  # not shown in this view: it need not change it
        shown.add(name)
        if control["disabled"]:
            if (page, name) not in MAY_NOT_REDRAW:
                failures.append(f"{where}: {name} is shown but cannot be changed")
            continue
        if (view, name) in redrew or ((page, name) in MAY_NOT_REDRAW and name in linked):
            continue
        drawing = FORMULAS if (page, name) in FORMULA_CONTROLS else CHART_DATA
        redrawn = REDRAWN % (browser_support.CHARTS_DRAWN_JS, drawing,
                             browser_support.IDLE_SELECTOR)
        before = seen.page.evaluate(drawing)
        for move, undo in moves(name, control):
            link = seen.page.url
            with runs.ended():
                act(seen, name, move)
            after = seen.page.evaluate(redrawn, [before, CHANGE_PATIENCE, False])
            if not same_link(seen.page.url, link):
                linked.add(name)
            worked = after != before or (page, name) in MAY_NOT_REDRAW
            if not (keep and worked and control["kind"] in ("slider", "number", "text")):
                with runs.ended():
                    act(seen, name, undo)
                seen.page.evaluate(redrawn, [before, CHANGE_PATIENCE, True])
            if (page, name) in MAY_NOT_REDRAW:
                break
            if after != before:
                redrew.add((view, name))
                break
        else:
            failures.append(f"{where}: {name} ({control['kind']}) changed, the chart did not")
        if name not in linked:
            failures.append(f"{where}: {name} ({control['kind']}) changed, the link did not")
    return failures


def shown_control(seen, name: str) -> dict | None:
    """CONTROL of `name`, once the folded expander holding it is opened as a person would (again
    after a change that redrew the expander folded: RoPE's method choice and its fields)."""
    for summary in seen.page.evaluate(FOLDED, [name]):
        seen.page.locator('[data-testid="stMain"] summary').filter(
            has_text=summary).first.click()
        seen.wait_idle(timeout=120_000)
    # Widgets are disabled while the websocket reconnects (a loaded machine can miss a ping):
    # a control is read on a connected app.
    seen.page.wait_for_selector(browser_support.IDLE_SELECTOR, timeout=120_000)
    return seen.page.evaluate(CONTROL, name)


def link_shown(seen, where: str) -> list[str]:
    """What is wrong with the "Link to this view" box: nothing once it shows the address bar's
    link (the same page and parameters)."""
    deadline = time.monotonic() + LINK_SHOWN_S
    while not same_link(shown_link(seen), seen.page.url):
        if time.monotonic() > deadline:
            return [f"{where}: the link box shows {shown_link(seen)!r}, the address bar "
                    f"{seen.page.url!r} ({LINK_SHOWN_S} s after the view's last change)"]
        seen.page.wait_for_timeout(100)
    return []


def round_trip(browser, app_url: str, seen, runs: RunsEnded, page: str) -> None:
    """The view's choices and switches changed once too (its other controls were left changed),
    then the page's first view chosen (the link keeps this view's values); the link, opened in
    a fresh browser, shows the same address, charts and control values."""
    for name in controls_of(page):
        if not isinstance(PARAM[page, name], ChoiceParam | BoolParam) or (page, name) in KEPT:
            continue
        control = shown_control(seen, name)
        if control is None or control["disabled"]:
            continue
        with runs.ended():
            act(seen, name, moves(name, control)[0][0])
        seen.wait_idle(timeout=120_000)
    first = views_of(page, "")[0]
    if first is not None and "view" in parse_qs(urlsplit(seen.page.url).query):
        # The first view is the default: its link names no view.
        with runs.ended():
            seen.page.locator('.st-key-view [data-testid="stRadioOption"]').first.click()
        seen.page.wait_for_function("() => !location.search.includes('view=')")
        seen.wait_idle(timeout=120_000)
        browser_support.wait_charts_drawn(seen.page)
    assert seen.exceptions() == []
    assert link_shown(seen, f"{page} round trip") == []
    link = shown_link(seen)
    browser_support.wait_charts_drawn(seen.page)
    charts = seen.page.evaluate(browser_support.CHART_SIGNATURE_JS)
    names = [p.name for p in PARAMS[page]]
    values = {name: control_value(seen, name) for name in names}
    fresh = new_page(browser, app_url, fresh=True)
    try:
        fresh.page.goto(link)
        fresh.wait_idle(timeout=120_000)
        fresh.page.wait_for_function(
            "n => document.querySelectorAll('.js-plotly-plot .main-svg').length >= n",
            arg=charts.count("|") + 1, timeout=60_000)
        fresh.wait_idle(timeout=120_000)
        browser_support.wait_charts_drawn(fresh.page)
        assert same_link(fresh.page.url, link), (fresh.page.url, link)
        assert fresh.page.evaluate(browser_support.CHART_SIGNATURE_JS) == charts
        assert {name: control_value(fresh, name) for name in names} == values
        assert fresh.exceptions() == []
        fresh.screenshot(f"round-trip-{page}")
    finally:
        fresh.close()


# A control in a folded expander (the RoPE config view's rope_scaling fields) is read once the
# expander is opened, as a person would.
_UNFOLD_JS = """e => { const d = e.closest('details');
  if (!d || d.open) return false; d.querySelector('summary').click(); return true; }"""


def control_value(seen: BrowserPage, name: str) -> str | None:
    """What control `name` shows: a slider's or box's value, the checked option, a switch's
    state; None when it is not on screen."""
    box = seen.page.locator(f".st-key-{name}")
    if box.count() and not box.first.is_visible() and box.first.evaluate(_UNFOLD_JS):
        seen.page.wait_for_function("e => e.checkVisibility()", arg=box.first.element_handle())
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
