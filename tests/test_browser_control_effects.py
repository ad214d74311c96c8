"""Every control visibly changes its view, or is not shown in that view.

Each page is opened in a real browser at its defaults (and where a choice shows controls that the
defaults hide, in that setting too). In each view, every control on screen is changed as a
visitor changes it, and the view's charts must then draw something else (CHART_DATA: their
numbers, their marks, their outlines, an animation's stops). A control that changes only a
sentence, or nothing, fails; so does one that is shown but cannot be changed (disabled).

A change is the smallest a visitor makes: a slider's next stop (when that draws nothing new, the
one before), the number box's step up (or down), each other option in turn, the switch, new
text; then it is undone, so each control is tried in the view as it opened. Page-wide controls
are changed in every view, since each view must redraw with them. One session per setting, the
views picked with their radio: a page load per change would take minutes. A setting beyond the
defaults tries the controls it shows that had not yet redrawn that view (one already tried there
is only checked to be changeable). Every control of a page must be shown, and so tried, in some
view of some setting (NEVER_SHOWN says why not).
"""

from __future__ import annotations

import base64
import contextlib
import time
from urllib.parse import parse_qs, urlencode

import pytest

from core.rope_config import PRESETS
from tests import browser_support
from tests.conftest import new_page
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
# s the server may take to end the run a change asks for: generous, for a loaded machine. Spent
# whole only when no run ends (a control that asks none), and then its chart is compared as is.
RUN_ENDS_S = 60

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
PARAMS = {p.url_path: p.params for p in PAGES}


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


class RunsEnded:
    """The runs the server has ended for a page: its websocket's script_finished messages, read
    through the DevTools protocol. `with runs.ended(): act(...)` returns once a run has ended
    after the change, an event however long the server takes to begin it (RUN_ENDS_S at most)."""

    def __init__(self, page) -> None:
        self.page, self.count = page, 0
        self.session = page.context.new_cdp_session(page)
        self.session.send("Network.enable")
        self.session.on("Network.webSocketFrameReceived", self._frame)

    def _frame(self, event: dict) -> None:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        response = event["response"]
        if response.get("opcode") != 2:  # binary: a ForwardMsg
            return
        message = ForwardMsg()
        message.ParseFromString(base64.b64decode(response["payloadData"]))
        if message.WhichOneof("type") == "script_finished":
            self.count += 1

    @contextlib.contextmanager
    def ended(self):
        count = self.count
        yield
        deadline = time.monotonic() + RUN_ENDS_S
        while self.count == count and time.monotonic() < deadline:
            self.page.wait_for_timeout(50)  # Playwright delivers the frames while it waits

    def close(self) -> None:
        self.session.detach()  # the tab serves other tests


@pytest.mark.parametrize("page", PARAMS)
def test_every_control_shown_changes_its_views_chart(browser, app_url, page):
    seen = new_page(browser, app_url)
    seen.record_console_and_requests()
    runs = RunsEnded(seen.page)
    failures: list[str] = []
    shown: set[str] = set()
    redrew: set[tuple[str | None, str]] = set()  # (view, control) seen to redraw the view
    try:
        for query in ["", *SETTINGS.get(page, [])]:
            for number, view in enumerate(views_of(page, query)):
                open_view(seen, page, query, view, first=number == 0)
                where = page + (f"?{query}" if query else "") + f" view={view}"
                failures += changes_in_view(seen, runs, page, view, where, shown, redrew)
            assert seen.exceptions() == [], (query, seen.exceptions())
    finally:
        runs.close()
        seen.close()
    assert not failures, "\n".join(failures)
    controls = {p.name for p in PARAMS[page]} - {"view"}
    assert controls - NEVER_SHOWN.get(page, set()) == shown  # each shown somewhere, tried


def changes_in_view(seen, runs: RunsEnded, page: str, view: str | None, where: str,
                    shown: set[str], redrew: set[tuple[str | None, str]]) -> list[str]:
    """Each control on screen changed: what failed to change the view. A control already seen
    to redraw this view in an earlier setting is not changed again (the settings are there to
    show the controls the defaults hide), but it must still be one a visitor can change."""
    failures = []
    names = controls_of(page)
    for name in names:
        # A control in a folded expander is opened as a person would (again after a change
        # that redrew the expander folded: RoPE's method choice and its fields).
        for summary in seen.page.evaluate(FOLDED, [name]):
            seen.page.locator('[data-testid="stMain"] summary').filter(
                has_text=summary).first.click()
            seen.wait_idle(timeout=120_000)
        # Widgets are disabled while the websocket reconnects (a loaded machine can miss a
        # ping): a control is read on a connected app.
        seen.page.wait_for_selector(browser_support.IDLE_SELECTOR, timeout=120_000)
        control = seen.page.evaluate(CONTROL, name)
        if control is None:
            continue  # not shown in this view: it need not change it
        shown.add(name)
        if (page, name) in MAY_NOT_REDRAW:
            continue
        if control["disabled"]:
            failures.append(f"{where}: {name} is shown but cannot be changed")
            continue
        if (view, name) in redrew:
            continue
        drawing = FORMULAS if (page, name) in FORMULA_CONTROLS else CHART_DATA
        redrawn = REDRAWN % (browser_support.CHARTS_DRAWN_JS, drawing,
                             browser_support.IDLE_SELECTOR)
        before = seen.page.evaluate(drawing)
        for move, undo in moves(name, control):
            with runs.ended():
                act(seen, name, move)
            after = seen.page.evaluate(redrawn, [before, CHANGE_PATIENCE, False])
            with runs.ended():
                act(seen, name, undo)
            seen.page.evaluate(redrawn, [before, CHANGE_PATIENCE, True])
            if after != before:
                redrew.add((view, name))
                break
        else:
            failures.append(f"{where}: {name} ({control['kind']}) changed, the chart did not")
    return failures
