"""Colours that stay visible on the light and the dark theme.

WCAG 2.2's success criterion 1.4.11 (non-text contrast) asks 3:1 between a graphical object a
reader needs and what is next to it. A chart's lines, markers, reference lines and annotation text
sit on the page's background, which is near-white on the light theme and near-black on the dark
one. A colour has 3:1 on both when its relative luminance lies between 0.13 and 0.30, and
`ensure_contrast` moves every colour short of that into the band: made darker (too light for
white) or lighter (too dark for #171614) in HLS lightness only, keeping its hue, by the least that
reaches 3:1. Both themes at once, because the server cannot know the theme when a page first
draws (`st.context.theme` is unreliable on a session's first run, Streamlit issue #11920). A
sequential scale colouring markers has each stop moved the same way. Heatmap cells (which sit
on one another, not on the background) and translucent fills and guides (alpha <= 0.5:
decoration, not data) are left as they are.

    L = 0.2126 R + 0.7152 G + 0.0722 B  (linearised sRGB),  ratio = (L1 + 0.05) / (L2 + 0.05)
"""

from __future__ import annotations

import colorsys
import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import plotly.graph_objects as go
from plotly.colors import get_colorscale, sample_colorscale

MIN_CONTRAST = 3.0  # WCAG 2.2, 1.4.11
# Colours are moved to a little more than 3:1, so that a scale's colours between two moved stops
# (plotly interpolates in RGB) and a slightly different background still reach it.
TARGET_CONTRAST = 3.2
# Streamlit 1.67's two themes' backgrounds (its frontend's bgColor: white and #171614).
BACKGROUNDS = {"light": "#ffffff", "dark": "#171614"}
DECORATIVE_ALPHA = 0.5  # at or below: shading and guides, not data
TEXT_CONTRAST = 4.5  # WCAG 2.2, 1.4.3: text
MIN_TEXT_SIZE = 12  # px: a chart's smallest text at 1440 x 900

# The CSS names the figures use (plotly accepts any CSS name; these are the ones in figures).
NAMED = {
    "white": (255, 255, 255), "black": (0, 0, 0), "grey": (128, 128, 128),
    "gray": (128, 128, 128), "red": (255, 0, 0), "blue": (0, 0, 255), "green": (0, 128, 0),
    "orange": (255, 165, 0), "purple": (128, 0, 128), "yellow": (255, 255, 0),
}
_RGB = re.compile(r"rgba?\(\s*([\d.]+)\s*,\s*([\d.]+)\s*,\s*([\d.]+)\s*(?:,\s*([\d.]+)\s*)?\)")


def parse_colour(colour: str) -> tuple[float, float, float, float] | None:
    """(r, g, b, alpha) with r, g, b in 0..255, or None for what is not a colour we can read
    (e.g. "rgba(0,0,0,0)" is read, "transparent" is not)."""
    text = colour.strip().lower()
    if text in NAMED:
        return (*NAMED[text], 1.0)
    if text.startswith("#") and len(text) in (4, 7, 9):
        digits = text[1:]
        if len(digits) == 3:
            digits = "".join(c * 2 for c in digits)
        try:
            r, g, b = (int(digits[i:i + 2], 16) for i in (0, 2, 4))
            alpha = int(digits[6:8], 16) / 255 if len(digits) == 8 else 1.0
        except ValueError:
            return None
        return r, g, b, alpha
    match = _RGB.fullmatch(text)
    if match:
        r, g, b = (float(match.group(i)) for i in (1, 2, 3))
        return r, g, b, float(match.group(4)) if match.group(4) is not None else 1.0
    return None


def relative_luminance(rgb: Sequence[float]) -> float:
    """WCAG's relative luminance of an sRGB colour (0..255 channels)."""
    channels = np.asarray(rgb[:3], dtype=float) / 255
    linear = np.where(channels <= 0.04045, channels / 12.92, ((channels + 0.055) / 1.055) ** 2.4)
    return float(0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2])


def contrast_ratio(first: str, second: str) -> float:
    """WCAG contrast ratio of two opaque colours, 1 .. 21."""
    a, b = parse_colour(first), parse_colour(second)
    if a is None or b is None:
        raise ValueError(f"colour {first!r} or {second!r} is not a colour")
    high, low = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _hex(rgb: Sequence[float]) -> str:
    return "#" + "".join(f"{round(min(max(c, 0), 255)):02x}" for c in rgb[:3])


