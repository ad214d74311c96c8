"""What every figure shares: the diverging scale and the base layout, live states (what a
dragged slider draws before the server does), typed arrays (plotly's {dtype, bdata, shape}: the
one encoder and decoder), the slides' and exports' styles."""

from __future__ import annotations

import base64
import functools
import json
import re
from collections.abc import Callable

import numpy as np
import plotly.graph_objects as go
from _plotly_utils.utils import to_typed_array_spec
from plotly import shapeannotation
from plotly.subplots import make_subplots

from figures.contrast import ensure_contrast

# Diverging, centred on zero, readable on light and dark backgrounds; reversed so +1 is red.
DIVERGING = "RdBu_r"
# Reference lines and neutral markers: a mid grey reads on the light and the dark theme alike
# (black vanishes on dark, white on light).
NEUTRAL = "#8c8c8c"
FIGURE_HEIGHT = 520


def plot_text(text: str) -> str:
    """A visitor's text (a config's name, a sentence's token) for plotly: the one way such text
    reaches a figure (titles, axis titles and tick labels, legend names, annotations, hovers).
    Plotly reads a few HTML tags in every text it draws (<b>, <br>, and <a href="https://...">
    as a live link) and decodes entities: `&` and `<` are escaped, so that it is drawn as the
    characters typed (a lone `>` opens nothing: "8k -> 128k" stays). In a hover template `%{x}`
    is a value: a word joiner (U+2060, invisible) inside each `%{` keeps a typed one as text."""
    return (text.replace("&", "&amp;").replace("<", "&lt;")
            .replace("%{", f"%{_WORD_JOINER}{{"))


_WORD_JOINER = "\u2060"  # as ui.text's: no width, no line break, drawn by no font


def base_layout(fig: go.Figure, title: str, height: int = FIGURE_HEIGHT) -> go.Figure:
    """Title at the top left, a fixed height, margins that leave room for axis titles. (Set as
    attributes: `update_layout`'s batch costs ~1.5 ms a figure, ten times as much.)"""
    layout = fig.layout
    layout.title = {"text": title, "x": 0.0, "xanchor": "left"}
    layout.height = height
    layout.margin = {"l": 70, "r": 20, "t": 60, "b": 60}
    return fig


_SPANS = {"vline": ("line", "x"), "vrect": ("rect", "x"), "hline": ("line", "y"),
          "hrect": ("rect", "y")}


def add_span(fig: go.Figure, kind: str, start: float, end: float | None = None, *,
             panel: int = 0, annotation_text: str | None = None,
             annotation_position: str | None = None, **shape) -> go.Figure:
    """plotly's `add_vline`, `add_vrect`, `add_hline`, `add_hrect` (`kind`) on the 0-based
    `panel` of a `grid_layout` or `make_subplots` grid (row by row), with the same shape and
    label: one `add_shape` (and `add_annotation`) instead of plotly's walk over every subplot
    and relayout, ~2-3 ms a call. The label is placed by plotly's own rule
    (`shapeannotation.axis_spanning_shape_annotation`). tests/test_figures_common.py checks the
    layout equals plotly's own call's."""
    shape_type, axis = _SPANS[kind]
    x_ref, y_ref = (key.replace("axis", "") for key in grid_axes(panel))
    end = start if end is None else end
    if axis == "x":
        args = {"type": shape_type, "x0": start, "x1": end, "xref": x_ref,
                "y0": 0, "y1": 1, "yref": f"{y_ref} domain"}
    else:
        args = {"type": shape_type, "x0": 0, "x1": 1, "xref": f"{x_ref} domain",
                "y0": start, "y1": end, "yref": y_ref}
    fig.add_shape(**args, **shape)
    label = {} if annotation_text is None else {"annotation_text": annotation_text}
    if annotation_position is not None:
        label["annotation_position"] = annotation_position
    annotation = shapeannotation.axis_spanning_shape_annotation(None, kind, args, label)
    if annotation is not None:
        annotation.setdefault("xref", args["xref"])
        annotation.setdefault("yref", args["yref"])
        fig.add_annotation(annotation)
    return fig


