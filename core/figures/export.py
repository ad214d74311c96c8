"""A figure as a file: PNG and SVG (drawn by plotly's kaleido, which drives a Chromium), and the
numbers behind it as CSV and .npy.

Images need kaleido (a PyPI package) and a Chromium or Chrome binary on the server: kaleido finds
Debian's /usr/bin/chromium by itself, or the one named by BROWSER_PATH. It would download a
browser of its own if none were found; this module never lets it (no network at run time), and
`image_export_problem` says what is missing instead.

The data: a figure made of one heatmap gives its matrix (CSV with the x values as the header and
the y values as the first column; .npy the 2-D array). Any other figure gives one row per point:
trace name, x, y (and z for 3-D traces), in CSV and as a numpy structured array in .npy (no
pickled objects: `np.load` reads it without allow_pickle).
"""

from __future__ import annotations

import base64
import csv
import importlib.util
import io
import os
import shutil
from typing import Literal

import numpy as np
import plotly.graph_objects as go

from core.figures.common import EXPORT_HEIGHT, EXPORT_WIDTH

ImageFormat = Literal["png", "svg"]
BROWSER_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
MAX_PNG_SCALE = 4  # 7680 x 4320 pixels: a 4K slide, twice over


def find_browser() -> str | None:
    """The Chromium kaleido will drive: BROWSER_PATH if it is set, else one on the PATH."""
    configured = os.environ.get("BROWSER_PATH")
    if configured:
        return configured if os.access(configured, os.X_OK) else None
    for name in BROWSER_CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


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
) -> bytes:
    """The figure as PNG or SVG bytes, `width` x `height` CSS pixels (PNG: times `scale`)."""
    if fmt not in ("png", "svg"):
        raise ValueError(f"fmt={fmt!r} is not allowed: fmt must be one of png, svg")
    if not 0 < scale <= MAX_PNG_SCALE:
        raise ValueError(f"scale={scale!r} is out of range: scale must be > 0 and <= 4")
    problem = image_export_problem()
    if problem:
        raise RuntimeError(f"image export is unavailable: {problem}")
    browser = find_browser()
    if browser and not os.environ.get("BROWSER_PATH"):
        os.environ["BROWSER_PATH"] = browser  # kaleido looks here first, never downloads
    return fig.to_image(format=fmt, width=width, height=height, scale=scale)


def _array(values) -> np.ndarray | None:
    """A trace's data as numpy: lists, numpy arrays, or plotly's base64 typed arrays
    ({dtype, bdata, shape}, as a figure read back from its JSON holds them)."""
    if values is None:
        return None
    if isinstance(values, dict) and "bdata" in values:
        array = np.frombuffer(base64.b64decode(values["bdata"]), dtype=np.dtype(values["dtype"]))
        shape = values.get("shape")
        return array.reshape([int(n) for n in str(shape).split(",")]) if shape else array
    return np.asarray(values)


def _heatmap_only(fig: go.Figure) -> go.Heatmap | None:
    traces = list(fig.data)
    if len(traces) == 1 and isinstance(traces[0], go.Heatmap):
        return traces[0]
    return None


def _column(values, count: int) -> list:
    if values is None:
        return [None] * count
    return _array(values).ravel().tolist() if not isinstance(values, str) else [values]


def _axis_values(values, count: int) -> np.ndarray:
    """A heatmap's x or y: given, or 0 .. count-1 as plotly draws it."""
    return np.arange(count) if values is None else _array(values)


def figure_rows(fig: go.Figure) -> tuple[list[str], list[tuple]]:
    """The figure's points as (column names, rows): one row per point of every trace."""
    columns = ["trace", "x", "y", "z"]
    rows: list[tuple] = []
    for index, trace in enumerate(fig.data):
        name = trace.name if getattr(trace, "name", None) else f"trace {index}"
        if isinstance(trace, go.Heatmap):
            z = _array(trace.z).astype(float)
            x = _axis_values(trace.x, z.shape[1])
            y = _axis_values(trace.y, z.shape[0])
            rows += [(name, x[j].item(), y[i].item(), z[i, j].item())
                     for i in range(z.shape[0]) for j in range(z.shape[1])]
            continue
        x = getattr(trace, "x", None)
        y = getattr(trace, "y", None)
        if x is None and y is None:  # polar, pie ...: r and theta
            x, y = getattr(trace, "theta", None), getattr(trace, "r", None)
        present = [_array(v) for v in (x, y) if v is not None]
        count = max((np.atleast_1d(v).size for v in present), default=0)
        z = getattr(trace, "z", None)  # scatter3d
        xs, ys, zs = _column(x, count), _column(y, count), _column(z, count)
        rows += [(name, xs[k], ys[k], zs[k] if k < len(zs) else None) for k in range(count)]
    if all(row[3] is None for row in rows):
        columns = columns[:3]
        rows = [row[:3] for row in rows]
    return columns, rows


def figure_csv(fig: go.Figure) -> bytes:
    """The numbers behind the figure as CSV (UTF-8, for trace names in any language)."""
    out = io.StringIO()
    writer = csv.writer(out)
    heatmap = _heatmap_only(fig)
    if heatmap is not None:
        z = _array(heatmap.z).astype(float)
        x = _axis_values(heatmap.x, z.shape[1])
        y = _axis_values(heatmap.y, z.shape[0])
        writer.writerow(["y \\ x", *x.tolist()])
        for i in range(z.shape[0]):
            writer.writerow([y[i].item(), *z[i].tolist()])
    else:
        columns, rows = figure_rows(fig)
        writer.writerow(columns)
        writer.writerows(rows)
    return out.getvalue().encode("utf-8")


def figure_npy(fig: go.Figure) -> bytes:
    """The numbers behind the figure as a .npy file (`np.load` reads it, no pickle)."""
    heatmap = _heatmap_only(fig)
    if heatmap is not None:
        array = _array(heatmap.z)
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
