r"""A model's RoPE as its config.json sets it: what each frequency pair does, in three figures.

- **Wavelengths** per pair, without and with the config's scaling, against the original context
  $L$ (before extension: Llama 3.1's 8192) and the target context $T$; each scaled pair
  coloured by its band (unchanged, interpolated, blended, as YaRN and Llama 3 define them;
  LongRoPE's searched factors ``rescaled``), the band edges and the critical pair marked.
- **Largest angles** per pair: $(L-1)\,\theta_i$ in training against $(T-1)\,\theta_i$ and
  $(T-1)\,\theta'_i$ at the target (red where the config's pairs turn past every angle within
  $L$).
- **The logit of a query with itself** at distance $k$ (RoFormer §3.4.3's setting), every pair a
  unit vector, before and after scaling, the attention factor $m$ applied to cos and sin of both
  query and key (so $m^2$ on the logit):
  $$\ell(k) = m^2\,\frac{2}{d}\sum_{i<d/2}\cos(k\,\theta'_i), \qquad \ell(0) = m^2.$$

The numbers are `core.rope_config.rope_config_curves`' (from `core.rope_scaling`: transformers'
inverse frequencies, bands and attention factor); this module only draws them. One function per
chart, ``make_overlay_*_figure(shown, colours)``: one config alone (its bands coloured, its
critical pair marked), or up to four on the same axes (each config's lines and marks grouped
under its name in the legend); ``panel=i`` draws ``shown[i]`` alone on the range of every config
shown, so that panels side by side share their scales. Configs are also drawn as their
differences from one of them (``make_difference_*_figure``, from
`core.rope_config.config_difference`). Every line and mark a figure draws is a legend entry (L, T,
each band edge by its field), so that an exported image says what it shows; numbers are written
in full (1,000,000, not 1e+06).

Contexts: $L$ is the config's ``original_max_position_embeddings`` (top-level, else
``rope_scaling``'s, else ``max_position_embeddings``: transformers' reading); $T$ the longest
context the config is made for, $\max(\text{max\_position\_embeddings}, sL)$ (Qwen2.5 keeps
max_position_embeddings at 32768 and reaches 131072 with YaRN's $s = 4$; Llama 3.1's 131072 is
more than its $8 \times 8192$). Frequencies that depend on the running length (dynamic NTK,
LongRoPE's long factors) are taken at $T$.

$T$ may be 10M positions: the logit is drawn over log-spaced bins of distances, each as the mean
and the range of $\ell$ within it (`core.rope_config.binned_logit`), so that the fast pairs'
oscillation shows as a band instead of aliasing into a false curve; short distances are exact.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from core.rope_config import ConfigDifference, LogitProfile, RopeConfigCurves
from figures.common import NEUTRAL, base_layout, plot_text
from figures.rope import (
    BEYOND_COLOUR,
    PAIR_MARKERS,
    TARGET_COLOUR,
    TRAINED_COLOUR,
    beyond_trace,
    full_turn_trace,
    trained_trace,
)
from locales import Lang, message

CONFIG_FIGURE_HEIGHT = 460
# L dashed, T in long dashes: plotly's "longdash" shows as one solid stroke in a legend's short
# sample, these dashes show their gap there too.
TRAINED_DASH = "dash"
TARGET_DASH = "14px,5px"
SCALED_COLOUR = "#2ca02c"  # green: the config's scaled frequencies (the extrapolation page's)
BAND_COLOURS = {
    "unchanged": TRAINED_COLOUR,  # grey: as trained
    "blended": "#ff7f0e",  # orange: between
    "interpolated": SCALED_COLOUR,
    "rescaled": "#9467bd",  # purple: LongRoPE's searched per-pair factors
}
BAND_ORDER = ("unchanged", "blended", "interpolated", "rescaled")


# --- names and numbers -----------------------------------------------------------------------
def plot_label(curves: RopeConfigCurves) -> str:
    """A config's label as plotly draws it: a visitor's name for a config is drawn as typed."""
    return plot_text(curves.label)


def plain_number(value: float, digits: int = 6) -> str:
    """A number as people write it, never in exponent notation: 1,000,000 (not 1e+06), 8,192,
    341.3, 0.000123: whole numbers in full with thousands separators, others to `digits`
    significant digits."""
    number = float(value)
    if not math.isfinite(number):
        return str(number)
    if number.is_integer():
        return f"{number:,.0f}"
    text = np.format_float_positional(number, precision=digits, unique=False, fractional=False,
                                      trim="-")
    sign = "-" if text.startswith("-") else ""
    whole, _, fraction = text.lstrip("-").partition(".")
    return f"{sign}{int(whole):,}" + (f".{fraction}" if fraction else "")


# A log axis's ticks written out (1,000,000, not 1M or 1e+06), as the table and legends write them.
PLAIN_TICKS = {"exponentformat": "none", "separatethousands": True}


def band_names(lang: Lang = "en") -> dict[str, str]:
    """The bands as a reader sees them, by their value in core.rope_scaling.BANDS."""
    return {
        "unchanged": message("fig.rope_config.band_unchanged", lang),
        "blended": message("fig.rope_config.band_blended", lang),
        "interpolated": message("fig.rope_config.band_interpolated", lang),
        "rescaled": message("fig.rope_config.band_rescaled", lang),
    }


def pair_columns(shown: Sequence[RopeConfigCurves], lang: Lang = "en") -> dict[str, list]:
    """Per pair i, for each config (named by its label): theta_i as trained, theta'_i as
    scaled, the scaled wavelength 2 pi / theta'_i, the scale theta'_i / theta_i and the band:
    the table a reader copies (or downloads as CSV), in columns by their heading."""
    names = band_names(lang)
    columns: dict[str, list] = {message("fig.rope_config.pair_column", lang):
                                [int(i) for i in shown[0].pairs]}
    for curves in shown:
        label = curves.label
        while any(key.startswith(label + " · ") for key in columns):  # compared with itself
            label += " "
        bands = curves.bands
        theta = 2 * np.pi / bands.wavelengths
        for key, values in (
            ("theta", theta), ("theta_scaled", theta * bands.ratio),
            ("wavelength_scaled", bands.scaled_wavelengths), ("scale", bands.ratio),
        ):
            heading = message(f"fig.rope_config.pair_{key}", lang)
            columns[f"{label} · {heading}"] = [float(v) for v in values]
        columns[f"{label} · {message('fig.rope_config.pair_band', lang)}"] = [
            names[band] for band in bands.bands]
    return columns


def method_text(curves: RopeConfigCurves, lang: Lang = "en") -> str:
    """"llama3 ×8" or "no scaling": the method and its factor."""
    if not curves.scaled:
        return message("fig.rope_config.no_scaling", lang)
    return message("fig.rope_config.method", lang, method=curves.rope_type,
                   factor=plain_number(curves.factor, 4))


def _context_name(curves: RopeConfigCurves, key: str, lang: Lang) -> str:
    """"original context L = 8,192" (key "trained_context") or "target context T = 131,072"."""
    length = curves.trained_context if key == "trained_context" else curves.target_context
    return message(f"fig.rope_config.{key}", lang, length=plain_number(length))


@dataclass(frozen=True)
class _Edge:
    """A band edge as the figures draw it."""

    pair: float  # the (fractional) pair where the band changes, clipped to the axis
    name: str  # its legend entry: the field that sets it, its value, the plain wavelength
    hover: str


def _edges(curves: RopeConfigCurves, lang: Lang) -> list[_Edge]:
    """The config's two band edges (YaRN's ramp from beta_fast to beta_slow, llama3's blend from
    L/high_freq_factor to L/low_freq_factor), each named by the field that sets it; none for the
    other methods."""
    bands = curves.bands
    if curves.edge_fields is None or bands.pair_edges is None or bands.wavelength_edges is None:
        return []
    half = curves.pairs.size
    edges = []
    for pair, wavelength, field in zip(bands.pair_edges, bands.wavelength_edges,
                                       curves.edge_fields, strict=True):
        name = message("fig.rope_config.band_edge", lang, field=field,
                       value=plain_number(curves.trained_context / wavelength, 4),
                       wavelength=plain_number(wavelength, 4))
        hover = message("fig.rope_config.band_edge_hover", lang, pair=f"{pair:.2f}",
                        wavelength=plain_number(wavelength, 6))
        edges.append(_Edge(float(np.clip(pair, -0.5, half - 0.5)), name, hover))
    return edges


# --- axis ranges shared by figures drawn side by side ----------------------------------------
def _log_range(values: Sequence[np.ndarray | float], pad: float = 1.6) -> list[float]:
    flat = np.concatenate([np.ravel(np.asarray(v, dtype=np.float64)) for v in values])
    flat = flat[np.isfinite(flat) & (flat > 0)]
    return [math.log10(flat.min() / pad), math.log10(flat.max() * pad)]


def _linear_range(values: Sequence[np.ndarray | float], pad: float = 0.08) -> list[float]:
    """From the lowest to the highest value (0 always included), padded; [-1, 1] when every
    value is 0 (a config drawn against itself)."""
    flat = np.concatenate([np.ravel(np.asarray(v, dtype=np.float64)) for v in (*values, 0.0)])
    flat = flat[np.isfinite(flat)]
    low, high = float(flat.min()), float(flat.max())
    if high - low < 1e-12:
        return [-1.0, 1.0]
    margin = pad * (high - low)
    return [low - margin, high + margin]


def _wavelength_values(curves: RopeConfigCurves) -> list:
    return [curves.bands.wavelengths, curves.bands.scaled_wavelengths,
            float(curves.trained_context), float(curves.target_context)]


def _angle_values(curves: RopeConfigCurves) -> list:
    return [curves.trained_angles, curves.target_angles, curves.scaled_angles, 2 * np.pi]


def _logit_range(shown: Sequence[RopeConfigCurves]) -> list[float]:
    low = min(min(c.logit_unscaled.low.min(), c.logit_scaled.low.min()) for c in shown)
    high = max(max(c.logit_unscaled.high.max(), c.logit_scaled.high.max()) for c in shown)
    pad = 0.05 * (high - low or 1.0)
    return [float(low - pad), float(high + pad)]


def _vertical(x: float, y_span: list[float], *, name: str, colour: str, dash: str,
              hover: str, group: str) -> go.Scatter:
    """A vertical guide from the bottom to the top of the axis (`y_span` in data units), as a
    trace so that the legend names it."""
    return go.Scatter(
        x=[x, x], y=list(y_span), mode="lines", name=name,
        line={"color": colour, "width": 1.5, "dash": dash}, legendgroup=group,
        hovertemplate=hover,
    )


def _log_span(y_range: list[float]) -> list[float]:
    """A log axis's range (log10 units) in data units."""
    return [10 ** y_range[0], 10 ** y_range[1]]


