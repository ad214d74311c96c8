"""The page registry (ui.pages): every page with its script and its URL parameters, in one
place; a mistyped script fails loudly instead of silently dropping the page."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ui.pages import HOME, PAGE_PARAMS, PAGES, PageInfo, checked, params_of

ROOT = Path(__file__).resolve().parent.parent


def test_every_page_script_exists_and_carries_its_params():
    assert len(PAGES) == 9
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
