"""The chart element's files in the app's static/ folder (ui/plotly_react.py `install_static`):
plotly.js, and the element's modules (ui/chart/) in one folder named by a hash of them all,
written whole, dated so that a browser keeps them (Streamlit's static route sends no
Cache-Control), and other versions removed only once no server has started with them for a day.
The server's side, Last-Modified as a browser receives it, is in test_browser_plotly_react."""

from __future__ import annotations

import os
import re
import shutil
import time

from ui import plotly_react

DAY = 24 * 3600


def _served(tmp_path):
    return sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())


def test_the_copies_are_the_sources_dated_far_back_and_marked_used_now(tmp_path):
    before = time.time()
    paths = plotly_react.install_static(tmp_path)
    sources = plotly_react.static_files()
    assert sorted(p.relative_to(tmp_path).as_posix() for p in paths) == sorted(sources)
    assert _served(tmp_path) == sorted(sources)  # nothing else (no temporary file left)
    for path in paths:
        assert path.read_bytes() == sources[path.relative_to(tmp_path).as_posix()].read_bytes()
        stat = path.stat()
        assert stat.st_mtime == plotly_react.SERVED_MTIME  # Last-Modified: 2000-01-01
        assert stat.st_atime >= before - 1
    folder = tmp_path / plotly_react.chart_folder(plotly_react.chart_modules())
    assert folder.stat().st_atime >= before - 1  # the folder's own use, which its removal reads


def test_every_module_is_served_in_one_folder_and_the_entry_is_what_the_page_imports(tmp_path):
    modules = plotly_react.chart_modules()
    folder = plotly_react.chart_folder(modules)
    assert re.fullmatch(r"pe-chart-[0-9a-f]{12}", folder)
    assert {p.name for p in modules} >= {plotly_react.CHART_ENTRY, "theme.js", "fit.js",
                                          "live.js", "follow.js", "slide.js", "draw.js",
                                          "typed.js"}
    served = plotly_react.static_files()
    assert sorted(name for name in served if not name.startswith("plotly-")) == [
        f"{folder}/{p.name}" for p in modules]
    assert plotly_react._chart_url() == f"app/static/{folder}/{plotly_react.CHART_ENTRY}"
    assert plotly_react._plotly_url() == (
        f"app/static/plotly-{plotly_react.plotly_js_version()}.min.js")
    # Every import stays in the folder: a module of this version, never another's.
    names = {p.name for p in modules}
    for path in modules:
        for target in re.findall(r'^import (?:.* from )?"([^"]+)";$', path.read_text(), re.M):
            assert target.startswith("./") and target[2:] in names, (path.name, target)


def test_a_change_to_any_module_is_a_new_folder(tmp_path):
    for module in plotly_react.chart_modules():
        shutil.copy(module, tmp_path / module.name)
    copies = sorted(tmp_path.glob("*.js"))
    name = plotly_react.chart_folder(copies)
    assert name == plotly_react.chart_folder(plotly_react.chart_modules())
    changed = tmp_path / "typed.js"
    changed.write_text(changed.read_text() + "\n")
    assert plotly_react.chart_folder(copies) != name
    changed.write_text(changed.read_text()[:-1])
    assert plotly_react.chart_folder(copies) == name
    renamed = tmp_path / "typed2.js"
    changed.rename(renamed)
    assert plotly_react.chart_folder(sorted(tmp_path.glob("*.js"))) != name


def test_a_copy_in_place_is_redated_not_rewritten_and_a_changed_one_is_replaced(tmp_path):
    plotly_react.install_static(tmp_path)
    folder = tmp_path / plotly_react.chart_folder(plotly_react.chart_modules())
    entry = folder / plotly_react.CHART_ENTRY
    plotly = next(p for p in tmp_path.iterdir() if p.name.startswith("plotly-"))
    theme = folder / "theme.js"
    os.utime(entry, (1.0e9, 1.0e9))  # a copy made before files were dated
    inode = entry.stat().st_ino
    plotly.write_bytes(b"half a file")
    theme.write_bytes(b"half a module")
    plotly_react.install_static(tmp_path)
    assert entry.stat().st_ino == inode  # the same file, not a new one
    assert entry.stat().st_mtime == plotly_react.SERVED_MTIME
    assert plotly.read_bytes() == plotly_react.PLOTLY_JS.read_bytes()
    assert theme.read_bytes() == (plotly_react.CHART_DIR / "theme.js").read_bytes()


def test_other_versions_go_once_unused_for_a_day_and_other_files_stay(tmp_path):
    now = time.time()
    unused = tmp_path / "plotly-1.0.0.min.js"
    unused_folder = tmp_path / "pe-chart-0123456789ab"
    before_the_split = tmp_path / "pe-plotly-react-0123456789ab.js"  # the code as one file
    recent_folder = tmp_path / "pe-chart-ba9876543210"
    foreign = tmp_path / "logo.png"
    foreign_folder = tmp_path / "pe-chart-mine"  # not a name this module writes
    for file in (unused, before_the_split, foreign):
        file.write_bytes(b"x")
    for folder in (unused_folder, recent_folder, foreign_folder):
        folder.mkdir()
        (folder / "element.js").write_bytes(b"x")
    for path, used in ((unused, now - DAY - 60), (unused_folder, now - DAY - 60),
                       (before_the_split, now - DAY - 60), (recent_folder, now - DAY + 600),
                       (foreign, now - 30 * DAY), (foreign_folder, now - 30 * DAY)):
        # All dated far back, as install_static dates them: the last use decides.
        os.utime(path, (used, plotly_react.SERVED_MTIME))
    plotly_react.install_static(tmp_path)
    assert not unused.exists() and not unused_folder.exists() and not before_the_split.exists()
    assert recent_folder.exists() and foreign.exists() and foreign_folder.exists()
