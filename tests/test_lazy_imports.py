"""Heavy libraries load only when a page needs them: a visitor opening a page at its defaults
does not wait for torch, transformers or scikit-learn (scikit-learn alone takes about a second
to import, which was most of the word-position page's cold start)."""

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


def test_the_probe_sees_a_heavy_import():
    """The check can fail: a page that projects with PCA (3-D of the article's 2-D vectors is
    still raw; random 64-d vectors need PCA) does import scikit-learn."""
    page = next(p for p in PAGES if p.url_path == "word-position")
    probe = PROBE.format(root=str(ROOT), script=page.script, heavy=HEAVY).replace(
        "timeout=120)", "timeout=120, query={'embedding': 'random', 'd_model': '64'})")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "sklearn" in json.loads(result.stdout.strip().splitlines()[-1])