def with_contrast(colour: str, background: str, minimum: float = TARGET_CONTRAST) -> str:
    """`colour` itself when it has `minimum` contrast on `background` (or cannot be read, or is
    decorative: alpha <= 0.5); otherwise the same hue made darker or lighter by the least step of
    HLS lightness that reaches it."""
    parsed = parse_colour(colour)
    if parsed is None or parsed[3] <= DECORATIVE_ALPHA:
        return colour
    if contrast_ratio(_hex(parsed), background) >= minimum:
        return colour
    hue, lightness, saturation = colorsys.rgb_to_hls(*(c / 255 for c in parsed[:3]))
    darker = relative_luminance(parse_colour(background)) > 0.18  # a light background
    for step in np.linspace(0, 1, 101)[1:]:
        shifted = lightness * (1 - step) if darker else lightness + (1 - lightness) * step
        rgb = [c * 255 for c in colorsys.hls_to_rgb(hue, shifted, saturation)]
        if contrast_ratio(_hex(rgb), background) >= minimum:
            alpha = parsed[3]
            if alpha < 1:
                return f"rgba({rgb[0]:.0f},{rgb[1]:.0f},{rgb[2]:.0f},{alpha:g})"
            return _hex(rgb)
    return "#000000" if darker else "#ffffff"


def readable(colour: str, backgrounds: Sequence[str]) -> str:
    """`colour` moved (if it must be) to 3:1 on every one of `backgrounds`: white first, then
    near-black (a colour darkened for white stays within reach of the dark theme's 3:1)."""
    return _readable(colour, tuple(backgrounds))


# Every chart of every rerun asks again for the same few colours (a page's palette, its scales'
# stops): ~10 ms per chart searched, ~0 remembered. Bounded: the colours are the figures' own.
@lru_cache(maxsize=4096)
def _readable(colour: str, backgrounds: tuple[str, ...]) -> str:
    for background in sorted(backgrounds, key=lambda b: -relative_luminance(parse_colour(b))):
        colour = with_contrast(colour, background)
    return colour


def readable_colorscale(scale, backgrounds: Sequence[str]) -> list:
    """A sequential scale as 11 stops, each moved like `readable` (viridis's dark purple and
    bright yellow end up mid-tone; the hues, and so the order, stay)."""
    stops = get_colorscale(scale) if isinstance(scale, str) else [list(s) for s in scale]
    points = list(np.linspace(0, 1, 11))
    return [[float(p), readable(_hex(parse_colour(c)), backgrounds)]
            for p, c in zip(points, sample_colorscale(stops, points), strict=True)]


def _fix(value, backgrounds: Sequence[str]):
    """A colour value of a trace: a string or a list of strings (numbers are left alone)."""
    if isinstance(value, str):
        return readable(value, backgrounds)
    if isinstance(value, list | tuple | np.ndarray) and len(value) and all(
        isinstance(v, str) for v in value
    ):
        return [readable(v, backgrounds) for v in value]
    return value


def _numeric(value) -> bool:
    """Numbers mapped through a colour scale (a plotly typed array {dtype, bdata} included)."""
    if isinstance(value, dict):
        return "bdata" in value
    return isinstance(value, list | tuple | np.ndarray) and len(value) > 0 and not isinstance(
        np.asarray(value).flat[0], str)


# Streamlit's categorical colours, which its plotly theme gives traces without a colour of
# their own (light and dark pairs side by side: #83c9ff is 1.9:1 on white, #0068c9 2.9:1 on
# #171614). Traces without a colour get these, adjusted, so the browser's theme cannot undo it.
STREAMLIT_COLORWAY = ("#0068c9", "#83c9ff", "#ff2b2b", "#ffabab", "#29b09d", "#7defa1",
                      "#ff8700", "#ffd16a", "#6d3fc0", "#d5dae5")
_LINE_TRACES = ("scatter", "scattergl", "scatter3d", "scatterpolar")


def _colorway(fig: go.Figure) -> Sequence[str]:
    """The categorical colours the figure's layout names (presentation mode's), else
    Streamlit's. (Not the template's: Streamlit's template holds placeholders, #000001 ..., that
    its frontend swaps for the theme's colours.)"""
    return fig.layout.colorway or STREAMLIT_COLORWAY


