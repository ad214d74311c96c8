"""Positional Encoding Explorer: routing, and the controls every page shares (language,
presentation mode, the link to the view). Run with `streamlit run app.py`."""

# pandas whole before any session runs: plotly looks it up without importing it
# (get_module(..., should_load=False)), and on a cold server a page that imports it (RoPE's and
# extrapolation's tables, word-position) while another session draws a chart handed plotly a
# half-imported module ("partially initialized module 'pandas' has no attribute 'Series'").
from pathlib import Path
from urllib.parse import urlsplit

import pandas  # noqa: F401
import streamlit as st

from locales import LANGUAGE_NAMES, LANGUAGES
from server.allocator import start_trimmer
from server.guard import close_doors
from server.run_slots import run_slot
from server.runtime import freeze_long_lived_objects
from ui import not_found, share
from ui.controls import PageControls, page_run
from ui.i18n import browser_language, current_language, note_asked_language, presenting, t
from ui.pages import HOME, PAGES, TOUR_PAGE, app_params
from ui.params import shorten
from ui.player import deck_sidebar, slide_file_session
from ui.text import markdown_text

# Presentation mode: bigger type everywhere, the header bar see-through with only its two
# buttons, faint until pointed at: the sidebar's opener (the page list, the language, the way out
# of presentation mode, the page's shared controls) and the settings menu (figures restyle in
# ui.charts). A presenter is never trapped on a slide. The
# controls at the text's size (Streamlit draws labels, options, slider values and buttons at
# 0.875rem): labels, options, slider numbers, buttons (the
# Export menu's), boxes, and the expander's heading.
PRESENTATION_CSS = """<style>
html { font-size: 19px; }
header[data-testid="stHeader"] { background: transparent; pointer-events: none; }
header[data-testid="stHeader"] [data-testid="stDecoration"],
header[data-testid="stHeader"] [data-testid="stAppDeployButton"] { display: none; }
header[data-testid="stHeader"] [data-testid="stExpandSidebarButton"],
header[data-testid="stHeader"] [data-testid="stMainMenu"] {
  pointer-events: auto; opacity: 0.4; transition: opacity 0.2s; }
header[data-testid="stHeader"] [data-testid="stExpandSidebarButton"]:hover,
header[data-testid="stHeader"] [data-testid="stMainMenu"]:hover { opacity: 1; }
[data-testid="stApp"] [data-testid="stWidgetLabel"] p,
[data-testid="stApp"] [data-testid="stRadioOption"] [data-testid="stMarkdownContainer"] p,
[data-testid="stApp"] [data-testid="stCheckbox"] [data-testid="stMarkdownContainer"] p,
[data-testid="stApp"] [data-testid="stSliderThumbValue"],
[data-testid="stApp"] [data-testid="stSliderTickBarMin"],
[data-testid="stApp"] [data-testid="stSliderTickBarMax"],
[data-testid="stApp"] [data-testid="stExpander"] summary p,
[data-testid="stApp"] input, [data-testid="stApp"] textarea,
[data-testid="stApp"] [data-baseweb="select"],
button [data-testid="stMarkdownContainer"] p { font-size: 1rem; }
</style>"""

# Formulas fitted to a phone's width, in the browser (the server cannot measure them).
FORMULA_FIT = ("<script>"
               + (Path(__file__).with_name("ui") / "formula_fit.js").read_text(encoding="utf-8")
               + "</script>")

# The browser tab's icon. Set before st.navigation, or the browser first asks fonts.gstatic.com
# for the page's material icon as a favicon: a request to the internet from every visitor.
APP_ICON = "🌀"