def _horizontal(x_range: Sequence[float], y: float, *, name: str, colour: str, dash: str,
                group: str, hover: str | None = None, width: float = 1.5) -> go.Scatter:
    return go.Scatter(
        x=list(x_range), y=[y, y], mode="lines", name=name, legendgroup=group,
        line={"color": colour, "width": width, "dash": dash},
        hovertemplate=hover, hoverinfo="skip" if hover is None else None,
    )


def _finish(fig: go.Figure, title: str, *, legend_y: float = -0.28) -> go.Figure:
    fig.update_layout(legend={"orientation": "h", "y": legend_y, "yanchor": "top"})
    base_layout(fig, title, height=CONFIG_FIGURE_HEIGHT)
    fig.update_layout(margin={"b": 150})  # the legend's two or three rows below the axis
    return fig


# --- one config alone: make_overlay_*_figure's drawing of a single config -------------------
def _alone_wavelength_figure(curves: RopeConfigCurves, shown: Sequence[RopeConfigCurves],
                             lang: Lang) -> go.Figure:
    """Per pair: the plain wavelength (line) and the scaled one (markers coloured by band),
    L and T across, the critical pair and each band edge as vertical lines, each a legend
    entry. Log y axis, on the range of every config in `shown`."""
    bands = curves.bands
    pairs = curves.pairs
    half = pairs.size
    y_range = _log_range([v for c in shown for v in _wavelength_values(c)])
    x_range = (-0.5, half - 0.5)
    names = band_names(lang)
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        x=pairs, y=bands.wavelengths, mode="lines", name=message("fig.rope_config.plain", lang),
        line={"color": TARGET_COLOUR, "width": 1.5}, legendgroup="plain",
        hovertemplate=message("fig.rope_config.wavelength_hover", lang),
    ))
    band_of = np.asarray(bands.bands)  # (d/2,)
    for band in BAND_ORDER:
        chosen = band_of == band  # (d/2,)
        if not chosen.any() or not curves.scaled:
            continue
        fig.add_trace(go.Scatter(
            x=pairs[chosen], y=bands.scaled_wavelengths[chosen], mode="markers",
            name=message("fig.rope_config.scaled_band", lang, band=names[band]),
            marker={"color": BAND_COLOURS[band], "size": 6, "maxdisplayed": 256},
            customdata=bands.ratio[chosen], legendgroup=band,
            hovertemplate=message("fig.rope_config.scaled_hover", lang, band=names[band]),
        ))
    fig.add_trace(_horizontal(x_range, curves.trained_context, colour=TRAINED_COLOUR,
                              dash=TRAINED_DASH, group="trained",
                              name=_context_name(curves, "trained_context", lang)))
    if curves.target_context != curves.trained_context:
        fig.add_trace(_horizontal(x_range, curves.target_context, colour=BEYOND_COLOUR,
                                  dash=TARGET_DASH, group="target",
                                  name=_context_name(curves, "target_context", lang)))
    if curves.critical_pair < half:
        fig.add_trace(_vertical(
            curves.critical_pair - 0.5, _log_span(y_range), colour=NEUTRAL, dash="dashdot",
            group="critical",
            name=message("fig.rope_config.critical", lang, pair=curves.critical_pair),
            hover=message("fig.rope_config.critical_hover", lang, pair=curves.critical_pair,
                          length=plain_number(curves.trained_context)),
        ))
    for edge in _edges(curves, lang):
        fig.add_trace(_vertical(edge.pair, _log_span(y_range), colour=BAND_COLOURS["blended"],
                                dash="dot", group="edges", name=edge.name, hover=edge.hover))
    fig.update_xaxes(title_text=message("fig.rope_config.pair_x", lang), range=list(x_range))
    fig.update_yaxes(type="log", dtick=1, range=y_range, **PLAIN_TICKS,
                     title_text=message("fig.rope_config.wavelength_y", lang))
    return _finish(fig, message("fig.rope_config.wavelength_title", lang, label=plot_label(curves)))


