"""A plotly chart that keeps its div: `st.components.v2` element drawing with `Plotly.react`.

`st.plotly_chart` gives its element an id that includes the figure, even with `key=`: every
changed figure is a new element, and the browser builds a new chart on a new DOM node
(`Plotly.newPlot`). This element's id is its key alone (Streamlit's bidi components use the key
as their identity), so a rerun with a new figure reaches the same element: its JavaScript
(ui/chart/, ES modules by job, `element.js` the entry) calls `Plotly.react` on the same div, which
updates what changed.

What it keeps from `st.plotly_chart` (ui/charts.py `show_chart` chooses between them):

- Streamlit's "streamlit" chart theme, applied in the browser as Streamlit does it (the
  placeholder colours of the "streamlit" plotly template replaced by the theme's chart colours,
  the theme's layout merged into the template, a bold title), from the theme's CSS variables
  that Streamlit gives every component, so light and dark follow the browser without a rerun;
  `theme=None` (presentation mode) draws the figure's own template;
- the container's width and the figure's height (450 px when it sets none), the modebar with
  Streamlit's buttons (no logo, no lasso/box select, a fullscreen button) and the config given;
- the chart div in the page's DOM (`isolate_styles=False`: no shadow root), with the element's
  `st-key-<key>` class around it, as pages and tests find charts.

Clicks: a page that passes `on_click` hears of a click on a point (the element's "click"
trigger; `clicked_point` reads it), as st.plotly_chart's point selection would tell it. The
element also carries the page's slider drags the server follows (its "follow" trigger,
ui/follow.py) and previews live states while a slider is dragged or a point hovered
(ui/chart/live.js).
Not kept: box and lasso selections (unused here); Streamlit's fullscreen wrapper (the
modebar's button opens the same kind of layer, made here, Escape closes it); the element
container's `stPrintGraphic` class (Streamlit's print styles for charts); st.plotly_chart's
title bolded twice (`<b><b>..</b></b>`, drawn as the single bold this one sends).

plotly.js is the installed plotly package's own `package_data/plotly.min.js`, never a CDN (the
app runs offline). Neither it nor the element's code is inlined in the component (a component's
JavaScript travels in every render's message): both are copied into the app's `static/` folder
when the app starts (Streamlit's static file serving, `server.enableStaticServing` in
.streamlit/config.toml, serves them at `app/static/...`): plotly.js named with its version, the
element's modules in one folder named with a hash of them all (`pe-chart-<hash>/`, so that a page
imports them all from one version, never old and new mixed after a deploy). The page loads each
once: the component's inline JavaScript is a small loader (plotly_react_loader.js, its CSS
plotly_react.css) that preloads plotly.js and imports the entry module, which adds plotly.js with
a `<script>` tag. A browser keeps them all in its cache: Streamlit's static route sends no
Cache-Control (and answers every request in full, gzipped anew), so the copies are dated
2000-01-01, and a browser then keeps them fresh for a tenth of that age (heuristic freshness,
RFC 9111 §4.2.2): their names change with their content, as Streamlit's own hashed bundles,
which it marks immutable for a year. Dated by the copy, a fresh server's 4.8 MB came again with
every page load for its first hours. Each render sends the figure's JSON as bytes, after one line
of settings. A rerun that resends an unchanged figure (same theme, same width) leaves the chart as
it is drawn, a zoom included, as st.plotly_chart does.

The element is used only where it can work: a browser session of `streamlit run` (not AppTest,
which has no browser and whose tests read `st.plotly_chart`'s spec), static serving on, and the
files in place (a read-only checkout: `python -m ui.plotly_react` copies them at build time, as
the Dockerfile does). Otherwise `show_chart` keeps `st.plotly_chart`. `PE_PLOTLY_REACT=1` or `=0` in
the environment forces the choice (benchmarks and tests compare both). Both paths send the same
figure JSON (tests/test_chart_paths.py), so what the AppTests read is what a browser draws.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import math
import os
import re
import shutil
import sys
import threading
import time
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import plotly
import plotly.graph_objects as go
import streamlit as st
from _plotly_utils.utils import PlotlyJSONEncoder

from figures.common import typed_array
from ui.follow import on_follow

_LOGGER = logging.getLogger(__name__)

# Whether charts use this element when nothing forces the choice (PE_PLOTLY_REACT): on, since
# every browser test passes with it and it draws what st.plotly_chart draws
# (tests/test_browser_plotly_react.py), repainting a changed chart sooner
# (benchmarks/bench_plotly_react.py).
DEFAULT_ON = True
ENV_SWITCH = "PE_PLOTLY_REACT"

PLOTLY_JS = Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js"
# The element's code: ES modules (every .js file there is served), `CHART_ENTRY` the one the loader
# imports; the loader and the element's CSS, which the component carries, beside this file.
CHART_DIR = Path(__file__).with_name("chart")
CHART_ENTRY = "element.js"
LOADER_JS = Path(__file__).with_name("plotly_react_loader.js")
ELEMENT_CSS = Path(__file__).with_suffix(".css")
STATIC_FOLDER = "static"  # Streamlit serves <main script's folder>/static at app/static/
_lock = threading.Lock()


def plotly_js_version() -> str:
    from plotly.offline import get_plotlyjs_version

    return get_plotlyjs_version()


def chart_modules() -> list[Path]:
    """The element's modules, by name."""
    return sorted(CHART_DIR.glob("*.js"))


