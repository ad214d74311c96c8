"""The slide player (app_pages/tour.py) and "my deck" (the sidebar of every page).

A slide is a page's own script run inside the tour's page with the slide's settings in the
address bar, so every control on it is the page's, live and bound to its URL parameter as on the
page itself: `/tour?slide=4` names the slide, `/tour?slide=4&positions=100` is slide 4 with a
value changed. Moving to another slide (a key, a button) sets the address bar to the slide's
settings and runs again with the page's widgets forgotten, so the URL seeds them: the browser
keeps one history entry per slide (Streamlit pushes one when the server changes the query),
and its back button returns to the slide before, with the values it had.

The presenter's keys (a clicker sends PageDown/PageUp or the arrows) are read by a small
`st.components.v2` element listening on the page: Right, PageDown and Space go on; Left,
PageUp and Shift+Space go back; Home and End go to the first and the last slide. Keys typed
into a control (a text box, a slider, a radio) stay the control's.

A deck is built from any page ("Add this view to my deck": the view's settings as its link
has them) and kept in the session until it is opened as a link (`ui.tour.encode_deck`): the
link is the deck; nothing is stored on the server.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from urllib.parse import urlencode

import streamlit as st

from server.memory_budget import MemoryBudget
from ui import share
from ui.charts import plain_charts
from ui.controls import VIEW_BLOCK, option_label
from ui.i18n import current_language, language_asked, t
from ui.pages import (
    HOME,
    MAX_DECK_LENGTH,
    MAX_DECK_SLIDES,
    PAGE_PARAMS,
    PAGES,
    ROOT,
    TOUR_PAGE,
    takeaway_key,
)
from ui.params import ParamError
from ui.text import (
    PAGE_ONLY,
    SLIDE_ROW,
    SLIDE_TITLE,
    collect_explanations,
    markdown_text,
    plain_text,
    slide_line,
)
from ui.tour import (
    MAX_FILE_COST,
    MAX_SLIDE_COST,
    TOUR,
    DeckError,
    Slide,
    clean_note,
    deck_language,
    decode_deck,
    encode_deck,
    file_cost,
    moved,
)

TOUR_PARAMS = {param.name: param for param in TOUR_PAGE.params}  # slide, deck

APP_PARAMS = ("lang", "present", "presenter")  # kept by the address bar from slide to slide
_AT = "_tour_at"  # (deck, slide number) whose settings the widgets were last given
_PRESENTED = "_tour_presented"  # presentation mode was switched on when the tour opened
_OWN_ADDRESS = "_tour_own_address"  # the deck editor showed another slide: its settings only
# Per-page memories of ui.controls (kept values, a URL checked once): a slide starts afresh.
_FORGOTTEN = ("_kept:", "_url_checked:", "_reset:", "_notices:")
MY_DECK = "_my_deck"  # the session's deck: a tuple of ui.tour.Slide
_PAGES = {p.url_path: p for p in (HOME, *PAGES)}
# Every control name of the pages: their widgets' keys, forgotten when a slide is entered.
_CONTROL_NAMES = sorted({p.name for params in PAGE_PARAMS.values() for p in params})

# The player: a bar of buttons and the counter, and the presenter's keys. A move is made in the
# browser, as its back button makes one: the slide's address pushed onto the history, then a
# popstate, which Streamlit answers with a run in which the URL decides every bound control
# (its value, or its default when the URL has none). `replace` rewrites a hand-made address
# (a link with no settings, a bad slide number) into the slide's own, in place.
# The audience's window and the presenter's (`presenter=1`) keep in step through a
# BroadcastChannel of the browser: a move in either is made in the other ("go"), and the
# presenter's follows the audience's ("at", each time a slide is shown there). In the audience's
# window B (or a clicker's "."), blanks the screen and brings it back; F goes full screen; B in
# the presenter's window blanks the audience's.
_PLAYER_HTML = """<div class="pe-tour" role="navigation">
<button type="button" data-step="first">&laquo;</button>
<button type="button" data-step="prev">&lsaquo;</button>
<span class="pe-tour-count" aria-live="polite"></span>
<button type="button" data-step="next">&rsaquo;</button>
<button type="button" data-step="last">&raquo;</button>
</div>"""
_PLAYER_JS = """
const STEPS = { ArrowRight: "next", PageDown: "next", " ": "next",
                ArrowLeft: "prev", PageUp: "prev", Home: "first", End: "last" };
