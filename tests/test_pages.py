"""The page registry (ui.pages): every page with its script and its URL parameters, in one
place; a mistyped script fails loudly instead of silently dropping the page."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from locales import LANGUAGES, catalogue
from ui.pages import HOME, PAGE_PARAMS, PAGES, PageInfo, checked, params_of

ROOT = Path(__file__).resolve().parent.parent


def test_every_page_script_exists_and_carries_its_params():
    assert len(PAGES) == 10
    for page in (HOME, *PAGES):
        assert (ROOT / page.script).is_file()
    assert HOME.params == ()
    assert {page.url_path: page.params for page in PAGES} == PAGE_PARAMS
    for page in PAGES:
        names = [param.name for param in page.params]
        assert names and len(names) == len(set(names)), page.url_path
        assert params_of(page.url_path) == {param.name: param for param in page.params}


def test_a_mistyped_script_raises_naming_it():
    pages = (PageInfo("app_pages/heatmap.py", ":material/grid_on:", "heatmap"),
             PageInfo("app_pages/heatmpa.py", ":material/grid_on:", "typo"))
    with pytest.raises(FileNotFoundError, match=r"app_pages/heatmpa\.py"):
        checked(pages)
    assert checked(pages[:1]) == pages[:1]


def test_the_registry_does_not_import_streamlit():
    code = "import sys, ui.pages; print('streamlit' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                            text=True, check=True)
    assert result.stdout.strip() == "False"


def _controls_made_without_a_label():
    """(page, name, method) of every `controls.<widget>("name")` call of a page that passes no
    label: its label and help are the catalogue's `<page>.<name>` and `<page>.<name>_help`."""
    widgets = {"number", "slider", "stops", "choice", "toggle", "text"}
    for page in PAGES:
        for node in ast.walk(ast.parse((ROOT / page.script).read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in widgets and isinstance(node.func.value, ast.Name)
                    and node.func.value.id == "controls" and len(node.args) == 1):
                yield page.url_path, node.args[0].value, node.func.attr


@pytest.mark.parametrize("lang", LANGUAGES)
def test_controls_without_a_label_have_one_in_the_catalogue(lang):
    made = list(_controls_made_without_a_label())
    assert len(made) > 40
    names = {page.url_path: {param.name for param in page.params} for page in PAGES}
    labels = catalogue(lang)
    assert [(page, name) for page, name, _ in made if name not in names[page]] == []
    assert [f"{page}.{name}" for page, name, _ in made if f"{page}.{name}" not in labels] == []


def test_a_stops_slider_without_stops_has_its_parameters_usual_values():
    from ui.controls import STOPS

    for page, name, widget in _controls_made_without_a_label():
        if widget == "stops":
            param = params_of(page)[name]
            assert param.stops in STOPS, (page, name)
            assert len(STOPS[param.stops](param)) > 3, (page, name)


@pytest.mark.parametrize("query", [
    {"d_model": "7"},  # the page runs to its end: app.py finishes its controls
    {"d_model": "7", "embedding": "random", "sentence": "  "},  # it stops early: controls.stop
])
def test_a_page_shows_its_notices_when_it_ends_or_stops_early(query):
    from tests.apptest import notices, open_page

    at = open_page("app_pages/word_position.py", query)
    assert not at.exception, [e.value for e in at.exception]
    assert [n for n in notices(at) if "d_model=7" in n], notices(at)
    assert control_value(at, "d_model") == 128  # reset to the default
    assert len(at.title) == 1 and at.title[0].value == catalogue("en")["word-position.title"]
    stopped = catalogue("en")["word-position.no_sentence"] in [i.value for i in at.info]
    assert stopped == ("sentence" in query)


def control_value(at, name):
    from tests.apptest import control

    return control(at, name).value