@functools.lru_cache(maxsize=32)
def _grid_layout(rows: int, cols: int, horizontal_spacing: float, vertical_spacing: float,
                 titles: int, shared_yaxes: bool) -> str:
    placeholders = [str(i) for i in range(titles)] or None  # the texts are set per figure
    return json.dumps(make_subplots(
        rows=rows, cols=cols, subplot_titles=placeholders, horizontal_spacing=horizontal_spacing,
        vertical_spacing=vertical_spacing, shared_yaxes=shared_yaxes).layout.to_plotly_json())


def grid_layout(rows: int, cols: int, *, titles: list[str] | None = None,
                horizontal_spacing: float, vertical_spacing: float,
                shared_yaxes: bool = False) -> dict:
    """`make_subplots`' layout as a dict: each panel's x and y axes (domains, anchors) and its
    title as an annotation. Many panels cost `make_subplots` and plotly's per-panel updates
    tens of milliseconds each rerun (64 ALiBi heads: ~270 ms a figure); the grid is made once
    per shape, and the caller sets the axes' options in the dict and builds the figure once
    (`go.Figure(data=..., layout=...)`), each trace naming its axes (`grid_axes`)."""
    layout = json.loads(_grid_layout(rows, cols, horizontal_spacing, vertical_spacing,
                                     len(titles or ()), shared_yaxes))
    for annotation, title in zip(layout.get("annotations", []), titles or [], strict=True):
        annotation["text"] = title
    return layout


def grid_axes(index: int) -> tuple[str, str]:
    """The layout keys of the 0-based panel `index`'s axes in a `grid_layout`, row by row:
    ("xaxis", "yaxis"), ("xaxis2", "yaxis2"), ... (a trace names them "x", "x2", ...)."""
    suffix = "" if index == 0 else str(index + 1)
    return f"xaxis{suffix}", f"yaxis{suffix}"


def grid_refs(index: int) -> dict[str, str]:
    """How a trace of the 0-based panel `index` names its axes: {"xaxis": "x2", "yaxis": "y2"}
    (a trace's keyword arguments; "x2" is also what a y axis's `scaleanchor` takes)."""
    x_key, y_key = grid_axes(index)
    return {"xaxis": x_key.replace("axis", ""), "yaxis": y_key.replace("axis", "")}


def segments(start: np.ndarray, end: np.ndarray) -> list[np.ndarray]:
    """Per axis of `start` and `end` ``(m, k)``: start, end, None for each row, so that one line
    trace draws every segment. Returns k object arrays of length 3m."""
    count, dims = start.shape
    gaps = np.full((count, 1), None, dtype=object)
    return [np.hstack([start[:, [a]], end[:, [a]], gaps]).astype(object).ravel()
            for a in range(dims)]


def arrow_trace(start: np.ndarray, end: np.ndarray, *, color: str, width: float = 1.5,
                head: float = 11, **scatter) -> go.Scatter:
    """Arrows from each row of `start` to the same row of `end` ``(m, 2)`` as one line trace,
    with an "arrow" marker at each end pointing along its segment (angleref="previous").

    Drawn far faster than annotations with arrows: plotly measures the page for each of those
    (six cost about 20 ms of a 57 ms chart in Chromium)."""
    x, y = segments(np.asarray(start, dtype=np.float64), np.asarray(end, dtype=np.float64))
    return go.Scatter(
        x=x, y=y, mode="lines+markers", line={"color": color, "width": width},
        marker={"symbol": "arrow", "size": np.tile([0, head, 0], len(start)),
                "angleref": "previous", "color": color},
        **scatter,
    )


# --- Live states: what a dragged slider draws in the browser before the server does ---------
# Numbers a figure's live states may carry in all (`add_live_states`): ~0.4 MB of JSON at most
# (the order page at its 64 tokens: 147,000, 15 MB more allocated per run: none sent there).
MAX_LIVE_NUMBERS = 40_000


