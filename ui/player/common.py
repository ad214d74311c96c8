"""What the player's parts share: the tour page's parameters, the session's keys, a slide's
address, and a page's own script run inside the tour's."""

from __future__ import annotations

from pathlib import Path
from string import Template

from ui.pages import HOME, PAGES, ROOT, TOUR_PAGE
from ui.tour import Slide

TOUR_PARAMS = {param.name: param for param in TOUR_PAGE.params}  # slide, deck

APP_PARAMS = ("lang", "present", "presenter")  # kept by the address bar from slide to slide
AT = "_tour_at"  # (deck, slide number) whose settings the widgets were last given
OWN_ADDRESS = "_tour_own_address"  # the deck editor showed another slide: its settings only
MY_DECK = "_my_deck"  # the session's deck: a tuple of ui.tour.Slide
PAGES_BY_PATH = {p.url_path: p for p in (HOME, *PAGES)}
ASSETS = Path(__file__).with_name("assets")  # the player's HTML, CSS and JS


def asset(name: str, **values: str) -> str:
    """The text of ui/player/assets/`name`, its ``${name}`` placeholders filled from `values`."""
    text = (ASSETS / name).read_text(encoding="utf-8")
    return Template(text).substitute(values) if values else text


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


def run_page(page: str) -> None:
    """The page's own script, run here as Streamlit runs a page (a fresh `__main__`, its
    bytecode from Streamlit's script cache: compiled once per process, dropped when the file
    changes, as a page opened from the navigation has it)."""
    import types

    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    path = ROOT / PAGES_BY_PATH[page].script
    ctx = get_script_run_ctx()
    code = ctx.pages_manager.get_page_script_byte_code(str(path)) if ctx is not None else ""
    if not code:  # no script cache (a bare run)
        code = compile(Path(path).read_text(encoding="utf-8"), str(path), "exec")
    module = types.ModuleType("__main__")
    module.__dict__["__file__"] = str(path)
    exec(code, module.__dict__)  # the app's own page script