# ensure_contrast reads the figure's own dicts (plotly.py keeps each trace's and the layout's
# properties in plain dicts, `fig._data` and `fig._layout`) and assigns through the graph
# objects only what it changes: a read through the objects costs ~10 us (validators looked up,
# parents walked), and a figure's colours were ~3 ms of reads per chart, a page's 10-30 ms.
def _get(props: dict | None, *path: str):
    for name in path:
        if not isinstance(props, dict):
            return None
        props = props.get(name)
    return props


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return a is b
    return a == b


def _readable_text(holder, name: str, font: dict | None, backgrounds: Sequence[str]) -> None:
    """Text on the page (an annotation, a trace's labels) at MIN_TEXT_SIZE px and 4.5:1 on
    every background: a colour short of it on any (no colour reaches 4.5:1 on white and on
    #171614 at once) gives way to the theme's text colour, and the text keeps its place by
    its line or point. `font` is `holder[name]`'s properties."""
    if font is None:
        return
    size, color = font.get("size"), font.get("color")
    if size is not None and size < MIN_TEXT_SIZE:
        holder[name].size = MIN_TEXT_SIZE
    if color is None or isinstance(color, (list, tuple)) or _numeric(color):
        return
    parsed = parse_colour(color)
    if parsed is None or any(contrast_ratio(color, bg) < TEXT_CONTRAST for bg in backgrounds):
        holder[name].color = None


def ensure_contrast(fig: go.Figure, *, dark: bool | None = None) -> go.Figure:
    """`fig` with every line, marker and reference-line colour at 3:1 or more on the theme's
    background, or on both themes' when `dark` is None (see the module docstring), and its
    text on the page at 4.5:1 and 12 px (`_readable_text`); changed in place and returned."""
    backgrounds = (list(BACKGROUNDS.values()) if dark is None
                   else [BACKGROUNDS["dark" if dark else "light"]])
    colorway = [readable(c, backgrounds) for c in _colorway(fig)]
    scatter_axes = set()
    traces = fig.data
    for index, props in enumerate(fig._data):
        kind = props.get("type")
        if kind in ("heatmap", "contour", "surface", "image"):
            continue
        trace = traces[index]
        if (kind in _LINE_TRACES and _get(props, "line", "color") is None
                and _get(props, "marker", "color") is None):
            # The colour plotly would give it (the trace's index into the colorway), made
            # explicit and readable.
            colour = colorway[index % len(colorway)]
            trace.line.color = colour
            trace.marker.color = colour
        for part in ("line", "marker", "textfont"):
            part_props = props.get(part)
            if not isinstance(part_props, dict):
                continue
            colour = part_props.get("color")
            fixed = _fix(colour, backgrounds)
            if not _same(fixed, colour):
                trace[part].color = fixed
            if part == "marker":
                edge = _get(part_props, "line", "color")
                if edge is not None:
                    fixed_edge = _fix(edge, backgrounds)
                    if not _same(fixed_edge, edge):
                        trace.marker.line.color = fixed_edge
                if _numeric(part_props.get("color")):
                    if part_props.get("coloraxis"):
                        scatter_axes.add(part_props["coloraxis"])
                    else:
                        trace.marker.colorscale = readable_colorscale(
                            part_props.get("colorscale") or "Viridis", backgrounds)
    for name in scatter_axes:
        axis = fig.layout[name]
        axis.colorscale = readable_colorscale(axis.colorscale or "Viridis", backgrounds)
    layout = fig._layout
    annotations = fig.layout.annotations if layout.get("annotations") else ()
    for annotation, props in zip(annotations, layout.get("annotations") or (), strict=True):
        bgcolor = props.get("bgcolor")
        box = parse_colour(bgcolor) if bgcolor else None
        if box is not None and box[3] > DECORATIVE_ALPHA:
            continue  # text on a box of its own, not on the page
        _readable_text(annotation, "font", props.get("font"), backgrounds)
        arrow = props.get("arrowcolor")
        if arrow is not None and readable(arrow, backgrounds) != arrow:
            annotation.arrowcolor = readable(arrow, backgrounds)
    for index, props in enumerate(fig._data):  # labels drawn as a trace's text
        if "text" in (props.get("mode") or "") and props.get("type") != "scatter3d":
            _readable_text(traces[index], "textfont", props.get("textfont"), backgrounds)
    shapes = fig.layout.shapes if layout.get("shapes") else ()
    for shape, props in zip(shapes, layout.get("shapes") or (), strict=True):
        colour = _get(props, "line", "color")
        if colour is not None and not props.get("fillcolor"):
            fixed = readable(colour, backgrounds)
            if fixed != colour:
                shape.line.color = fixed
    return fig