def _alone_angle_figure(curves: RopeConfigCurves, shown: Sequence[RopeConfigCurves],
                        lang: Lang) -> go.Figure:
    """Per pair: the largest angle within L (grey, dashed), at the target unscaled (blue) and
    with the config's scaling (green diamonds); red where the config's pairs pass every angle
    within L. Log y axis on the range of every config in `shown`, 2π marked."""
    pairs = curves.pairs
    fig = go.Figure()
    last = plain_number(curves.target_context - 1)
    hover = message("fig.rope_config.angle_hover", lang)
    fig.add_trace(go.Scatter(
        x=pairs, y=curves.target_angles, mode="lines+markers",
        name=message("fig.rope_config.angle_unscaled", lang, last=last),
        line={"color": TARGET_COLOUR, "width": 1.5},
        marker={"size": 4, "maxdisplayed": PAIR_MARKERS}, hovertemplate=hover,
    ))
    if curves.scaled:
        fig.add_trace(go.Scatter(
            x=pairs, y=curves.scaled_angles, mode="markers",
            name=message("fig.rope_config.angle_scaled", lang, last=last,
                         method=method_text(curves, lang)),
            marker={"symbol": "diamond-open", "size": 7, "color": SCALED_COLOUR,
                    "maxdisplayed": PAIR_MARKERS}, hovertemplate=hover,
        ))
    beyond = beyond_trace(pairs, curves.scaled_angles, curves.beyond_scaled, lang=lang,
                          showlegend=bool(curves.beyond_scaled.any()))
    beyond.name = message("fig.rope_config.beyond", lang)
    fig.add_trace(beyond)
    trained = trained_trace(pairs, curves.trained_angles,
                            message("fig.rope_config.angle_within", lang,
                                    length=plain_number(curves.trained_context)), lang=lang)
    trained.hovertemplate = message("fig.rope_config.angle_within_hover", lang)
    fig.add_trace(trained)
    fig.add_trace(full_turn_trace(pairs, lang=lang))
    y_range = _log_range([v for c in shown for v in _angle_values(c)])
    fig.update_xaxes(title_text=message("fig.rope_config.pair_x", lang),
                     range=[-0.5, pairs.size - 0.5])
    fig.update_yaxes(type="log", dtick=1, range=y_range, **PLAIN_TICKS,
                     title_text=message("fig.rope.extension_y_title", lang))
    return _finish(fig, message("fig.rope_config.angle_title", lang, label=plot_label(curves)))


