"""A figure as a file: PNG and SVG (drawn by Chromium with kaleido's plotly.js page), and the
numbers behind it as CSV and .npy.

Images need kaleido (a PyPI package: its page and its browser driver, choreographer) and a
Chromium or Chrome binary on the server: Debian's /usr/bin/chromium, or the one named by
BROWSER_PATH. Nothing is downloaded (no network at run time): `image_export_problem` says what is
missing instead. One Chromium per process draws them, one tab per image, a PNG a strip at a time
(export/chromium.py says why: a fresh kaleido per image peaked at ~550 MB for 7680 x 4320).

The data: a heatmap of a table (`TableExport`) gives the exact table, every row x column, up to
EXPORT_MAX_CELLS_NPY cells in .npy and EXPORT_MAX_CELLS_CSV in CSV; above that it gives the
overview drawn on screen, and then the file name ends in ``_overview`` and the CSV header names
each cell's range of rows and columns ("0-4"). Any other figure made of one heatmap gives its matrix
(CSV with the x values as the header and the y values as the first column; .npy the 2-D array).
Any other figure gives one row per point: trace name, x, y (and z for 3-D traces), in CSV and as a
numpy structured array in .npy (no pickled objects: `np.load` reads it without allow_pickle).
"""

from __future__ import annotations

import csv
import importlib.util
import io
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
import plotly.graph_objects as go

from core.overview import Overview
from export.chromium import ImageExportError, find_browser  # noqa: F401  (figure_image raises it)
from figures.common import EXPORT_HEIGHT, EXPORT_WIDTH, array_of

ImageFormat = Literal["png", "svg"]
MAX_PNG_SCALE = 4  # 7680 x 4320 pixels: a 4K slide, twice over
IMAGE_TIMEOUT_S = 120  # one image drawn, at most: 7680 x 4320 takes ~10 s on a busy 2-core box
# What one image adds to the process tree's unique memory (USS) at its peak, the Chromium started
# for it included: the largest measured by benchmarks/export_cost.py and load_memory.py
# (docs/robustness.md), rounded up. The caller takes it from the process's heavy work
# (server.memory_budget.image_turn) before drawing, and starts Chromium once the server's own memory
# is at most server.memory_budget.TREE_BUDGET less it.
IMAGE_COST = {"png4": 340 * 2**20, "png2": 310 * 2**20, "svg": 290 * 2**20}
# The exact table in a download, made only when the button is pressed: 2^22 cells is 16 MB of
# float32 (8192 x 512, 4096 x 1024, the 2048 x 2048 similarity matrix); CSV is ~11 bytes a cell,
# so it stops at 2^20 cells (~11 MB of text: 2048 x 512). Not more: Streamlit keeps each generated
# file in server memory until the session's next rerun, and downloads do not rerun, so a visitor
# clicking a 64 MB download ten times would hold 640 MB of a small demo server.
EXPORT_MAX_CELLS_NPY = 2**22
EXPORT_MAX_CELLS_CSV = 2**20


def image_export_problem() -> Literal["no_kaleido", "no_browser"] | None:
    """Why this server cannot draw images (None: it can)."""
    # Looked up, not imported: kaleido and its browser driver cost ~20 MB of server memory,
    # paid only when someone exports.
    if importlib.util.find_spec("kaleido") is None:
        return "no_kaleido"
    return None if find_browser() else "no_browser"