def chart_folder(modules: Sequence[Path]) -> str:
    """The name of the folder `modules` are served in: a hash of all of them, names and
    contents, so that a change to any one is a new folder."""
    digest = hashlib.sha256()
    for path in modules:
        content = path.read_bytes()
        digest.update(f"{path.name}\n{len(content)}\n".encode() + content)
    return f"pe-chart-{digest.hexdigest()[:12]}"


@cache
def static_files() -> dict[str, Path]:
    """The files served from static/: their paths there ("/"-separated) and where they come from.
    plotly.js is named with its version, and the element's modules go into one folder named by
    `chart_folder` (a new version is a new address, so no browser keeps an old one from its
    cache, nor imports one module of it beside another's)."""
    modules = chart_modules()
    folder = chart_folder(modules)
    return {f"plotly-{plotly_js_version()}.min.js": PLOTLY_JS,
            **{f"{folder}/{path.name}": path for path in modules}}


def _url(name: str) -> str:
    return f"app/{STATIC_FOLDER}/{name}"


def _plotly_url() -> str:
    return _url(next(name for name in static_files() if name.startswith("plotly-")))


def _chart_url() -> str:
    return _url(next(name for name in static_files() if name.endswith(f"/{CHART_ENTRY}")))


_KEEP_OUTDATED_S = 24 * 3600
# The copies' modification time, sent as Last-Modified (see the module's docstring); their last
# access time (a folder's own) says when a server last started with them.
SERVED_MTIME = 946_684_800  # 2000-01-01 00:00 UTC
# Names this module writes in static/ (and so may remove when they are outdated), and no other:
# plotly.js, the element's folder, and the single file the element's code was before it was split.
_OURS = re.compile(r"^(plotly-[0-9A-Za-z.+-]+\.min\.js|pe-chart-[0-9a-f]{12}"
                   r"|pe-plotly-react-[0-9a-f]{12}\.js)$")


def install_static(static_dir: Path) -> list[Path]:
    """Put `static_files()` into `static_dir`: each file missing or different is written to a
    temporary name and renamed (a concurrent reader never sees half a file), dated SERVED_MTIME
    and accessed now, as is the element's folder; other versions of them are removed once unused
    (not accessed) for a day. Returns the files' paths; raises OSError when the folder cannot be
    written."""
    wanted = static_files()
    tops = {name.split("/")[0] for name in wanted}  # plotly.js, the element's folder
    paths = []
    with _lock:
        for name, source in wanted.items():
            content = source.read_bytes()  # not kept: 4.8 MB a server need not hold
            target = static_dir.joinpath(*name.split("/"))
            paths.append(target)
            if not (target.is_file() and target.stat().st_size == len(content)
                    and target.read_bytes() == content):
                target.parent.mkdir(parents=True, exist_ok=True)
                temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
                temporary.write_bytes(content)
                os.replace(temporary, target)
            os.utime(target, (time.time(), SERVED_MTIME))  # in use (see below), dated
        for top in tops:
            os.utime(static_dir / top, (time.time(), SERVED_MTIME))
        # Other versions go when no process has started with them for a day: a server still
        # running the previous code (a deployment's overlap, a developer's second server) keeps
        # its files meanwhile.
        for old in static_dir.iterdir():
            if _OURS.match(old.name) and old.name not in tops \
                    and time.time() - old.stat().st_atime > _KEEP_OUTDATED_S:
                if old.is_dir():
                    shutil.rmtree(old, ignore_errors=True)
                else:
                    old.unlink(missing_ok=True)
    return paths