def _logit_traces(profile: LogitProfile, *, name: str, colour: str, fill: str,
                  lang: Lang) -> list[go.Scatter]:
    """The bin range as a band (lowest, then highest filled to it) and the bin mean as a line."""
    common = {"x": profile.distances.astype(np.float32), "legendgroup": name}
    return [
        go.Scatter(y=profile.low.astype(np.float32), mode="lines", showlegend=False,
                   name=message("fig.rope_config.logit_low", lang, curve=name),
                   line={"color": fill, "width": 0}, hoverinfo="skip", **common),
        go.Scatter(y=profile.high.astype(np.float32), mode="lines", showlegend=False,
                   name=message("fig.rope_config.logit_high", lang, curve=name),
                   line={"color": fill, "width": 0}, fill="tonexty", fillcolor=fill,
                   hoverinfo="skip", **common),
        go.Scatter(y=profile.mean.astype(np.float32), mode="lines", name=name,
                   line={"color": colour, "width": 2},
                   hovertemplate=message("fig.rope_config.logit_hover", lang, curve=name),
                   **common),
    ]


def _alone_logit_figure(curves: RopeConfigCurves, shown: Sequence[RopeConfigCurves],
                        lang: Lang) -> go.Figure:
    """The logit of a query with itself against the distance k (log axis), without and with the
    config's scaling (times m^2), as bin means with the bin's range shaded; L and T marked. The
    ranges of every config in `shown`."""
    fig = go.Figure()
    unscaled = message("fig.rope_config.logit_unscaled", lang)
    for trace in _logit_traces(curves.logit_unscaled, name=unscaled, colour=TARGET_COLOUR,
                               fill="rgba(31, 119, 180, 0.25)", lang=lang):
        fig.add_trace(trace)
    if curves.scaled:
        scaled = message("fig.rope_config.logit_scaled", lang, method=method_text(curves, lang),
                         m=plain_number(curves.attention_factor, 3))
        for trace in _logit_traces(curves.logit_scaled, name=scaled, colour=SCALED_COLOUR,
                                   fill="rgba(44, 160, 44, 0.25)", lang=lang):
            fig.add_trace(trace)
    y_range = _logit_range(shown)
    x_last = max(c.target_context for c in shown)
    fig.add_trace(go.Scatter(
        x=[curves.trained_context] * 2, y=y_range, mode="lines",
        name=_context_name(curves, "trained_context", lang),
        line={"color": TRAINED_COLOUR, "width": 1.5, "dash": TRAINED_DASH}, hoverinfo="skip",
    ))
    if curves.target_context != curves.trained_context:
        fig.add_trace(go.Scatter(
            x=[curves.target_context] * 2, y=y_range, mode="lines",
            name=_context_name(curves, "target_context", lang),
            line={"color": BEYOND_COLOUR, "width": 1.5, "dash": TARGET_DASH}, hoverinfo="skip",
        ))
    fig.update_xaxes(type="log", dtick=1, range=[0, math.log10(x_last * 1.3)], **PLAIN_TICKS,
                     title_text=message("fig.rope_config.logit_x", lang))
    fig.update_yaxes(range=y_range, title_text=message("fig.rope_config.logit_y", lang))
    return _finish(fig, message("fig.rope_config.logit_title", lang, label=plot_label(curves)))