def figure_image(
    fig: go.Figure,
    fmt: ImageFormat,
    *,
    width: int = EXPORT_WIDTH,
    height: int = EXPORT_HEIGHT,
    scale: float = 1,
    poll: Callable[[float], None] | None = None,
    timeout: float = IMAGE_TIMEOUT_S,
) -> bytes:
    """The figure as PNG or SVG bytes, `width` x `height` CSS pixels (PNG: times `scale`), drawn
    by the process's one Chromium (export/chromium.py). Every half second of drawing,
    `poll(seconds so far)` runs in the calling thread: what it raises stops the drawing and is
    raised here. Raises ImageExportError (with a `reason`) when the image cannot be drawn."""
    if fmt not in ("png", "svg"):
        raise ValueError(f"fmt={fmt!r} is not allowed: fmt must be one of png, svg")
    if not 0 < scale <= MAX_PNG_SCALE:
        raise ValueError(f"scale={scale!r} is out of range: scale must be > 0 and <= 4")
    problem = image_export_problem()
    if problem:
        raise RuntimeError(f"image export is unavailable: {problem}")
    import plotly.io as pio

    from export.chromium import CHROMIUM

    return CHROMIUM.draw(pio.to_json(fig, validate=False), fmt, width, height,
                         scale if fmt == "png" else 1, timeout=timeout, poll=poll)


def image_cost(fmt: ImageFormat, scale: float = 1) -> int:
    """What drawing one image adds to the process tree's unique memory at its peak, in bytes,
    Chromium's own included (`IMAGE_COST`, measured): a PNG costs what the next measured size up
    costs."""
    if fmt == "svg":
        return IMAGE_COST["svg"]
    return IMAGE_COST["png2"] if scale <= 2 else IMAGE_COST["png4"]


def close_browser_when_idle() -> None:
    """Close the images' Chromium unless one is being drawn: its memory (~100-150 MB idle) goes
    back to the system. The next image starts it again (about a second)."""
    from export.chromium import CHROMIUM

    CHROMIUM.close_when_idle()


def _heatmap_only(fig: go.Figure) -> go.Heatmap | None:
    traces = list(fig.data)
    if len(traces) == 1 and isinstance(traces[0], go.Heatmap):
        return traces[0]
    return None


def _column(values, count: int) -> list:
    if values is None:
        return [None] * count
    return array_of(values).ravel().tolist() if not isinstance(values, str) else [values]


def _axis_values(values, count: int) -> np.ndarray:
    """A heatmap's x or y: given, or 0 .. count-1 as plotly draws it."""
    return np.arange(count) if values is None else array_of(values)


def figure_rows(fig: go.Figure) -> tuple[list[str], list[tuple]]:
    """The figure's points as (column names, rows): one row per point of every trace."""
    columns = ["trace", "x", "y", "z"]
    rows: list[tuple] = []
    for index, trace in enumerate(fig.data):
        name = trace.name if getattr(trace, "name", None) else f"trace {index}"
        if isinstance(trace, go.Heatmap):
            z = array_of(trace.z).astype(float)
            x = _axis_values(trace.x, z.shape[1])
            y = _axis_values(trace.y, z.shape[0])
            rows += [(name, x[j].item(), y[i].item(), z[i, j].item())
                     for i in range(z.shape[0]) for j in range(z.shape[1])]
            continue
        x = getattr(trace, "x", None)
        y = getattr(trace, "y", None)
        if x is None and y is None:  # polar, pie ...: r and theta
            x, y = getattr(trace, "theta", None), getattr(trace, "r", None)
        present = [array_of(v) for v in (x, y) if v is not None]
        count = max((np.atleast_1d(v).size for v in present), default=0)
        z = getattr(trace, "z", None)  # scatter3d
        xs, ys, zs = _column(x, count), _column(y, count), _column(z, count)
        rows += [(name, xs[k], ys[k], zs[k] if k < len(zs) else None) for k in range(count)]
    if all(row[3] is None for row in rows):
        columns = columns[:3]
        rows = [row[:3] for row in rows]
    return columns, rows


def _label(value: float) -> str:
    """An axis value as a header cell: 3 not 3.0, 0.3 not 0.30000000000000004."""
    return str(int(value)) if float(value).is_integer() else f"{value:.6g}"


def _ranges(edges: np.ndarray) -> list[str]:
    """Header cells of binned rows or columns: "0-4", or "7" for a one-entry bin."""
    return [f"{a}" if b - a == 1 else f"{a}-{b - 1}" for a, b in itertools.pairwise(edges)]