@cache
def _installed_in(static_dir: str) -> bool:
    """Once per process and folder: are the files there (copied now if needed)?"""
    try:
        install_static(Path(static_dir))
    except OSError as error:
        _LOGGER.warning("plotly.js could not be copied to %s (%s): charts use st.plotly_chart",
                        static_dir, error)
        return False
    return True


def _static_dir() -> Path | None:
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    path = getattr(ctx, "main_script_path", None) if ctx is not None else None
    if not path:
        return None
    return Path(os.path.abspath(path)).parent / STATIC_FOLDER


def forced() -> bool | None:
    """PE_PLOTLY_REACT=1 / 0 in the environment, or None when unset."""
    value = os.environ.get(ENV_SWITCH, "").strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    return None


def enabled() -> bool:
    """Whether `show_chart` draws with this element in this run (see the module's doc)."""
    switch = forced()
    if switch is False or (switch is None and not DEFAULT_ON):
        return False
    return available(warn=bool(switch))


def available(*, warn: bool = False) -> bool:
    """Whether the element can draw here: a browser session (not AppTest), static serving on,
    plotly.min.js in the app's static/ folder (copied now if needed)."""
    if st.config.get_option("global.appTest"):
        return False  # no browser: AppTest's tests read st.plotly_chart's figure
    if not st.config.get_option("server.enableStaticServing"):
        if warn:
            _LOGGER.warning("%s=1 needs server.enableStaticServing", ENV_SWITCH)
        return False
    static_dir = _static_dir()
    return static_dir is not None and _installed_in(str(static_dir))


@cache
def _element():
    """The component, registered once per process."""
    return st.components.v2.component(
        "pe_plotly_react",
        html='<div class="pe-plotly-react"><div class="pe-plotly-chart"></div></div>',
        css=ELEMENT_CSS.read_text(encoding="utf-8"),
        js=LOADER_JS.read_text(encoding="utf-8"),  # it travels in every render's message
        isolate_styles=False,  # the chart div in the page's DOM, where tests and CSS find it
    )


def _content_height(figure: dict) -> int:
    """The figure's layout height, or plotly.js's 450 px (st.plotly_chart's rule)."""
    height = (figure.get("layout") or {}).get("height")
    if isinstance(height, int | float) and not isinstance(height, bool) and height > 0:
        return int(height)
    return 450


# Keys plotly.py does not look under for arrays (_plotly_utils.utils.is_skipped_key).
_LIST_KEYS = frozenset({"geojson", "layer", "layers", "range"})


# What a list holds that holds nothing to convert (its types checked in C: a list of a
# thousand numbers takes microseconds, against ~0.2 ms item by item).
_LEAVES = frozenset({int, float, str, bool, type(None), np.float32, np.float64, np.int64,
                     np.ndarray})


def _typed_arrays(value: Any) -> Any:
    """`value` with each numpy array that is a dict's value made the typed array ({dtype,
    bdata, shape}) plotly.py's `to_dict` makes of it (`convert_to_base64`; `typed_array`, its
    writer); an array in a list
    stays one (JSON writes it as a list, as plotly.py does: a slider step's arguments, say).
    Containers are copied only where something changes: the figure is not."""
    if isinstance(value, dict):
        changed = None
        for key, item in value.items():
            if key in _LIST_KEYS:
                continue
            if isinstance(item, np.ndarray):
                new = typed_array(item)
            elif isinstance(item, dict | list | tuple):
                new = _typed_arrays(item)
            else:
                continue
            if new is not item:
                changed = changed or dict(value)
                changed[key] = new
        return value if changed is None else changed
    if isinstance(value, list | tuple):
        if _LEAVES.issuperset(map(type, value)):  # numbers or texts: a live state's, say
            return value
        changed = None
        for index, item in enumerate(value):
            if isinstance(item, dict | list | tuple):
                new = _typed_arrays(item)
                if new is not item:
                    changed = changed or list(value)
                    changed[index] = new
        return value if changed is None else changed
    return value


# What plotly.io escapes in a figure's JSON, so that it can sit in an HTML <script>.
_UNSAFE = (("<", "\\u003c"), (">", "\\u003e"), ("/", "\\u002f"))