# --- several configs on the same axes ---------------------------------------------------------
def _faint(colour: str, alpha: float) -> str:
    red, green, blue = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({red}, {green}, {blue}, {alpha})"


def _plain_groups(shown: Sequence[RopeConfigCurves]) -> list[RopeConfigCurves]:
    """One config per distinct plain RoPE (d_head, rope_theta): their unscaled curves coincide."""
    seen: dict[tuple[int, float], RopeConfigCurves] = {}
    for curves in shown:
        seen.setdefault((curves.d_head, curves.rope_theta), curves)
    return list(seen.values())


def _plain_name(curves: RopeConfigCurves, shown: Sequence[RopeConfigCurves], lang: Lang, *,
                alone: str = "fig.rope_config.plain") -> str:
    """Plain RoPE's curve: `alone` (the wavelengths' "without scaling: 2π/θᵢ") when all the
    configs share it, else which plain RoPE (d_head, base) it is."""
    if len(_plain_groups(shown)) == 1:
        return message(alone, lang)
    return message("fig.rope_config.plain_of", lang, d_head=curves.d_head,
                   theta=plain_number(curves.rope_theta))


def _context_lines(fig: go.Figure, curves: RopeConfigCurves, colour: str, *, vertical: bool,
                   span: Sequence[float], group: str, lang: Lang) -> None:
    """L (dashed) and T (long dashes) of one config in its colour, each a legend entry in the
    config's group (its hover names the config)."""
    for length, dash, key in ((curves.trained_context, TRAINED_DASH, "trained_context"),
                              (curves.target_context, TARGET_DASH, "target_context")):
        if key == "target_context" and length == curves.trained_context:
            continue
        name = _context_name(curves, key, lang)
        line = {"color": colour, "width": 1.5, "dash": dash}
        hover = f"{plot_label(curves)}: {name}<extra></extra>"
        if vertical:
            fig.add_trace(go.Scatter(x=[length, length], y=list(span), mode="lines", name=name,
                                     line=line, legendgroup=group, hovertemplate=hover))
        else:
            fig.add_trace(go.Scatter(x=list(span), y=[length, length], mode="lines", name=name,
                                     line=line, legendgroup=group, hovertemplate=hover))


def _edge_lines(fig: go.Figure, curves: RopeConfigCurves, colour: str, *,
                y_span: list[float], group: str, lang: Lang) -> None:
    """The config's band edges, dotted in its colour, each a legend entry in its group."""
    for edge in _edges(curves, lang):
        fig.add_trace(_vertical(edge.pair, y_span, colour=colour, dash="dot", group=group,
                                name=edge.name,
                                hover=f"{plot_label(curves)}<br>{edge.hover}"))


def _groups(shown: Sequence[RopeConfigCurves]) -> list[str]:
    """Each config's legend group: its label, with a number when a label repeats."""
    groups: list[str] = []
    for curves in shown:
        group = curves.label
        while group in groups:
            group += " "
        groups.append(group)
    return groups