// Controls that read these keys themselves keep them; a button keeps Space (it presses it).
const OWNERS = "input, textarea, select, [contenteditable=''], [contenteditable='true'], " +
               "[role='slider'], [role='radio'], [role='radiogroup'], [role='combobox'], " +
               "[role='listbox'], [role='option'], [role='tab'], [role='menu'], " +
               "[role='menuitem'], [role='dialog'], .js-plotly-plot";
const channel = window.__peTourChannel || ("BroadcastChannel" in window
  ? (window.__peTourChannel = new BroadcastChannel("pe-tour")) : null);

// A slide's address with the app's settings the window has now (its language, presentation
// mode, the presenter's window): a player drawn before a rewrite of the address may be drawn
// again, its data stale, after it.
function address(url, keep) {
  const here = new URLSearchParams(window.location.search);
  const to = new URLSearchParams(url.replace(/^[?]/, ""));
  for (const name of keep) if (here.has(name)) to.set(name, here.get(name));
  return "?" + to.toString();
}

function go(url, replace) {
  if (!url || (replace && url === window.location.search)) return;
  if (replace) window.history.replaceState({}, "", url);
  else window.history.pushState({}, "", url);
  window.dispatchEvent(new PopStateEvent("popstate", { state: {} }));
}

// To slide `number` in this window; with `tell`, in the other window too.
function moveTo(number, tell) {
  const data = current();
  if (!data || !number || number === data.number || !data.slides[number - 1]) return;
  go(address(data.slides[number - 1], data.keep), false);
  if (tell && channel) channel.postMessage({ kind: "go", number: number, from: data.mode });
}

function blank() {
  const layer = document.getElementById("pe-blank");
  if (layer) { layer.remove(); return; }
  const cover = document.createElement("div");
  cover.id = "pe-blank";
  cover.style.cssText = "position:fixed;inset:0;background:#000;z-index:2147483647;";
  cover.onclick = () => cover.remove();
  document.body.appendChild(cover);
}

// The player last drawn, while a player is on the page (not after a move to another page).
const current = () => (document.querySelector(".pe-tour") ? window.__peTour : null);