def add_live_states(fig: go.Figure, name: str,
                    states: list[tuple[object, dict, dict, list[int]]], *,
                    animate: bool = False) -> go.Figure:
    """Give `fig` what it looks like at each value of control `name` (a slider of the page), so
    that dragging that slider redraws the chart in the browser before the value reaches the
    server (ui/chart/live.js, "live states"): `states` are (value, data update, layout
    update, trace indices) as `Plotly.update` takes them. Kept in `layout.meta.live`; the
    caller bounds their size (MAX_LIVE_NUMBERS). The server's run at the released value draws
    the same picture.

    With `animate`, the states move scatter traces alone (no layout update): the browser
    applies them with `Plotly.animate` without a redraw, which computes and draws those traces
    only. `Plotly.update` draws the whole figure again at any moved annotation or shape (their
    attributes are `calc` edits), ~120 ms for the similarity offset view's 4,000 points."""
    if animate:
        moved = {i for *_, traces in states for i in traces}
        assert all(isinstance(fig.data[i], go.Scatter) for i in moved), \
            "plotly.js animates scatter traces (SVG) without a redraw"
        for _, data, layout, traces in states:
            assert not layout, "an animated state moves traces alone"
            assert all(len(values) == len(traces) for values in data.values())
    meta = fig.layout.meta if isinstance(fig.layout.meta, dict) else {}
    live = dict(meta.get("live", {}))
    live[name] = {"values": [str(value) for value, *_ in states],
                  "updates": [[data, layout, traces] for _, data, layout, traces in states]}
    if animate:
        live[name]["animate"] = True
    fig.layout.meta = {**meta, "live": live}
    return fig