LEGEND_ENTRY_PX = 20  # one entry of a legend in a column, at the app's type size


def _overlay_legend(fig: go.Figure, title: str) -> go.Figure:
    """The overlay's legend: in a column beside the plot, each config's entries one after the
    other (its line, then its L, T and band edges, in its colour; a click on one hides them all:
    `legendgroup`), the figure as tall as its entries need. In the traces' order, not plotly's
    "grouped" one: on a slide the legend flows in rows under the plot
    (`figures.common.presentation_style`), where groups would stack into tall columns."""
    _finish(fig, title)
    entries = [trace for trace in fig.data if trace.showlegend is not False and trace.name]
    # plotly's own place for a column (right of the plot, x = 1.02), left unsaid so that a
    # slide's legend in rows starts at the left; "normal": plotly groups by legendgroup else.
    fig.layout.legend = {"orientation": "v", "traceorder": "normal", "y": 1.0,
                         "yanchor": "top"}
    fig.update_layout(margin={"b": 60},
                      height=max(CONFIG_FIGURE_HEIGHT, 150 + LEGEND_ENTRY_PX * len(entries)))
    return fig


def _alone(shown: Sequence[RopeConfigCurves], panel: int | None) -> RopeConfigCurves | None:
    """The config a figure draws alone: `shown[panel]`, or the only one; None to overlay."""
    if panel is not None:
        if not 0 <= panel < len(shown):
            raise ValueError(f"panel={panel!r} is not allowed: panel must be an index into the "
                             f"{len(shown)} configs shown, or None")
        return shown[panel]
    return shown[0] if len(shown) == 1 else None


def make_overlay_wavelength_figure(shown: Sequence[RopeConfigCurves], colours: Sequence[str],
                                   *, lang: Lang = "en", panel: int | None = None) -> go.Figure:
    """Every config's scaled wavelengths per pair on one log axis, each in its colour (its band
    on hover), the plain RoPE wavelengths once per distinct (d_head, rope_theta) in grey, and
    each config's L and T across and its band edges, in its colour: every line a legend entry,
    grouped under the config's name. One config (or `shown[panel]`) is drawn alone, its scaled
    wavelengths coloured by band, on the y range of every config in `shown`."""
    alone = _alone(shown, panel)
    if alone is not None:
        return _alone_wavelength_figure(alone, shown, lang)
    half = max(c.pairs.size for c in shown)
    x_range = [-0.5, half - 0.5]
    y_range = _log_range([v for c in shown for v in _wavelength_values(c)])
    names = band_names(lang)
    fig = go.Figure()
    for curves in _plain_groups(shown):
        fig.add_trace(go.Scatter(
            x=curves.pairs, y=curves.bands.wavelengths, mode="lines",
            name=_plain_name(curves, shown, lang), line={"color": NEUTRAL, "width": 1.5},
            hovertemplate=message("fig.rope_config.wavelength_hover", lang),
        ))
    for curves, colour, group in zip(shown, colours, _groups(shown), strict=True):
        bands = curves.bands
        fig.add_trace(go.Scatter(
            x=curves.pairs, y=bands.scaled_wavelengths, mode="lines+markers",
            name=plot_label(curves), line={"color": colour, "width": 2}, legendgroup=group,
            marker={"color": colour, "size": 5, "maxdisplayed": PAIR_MARKERS},
            customdata=np.stack([bands.ratio, [names[b] for b in bands.bands]], axis=-1),
            hovertemplate=message("fig.rope_config.overlay_wavelength_hover", lang,
                                  label=plot_label(curves)),
        ))
        _context_lines(fig, curves, colour, vertical=False, span=x_range, group=group,
                       lang=lang)
        _edge_lines(fig, curves, colour, y_span=_log_span(y_range), group=group, lang=lang)
    fig.update_xaxes(title_text=message("fig.rope_config.pair_x", lang), range=x_range)
    fig.update_yaxes(type="log", dtick=1, range=y_range, **PLAIN_TICKS,
                     title_text=message("fig.rope_config.wavelength_y", lang))
    return _overlay_legend(fig, message("fig.rope_config.overlay_wavelength_title", lang))