def figure_json(fig: go.Figure) -> str:
    """The JSON `st.plotly_chart` sends for `fig` (`pio.to_json(fig.to_dict())`: numpy arrays
    as base64 typed arrays, no trace uids, NaN as null), made without `to_dict`'s deep copy of
    the figure: ~160 ms a run, with its walk, for a figure with a few thousand live states
    (layout.meta.live: tens of thousands of small lists), against ~15 ms here.
    tests/test_chart_paths.py checks that the two send the same figure."""
    data = [{name: value for name, value in trace.items() if name != "uid"}
            for trace in fig._data]
    figure: dict[str, Any] = {"data": data, "layout": fig._layout}
    frames = [frame._props for frame in fig._frame_objs]
    if frames:
        figure["frames"] = frames
    text = json.dumps(_typed_arrays(figure), cls=PlotlyJSONEncoder, separators=(",", ":"))
    for unsafe, safe in _UNSAFE:
        text = text.replace(unsafe, safe)
    return text


def plotly_react_chart(fig: go.Figure, *, key: str, theme: str | None = "streamlit",
                       config: dict[str, Any] | None = None,
                       on_click: Callable[[], None] | None = None,
                       follows: Sequence[str] = ()) -> None:
    """Draw `fig` as `st.plotly_chart(fig, key=key, theme=theme, config=config)` does, in an
    element that stays the same across reruns (its key is its identity). With `on_click`, a
    click on a point calls it (before the rerun it starts), `clicked_point(key)` then saying
    where. The drags of the sliders named in `follows` may be sent through it (ui/follow.py)."""
    if theme not in ("streamlit", None):
        raise ValueError("theme: 'streamlit' or None")
    static_dir = _static_dir()
    if static_dir is not None:
        _installed_in(str(static_dir))  # once per process: plotly.min.js where it is served
    # The same figure JSON as st.plotly_chart sends (numpy arrays as base64 typed arrays).
    spec = figure_json(fig)
    height = _content_height({"layout": fig._layout})
    # The message is bytes: a line of JSON (the settings), then the figure's JSON as it is. As
    # a dict, the figure would be a string escaped into JSON (each non-ASCII character six
    # bytes) and parsed twice in the browser; and Streamlit looks for dataframes among a dict's
    # values, a check that imports pandas and pyarrow (~70 MB) as soon as it meets a dict.
    settings = {
        "config": config or {},
        "theme": theme or "",
        "height": height,
        "module": _chart_url(),  # the element's code: its entry module
        "src": _plotly_url(),  # plotly.js
        "clicks": on_click is not None,
        "follows": list(follows),
    }
    payload = json.dumps(settings, separators=(",", ":")).encode() + b"\n" + spec.encode()
    # As tall as the chart drawn: the browser may fit the figure to a phone, taller (its panels
    # stacked, ui/chart/fit.js `fitToWidth`).
    callbacks: dict[str, Callable[[], None]] = {}
    if on_click is not None:
        callbacks["on_click_change"] = on_click
    if follows:
        callbacks["on_follow_change"] = functools.partial(on_follow, key)
    _element()(key=key, data=payload, width="stretch", height="content", **callbacks)


def clicked_point(key: str) -> dict[str, Any] | None:
    """The point last clicked on chart `key` ({"x", "y", "trace"}), read in its `on_click`: this
    element's click, or st.plotly_chart's point selection (`ui.charts.show_chart` draws with
    either)."""
    result = st.session_state.get(key)
    if result is None:
        return None
    click = getattr(result, "click", None)
    if isinstance(click, dict):
        return click
    try:  # st.plotly_chart's selection state: {"selection": {"points": [...]}}
        point = result["selection"]["points"][0]
    except (KeyError, IndexError, TypeError):
        return None
    return {"x": point.get("x"), "y": point.get("y"), "trace": point.get("curve_number")}


def clicked_cell(key: str, *, trace: int | None = 0) -> tuple[float, float] | None:
    """The (x, y) of the point last clicked on chart `key` (a heatmap's cell), read in its
    `on_click`: on trace `trace` (any trace with None), finite numbers; else None (a click on
    another trace, or a crafted one)."""
    point = clicked_point(key)
    if not point or (trace is not None and point.get("trace") not in (trace, None)):
        return None
    try:
        x, y = float(point["x"]), float(point["y"])
    except (KeyError, TypeError, ValueError):
        return None
    return (x, y) if math.isfinite(x) and math.isfinite(y) else None


def main() -> None:
    """`python -m ui.plotly_react [folder]`: put the served files into `folder` (default: the
    app's static/), for images where the app cannot write its own folder (the Dockerfile)."""
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else (
        Path(__file__).resolve().parent.parent / STATIC_FOLDER)
    for path in install_static(folder):
        print(path)


if __name__ == "__main__":
    main()
