"""The chart element's files in the app's static/ folder (ui/plotly_react.py `install_static`):
written whole, dated so that a browser keeps them (Streamlit's static route sends no
Cache-Control), and other versions removed only once no server has started with them for a day.
The server's side, Last-Modified as a browser receives it, is in test_browser_plotly_react."""

from __future__ import annotations

import os
import time

from ui import plotly_react

DAY = 24 * 3600


def test_the_copies_are_the_sources_dated_far_back_and_marked_used_now(tmp_path):
    before = time.time()
    paths = plotly_react.install_static(tmp_path)
    sources = plotly_react.static_files()
    assert sorted(p.name for p in paths) == sorted(sources)
    for path in paths:
        assert path.read_bytes() == sources[path.name].read_bytes()
        stat = path.stat()
        assert stat.st_mtime == plotly_react.SERVED_MTIME  # Last-Modified: 2000-01-01
        assert stat.st_atime >= before - 1
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_a_copy_in_place_is_redated_not_rewritten_and_a_changed_one_is_replaced(tmp_path):
    plotly_react.install_static(tmp_path)
    chart = next(p for p in tmp_path.iterdir() if p.name.startswith("pe-plotly-react-"))
    plotly = next(p for p in tmp_path.iterdir() if p.name.startswith("plotly-"))
    os.utime(chart, (1.0e9, 1.0e9))  # a copy made before files were dated
    inode = chart.stat().st_ino
    plotly.write_bytes(b"half a file")
    plotly_react.install_static(tmp_path)
    assert chart.stat().st_ino == inode  # the same file, not a new one
    assert chart.stat().st_mtime == plotly_react.SERVED_MTIME
    assert plotly.read_bytes() == plotly_react.PLOTLY_JS.read_bytes()


def test_other_versions_go_once_unused_for_a_day_and_other_files_stay(tmp_path):
    now = time.time()
    unused = tmp_path / "plotly-1.0.0.min.js"
    recent = tmp_path / "pe-plotly-react-0123456789ab.js"
    foreign = tmp_path / "logo.png"
    for path, used in ((unused, now - DAY - 60), (recent, now - DAY + 600),
                       (foreign, now - 30 * DAY)):
        path.write_bytes(b"x")
        # All dated far back, as install_static dates them: the last use decides.
        os.utime(path, (used, plotly_react.SERVED_MTIME))
    plotly_react.install_static(tmp_path)
    assert not unused.exists()
    assert recent.exists() and foreign.exists()