def make_overlay_angle_figure(shown: Sequence[RopeConfigCurves], colours: Sequence[str],
                              *, lang: Lang = "en", panel: int | None = None) -> go.Figure:
    """Every config's largest angle per pair at its T with its scaling (markers in its colour,
    outlined red where a pair passes every angle within its L) and within L (dashed, its
    colour), each a legend entry grouped under the config's name; the red outline and 2π each
    a legend entry of their own. One config (or `shown[panel]`) is drawn alone, unscaled and
    scaled, on the y range of every config in `shown`."""
    alone = _alone(shown, panel)
    if alone is not None:
        return _alone_angle_figure(alone, shown, lang)
    half = max(c.pairs.size for c in shown)
    fig = go.Figure()
    for curves, colour, group in zip(shown, colours, _groups(shown), strict=True):
        beyond = curves.beyond_scaled
        fig.add_trace(go.Scatter(
            x=curves.pairs, y=curves.scaled_angles, mode="lines+markers", name=plot_label(curves),
            legendgroup=group, line={"color": colour, "width": 1.5},
            marker={"color": colour, "size": 6, "maxdisplayed": PAIR_MARKERS,
                    "line": {"color": np.where(beyond, BEYOND_COLOUR, colour).tolist(),
                             "width": np.where(beyond, 2, 0).tolist()}},
            hovertemplate=message("fig.rope_config.overlay_angle_hover", lang,
                                  label=plot_label(curves),
                                  last=plain_number(curves.target_context - 1)),
        ))
        within = message("fig.rope_config.angle_within", lang,
                         length=plain_number(curves.trained_context))
        fig.add_trace(go.Scatter(
            x=curves.pairs, y=curves.trained_angles, mode="lines", legendgroup=group,
            name=within, line={"color": colour, "width": 1, "dash": "dash"},
            hovertemplate=f"{plot_label(curves)}<br>"
            + message("fig.rope_config.angle_within_hover", lang),
        ))
    if any(curves.beyond_scaled.any() for curves in shown):
        fig.add_trace(go.Scatter(  # the outline's legend entry: a marker drawn nowhere
            x=[None], y=[None], mode="markers", name=message("fig.rope_config.beyond_outline",
                                                             lang),
            marker={"color": NEUTRAL, "size": 8, "line": {"color": BEYOND_COLOUR, "width": 2}},
            legendgroup="beyond", hoverinfo="skip",
        ))
    fig.add_trace(full_turn_trace(np.arange(half), lang=lang))
    y_range = _log_range([v for c in shown for v in _angle_values(c)])
    fig.update_xaxes(title_text=message("fig.rope_config.pair_x", lang), range=[-0.5, half - 0.5])
    fig.update_yaxes(type="log", dtick=1, range=y_range, **PLAIN_TICKS,
                     title_text=message("fig.rope.extension_y_title", lang))
    return _overlay_legend(fig, message("fig.rope_config.overlay_angle_title", lang))


def make_overlay_logit_figure(shown: Sequence[RopeConfigCurves], colours: Sequence[str],
                              *, lang: Lang = "en", panel: int | None = None) -> go.Figure:
    """Every config's self-logit against distance up to its T, with its scaling and its
    attention factor (m² on the logit), in its colour with its bin range faint; the plain RoPE
    logit once per distinct (d_head, rope_theta) in grey, to the farthest T; each config's L
    and T as vertical lines in its colour, legend entries grouped under its name. One config
    (or `shown[panel]`) is drawn alone, unscaled and scaled, on the ranges of every config in
    `shown`."""
    alone = _alone(shown, panel)
    if alone is not None:
        return _alone_logit_figure(alone, shown, lang)
    fig = go.Figure()
    farthest = max(shown, key=lambda c: c.target_context)
    for curves in _plain_groups(shown):
        profile = curves.logit_unscaled
        if curves is not farthest and (curves.d_head, curves.rope_theta) == (
                farthest.d_head, farthest.rope_theta):
            profile = farthest.logit_unscaled
        name = _plain_name(curves, shown, lang, alone="fig.rope_config.logit_unscaled")
        fig.add_trace(go.Scatter(
            x=profile.distances.astype(np.float32), y=profile.mean.astype(np.float32),
            mode="lines", name=name, line={"color": NEUTRAL, "width": 1.5},
            hovertemplate=message("fig.rope_config.logit_hover", lang, curve=name),
        ))
    y_range = _logit_range(shown)
    for curves, colour, group in zip(shown, colours, _groups(shown), strict=True):
        name = plot_label(curves) + (f" (m = {plain_number(curves.attention_factor, 3)})"
                                    if abs(curves.attention_factor - 1) > 1e-12 else "")
        for trace in _logit_traces(curves.logit_scaled, name=name, colour=colour,
                                   fill=_faint(colour, 0.15), lang=lang):
            trace.legendgroup = group
            fig.add_trace(trace)
        _context_lines(fig, curves, colour, vertical=True, span=y_range, group=group,
                       lang=lang)
    fig.update_xaxes(type="log", dtick=1, **PLAIN_TICKS,
                     range=[0, math.log10(farthest.target_context * 1.3)],
                     title_text=message("fig.rope_config.logit_x", lang))
    fig.update_yaxes(range=y_range, title_text=message("fig.rope_config.logit_y", lang))
    return _overlay_legend(fig, message("fig.rope_config.overlay_logit_title", lang))


