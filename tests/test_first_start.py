"""A fresh clone's first start: what a new user reads first is not a warning."""

from __future__ import annotations

import shutil
import subprocess

from tests import browser_support
from tests.conftest import ROOT


def fresh_clone(target):
    """The checkout's tracked files as they are now (a clone of the working tree: nothing the
    app made when it ran, such as static/'s copies of plotly.js)."""
    files = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True,
                           check=True).stdout.decode().split("\0")
    for name in filter(None, files):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def test_a_fresh_clone_starts_without_a_warning(tmp_path):
    clone = fresh_clone(tmp_path / "clone")
    log = tmp_path / "server.log"
    server, _url = browser_support.start_streamlit("app.py", log, cwd=clone)
    browser_support.stop(server)
    printed = log.read_text()
    assert "You can now view your Streamlit app" in printed or "URL" in printed, printed
    assert [line for line in printed.splitlines() if "WARNING" in line.upper()] == []