def live_values(lowest: int, highest: int, *, drawn: int, per_state: int,
                most: int = 101) -> list[int]:
    """The values from `lowest` to `highest` a figure carries live states for, when each state
    weighs `per_state` numbers: every value if they fit in MAX_LIVE_NUMBERS (and `most`),
    else as many evenly spaced ones as fit, ends and `drawn` always among them (a value
    between two is previewed by the nearer: say so where it matters). Empty when not even two
    fit (the chart then follows on release)."""
    count = min(most, MAX_LIVE_NUMBERS // max(per_state, 1), highest - lowest + 1)
    if count < 2:
        return []
    spaced = np.rint(np.linspace(lowest, highest, count)).astype(int).tolist()
    return sorted({*spaced, min(max(drawn, lowest), highest)})


State = tuple[dict, dict, list[int]]  # a Plotly.update: data, layout, trace indices
# MAX_LIVE_NUMBERS' unit in JSON: its 40,000 numbers are ~0.4 MB.
BYTES_PER_NUMBER = 10


def state_weight(state: State) -> int:
    """A state's weight in MAX_LIVE_NUMBERS' numbers: its JSON over BYTES_PER_NUMBER (a
    state's texts count too, not its numbers alone)."""
    text = json.dumps(state, separators=(",", ":"), ensure_ascii=False)
    return len(text.encode()) // BYTES_PER_NUMBER + 1


def heaviest_state(state: Callable[[int], State], low: int, high: int, drawn: int) -> int:
    """The weight of a control's states: it varies with the value (its numbers' digits, a zoom
    cut at an end), the heaviest of the ends and the middle stands for all. The drawn one may
    weigh more (the figure's own arrays): one state, left out."""
    values = {low, (low + high) // 2, high} - {drawn} or {drawn}
    return max(state_weight(state(value)) for value in values)


def add_states_within_budget(
    fig: go.Figure, controls: dict[str, tuple[Callable[[int], State], int, int, int]], *,
    fixed: dict[str, list[int]] | None = None, animate: bool = False,
) -> go.Figure:
    """Give `fig` live states for each control, name -> (its state at a value, lowest,
    highest, drawn), within MAX_LIVE_NUMBERS in all: those of `fixed` at the values given
    (chosen with another chart's), the others sharing the rest evenly, a control whose every
    value fits in less than its share leaving the rest to the others. A control that cannot
    have two states has none: its chart follows on release."""
    weights = {name: heaviest_state(*control) for name, control in controls.items()}
    budget = MAX_LIVE_NUMBERS
    for name, values in (fixed or {}).items():
        if values:
            add_live_states(fig, name, [(value, *controls[name][0](value)) for value in values],
                            animate=animate)
            budget -= len(values) * weights[name]
    free = [name for name in controls if name not in (fixed or {})]
    sizes = {name: high - low + 1 for name, (_, low, high, _) in controls.items()}
    by_need = sorted(free, key=lambda name: sizes[name] * weights[name])
    for index, name in enumerate(by_need):
        state, low, high, drawn = controls[name]
        fits = max(budget, 0) // (len(by_need) - index) // weights[name]
        # Short of all of them, one fewer: the drawn value may come on top of the spaced ones.
        count = sizes[name] if fits >= sizes[name] else fits - 1
        values = live_values(low, high, drawn=drawn, per_state=weights[name], most=count)
        if values:
            add_live_states(fig, name, [(value, *state(value)) for value in values],
                            animate=animate)
            budget -= len(values) * weights[name]
    return fig


def scaled_array(attribute: str, by: float, *, symlog_floor: float | None = None) -> dict:
    """A state's array made in the browser (ui/chart/live.js, `scaledArray`) from one the figure
    already carries: the sent figure's `attribute` of the same trace times `by`, then, with
    `symlog_floor`, its `symlog`; float32, as the server's arrays. A state of one number, where
    every value's array is one array scaled (ALiBi: head k's bias is m_k / m_h times the drawn
    head h's): a drag previews every value whatever the array's size."""
    spec = {"scaled": attribute, "by": float(by)}
    if symlog_floor is not None:
        spec["symlog"] = float(symlog_floor)
    return spec


def symlog(values: np.ndarray, floor: float) -> np.ndarray:
    """-log10(1 + |values| / floor): 0 at 0, one unit per decade beyond `floor` (a symmetric
    log, linear below `floor`), so values that differ 256-fold each span a visible part of one
    colour scale. The browser's (ui/chart/live.js) computes the same for a `scaled_array`."""
    return -np.log10(1.0 + np.abs(values) / floor)


def live_state_values(fig: go.Figure, name: str) -> list[int]:
    """The values of control `name` whose states `fig` carries (none: no live states)."""
    meta = fig.layout.meta if isinstance(fig.layout.meta, dict) else {}
    return [int(value) for value in meta.get("live", {}).get(name, {}).get("values", [])]


# --- Typed arrays: the one encoder and decoder of plotly's {dtype, bdata, shape} --------------
def typed_array(values, dtype=None):
    """`values` (a numpy array or what makes one, as `dtype` if given) as plotly.py writes a
    figure's numpy arrays: plotly.js's typed array {dtype, bdata[, shape]} (the bytes in base64,
    the shape for more than one dimension; int64 narrowed), by plotly.py's own writer
    (`_plotly_utils.utils.to_typed_array_spec`, pinned: tests/test_plotly_internals.py). A live
    state's numbers then arrive bit for bit as the server's figure draws them (a hover's 4th
    decimal included), in ~5.3 bytes a float32 instead of ~9 as rounded JSON text. What
    plotly.py writes as a list (an empty array, an unsupported dtype) comes back as the array.
    The one encoder: `ui.plotly_react.figure_json` writes every figure's arrays with it."""
    return to_typed_array_spec(np.asarray(values, dtype=dtype))


def array_of(value) -> np.ndarray:
    """A figure's array as numpy: a typed array ({dtype, bdata[, shape]}, as `typed_array` and
    plotly.py write it) decoded, a list (or array) as it is. The one decoder (the browser's:
    ui/chart/typed.js)."""
    if isinstance(value, dict) and "bdata" in value:
        array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        return array.reshape([int(n) for n in str(shape).split(",")]) if shape else array
    return np.asarray(value)


def with_arrays(value):
    """`value` (a figure's JSON as dicts and lists) with every typed array in it decoded
    (`array_of`)."""
    if isinstance(value, dict):
        if "bdata" in value and "dtype" in value:
            return array_of(value)
        return {key: with_arrays(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [with_arrays(item) for item in value]
    return value


# Above this many cells a heatmap is drawn as one image, a pixel per cell scaled up by the browser
# (plotly's zsmooth="fast"), instead of one canvas rectangle per cell: measured in Chromium, a
# 300 x 300 heatmap repaints in 1.1x the floor app's time instead of 1.55x. Small exact heatmaps
# (the zoom window, M_k) keep per-cell drawing.
FAST_HEATMAP_CELLS = 2500


def heatmap_smoothing(values) -> str | bool:
    """plotly's `zsmooth` for a heatmap of `values` (any array with a `.size`)."""
    return "fast" if values.size > FAST_HEATMAP_CELLS else False


# --- Presentation mode and exported images ------------------------------------------------------
# Okabe & Ito's palette, distinguishable with every common colour-vision deficiency. The figures'
# usual colours map onto it by role (blue, red, green, grey), so a figure keeps its meaning.
OKABE_ITO = {
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "green": "#009E73",
    "orange": "#E69F00",
    "sky": "#56B4E9",
    "purple": "#CC79A7",
    "yellow": "#F0E442",
    "grey": "#8C8C8C",
}
PRESENTATION_COLOURS = {
    "#1f77b4": OKABE_ITO["blue"],
    "#d62728": OKABE_ITO["vermillion"],
    "#c0392b": OKABE_ITO["vermillion"],
    "#2ca02c": OKABE_ITO["green"],
    "#ff7f0e": OKABE_ITO["orange"],
    "#9467bd": OKABE_ITO["purple"],
    "#7f7f7f": OKABE_ITO["grey"],
}
# What a reader calls each colour the figures draw with (a caption that names a colour names one
# of these: tests/test_colour_words.py).
COLOUR_NAMES = {
    "#1f77b4": "blue", "#0072b2": "blue", "#56b4e9": "blue",
    "#d62728": "red", "#c0392b": "red",
    "#d55e00": "vermillion",
    "#2ca02c": "green", "#009e73": "green",
    "#ff7f0e": "orange", "#e69f00": "orange",
    "#9467bd": "purple", "#cc79a7": "purple",
    "#7f7f7f": "grey", "#8c8c8c": "grey", "#bbbbbb": "grey", "#cccccc": "grey",
}


def colour_name(colour: str) -> str | None:
    """The name a reader gives the colour `colour` ("#d62728" is "red"), if it is one of ours."""
    return COLOUR_NAMES.get(colour.lower()) if isinstance(colour, str) else None


PRESENTATION_COLORWAY = [OKABE_ITO[name] for name in
                         ("blue", "vermillion", "green", "orange", "sky", "purple", "yellow")]
PRESENTATION_FONT_SIZE = 20  # readable from the back of a room on a 16:9 slide
# No text of a chart smaller than this in presentation mode (16 px at 1920 x 1080 is read from
# the back row), and every text in the theme's own text colour (Streamlit 1.67's, light and
# dark), as the axis numbers are: labels drawn grey or in their line's colour were not read.
PRESENTATION_MIN_FONT = 16
PRESENTATION_TEXT = {False: "#2f2d2b", True: "#edebe8"}
# A chart's note for a reader at a screen (how an overview was sampled, what is left out): named
# so, it is left out of a slide (`without_notes`).
NOTE = "note"
PRESENTATION_SCALE = 1.6  # markers and lines grow with the fonts
# Longest title and note lines on a slide: a chart in half of a 1280 px slide is ~600 px wide,
# ~43 characters of 26 px title type and ~55 of 18 px note type, less a margin.
SLIDE_TITLE_CHARACTERS = 38
SLIDE_NOTE_CHARACTERS = 44
# Exported images: 16:9 at 1920 x 1080 CSS pixels (times the chosen scale for PNG).
EXPORT_WIDTH = 1920
EXPORT_HEIGHT = 1080


def add_note(fig: go.Figure, text: str, **placement) -> go.Figure:
    """`text` as a small note above the plot's left edge (or at `placement`), named NOTE."""
    fig.add_annotation(**{"xref": "paper", "yref": "paper", "x": 0, "y": 1.0,
                          "yanchor": "bottom", "xanchor": "left", "align": "left",
                          "showarrow": False, "font": {"size": 11}, **placement},
                       text=text, name=NOTE)
    return fig


def without_notes(fig: go.Figure) -> go.Figure:
    """`fig` without its notes (`add_note`): a slide says what its audience needs."""
    notes = [a for a in fig.layout.annotations if a.name == NOTE]
    if not notes:
        return fig
    bare = go.Figure(fig)
    bare.layout.annotations = [a for a in bare.layout.annotations if a.name != NOTE]
    return bare


def presentation_colour(value):
    """A figure colour in the colour-blind-safe palette (same role), or unchanged."""
    if isinstance(value, str):
        return PRESENTATION_COLOURS.get(value.lower(), value)
    return value


def _scaled(value, factor: float):
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value * factor
    return value


def _legend_at_the_bottom(fig: go.Figure) -> None:
    """A horizontal legend below the plot (placed at a fraction of the plot's height) moves to the
    figure's bottom edge, under the x-axis title: with larger type the two would overlap."""
    legend = fig.layout.legend
    if legend.orientation == "h" or (legend.y is not None and legend.y < 0):
        legend.update(orientation="h", yref="container", y=0.0, yanchor="bottom")
        if legend.title.text:  # its own row: beside the entries, plotly let them run past the
            legend.title.side = "top"  # figure's right edge (wavelengths' "λ=54,4")
        bottom = fig.layout.margin.b if fig.layout.margin.b is not None else 60
        fig.update_layout(margin={"b": max(bottom, 150)})


def presentation_style(fig: go.Figure, *, dark: bool = False) -> go.Figure:
    """A copy of `fig` for slides: a clean template (white, or dark on the dark theme), larger
    fonts, markers and lines, the Okabe-Ito palette. Heatmap scales are kept: the diverging
    RdBu scale is colour-blind safe and stays centred on zero."""
    styled = go.Figure(fig)
    plot_height = _plot_height(styled)  # before the slide's title and legend take their room
    styled.update_layout(
        template="plotly_dark" if dark else "simple_white",
        font={"size": PRESENTATION_FONT_SIZE},
        # The larger title pushes the plot down (automargin) instead of covering subplot titles.
        title={"font": {"size": round(PRESENTATION_FONT_SIZE * 1.3)}, "automargin": True,
               "yref": "container"},
        colorway=PRESENTATION_COLORWAY,
        paper_bgcolor="rgba(0,0,0,0)" if dark else "white",
        plot_bgcolor="rgba(0,0,0,0)" if dark else "white",
    )
    styled.layout.font.color = PRESENTATION_TEXT[dark]
    # simple_white draws shapes with no line (width 0) at opacity 0.3 unless a shape says
    # otherwise: a marker line (the similarity anchor's) vanished on a slide. Plotly's own.
    styled.layout.template.layout.shapedefaults = None
    for trace in styled.data:
        marker = getattr(trace, "marker", None)
        if marker is not None:
            if getattr(marker, "color", None) is not None:
                marker.color = presentation_colour(marker.color)
            if getattr(marker, "size", None) is not None:
                marker.size = _scaled(marker.size, PRESENTATION_SCALE)
        line = getattr(trace, "line", None)
        if line is not None:
            if getattr(line, "color", None) is not None:
                line.color = presentation_colour(line.color)
            if getattr(line, "width", None) is not None:
                line.width = _scaled(line.width, PRESENTATION_SCALE)
    # A mark drawn in pixels (the similarity offset's ±k diamonds) grows as a marker does.
    for shape in styled.layout.shapes:
        if shape.xsizemode == "pixel" and shape.ysizemode == "pixel" and shape.path:
            shape.path = re.sub(r"-?\d+(?:\.\d+)?",
                                lambda n: f"{float(n.group()) * PRESENTATION_SCALE:g}", shape.path)
        if shape.fillcolor is not None:
            shape.fillcolor = presentation_colour(shape.fillcolor)
    # Subplot titles and notes are annotations: they grow with the rest, in the text's colour
    # (one on a box of its own keeps the colour its box was chosen for).
    for annotation in styled.layout.annotations:
        annotation.font.size = round(PRESENTATION_FONT_SIZE * 0.9)
        if annotation.bgcolor is None:
            annotation.font.color = None
    # Labels drawn as a trace's text: at least PRESENTATION_MIN_FONT, in the text's colour.
    for trace in styled.data:
        textfont = getattr(trace, "textfont", None)
        if textfont is not None and "text" in (getattr(trace, "mode", None) or ""):
            textfont.size = max(_scaled(textfont.size, 1) or PRESENTATION_FONT_SIZE,
                                PRESENTATION_MIN_FONT)
            textfont.color = None
    # The title inside the figure's top edge (a container-anchored title without a y sat half
    # above it), in lines that fit half a 1280 px slide; notes likewise; colour bar titles
    # beside the bar, not on its top tick.
    title = styled.layout.title.text or ""
    if display_width(title) > SLIDE_TITLE_CHARACTERS:  # one line, smaller (plotly lifts a
        # wrapped title above the figure's edge): ~14 px of width per character at 26 px
        styled.layout.title.font.size = max(round(
            PRESENTATION_FONT_SIZE * 1.3 * SLIDE_TITLE_CHARACTERS / display_width(title)),
            PRESENTATION_MIN_FONT)
    styled.update_layout(title={"y": 0.985, "yanchor": "top"},
                         margin={"t": max(styled.layout.margin.t or 60, SLIDE_TOP_MARGIN)})
    for annotation in styled.layout.annotations:
        text = annotation.text or ""
        if any(display_width(line) > SLIDE_NOTE_CHARACTERS for line in text.split("<br>")):
            annotation.text = "<br>".join(wrap_words(line, SLIDE_NOTE_CHARACTERS)
                                          for line in text.split("<br>"))
    _room_above_for_notes(styled, plot_height)
    for trace in styled.data:
        colorbar = getattr(trace, "colorbar", None)
        if colorbar is not None and colorbar.title is not None and colorbar.title.text:
            colorbar.title.side = "right"
    for name in [key for key in styled.layout if key.startswith("coloraxis")]:
        if styled.layout[name].colorbar.title.text:
            styled.layout[name].colorbar.title.side = "right"
    _every_legend_at_the_bottom(styled, plot_height)
    _wrap_axis_titles(styled, PRESENTATION_FONT_SIZE)
    return styled


# The title's line and a label standing on the plot's top edge ("L = 2048"), no more: a slide's
# short panel (2 x 2 at 1280 x 720) keeps its plot.
SLIDE_TOP_MARGIN = 72
MIN_SLIDE_PLOT_HEIGHT = 220  # px: a panel's plot on a slide, whatever its legend takes


def _plot_height(fig: go.Figure) -> int:
    margin = fig.layout.margin
    return (fig.layout.height or FIGURE_HEIGHT) - (margin.t or 100) - (margin.b or 80)


LINE_HEIGHT = 1.3  # a line of plotly text, in font sizes


def _room_above_for_notes(fig: go.Figure, plot: int) -> None:
    """Slides: a note standing on the plot's top edge (an overview's "each cell is ...", wrapped
    into lines at slide size) grows upwards; the top margin makes room for it under the title,
    and the figure grows by as much, so the plot keeps the height `plot` it had."""
    above = 0.0
    for annotation in fig.layout.annotations:
        if (annotation.yref == "paper" and annotation.y is not None and annotation.y >= 1
                and annotation.yanchor == "bottom" and annotation.text):
            lines = annotation.text.count("<br>") + 1
            size = annotation.font.size or PRESENTATION_FONT_SIZE
            above = max(above, lines * size * LINE_HEIGHT + 6)
    if not above:
        return
    title = fig.layout.title
    title_px = (title.font.size or PRESENTATION_FONT_SIZE) * LINE_HEIGHT if title.text else 0
    top = round(0.015 * (fig.layout.height or FIGURE_HEIGHT) + title_px + 8 + above)
    if top > (fig.layout.margin.t or 0):
        fig.update_layout(margin={"t": top})
        if fig.layout.height:
            fig.update_layout(height=top + (fig.layout.margin.b or 80) + plot)


def _every_legend_at_the_bottom(fig: go.Figure, plot: int) -> None:
    """Slides: every legend in rows under the plot (a column of eight entries at 20 px type
    scrolled inside a 360 px panel), with room made for its rows: the plot keeps the height
    `plot` it had before."""
    shown = [t for t in fig.data if t.showlegend is not False and t.name]
    if fig.layout.showlegend is False or len(shown) < 2:
        _legend_at_the_bottom(fig)
        return
    fig.layout.legend.update(orientation="h", y=-0.3)
    _legend_at_the_bottom(fig)
    rows = -(-len(shown) // 4)  # about four entries per row on a slide's panel
    fig.update_layout(margin={"b": 110 + 32 * rows})
    if fig.layout.height:  # the legend's rows below the plot, the plot as tall as it was
        fig.update_layout(height=(fig.layout.margin.t or 100) + fig.layout.margin.b
                          + max(plot, MIN_SLIDE_PLOT_HEIGHT))


def _wrap_axis_titles(fig: go.Figure, font_size: int) -> None:
    """A y-axis title longer than its axis is broken into lines (plotly draws it on one line,
    rotated, and cuts it at the figure's edge)."""
    height = fig.layout.height or FIGURE_HEIGHT
    margin = fig.layout.margin
    plot = height - (margin.t or 100) - (margin.b or 80)
    for name in [key for key in fig.layout if key.startswith("yaxis")]:
        axis = fig.layout[name]
        domain = axis.domain or (0, 1)
        room = max(plot * (domain[1] - domain[0]), 60)
        text = axis.title.text if axis.title is not None else None
        if not text or "<br>" in text:
            continue
        per_line = max(int(room / (font_size * 0.55)), 8)
        if display_width(text) > per_line:
            axis.title.text = wrap_words(text, per_line)


def display_width(text: str) -> int:
    """Width in Latin characters: a CJK character is drawn about twice as wide."""
    return sum(2 if ord(c) >= 0x2E80 else 1 for c in text)


# Never at the start of a line (closing punctuation) or at its end (opening punctuation).
_CLOSING = set(")]}）】」』，。、：；！？%")
_OPENING = set("([{（【「『")


def wrap_words(text: str, width: int) -> str:
    """`text` broken into lines of at most `width` (Latin) characters with plotly's <br>: at
    spaces, or between two CJK characters (Chinese has no spaces), never before closing or
    after opening punctuation; the lines as even as the breaks allow (no one-character last
    line: "距离" is not "距 / 离"); a word longer than `width` keeps its own line."""
    tokens: list[tuple[str, str]] = []  # (separator before, token)
    separator = ""
    word = ""
    for char in text:
        if char == " ":
            if word:
                tokens.append((separator, word))
                word = ""
            separator = " "
        elif ord(char) >= 0x2E80 or char in _CLOSING or char in _OPENING:
            if word:
                tokens.append((separator, word))
                word, separator = "", ""
            tokens.append((separator, char))
            separator = ""
        else:
            word += char
    if word:
        tokens.append((separator, word))
    # Glue punctuation to its neighbour: a closing mark to the token before it, an opening
    # mark to the token after it.
    glued: list[tuple[str, str]] = []
    carry: tuple[str, str] | None = None  # opening marks waiting for the next token
    for before, token in tokens:
        if token in _OPENING:
            carry = (before, token) if carry is None else (carry[0], carry[1] + before + token)
            continue
        if carry is not None:
            before, token, carry = carry[0], carry[1] + before + token, None
        elif token in _CLOSING and glued and not before:
            glued[-1] = (glued[-1][0], glued[-1][1] + token)
            continue
        glued.append((before, token))
    if carry is not None:
        glued.append(carry)
    if not glued:
        return ""
    total = display_width("".join(before + token for before, token in glued).strip())
    fewest = len(_fill(glued, width))
    # The narrowest measure that still needs no more lines than `width` does: even lines
    lines = _fill(glued, width)
    for measure in range(max(-(-total // fewest), 1), width):
        candidate = _fill(glued, measure)
        if len(candidate) <= fewest:
            lines = candidate
            break
    return "<br>".join(lines)


def _fill(tokens: list[tuple[str, str]], measure: int) -> list[str]:
    """Greedy fill: each token on the current line while the line stays within `measure`."""
    lines: list[str] = []
    for before, token in tokens:
        if lines and display_width(lines[-1] + before + token) <= measure:
            lines[-1] += before + token
        else:
            lines.append(token)
    return lines


def export_style(fig: go.Figure) -> go.Figure:
    """A copy of `fig` as an image file for a slide draws it: plotly's white template (the
    browser's Streamlit theme is not there), type sized for 1920 x 1080, the figure's own
    colours."""
    styled = go.Figure(fig).update_layout(
        template="plotly_white",
        font={"size": PRESENTATION_FONT_SIZE},
        # The title over the plot's left edge, not against the image's: a slide has margins.
        title={"x": 0, "xref": "paper", "xanchor": "left", "y": 0.97, "yanchor": "top",
               "yref": "container",
               "font": {"size": round(PRESENTATION_FONT_SIZE * 1.3)}, "automargin": True},
        margin={"l": 110, "r": 40, "t": 110, "b": 100},
    )
    _legend_at_the_bottom(styled)
    # On white, whatever theme the chart was shown on (its colours may have been lightened).
    return ensure_contrast(styled, dark=False)
