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
    # departed sessions are not kept for Streamlit's 120 s (docs/robustness.md: memory)
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


# --- the README and docs/ ------------------------------------------------------------------------

README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def relative_links(path: Path) -> list[str]:
    """The targets of the markdown links and images in `path` that point into the repository
    (no scheme, no mail, not a bare #anchor), without their #anchor; code blocks skipped."""
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.M | re.S)
    targets = []
    for target in LINK.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("#"):
            continue
        targets.append(target.split("#", 1)[0])
    return targets


def test_the_readme_is_what_a_user_reads():
    """Benchmarks, robustness, deployment and design notes live in docs/: the README stays short."""
    assert README.stat().st_size < 10_000


def test_every_relative_link_in_the_readme_and_docs_points_to_a_file():
    assert {p.name for p in DOCS} >= {"performance.md", "robustness.md", "deployment.md",
                                      "design.md", "replicas.md", "adding-a-scheme.md"}
    checked = 0
    for path in [README, *DOCS]:
        for target in relative_links(path):
            assert (path.parent / target).exists(), f"{path.relative_to(ROOT)}: {target}"
            checked += 1
    readme_links = set(relative_links(README))
    assert {f"docs/{p.name}" for p in DOCS} <= readme_links  # the README links every doc
    assert checked > len(DOCS)


def test_the_readmes_test_command_is_what_ci_runs():
    """`.ci/run` calls exactly the README's test command, and the Makefile's `test` target runs
    ruff and the whole suite."""
    commands = re.search(r"## Two commands\n.*?```bash\n(.*?)```", README.read_text("utf-8"), re.S)
    assert commands, "the README's Two commands block"
    test_command = [line.split("#")[0].strip() for line in commands.group(1).splitlines()
                    if line.startswith("make test")]
    assert test_command == ["make test"]
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()
          if line.strip() and not line.startswith(("#", "set ", "cd "))]
    assert ci == test_command
    make = (ROOT / "Makefile").read_text()
    target = re.search(r"^test:.*\n((?:\t.*\n)+)", make, re.M)
    assert target and "ruff check ." in target.group(1) and "-m pytest" in target.group(1)


def test_the_float32_bound_stated_is_cores():
    from core import FLOAT32_ERROR_BOUND

    for path in (README, ROOT / "docs" / "design.md"):
        assert f"within {FLOAT32_ERROR_BOUND:.1e}".replace("e-07", "e-7") in \
            path.read_text("utf-8"), path.name


def test_the_benchmarks_write_their_results_where_the_docs_show_them():
    from benchmarks.bench_browser import RESULT_DOCS

    for marker, doc in RESULT_DOCS.items():
        text = (ROOT / doc).read_text(encoding="utf-8")
        assert f"<!-- {marker} -->\n" in text and f"<!-- /{marker} -->" in text, (marker, doc)
        assert f"<!-- {marker} -->" not in README.read_text("utf-8")


def test_adding_a_scheme_states_its_file_counts_and_its_sketches_import():
    """docs/adding-a-scheme.md matches the code: the counts it states are its tables' rows (a
    view: NoPE's files on the order page, each of which exists; a page: four more), and every
    import in its sketches works against the code today, so a renamed module or function fails
    here."""
    text = (ROOT / "docs" / "adding-a-scheme.md").read_text(encoding="utf-8")
    scheme, live = text.split("## Make a slider live")
    rows = re.findall(r"^\| (\d+) \| `([^`]+)` \|", scheme, flags=re.MULTILINE)
    numbers = [int(number) for number, _ in rows]
    assert numbers == list(range(1, len(rows) + 1)), numbers
    view_files = [f for number, f in rows if int(number) <= 11]
    stated = [int(n) for n in re.findall(r"\*\*(\d+) files\*\*", scheme)]
    assert stated == [len(view_files), len(rows)] == [11, 15], (stated, len(rows))
    # Making a slider live: its table's rows are the first count it states, each file there.
    live_rows = re.findall(r"^\| (\d+) \| `([^`]+)` \|", live, flags=re.MULTILINE)
    assert [int(n) for n, _ in live_rows] == list(range(1, len(live_rows) + 1))
    assert int(re.search(r"\*\*(\d+) files\*\*", live).group(1)) == len(live_rows)
    alibi = [f.replace("<page>", "alibi") for _, f in live_rows]
    assert [f for f in alibi if not (ROOT / f).is_file()] == []
    nope = [f.replace("<scheme>", "nope").replace("<page>", "order") for f in view_files]
    assert [f for f in nope if not (ROOT / f).is_file()] == []
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    imports = [line for block in blocks for line in block.splitlines()
               if re.match(r"(from \S+ )?import ", line)]
    assert len(imports) >= 10
    for line in imports:
        exec(line, {})
    assert "worst_case" in text and "start_page" in text  # the page's sketch uses today's API


def test_every_documented_start_runs_the_one_public_entry():
    """`make run`, the README's hosting command and main file, the Dockerfile: all serve.py
    (which closes the metrics and upload endpoints), so no documented way opens the doors."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    run = re.search(r"^run:.*\n((?:\t.*\n)+)", makefile, re.M).group(1)
    assert "streamlit run serve.py" in run and "run app.py" not in run
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "pip install -r requirements.txt && streamlit run serve.py" in readme
    assert "main file `serve.py`" in readme
    assert "streamlit run app.py" not in readme
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert re.search(r'^ENTRYPOINT \["streamlit", "run", "serve\.py"', dockerfile, re.M)
