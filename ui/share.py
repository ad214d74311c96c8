"""The "link to this view": the page's address with every control that differs from its
default, as the address bar shows it (Streamlit's bound widgets keep only those).

Shown at the top of the page by a small `st.components.v2` element that reads the address bar
itself, so it is always the address bar: a fragment's controls (the heatmap's worked example and
zoom window) rerun the fragment alone, and a link drawn by the server would miss their values
until the next full rerun. `link()` is the server's own view of it (the values recorded by
`PageControls` this run), for code that needs the link without a browser.
"""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from ui.i18n import t
from ui.params import Param, url_value

_VALUES = "_share_values"


def begin_run() -> None:
    """Forget the last run's values (app.py, before the controls of this run)."""
    st.session_state[_VALUES] = {}


def record(param: Param, value: object) -> None:
    """A control's value in this run (PageControls calls it for every control)."""
    st.session_state.setdefault(_VALUES, {})[param.name] = url_value(param, value)


def values() -> dict[str, str]:
    """The recorded controls whose values differ from their defaults, as the URL writes them."""
    return {k: v for k, v in st.session_state.get(_VALUES, {}).items() if v is not None}


def link() -> str:
    recorded = values()
    try:
        base = st.context.url or ""
    except Exception:  # no browser (a bare script run)
        base = ""
    return base + ("?" + urlencode(recorded) if recorded else "")


# The address bar, mirrored: Streamlit writes bound widgets' values into it with the history API
# (no event to listen to), so a cheap check every 250 ms keeps the text equal to it.
_LINK_JS = """
export default function ({ parentElement, data }) {
  const code = parentElement.querySelector("code");
  const button = parentElement.querySelector("button");
  parentElement.querySelector(".label").textContent = data.label;
  button.textContent = data.copy;
  button.title = data.help;
  const show = () => {
    if (code.textContent !== window.location.href) code.textContent = window.location.href;
  };
  show();
  window.clearInterval(parentElement.__peLinkTimer);
  parentElement.__peLinkTimer = window.setInterval(show, 250);
  button.onclick = async () => {
    try {
      await navigator.clipboard.writeText(window.location.href);
    } catch (error) {  // no clipboard API (plain http): select the text for Ctrl+C
      const range = document.createRange();
      range.selectNodeContents(code);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
    }
    button.textContent = data.copied;
    window.setTimeout(() => { button.textContent = data.copy; }, 1500);
  };
  return () => window.clearInterval(parentElement.__peLinkTimer);
}
"""
_LINK_HTML = '<div class="pe-link"><span class="label"></span><code></code><button></button></div>'
_LINK_CSS = """
.pe-link { display: flex; align-items: center; gap: 0.5rem; flex-wrap: wrap;
           font-size: 0.85rem; color: var(--st-text-color, inherit); }
.pe-link .label { font-weight: 600; white-space: nowrap; }
.pe-link code { flex: 1 1 16rem; min-width: 0; overflow-x: auto; white-space: nowrap;
                padding: 0.2rem 0.4rem; border-radius: 0.3rem;
                background: rgba(128, 128, 128, 0.12); }
.pe-link button { font: inherit; cursor: pointer; padding: 0.2rem 0.7rem; border-radius: 0.4rem;
                  border: 1px solid rgba(128, 128, 128, 0.5); background: transparent;
                  color: inherit; }
"""
_link_element = None


def show_link() -> None:
    """The link at the top of the page: the address bar, with a copy button."""
    global _link_element
    if _link_element is None:  # registered once per process
        _link_element = st.components.v2.component(
            "pe_share_link", html=_LINK_HTML, css=_LINK_CSS, js=_LINK_JS
        )
    _link_element(
        key="share_link",
        data={"label": t("app.share"), "copy": t("app.share_copy"),
              "copied": t("app.share_copied"), "help": t("app.share_help")},
        height="content",
    )
