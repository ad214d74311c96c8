"""Heavy libraries load only when a page needs them: a visitor opening a page at its defaults
does not wait for torch, transformers or scikit-learn (scikit-learn alone takes about a second
to import and keeps ~78 MB; the app's PCA is numpy's, so no page imports it)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ui.pages import PAGES

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("torch", "transformers", "sentence_transformers", "sklearn")

PROBE = """
import json, sys
sys.path.insert(0, {root!r})
from tests.apptest import open_page
at = open_page({script!r}, timeout=120)
assert not at.exception, at.exception
print(json.dumps(sorted(m for m in {heavy!r} if m in sys.modules)))
"""


@pytest.mark.parametrize("page", PAGES, ids=[p.url_path for p in PAGES])
def test_page_at_defaults_imports_no_heavy_library(page):
    probe = PROBE.format(root=str(ROOT), script=page.script, heavy=HEAVY)
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout.strip().splitlines()[-1]) == []


def test_the_probe_sees_a_heavy_import(tmp_path):
    """The check can fail: a page script that imports scikit-learn (the app's PCA once did, on
    the first projection) is seen importing it."""
    script = tmp_path / "heavy_page.py"
    script.write_text("import streamlit as st\nimport sklearn.decomposition\nst.write('x')\n")
    probe = PROBE.format(root=str(ROOT), script=str(script), heavy=HEAVY).replace(
        "open_page(", "AppTest.from_file(").replace(", timeout=120)", ").run(timeout=120)").replace(
        "from tests.apptest import open_page", "from streamlit.testing.v1 import AppTest")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "sklearn" in json.loads(result.stdout.strip().splitlines()[-1])


CORE_PROBE = """
import builtins, io, json, sys
sys.path.insert(0, {root!r})
opened = []
real_open = io.open
def spying_open(file, *args, **kwargs):
    opened.append(str(file))
    return real_open(file, *args, **kwargs)
builtins.open = io.open = spying_open  # pathlib reads through io.open
{statement}
builtins.open = io.open = real_open
print(json.dumps({{"modules": sorted(sys.modules), "opened": opened}}))
"""
# What `import core` must not load: the app (its controls, pages and words), the figures, the
# web and plotting libraries, torch and the other heavy ones.
NOT_IN_CORE = ("ui", "app_pages", "figures", "locales", "streamlit", "plotly", "pandas",
               "tomllib", *HEAVY)


def _imported_by(statement: str) -> tuple[set[str], list[str]]:
    probe = CORE_PROBE.format(root=str(ROOT), statement=statement)
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    return {m.split(".")[0] for m in seen["modules"]}, seen["opened"]


def test_import_core_loads_the_numeric_library_only():
    """`core` is a library of its own: importing it (and reading its public names) loads numpy
    and `core`, no app module, no figure, no interface text (no catalogue is opened)."""
    top, opened = _imported_by("import core\nnames = [getattr(core, n) for n in core.__all__ "
                               "if n != 'PositionalEncoding']")
    assert "numpy" in top and "core" in top
    assert sorted(top & set(NOT_IN_CORE)) == []
    assert not [f for f in opened if f.endswith(".toml")]


def test_the_core_probe_sees_the_app_and_its_words():
    """The check can fail: the figures word their titles from the catalogues, so importing one
    loads ``locales`` and plotly, and drawing reads a catalogue."""
    top, opened = _imported_by("import core\nfrom figures.wavelengths import "
                               "make_spectrum_figure\nfrom locales import message\n"
                               "message('app.title', 'en')")
    assert {"locales", "figures", "plotly", "tomllib"} <= top
    assert [f for f in opened if f.endswith("en.toml")]


FIGURE_MODULES = sorted(p.stem for p in (ROOT / "figures").glob("*.py") if p.stem != "__init__")


def test_figures_import_no_app_module():
    """The arrows run down (app_pages -> ui -> figures -> locales, core): importing every figure
    module loads no `ui`, no `app_pages` and no Streamlit."""
    imports = "\n".join(f"import figures.{name}" for name in FIGURE_MODULES)
    top, _ = _imported_by(imports)
    assert "figures" in top and "locales" in top
    assert sorted(top & {"ui", "app_pages", "streamlit"}) == []


def test_positional_encoding_loads_torch_on_first_use():
    top, _ = _imported_by("import core\nassert 'torch' not in sys.modules\n"
                          "core.PositionalEncoding")
    assert "torch" in top