function onKey(event) {
  const data = current();
  if (!data || event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
  const target = event.target instanceof Element ? event.target : null;
  if (target && target.closest(OWNERS)) return;
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  if (key === "b" || key === ".") {
    event.preventDefault();
    if (data.mode === "audience") blank();
    else if (channel) channel.postMessage({ kind: "blank", from: data.mode });
    return;
  }
  if (key === "f" && data.mode === "audience") {
    event.preventDefault();
    if (document.fullscreenElement) document.exitFullscreen();
    else if (document.documentElement.requestFullscreen) {
      document.documentElement.requestFullscreen().catch(() => {});
    }
    return;
  }
  let step = STEPS[event.key];
  if (!step) return;
  if (event.key === " " && target && target.closest("button, a, summary")) return;
  if (event.key === " " && event.shiftKey) step = "prev";
  event.preventDefault();
  moveTo(data.targets[step], true);
}

if (channel && !channel.__peListening) {
  channel.__peListening = true;
  channel.addEventListener("message", event => {
    const data = current(), message = event.data || {};
    if (!data || message.from === data.mode) return;
    if (message.kind === "go") moveTo(message.number, false);
    else if (message.kind === "at" && data.mode === "presenter") moveTo(message.number, false);
    else if (message.kind === "blank" && data.mode === "audience") blank();
  });
}

export default function ({ parentElement, data }) {
  const root = parentElement.querySelector(".pe-tour");
  window.__peTour = data;
  root.setAttribute("aria-label", data.label);
  for (const button of root.querySelectorAll("button")) {
    const step = button.dataset.step;
    button.title = data.labels[step];
    button.setAttribute("aria-label", data.labels[step]);
    button.disabled = !data.targets[step];
    button.onclick = () => moveTo(data.targets[step], true);
  }
  root.querySelector(".pe-tour-count").textContent = data.counter;
  // One listener for the page's life, reading the player last drawn: a redrawn player's
  // clean-up can run after its successor is drawn, and would take the keys with it.
  if (!window.__peTourKeys) {
    window.__peTourKeys = true;
    document.addEventListener("keydown", onKey);
  }
  if (data.replace) go(data.replace, true);
  else if (channel) channel.postMessage({ kind: "at", number: data.number, from: data.mode });
  return () => {};
}
"""
# Faint until pointed at or touched; buttons a thumb can reach on a phone (2.75rem).
_PLAYER_CSS = """
.pe-tour { display: flex; align-items: center; gap: 0.35rem; padding: 0.25rem 0.5rem;
  border-radius: 1.7rem; color: var(--st-text-color, inherit);
  background: color-mix(in srgb, var(--st-background-color, #fff) 90%, rgb(128, 128, 128));
  border: 1px solid rgba(128, 128, 128, 0.3); opacity: 0.6; transition: opacity 0.2s; }
.pe-tour:hover, .pe-tour:focus-within { opacity: 1; }
@media (max-width: 640px), (hover: none) { .pe-tour { opacity: 1; } }
.pe-tour button { min-width: 2.75rem; min-height: 2.75rem; font-size: 1.5rem; line-height: 1;
  border-radius: 1.4rem; border: 1px solid rgba(128, 128, 128, 0.5); cursor: pointer;
  background: var(--st-background-color, #fff); color: inherit; }
.pe-tour button:disabled { opacity: 0.35; cursor: default; }
.pe-tour-count { min-width: 4.5rem; text-align: center; font-size: 1.1rem;
  font-variant-numeric: tabular-nums; white-space: nowrap; }
"""
# The element's place, fixed: on a screen, in the header band at the top centre (between the
# sidebar's opener and the menu, above the page's title, so it covers nothing at any scroll);
# on a phone, at the bottom centre where a thumb reaches, the page leaving room for it.
PLAYER_PAGE_CSS = """<style>
.st-key-pe-tour-bar { position: fixed; top: 0.35rem; left: 50%; transform: translateX(-50%);
  z-index: 999990; width: auto !important; }
@media (max-width: 640px) {
  .st-key-pe-tour-bar { top: auto; bottom: 0.6rem; }
  [data-testid="stMain"] .block-container { padding-bottom: 5rem; }
}
</style>"""
# A slide is one screen: its title (the takeaway, or the deck's note) and the view's charts
# filling the rest of the window, the view's own controls folded in one row between them. The
# page's furniture is left off the screen, still run (its controls stay bound to the link): its
# title and headings, prose, formulas and results, tables, captions, the view switcher, the
# Export menus, `ui.text.page_only` parts, and a column beside the charts with none of its own.
# Notices stay. The charts' blocks share the window's height (ui/plotly_react.js draws each at
# its block's height on a slide).
SLIDE = "pe-slide"
_CHART = (f':is(.pe-plotly-react, [data-testid="stPlotlyChart"])'
          f':not([class*="st-key-{PAGE_ONLY}"] *)')
_FOLD = '[data-testid="stExpander"]'
SLIDE_CSS = f"""<style>
@media (min-width: 640px) {{
  [data-testid="stMainBlockContainer"]:has(.st-key-{SLIDE}) {{
    height: 100dvh; box-sizing: border-box; display: flex; flex-direction: column;
    padding-top: 4.25rem; padding-bottom: 1rem; }}
  [data-testid="stMainBlockContainer"]:has(.st-key-{SLIDE})
    :is([data-testid="stVerticalBlock"], [data-testid="stLayoutWrapper"],
        [data-testid="stHorizontalBlock"], [data-testid="stColumn"],
        [data-testid="stElementContainer"]):has({_CHART}) {{
    flex: 1 1 0; min-height: 0; }}
  .st-key-{SLIDE} [data-testid="stHorizontalBlock"]:has({_CHART}) {{ align-items: stretch;
    flex-wrap: nowrap; }}
  .st-key-{SLIDE} [data-testid="stColumn"]:has({_CHART}) {{ min-width: 0; }}
  .st-key-{SLIDE} [data-testid="stElementContainer"]:has({_CHART}) *:has({_CHART}),
  .st-key-{SLIDE} {_CHART} {{ height: 100%; }}
  /* a view of parts stacked one under the other (each a chart with its own heading and
     legend): side by side */
  :is(.st-key-{VIEW_BLOCK}:has(> :nth-child(2)), [class*="st-key-{SLIDE_ROW}"]) {{
    flex-direction: row; align-items: stretch; }}
  :is(.st-key-{VIEW_BLOCK}:has(> :nth-child(2)), [class*="st-key-{SLIDE_ROW}"]) > * {{
    min-width: 0; display: flex; flex-direction: column; }}
}}
.st-key-{SLIDE} [data-testid="stColumn"]:has({_CHART}) {{ width: auto !important; }}
.st-key-{SLIDE} :is([data-testid="stElementContainer"], [data-testid="stLayoutWrapper"]):not(
    :has({_CHART})):not(:has([data-testid="stAlert"])):not(:has({_FOLD})):not(
    :has(.st-key-{SLIDE_TITLE})):not(.st-key-{SLIDE_TITLE} *):not({_FOLD} *),
.st-key-{SLIDE} [data-testid="stColumn"]:not(:has({_CHART})):not({_FOLD} *),
.st-key-{SLIDE} [class*="st-key-{PAGE_ONLY}"],
.st-key-{SLIDE} [data-testid="stLayoutWrapper"]:has(> [class*="st-key-{PAGE_ONLY}"]) {{
  display: none !important; }}
.st-key-{SLIDE_TITLE} :is(h4, .pe-plain) {{ font-size: clamp(1.25rem, 2.1vw, 2.1rem) !important;
  font-weight: 700 !important; line-height: 1.2 !important; padding: 0 0 0.25rem !important; }}
</style>"""
_player_element = None


def _player(counter: str, number: int, slides: list[str], replace: str | None, *,
            presenter: bool) -> None:
    """The player: `slides` the address of each slide (the browser adds the window's
    APP_PARAMS when it moves)."""
    global _player_element
    if _player_element is None:  # registered once per process
        _player_element = st.components.v2.component(
            "pe_tour_player", html=_PLAYER_HTML, css=_PLAYER_CSS, js=_PLAYER_JS,
            isolate_styles=False)
    count = len(slides)
    targets = {"first": 1 if number > 1 else None, "prev": number - 1 if number > 1 else None,
               "next": number + 1 if number < count else None,
               "last": count if number < count else None}
    st.html(PLAYER_PAGE_CSS)
    with st.container(key="pe-tour-bar", width="content"):
        _player_element(
            key="tour_player", height="content", width="content",
            data={"counter": counter, "number": number, "slides": slides, "targets": targets,
                  "mode": "presenter" if presenter else "audience", "replace": replace,
                  "keep": APP_PARAMS,
                  "label": t("pages.tour.title"),
                  "labels": {"first": t("tour.first"), "prev": t("tour.prev"),
                             "next": t("tour.next"), "last": t("tour.last")}})


def slides_of(code: str) -> tuple[tuple[Slide, ...], str | None]:
    """The slides a `deck` parameter names (empty: the tour), and a notice when it names none."""
    if not code:
        return TOUR, None
    try:
        TOUR_PARAMS["deck"].parse(code)
        return decode_deck(code), None
    except (DeckError, ParamError) as error:
        return TOUR, t("tour.deck_notice", error=error.in_language(current_language()))


def slide_query(slide: Slide, number: int, code: str, *,
                current: dict[str, str]) -> dict[str, str]:
    """The address of a slide: its number (and deck), its settings, and the app's controls as
    `current` has them (the language, presentation mode)."""
    query = {"slide": str(number)}
    if code:
        query["deck"] = code
    query.update(slide.settings)
    query.update({k: v for k, v in current.items() if k in APP_PARAMS})
    return query


def play() -> None:
    """The tour page: the slide the address bar names, run as its page runs, with the player."""
    state = st.session_state
    current = st.query_params.to_dict()
    code = current.get("deck", "")
    slides, deck_notice = slides_of(code)
    notices = [deck_notice] if deck_notice else []
    if deck_notice:
        code = ""
    count = len(slides)
    try:
        number = TOUR_PARAMS["slide"].parse(st.query_params.get_all("slide") or "1")
        if number > count:
            raise ValueError(number)
    except ValueError:
        notices.append(t("tour.slide_notice", value=current["slide"][:20],
                         count=count))
        number = 1
    slide = slides[number - 1]
    try:
        presenter = TOUR_PARAMS["presenter"].parse(current.get("presenter", "false"))
    except ParamError:
        presenter = False
    replace = None
    if state.get(_AT) != (code, number) or notices:  # arrived here: a link, a move, back
        state[_AT] = (code, number)
        for key in [k for k in state if isinstance(k, str) and k.startswith(_FORGOTTEN)]:
            del state[key]
        for name in _CONTROL_NAMES:  # what the URL says, not the last slide's widgets
            state.pop(name, None)
        names = {p.name for p in PAGE_PARAMS.get(slide.page, ())}
        wanted = slide_query(slide, number, code, current=current)
        if not state.pop(_OWN_ADDRESS, False):
            wanted.update({k: v for k, v in current.items() if k in names})  # a link's values
        if not state.get(_PRESENTED):  # the tour opens in presentation mode, once a session
            state[_PRESENTED] = True
            if not presenter:  # (the presenter reads the page's explanations)
                wanted.setdefault("present", "true")
            # in the deck's language, unless the address names one
            if code and not language_asked() and (made_in := deck_language(code)):
                wanted["lang"] = made_in
        if wanted != {k: v for k, v in current.items() if k != FILE_PARAM}:
            replace = "?" + urlencode(wanted)
            state["_tour_notices"] = notices
    _player(t("tour.counter", number=number, count=count), number,
            ["?" + urlencode(slide_query(s, n, code, current={}))
             for n, s in enumerate(slides, start=1)],
            replace, presenter=presenter)
    if replace:  # the page runs once the address is the slide's (the browser asks at once)
        st.stop()
    if presenter:
        _presenter_view(slides, number, code)
        return
    for notice in state.pop("_tour_notices", None) or notices:  # they quote the link's text
        st.warning(markdown_text(notice), icon=":material/warning:")
    if code:
        _deck_editor(slides, number)
    with st.sidebar:
        st.link_button(t("tour.presenter_open"), "tour?" + urlencode(
            {**slide_query(slide, number, code, current={"lang": current_language()}),
             "presenter": "1"}), icon=":material/co_present:", help=t("tour.presenter_help"))
        _file_menu(code, slides)
    st.html(SLIDE_CSS)
    with st.container(key=SLIDE), slide_line(slide.note or None):
        _run_page(slide.page)


# The presenter's window: the slide's title, its notes (the deck's note and the page's own
# explanations of the view, which presentation mode hides from the audience), the next slide's
# title and a clock. The page runs out of sight for its explanations (its controls as the
# slide's, its charts drawn hidden).
_PRESENTER_CSS = """<style>
.st-key-pe-presenter-page { display: none !important; }
.st-key-pe-presenter-notes { font-size: 1.15rem; }
</style>"""
_CLOCK_HTML = ('<div class="pe-clock"><span class="pe-elapsed"></span>'
               '<span class="pe-now"></span></div>')
_CLOCK_JS = """
export default function ({ parentElement, data }) {
  // Counted from the window's first slide (kept across its reruns and moves).
  const started = Number(sessionStorage.getItem("pe-presenter-start")) || Date.now();
  sessionStorage.setItem("pe-presenter-start", String(started));
  const elapsed = parentElement.querySelector(".pe-elapsed");
  const now = parentElement.querySelector(".pe-now");
  const pad = n => String(n).padStart(2, "0");
  const tick = () => {
    const s = Math.floor((Date.now() - started) / 1000);
    elapsed.textContent = `${data.elapsed} ${Math.floor(s / 60)}:${pad(s % 60)}`;
    const d = new Date();
    now.textContent = `${data.now} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
  };
  tick();
  window.clearInterval(parentElement.__peClock);
  parentElement.__peClock = window.setInterval(tick, 1000);
  return () => window.clearInterval(parentElement.__peClock);
}
"""
_CLOCK_CSS = """
.pe-clock { display: flex; gap: 2rem; font-size: 1.6rem; font-variant-numeric: tabular-nums; }
"""
_clock_element = None


def _slide_title(slide: Slide) -> tuple[str, bool]:
    """A slide's title as its slide shows it: (its note, True) or (its view's takeaway, False)."""
    if slide.note:
        return slide.note, True
    views = {p.name: p.default for p in PAGE_PARAMS.get(slide.page, ())}
    key = takeaway_key(slide.page, slide.settings.get("view", views.get("view")))
    return (t(key) if key else _PAGES[slide.page].title_in(current_language())), False


def _presenter_view(slides: tuple[Slide, ...], number: int, code: str) -> None:
    global _clock_element
    slide = slides[number - 1]
    st.html(_PRESENTER_CSS)
    st.caption(t("tour.presenter_heading", number=number, count=len(slides)))
    title, is_note = _slide_title(slide)
    if is_note:
        plain_text(title, tag="h3")
    else:
        st.markdown(f"### {title}")
    with collect_explanations() as explanations, st.container(key="pe-presenter-page"), \
            slide_line(slide.note or None):
        _run_page(slide.page)
    with st.container(key="pe-presenter-notes"):
        st.subheader(t("tour.presenter_notes"))
        for explanation in explanations:
            st.markdown(explanation)
    if number < len(slides):
        upcoming, upcoming_is_note = _slide_title(slides[number])
        st.caption(t("tour.presenter_next"))
        if upcoming_is_note:
            plain_text(upcoming)
        else:
            st.markdown(upcoming)
    else:
        st.caption(t("tour.presenter_last"))
    if _clock_element is None:  # registered once per process
        _clock_element = st.components.v2.component(
            "pe_presenter_clock", html=_CLOCK_HTML, css=_CLOCK_CSS, js=_CLOCK_JS,
            isolate_styles=False)
    _clock_element(key="presenter_clock", height="content",
                   data={"elapsed": t("tour.presenter_elapsed"), "now": t("tour.presenter_now")})
    st.caption(t("tour.presenter_keys"))


def _run_page(page: str) -> None:
    """The page's own script, run here as Streamlit runs a page (a fresh `__main__`, its
    bytecode from Streamlit's script cache: compiled once per process, dropped when the file
    changes, as a page opened from the navigation has it)."""
    import types

    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    path = ROOT / _PAGES[page].script
    ctx = get_script_run_ctx()
    code = ctx.pages_manager.get_page_script_byte_code(str(path)) if ctx is not None else ""
    if not code:  # no script cache (a bare run)
        code = compile(Path(path).read_text(encoding="utf-8"), str(path), "exec")
    module = types.ModuleType("__main__")
    module.__dict__["__file__"] = str(path)
    exec(code, module.__dict__)  # the app's own page script


# --- my deck ---------------------------------------------------------------------------------
def add_view(page: str) -> None:
    """A callback: the view shown (its page, and its settings as its link has them: those of
    the run before this callback, fragments' included) joins the session's deck."""
    deck = st.session_state.get(MY_DECK, ())
    if len(deck) >= MAX_DECK_SLIDES:
        st.session_state["_deck_full"] = True
        return
    names = {p.name for p in PAGE_PARAMS.get(page, ())}
    settings = {k: v for k, v in share.values().items() if k in names}
    slides = (*deck, Slide(page, settings))
    length = len(encode_deck(slides, lang=current_language()))
    if length > MAX_DECK_LENGTH:  # a view's long codes (pinned configs): its link would fail
        st.session_state["_deck_too_long"] = length
        return
    st.session_state[MY_DECK] = slides


def deck_sidebar(page: str) -> None:
    """In the sidebar of every page but the tour: add this view; open the deck."""
    deck = st.session_state.get(MY_DECK, ())
    st.button(t("tour.add"), key="deck_add", icon=":material/add_to_queue:",
              on_click=add_view, args=(page,), help=t("tour.add_help"))
    if st.session_state.pop("_deck_full", False):
        st.caption(t("tour.full", maximum=MAX_DECK_SLIDES))
    if (length := st.session_state.pop("_deck_too_long", None)) is not None:
        st.caption(t("tour.view_too_long", length=length, maximum=MAX_DECK_LENGTH))
    if deck:
        st.page_link(TOUR_PAGE.script, label=t("tour.open", count=len(deck)),
                     icon=":material/slideshow:",
                     query_params={"deck": encode_deck(deck, lang=current_language()),
                                   "present": "true"})


def _deck_editor(slides: tuple[Slide, ...], number: int) -> None:
    """The deck's slides in the sidebar: reorder, remove, a note each; every change is a new
    link (the address bar), and the session's deck follows it."""
    st.session_state[MY_DECK] = slides
    with st.sidebar:
        st.subheader(t("tour.deck"))
        for index, slide in enumerate(slides):
            title = _PAGES[slide.page].title_in(current_language())
            view = slide.settings.get("view")
            label = f"{index + 1}. {title}" + (f" · {option_label(view)}" if view else "")
            with st.container(key=f"pe-deck-slide-{index}"):
                st.markdown(f"**{markdown_text(label)}**" if index + 1 == number
                            else markdown_text(label))
                with st.container(horizontal=True, gap="small"):
                    st.button(":material/arrow_upward:", key=f"deck_up_{index}",
                              disabled=index == 0, help=t("tour.up"),
                              on_click=_edit, args=(slides, number, ("move", index, -1)))
                    st.button(":material/arrow_downward:", key=f"deck_down_{index}",
                              disabled=index == len(slides) - 1, help=t("tour.down"),
                              on_click=_edit, args=(slides, number, ("move", index, 1)))
                    st.button(":material/delete:", key=f"deck_remove_{index}",
                              help=t("tour.remove"),
                              on_click=_edit, args=(slides, number, ("remove", index, 0)))
                st.text_input(t("tour.note"), value=slide.note, key=f"deck_note_{index}",
                              max_chars=120, on_change=_edit,
                              args=(slides, number, ("note", index, 0)))


def _edit(slides: tuple[Slide, ...], number: int, change: tuple[str, int, int]) -> None:
    """A deck editor's callback: the deck changed, its link (the address bar) with it."""
    kind, index, step = change
    if kind == "move":
        new = moved(slides, index, step)
    elif kind == "remove":
        new = slides[:index] + slides[index + 1:]
    else:
        note = clean_note(st.session_state.get(f"deck_note_{index}", ""))
        new = (*slides[:index], Slide(slides[index].page, slides[index].settings, note=note),
               *slides[index + 1:])
    for key in [k for k in st.session_state if isinstance(k, str) and k.startswith("deck_note_")]:
        del st.session_state[key]
    st.session_state[MY_DECK] = new
    # The last slide removed: the built-in tour.
    code, shown = (encode_deck(new, lang=current_language()), min(number, len(new))) if new \
        else ("", 1)
    was, now = slides[number - 1], (new or TOUR)[shown - 1]
    if code:
        st.query_params["deck"] = code
    else:
        st.query_params.pop("deck", None)
    st.query_params["slide"] = str(shown)
    if (now.page, now.settings) == (was.page, was.settings):  # the same view: its widgets stay
        st.session_state[_AT] = (code, shown)
    else:  # another slide, entered at its own address (none of the last one's settings, which
        # the address bar still has and the page's widgets own)
        st.session_state[_AT] = None
        st.session_state[_OWN_ADDRESS] = True


# --- the slides as a file --------------------------------------------------------------------
_FILE = "_tour_file"  # the session's last slide file: (kind, file name, bytes)
_FILE_KINDS = {"pdf": ("application/pdf", "pdf"), "zip": ("application/zip", "zip")}

# The slide file's own sessions (a slide's run, no browser: export.slides.compute_slide) name
# themselves with this (made per process, never shown): their charts come as st.plotly_chart's
# figures, which the file redraws, and a session is not kept once its socket closes. A visitor
# cannot guess it.
FILE_PARAM = "pe_file"
_FILE_SECRET = secrets.token_urlsafe(24)
_FILE_SESSION = "_slide_file_session"
# One slide file drawn at a time per process, first come first served (each waiting one told how
# many are ahead): its slides take their turns with the visitors' work, one at a time.
FILES = MemoryBudget(1)


def slide_file_session() -> bool:
    """Whether this session computes a slide for the slide file (its first address said so).
    Marked, on its first run, not to be kept for a reconnection: Streamlit would hold its state
    and fragments 30 s after its socket closes, a slide's worth per slide."""
    state = st.session_state
    if _FILE_SESSION not in state:
        state[_FILE_SESSION] = st.query_params.get(FILE_PARAM) == _FILE_SECRET
        if state[_FILE_SESSION]:
            _not_kept_after_it_closes()
            plain_charts()
    return state[_FILE_SESSION]


def _not_kept_after_it_closes() -> None:
    from streamlit.runtime import Runtime
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is not None and Runtime.exists():
        Runtime.instance().mark_session_nonresumable(ctx.session_id)


def _server() -> str:
    """This very server (its loopback address and base path): the file's sessions run the
    slides there like any visitor."""
    address = st.get_option("server.address") or "127.0.0.1"
    if address in ("0.0.0.0", "::", "localhost"):
        address = "127.0.0.1"
    base = (st.get_option("server.baseUrlPath") or "").strip("/")
    return f"http://{address}:{st.get_option('server.port')}" + (f"/{base}" if base else "")


def _file_slide_query(slides: tuple[Slide, ...], number: int, code: str) -> str:
    """Slide `number`'s own address (as the player writes it: no rewrite when it opens) in the
    visitor's language, presenting, for the file's own session."""
    query = slide_query(slides[number - 1], number, code,
                        current={"lang": current_language(), "present": "true"})
    query[FILE_PARAM] = _FILE_SECRET
    return urlencode(query)


@st.fragment
def _file_menu(code: str, slides: tuple[Slide, ...]) -> None:
    """These slides as one file (a PDF, or a ZIP of PNGs), drawn on the server: pressing a button
    reruns this menu alone, which says where the file is (waiting for the server's other one,
    computing or drawing slide n of m), then offers it. A file too costly to draw is refused
    with its cost said, before anything is drawn."""
    from export.chromium import ImageExportError
    from export.files import close_browser_when_idle, image_export_problem
    from export.slides import (
        compute_slide,
        photograph_slide,
        slides_pdf,
        slides_zip,
    )
    from server.memory_budget import ServerBusyError, image_turn
    from server.run_slots import run_slot_lent
    from ui.charts import busy_message, size_text, visitor_connected

    st.subheader(t("tour.file"))
    problem = image_export_problem()
    if problem:
        reasons = {"no_kaleido": t("export.reason_no_kaleido"),
                   "no_browser": t("export.reason_no_browser")}
        st.caption(t("export.unavailable", reason=reasons[problem]))
        return
    count, cost = len(slides), file_cost(slides)
    too_costly = cost > MAX_FILE_COST
    if too_costly:
        st.caption(t("tour.file_too_costly", count=count, cost=f"{cost:.0f}",
                     maximum=f"{MAX_FILE_COST:.0f}", most=f"{MAX_SLIDE_COST:.0f}"))
    with st.container(horizontal=True, gap="small"):
        asked = [kind for kind, label in (("pdf", t("tour.file_pdf")), ("zip", t("tour.file_zip")))
                 if st.button(label, key=f"tour_file_{kind}", help=t("tour.file_help"),
                              disabled=too_costly,
                              icon=":material/picture_as_pdf:" if kind == "pdf"
                              else ":material/folder_zip:")]
    stem = "pe-deck" if code else "pe-tour"
    if asked and not too_costly:
        kind = asked[0]
        what = kind.upper()
        status = st.empty()

        def still_there() -> None:
            if not visitor_connected():
                raise _VisitorGoneError

        def files_ahead(ahead: int) -> None:
            still_there()
            status.caption(t("tour.file_waiting", ahead=ahead))

        def waiting(ahead: int) -> None:
            still_there()
            status.caption(t("export_queue.waiting", what=what, ahead=ahead) if ahead
                           else t("export_queue.waiting_computation", what=what))

        def memory(held: int, allowed: int, seconds_left: float) -> None:
            still_there()
            status.caption(t("export_queue.waiting_memory", what=what, held=held // 2**20,
                             allowed=allowed // 2**20, seconds=max(0, round(seconds_left))))

        server = _server()
        try:
            with run_slot_lent(), FILES.share(1, kind="file", on_wait=files_ahead):
                images: list[bytes] = []
                bar = status.progress(0.0, text=t("tour.file_computing", number=1, count=count))
                for number in range(1, count + 1):
                    # First the slide's numbers and figures, with no Chromium running (in turn
                    # with the visitors' computations); then its photograph, alone.
                    bar.progress((number - 1) / count,
                                 text=t("tour.file_computing", number=number, count=count))
                    content = compute_slide(server, TOUR_PAGE.url_path,
                                            _file_slide_query(slides, number, code),
                                            hidden=PAGE_ONLY, poll=still_there)
                    with image_turn(content.draw_cost, on_wait=waiting, on_memory_wait=memory,
                                    kind="slide"):
                        bar = status.progress((number - 0.5) / count, text=t(
                            "tour.file_drawing", number=number, count=count))
                        try:
                            images.append(photograph_slide(content, poll=still_there))
                        finally:
                            close_browser_when_idle()  # in the turn: counted until it has gone
            data = slides_pdf(images) if kind == "pdf" else slides_zip(images, stem)
            st.session_state[_FILE] = (kind, f"{stem}.{_FILE_KINDS[kind][1]}", data)
            status.empty()
        except _VisitorGoneError:
            return  # nobody to tell
        except ServerBusyError as busy:
            status.warning(busy_message(what, busy))
            return
        except ImageExportError as error:
            status.warning(t("export_queue.failed_timeout", what=what)
                           if error.reason == "timeout"
                           else t("export_queue.failed_browser", what=what))
            return
    made = st.session_state.get(_FILE)
    if made is not None:
        kind, file_name, data = made
        st.download_button(
            t("export_queue.save", what=file_name, size=size_text(len(data))), data=data,
            file_name=file_name, mime=_FILE_KINDS[kind][0], key="tour_file_save",
            on_click="ignore", type="primary", icon=":material/download:")


class _VisitorGoneError(Exception):
    """The visitor who asked for the file has gone: it is not drawn (its place given up)."""
