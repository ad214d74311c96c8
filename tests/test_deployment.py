"""Deployment settings: what a hosted demo runs is the repository as it is.

config.toml is read as TOML (Streamlit would ignore a misspelt key silently); the Dockerfile is
checked for what Streamlit's deployment guide asks (there is no Docker daemon in CI to build it).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from streamlit import config as st_config

ROOT = Path(__file__).resolve().parent.parent


def load_config() -> dict:
    return tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))


def test_production_settings():
    config = load_config()
    assert config["client"]["showErrorDetails"] == "none"  # no tracebacks for visitors
    assert config["client"]["toolbarMode"] == "viewer"
    assert config["server"]["enableXsrfProtection"] is True
    assert config["browser"]["gatherUsageStats"] is False
    assert set(config["theme"]) >= {"light", "dark"}
    # departed sessions are not kept for Streamlit's 120 s (README, Robustness: memory)
    assert 10 <= config["server"]["disconnectedSessionTTL"] <= 60


def test_the_allocator_settings_are_the_same_wherever_the_server_starts():
    """glibc reads them when Python starts, so they live where the process is started: the
    Dockerfile's ENV and the Makefile's exports (`make run`, `make serve-replicas`)."""
    docker = dict(re.findall(r"\b(MALLOC_[A-Z_]+)=(\d+)", (ROOT / "Dockerfile").read_text()))
    make = dict(re.findall(r"^export (MALLOC_[A-Z_]+) \?= (\d+)$",
                           (ROOT / "Makefile").read_text(), re.M))
    assert docker == make == {"MALLOC_ARENA_MAX": "2", "MALLOC_MMAP_THRESHOLD_": "131072"}


def test_every_setting_is_one_streamlit_knows():
    options = st_config.get_config_options()
    config = load_config()
    for section, values in config.items():
        for key, value in values.items():
            if isinstance(value, dict):  # [theme.light], [theme.dark]
                for sub in value:
                    assert f"{section}.{key}.{sub}" in options, (section, key, sub)
            else:
                assert f"{section}.{key}" in options, (section, key)


def test_dockerfile_follows_streamlits_deployment_guide():
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert re.search(r"^FROM python:3\.11-slim", text, re.M)
    assert re.search(r"^USER (?!root)\w+", text, re.M)  # not root
    assert re.search(r"^EXPOSE 8501$", text, re.M)
    assert re.search(r"^HEALTHCHECK .*\n?.*/_stcore/health", text, re.M)
    assert "--server.address=0.0.0.0" in text
    # The public entry (serve.py closes the endpoints a demo does not use), not app.py itself.
    assert re.search(r'^ENTRYPOINT \["streamlit", "run", "serve\.py"', text, re.M)
    assert "chromium" in text and "fonts-noto-cjk" in text
    assert "-r requirements.txt" in text


def test_hosting_platforms_get_what_export_and_chinese_need():
    """Streamlit Community Cloud installs Debian packages from packages.txt: a Chromium for
    kaleido's PNG/SVG export and CJK fonts for Chinese text in exported images."""
    packages = (ROOT / "packages.txt").read_text(encoding="utf-8").split()
    assert {"chromium", "fonts-noto-cjk"} <= set(packages)
    requirements = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    assert re.search(r"^kaleido>=1", requirements, re.M)