# Streamlit's full garbage collection after every rerun walks every object the process holds
# (~60-150 ms); frozen, the imported libraries are skipped (server/runtime.py). Again after a page's
# first lazy import (torch, scikit-learn): it runs before this run's page, after that one's.
freeze_long_lived_objects()
# Freed heap pages go back to the system once the RSS has grown (server/allocator.py): the sessions'
# figures and messages are freed after they are sent, outside the caches' compute slots.
start_trimmer()
# A visitor's websocket "clear_cache" must not empty every visitor's caches; a crafted widget
# value gets a notice, not an error box (server/guard.py). The script's path is hidden from sessions
# only by serve.py, before the first one: changed in a session's second run, it reset its widgets.
close_doors(hide_path=False)

not_found.localise()  # "Page not found" in the visitor's language (ui/not_found.py)

lang = current_language()
st.set_page_config(page_icon=APP_ICON)  # before st.navigation: see APP_ICON
navigation = st.navigation(
    [st.Page(HOME.script, title=HOME.title_in(lang), icon=HOME.icon, default=True)]
    + [
        st.Page(p.script, title=p.title_in(lang), icon=p.icon, url_path=p.url_path)
        for p in (*PAGES, TOUR_PAGE)
    ],
    # In presentation mode too: the sidebar starts folded, its opener stays on screen.
    position="sidebar",
)
if not_found.requested_page_missing():  # the home page, with the visitor's parameters
    st.session_state["_page_not_found"] = urlsplit(st.context.url or "").path or "/"
    st.switch_page(HOME.script, query_params=st.query_params.to_dict())
missing_page = st.session_state.pop("_page_not_found", None)
# The browser tab (and a shared link's preview) names the page: "ALiBi · Positional Encoding …".
app_title = t("app.title")
page_title = app_title if navigation.url_path == "" else f"{navigation.title} · {app_title}"
st.set_page_config(
    page_title=page_title,
    page_icon=APP_ICON,
    layout="wide",
    # The tour is a slide show from its first run (its link may not say present=1 yet).
    initial_sidebar_state=(
        "collapsed" if presenting() or navigation.url_path == TOUR_PAGE.url_path else "auto"),
)
# A display formula wider than its column is drawn smaller to fit (ui/formula_fit.js), and past
# the smallest it may be drawn, scrolls sideways instead of being cut (a phone).
st.html("<style>.katex-display { overflow-x: auto; overflow-y: hidden; }</style>")
st.html(FORMULA_FIT, unsafe_allow_javascript=True)
if presenting():
    st.html(PRESENTATION_CSS)

# After st.navigation: a rerun before it (a URL value to correct) would lose the page's path.
share.begin_run()
note_asked_language()
# The tour's address says its language on every slide (a link copied mid-talk).
controls = PageControls("app", app_params(
    browser_language(), language_carried=navigation.url_path == TOUR_PAGE.url_path))
with st.sidebar:
    controls.choice("lang", t("app.language"), help=t("app.language_help"),
                    captions=[LANGUAGE_NAMES[code] for code in LANGUAGES])
    controls.toggle("present", t("app.present"), help=t("app.present_help"))
    if navigation.url_path != TOUR_PAGE.url_path:  # the tour edits its deck itself
        deck_sidebar(navigation.url_path)
controls.finish()
# Slides stay clean (present=1 links are shared like any other), and so does the presenter's
# own window (its address is the audience's plus presenter=1: nothing to share).
presenter_window = (navigation.url_path == TOUR_PAGE.url_path
                    and st.query_params.get("presenter", "").lower() in ("1", "true"))
if not presenting() and not presenter_window:
    share.show_link()  # at the top of every page: the address bar itself (ui/share.py)
if missing_page:
    st.warning(t("app.page_not_found", path=markdown_text(shorten(missing_page, 80))),
               icon=":material/link_off:")  # the visitor's text: shown as typed, never as markup
# A few page runs at once (server/run_slots.py RUN_SLOTS): each holds its figures while it
# builds them.
# Once the page has run, its controls are finished (ui.controls.page_run).
slide_file_session()  # the slide file's own session (ui/player/): not kept, plain charts
with run_slot(), page_run():
    navigation.run()