def _matrix_csv(values: np.ndarray, corner: str, rows: list[str], cols: list[str]) -> bytes:
    out = io.StringIO()
    out.write(",".join([corner, *cols]) + "\n")
    for label, row in zip(rows, values, strict=True):
        out.write(label + "," + ",".join(f"{v:.8g}" for v in row.tolist()) + "\n")
    return out.getvalue().encode("utf-8")


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


@dataclass(frozen=True)
class TableExport:
    """What the CSV and .npy of a heatmap of a table hold: the table itself, built only when a
    download asks for it, or above the size caps the overview on screen (said by the file name
    and the CSV header)."""

    overview: Overview  # what the chart draws
    shape: tuple[int, int]  # the exact table's (rows, columns)
    table: Callable[[], np.ndarray]  # builds the exact table, ``shape``
    row_name: str = "position"  # the CSV header's corner: "position \ dimension"
    col_name: str = "dimension"

    def is_exact(self, fmt: Literal["csv", "npy"]) -> bool:
        cap = EXPORT_MAX_CELLS_CSV if fmt == "csv" else EXPORT_MAX_CELLS_NPY
        return self.overview.exact or self.shape[0] * self.shape[1] <= cap

    def file_name(self, stem: str, fmt: Literal["csv", "npy"]) -> str:
        return f"{stem}.{fmt}" if self.is_exact(fmt) else f"{stem}_overview.{fmt}"

    def npy(self) -> bytes:
        if self.is_exact("npy"):
            return _npy(np.asarray(self.table(), dtype=np.float32))
        return _npy(self.overview.values)

    def csv(self) -> bytes:
        corner = f"{self.row_name} \\ {self.col_name}"
        if self.is_exact("csv"):
            rows, cols = self.shape
            return _matrix_csv(np.asarray(self.table()), corner, [str(r) for r in range(rows)],
                               [str(c) for c in range(cols)])
        view = self.overview
        return _matrix_csv(view.values, f"overview: {corner} (ranges each cell stands for)",
                           _ranges(view.row_edges), _ranges(view.col_edges))


def figure_csv(fig: go.Figure) -> bytes:
    """The numbers behind the figure as CSV (UTF-8, for trace names in any language)."""
    out = io.StringIO()
    writer = csv.writer(out)
    heatmap = _heatmap_only(fig)
    if heatmap is not None:
        z = array_of(heatmap.z).astype(float)
        x = _axis_values(heatmap.x, z.shape[1])
        y = _axis_values(heatmap.y, z.shape[0])
        writer.writerow(["y \\ x", *map(_label, x.tolist())])
        for i in range(z.shape[0]):
            writer.writerow([_label(y[i].item()), *z[i].tolist()])
    else:
        columns, rows = figure_rows(fig)
        writer.writerow(columns)
        writer.writerows(rows)
    return out.getvalue().encode("utf-8")


def figure_npy(fig: go.Figure) -> bytes:
    """The numbers behind the figure as a .npy file (`np.load` reads it, no pickle)."""
    heatmap = _heatmap_only(fig)
    if heatmap is not None:
        array = array_of(heatmap.z)
    else:
        columns, rows = figure_rows(fig)
        fields = []
        for k, column in enumerate(columns):
            values = [row[k] for row in rows]
            numeric = all((isinstance(v, int | float) and not isinstance(v, bool)) or v is None
                          for v in values)
            if numeric and column != "trace":
                fields.append((column, np.float64))
            else:
                width = max([len(str(v)) for v in values] + [1])
                fields.append((column, f"<U{width}"))
        array = np.array(
            [tuple(np.nan if v is None and f[1] is np.float64 else ("" if v is None else v)
                   for v, f in zip(row, fields, strict=True)) for row in rows],
            dtype=fields,
        )
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()