# --- each config minus a baseline -------------------------------------------------------------
def _baseline_line(fig: go.Figure, x_span: Sequence[float], baseline: RopeConfigCurves,
                   colour: str, group: str, lang: Lang) -> None:
    """The baseline minus itself: 0 across, in the baseline's colour."""
    name = message("fig.rope_config.baseline_zero", lang, label=plot_label(baseline))
    fig.add_trace(_horizontal(x_span, 0.0, name=name, colour=colour, dash="solid", group=group,
                              hover=name + "<extra></extra>", width=2.5))


def make_difference_wavelength_figure(
    shown: Sequence[RopeConfigCurves], differences: Sequence[ConfigDifference],
    colours: Sequence[str], baseline: int, *, lang: Lang = "en",
) -> go.Figure:
    """Per pair, each config minus the baseline (`shown[baseline]`) in log2 of the scaled
    wavelength, log2(λ′ᵢ / λ′ᵢ of the baseline): 0 where the pair turns as in the baseline
    (the baseline itself, across), +1 where it turns twice as slowly; each config's band edges
    dotted in its colour, legend entries grouped under its name. A config whose head width
    differs from the baseline's has no pair i to compare and is left out (the caller says so)."""
    base = shown[baseline]
    half = max(c.pairs.size for c in shown)
    x_span = [-0.5, half - 0.5]
    values = [d.log2_wavelength_ratio for d in differences
              if d.log2_wavelength_ratio is not None]
    y_range = _linear_range(values)
    fig = go.Figure()
    groups = _groups(shown)
    for index, (curves, difference, colour, group) in enumerate(
            zip(shown, differences, colours, groups, strict=True)):
        if difference.log2_wavelength_ratio is None:
            continue
        if index == baseline:
            _baseline_line(fig, x_span, base, colour, group, lang)
        else:
            ratio = difference.log2_wavelength_ratio  # (d/2,)
            fig.add_trace(go.Scatter(
                x=curves.pairs, y=ratio, mode="lines+markers", name=plot_label(curves),
                legendgroup=group, line={"color": colour, "width": 2},
                marker={"color": colour, "size": 5, "maxdisplayed": PAIR_MARKERS},
                customdata=np.exp2(ratio),
                hovertemplate=message("fig.rope_config.difference_wavelength_hover", lang,
                                      label=plot_label(curves), baseline=plot_label(base)),
            ))
        _edge_lines(fig, curves, colour, y_span=y_range, group=group, lang=lang)
    fig.update_xaxes(title_text=message("fig.rope_config.pair_x", lang), range=x_span)
    fig.update_yaxes(range=y_range, zeroline=False,
                     title_text=message("fig.rope_config.difference_wavelength_y", lang))
    return _overlay_legend(fig, message("fig.rope_config.difference_wavelength_title", lang,
                                        label=plot_label(base)))


def make_difference_logit_figure(
    shown: Sequence[RopeConfigCurves], differences: Sequence[ConfigDifference],
    colours: Sequence[str], baseline: int, *, lang: Lang = "en",
) -> go.Figure:
    """Against the distance k (log axis), each config's self-logit (its scaling and attention
    factor, m² on the logit) minus the baseline's: bin means as lines, the bin's range faint,
    the baseline itself 0 across; each config's L and T as vertical lines in its colour, legend
    entries grouped under its name."""
    base = shown[baseline]
    farthest = max(c.target_context for c in shown)
    x_span = [1.0, float(farthest)]
    y_range = _linear_range([v for d in differences for v in (d.logit.low, d.logit.high)])
    fig = go.Figure()
    for index, (curves, difference, colour, group) in enumerate(
            zip(shown, differences, colours, _groups(shown), strict=True)):
        if index == baseline:
            _baseline_line(fig, x_span, base, colour, group, lang)
        else:
            name = plot_label(curves)
            for trace in _logit_traces(difference.logit, name=name, colour=colour,
                                       fill=_faint(colour, 0.15), lang=lang):
                trace.legendgroup = group
                fig.add_trace(trace)
            fig.data[-1].hovertemplate = message("fig.rope_config.difference_logit_hover", lang,
                                                 label=name, baseline=plot_label(base))
        _context_lines(fig, curves, colour, vertical=True, span=y_range, group=group,
                       lang=lang)
    fig.update_xaxes(type="log", dtick=1, range=[0, math.log10(farthest * 1.3)], **PLAIN_TICKS,
                     title_text=message("fig.rope_config.logit_x", lang))
    fig.update_yaxes(range=y_range, zeroline=False,
                     title_text=message("fig.rope_config.difference_logit_y", lang))
    return _overlay_legend(fig, message("fig.rope_config.difference_logit_title", lang,
                                        label=plot_label(base)))
