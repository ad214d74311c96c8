r"""A model's RoPE as its config.json sets it: what each frequency pair does, in three figures.

- **Wavelengths** per pair, without and with the config's scaling, against the trained context
  $L$ and the target context $T$; each scaled pair coloured by its band (unchanged,
  interpolated, blended, as YaRN and Llama 3 define them; LongRoPE's searched factors
  ``rescaled``), the band edges and the critical pair marked.
- **Largest angles** per pair: $(L-1)\,\theta_i$ in training against $(T-1)\,\theta_i$ and
  $(T-1)\,\theta'_i$ at the target (red where the config's pairs turn past anything trained).
- **The logit of a query with itself** at distance $k$ (RoFormer §3.4.3's setting), every pair a
  unit vector, before and after scaling, the attention factor $m$ applied to cos and sin of both
  query and key (so $m^2$ on the logit):
  $$\ell(k) = m^2\,\frac{2}{d}\sum_{i<d/2}\cos(k\,\theta'_i), \qquad \ell(0) = m^2.$$

The numbers come from `core.rope_scaling` (transformers' inverse frequencies, bands and attention
factor) through `core.rope_config.RopeConfig`; `rope_config_curves` puts together what the
figures draw for one config (numpy only), and each ``make_config_*_figure`` draws one config. Two
configs are drawn as two figures side by side on the same y range (``shown_with``).

Contexts: $L$ is the config's ``original_max_position_embeddings`` (top-level, else
``rope_scaling``'s, else ``max_position_embeddings``: transformers' reading); $T$ the longest
context the config is made for, $\max(\text{max\_position\_embeddings}, sL)$ (Qwen2.5 keeps
max_position_embeddings at 32768 and reaches 131072 with YaRN's $s = 4$; Llama 3.1's 131072 is
more than its $8 \times 8192$). Frequencies that depend on the running length (dynamic NTK,
LongRoPE's long factors) are taken at $T$.

$T$ may be 10M positions: the logit is drawn over `LOGIT_BINS` log-spaced bins of distances, each
as the mean and the range of $\ell$ over at most `SAMPLES_PER_BIN` evenly spaced distances in it
(every distance of a narrower bin), so that the fast pairs' oscillation shows as a band instead
of aliasing into a false curve; short distances are exact.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from core.rope_config import RopeConfig, config_contexts
from core.rope_scaling import ScalingBands, critical_pair, scaling_bands
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

LOGIT_BINS = 240  # about one per 4 px of a chart's width
SAMPLES_PER_BIN = 32  # distances evaluated in a wider bin: its range and mean
_BLOCK_CELLS = 2**20  # distances x pairs per block of cosines (8 MB of float64)
CONFIG_FIGURE_HEIGHT = 460
SCALED_COLOUR = "#2ca02c"  # green: the config's scaled frequencies (the extrapolation page's)
BAND_COLOURS = {
    "unchanged": TRAINED_COLOUR,  # grey: as trained
    "blended": "#ff7f0e",  # orange: between
    "interpolated": SCALED_COLOUR,
    "rescaled": "#9467bd",  # purple: LongRoPE's searched per-pair factors
}
BAND_ORDER = ("unchanged", "blended", "interpolated", "rescaled")


@dataclass(frozen=True)
class LogitProfile:
    """The self-logit over log-spaced bins of distances: ``(B,)`` each."""

    distances: np.ndarray  # (B,) the bin's distance (exact bins) or its geometric centre
    mean: np.ndarray  # (B,) mean of the logit over the bin's sampled distances
    low: np.ndarray  # (B,) lowest of them
    high: np.ndarray  # (B,) highest of them


@dataclass(frozen=True)
class RopeConfigCurves:
    """Everything the three figures draw for one config (pairs i < d_head/2)."""

    name: str  # the preset's key, "custom" for a pasted config
    label: str  # as a reader sees it: "Llama 3.1 8B (8k -> 128k, llama3)"
    source: str  # where the config's numbers come from
    rope_type: str  # "default", "linear", "dynamic", "yarn", "llama3", "longrope"
    d_head: int  # rotated width
    rope_theta: float  # base
    trained_context: int  # L
    target_context: int  # T >= L
    factor: float  # s, the context-extension factor (1 without scaling)
    attention_factor: float  # m at T
    bands: ScalingBands  # per pair: plain and scaled wavelengths, ratio, band; band edges
    critical_pair: int  # first pair whose plain wavelength exceeds L (d/2 if none)
    trained_angles: np.ndarray  # (d/2,) (L-1) theta_i
    target_angles: np.ndarray  # (d/2,) (T-1) theta_i, unscaled
    scaled_angles: np.ndarray  # (d/2,) (T-1) theta'_i
    beyond_unscaled: np.ndarray  # (d/2,) bool: past every trained angle, unscaled
    beyond_scaled: np.ndarray  # (d/2,) bool: ... with the config's scaling
    logit_unscaled: LogitProfile
    logit_scaled: LogitProfile  # times m^2

    @property
    def pairs(self) -> np.ndarray:
        return np.arange(self.trained_angles.size)

    @property
    def scaled(self) -> bool:
        return self.rope_type != "default"

    @property
    def plot_label(self) -> str:
        """`label` as plotly draws it: a visitor's name for a config is drawn as typed."""
        return plot_text(self.label)


def _self_logit(theta: np.ndarray, scale: float, distances: np.ndarray) -> np.ndarray:
    """scale * mean_i cos(k theta_i) for each distance k: ``(K,)``, in blocks of distances."""
    out = np.empty(distances.size)  # (K,)
    rows = max(1, _BLOCK_CELLS // max(theta.size, 1))
    for start in range(0, distances.size, rows):
        block = distances[start:start + rows].astype(np.float64)  # (k,)
        out[start:start + block.size] = np.cos(np.multiply.outer(block, theta)).mean(axis=1)
    return scale * out  # (K,)


def _distance_bins(last: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(samples ``(K,)``, bin starts into samples ``(B,)``, bin distances ``(B,)``) for
    distances 1 .. last in log-spaced bins of whole distances."""
    edges = np.unique(np.round(np.geomspace(1, last + 1, LOGIT_BINS + 1)).astype(np.int64))
    starts, stops = edges[:-1], edges[1:]  # (B,) bin b holds starts[b] .. stops[b] - 1
    widths = stops - starts  # (B,)
    counts = np.minimum(widths, SAMPLES_PER_BIN)  # (B,)
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])  # (B,) first sample of each bin
    bin_of = np.repeat(np.arange(starts.size), counts)  # (K,)
    rank = np.arange(bin_of.size) - offsets[bin_of]  # (K,) 0 .. count-1 within its bin
    samples = starts[bin_of] + (rank * widths[bin_of]) // counts[bin_of]  # (K,) evenly spread
    centres = np.where(widths == 1, starts, np.sqrt(starts * (stops - 1.0)))  # (B,)
    return samples, offsets, centres


def _profile(values: np.ndarray, offsets: np.ndarray, centres: np.ndarray) -> LogitProfile:
    counts = np.diff(np.append(offsets, values.size))  # (B,)
    return LogitProfile(
        distances=centres,
        mean=np.add.reduceat(values, offsets) / counts,
        low=np.minimum.reduceat(values, offsets),
        high=np.maximum.reduceat(values, offsets),
    )


def _beyond(trained: np.ndarray, reached: np.ndarray, step: np.ndarray) -> np.ndarray:
    """Pairs that never completed a turn in training and now pass their largest trained angle
    by more than one position's step (core.rope.rope_context_extension's rule)."""
    return (trained < 2 * np.pi) & (reached > (trained + step) * (1 + 1e-12))  # (d/2,)


def rope_config_curves(config: RopeConfig, *, label: str | None = None) -> RopeConfigCurves:
    """What the figures draw for `config` (a ValueError names a field it cannot use)."""
    trained, target, factor = config_contexts(config)
    bands = scaling_bands(
        config.d_head, base=config.rope_theta, scaling=config.rope_scaling,
        max_position_embeddings=config.max_position_embeddings, seq_len=target,
        original_max_position_embeddings=config.original_max_position_embeddings,
    )
    scaled_theta, attention = config.scaled_frequencies(seq_len=target)  # (d/2,), m
    theta = 2 * np.pi / bands.wavelengths  # (d/2,) plain RoPE
    trained_angles = (trained - 1) * theta  # (d/2,)
    target_angles = (target - 1) * theta  # (d/2,)
    scaled_angles = (target - 1) * scaled_theta  # (d/2,)
    samples, offsets, centres = _distance_bins(max(target - 1, 1))
    return RopeConfigCurves(
        name=config.name, label=label or config.label, source=config.source,
        rope_type=config.rope_type,
        d_head=config.d_head, rope_theta=config.rope_theta, trained_context=trained,
        target_context=target, factor=factor, attention_factor=attention, bands=bands,
        critical_pair=critical_pair(theta, trained), trained_angles=trained_angles,
        target_angles=target_angles, scaled_angles=scaled_angles,
        beyond_unscaled=_beyond(trained_angles, target_angles, theta),
        beyond_scaled=_beyond(trained_angles, scaled_angles, theta),
        logit_unscaled=_profile(_self_logit(theta, 1.0, samples), offsets, centres),
        logit_scaled=_profile(_self_logit(scaled_theta, attention**2, samples), offsets,
                              centres),
    )


# --- names -----------------------------------------------------------------------------------
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
    return message("fig.rope_config.method", lang, method=curves.rope_type, factor=curves.factor)


# --- axis ranges shared by figures drawn side by side ----------------------------------------
def _log_range(values: Sequence[np.ndarray | float], pad: float = 1.6) -> list[float]:
    flat = np.concatenate([np.ravel(np.asarray(v, dtype=np.float64)) for v in values])
    flat = flat[np.isfinite(flat) & (flat > 0)]
    return [math.log10(flat.min() / pad), math.log10(flat.max() * pad)]


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


def _vertical(x: float, y_range: list[float], *, name: str, colour: str, dash: str,
              hover: str, group: str) -> go.Scatter:
    """A vertical guide from the bottom to the top of a log axis (y_range in log10 units),
    as a trace so that the legend names it."""
    return go.Scatter(
        x=[x, x], y=[10 ** y_range[0], 10 ** y_range[1]], mode="lines", name=name,
        line={"color": colour, "width": 1.5, "dash": dash}, legendgroup=group,
        hovertemplate=hover,
    )


def _horizontal(x_range: tuple[float, float], y: float, *, name: str, colour: str, dash: str,
                group: str) -> go.Scatter:
    return go.Scatter(
        x=list(x_range), y=[y, y], mode="lines", name=name, legendgroup=group,
        line={"color": colour, "width": 1.5, "dash": dash}, hoverinfo="skip",
    )


def _finish(fig: go.Figure, title: str, *, legend_y: float = -0.28) -> go.Figure:
    fig.update_layout(legend={"orientation": "h", "y": legend_y, "yanchor": "top"})
    base_layout(fig, title, height=CONFIG_FIGURE_HEIGHT)
    fig.update_layout(margin={"b": 150})  # the legend's two or three rows below the axis
    return fig


# --- figures ---------------------------------------------------------------------------------
def make_config_wavelength_figure(
    curves: RopeConfigCurves, *, lang: Lang = "en", shown_with: Sequence[RopeConfigCurves] = ()
) -> go.Figure:
    """Per pair: the plain wavelength (line) and the scaled one (markers coloured by band),
    L and T across, the critical pair and the band edges as vertical lines. Log y axis, the same
    range as the figures of `shown_with`."""
    bands = curves.bands
    pairs = curves.pairs
    half = pairs.size
    y_range = _log_range([v for c in (curves, *shown_with) for v in _wavelength_values(c)])
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
                              dash="dash", group="trained",
                              name=message("fig.rope_config.trained_context", lang,
                                           length=curves.trained_context)))
    if curves.target_context != curves.trained_context:
        fig.add_trace(_horizontal(x_range, curves.target_context, colour=BEYOND_COLOUR,
                                  dash="longdash", group="target",
                                  name=message("fig.rope_config.target_context", lang,
                                               length=curves.target_context)))
    if curves.critical_pair < half:
        fig.add_trace(_vertical(
            curves.critical_pair - 0.5, y_range, colour=NEUTRAL, dash="dashdot",
            group="critical",
            name=message("fig.rope_config.critical", lang, pair=curves.critical_pair),
            hover=message("fig.rope_config.critical_hover", lang, pair=curves.critical_pair,
                          length=curves.trained_context),
        ))
    if bands.pair_edges is not None and bands.wavelength_edges is not None:
        for index, (edge, wavelength) in enumerate(zip(bands.pair_edges, bands.wavelength_edges,
                                                       strict=True)):
            fig.add_trace(_vertical(
                float(np.clip(edge, -0.5, half - 0.5)), y_range, colour=BAND_COLOURS["blended"],
                dash="dot", group="edges",
                name=message("fig.rope_config.band_edges", lang),
                hover=message("fig.rope_config.band_edge_hover", lang, pair=float(edge),
                              wavelength=wavelength),
            ))
            fig.data[-1].showlegend = index == 0
    fig.update_xaxes(title_text=message("fig.rope_config.pair_x", lang), range=list(x_range))
    fig.update_yaxes(type="log", dtick=1, range=y_range,
                     title_text=message("fig.rope_config.wavelength_y", lang))
    return _finish(fig, message("fig.rope_config.wavelength_title", lang, label=curves.plot_label))


def make_config_angle_figure(
    curves: RopeConfigCurves, *, lang: Lang = "en", shown_with: Sequence[RopeConfigCurves] = ()
) -> go.Figure:
    """Per pair: the largest angle in training (grey, dashed), at the target unscaled (blue) and
    with the config's scaling (green diamonds); red where the config's pairs pass every trained
    angle. Log y axis, 2π marked."""
    pairs = curves.pairs
    fig = go.Figure()
    last = curves.target_context - 1
    fig.add_trace(go.Scatter(
        x=pairs, y=curves.target_angles, mode="lines+markers",
        name=message("fig.rope_config.angle_unscaled", lang, last=last),
        line={"color": TARGET_COLOUR, "width": 1.5},
        marker={"size": 4, "maxdisplayed": PAIR_MARKERS},
        hovertemplate=message("fig.rope.extension_target_hover", lang),
    ))
    if curves.scaled:
        fig.add_trace(go.Scatter(
            x=pairs, y=curves.scaled_angles, mode="markers",
            name=message("fig.rope_config.angle_scaled", lang, last=last,
                         method=method_text(curves, lang)),
            marker={"symbol": "diamond-open", "size": 7, "color": SCALED_COLOUR,
                    "maxdisplayed": PAIR_MARKERS},
            hovertemplate=message("fig.rope.extension_target_hover", lang),
        ))
    fig.add_trace(beyond_trace(pairs, curves.scaled_angles, curves.beyond_scaled, lang=lang,
                               showlegend=bool(curves.beyond_scaled.any())))
    fig.add_trace(trained_trace(pairs, curves.trained_angles,
                                message("fig.rope.extension_trained", lang,
                                        last=curves.trained_context - 1), lang=lang))
    fig.add_trace(full_turn_trace(pairs, lang=lang))
    y_range = _log_range([v for c in (curves, *shown_with) for v in _angle_values(c)])
    fig.update_xaxes(title_text=message("fig.rope_config.pair_x", lang),
                     range=[-0.5, pairs.size - 0.5])
    fig.update_yaxes(type="log", dtick=1, range=y_range,
                     title_text=message("fig.rope.extension_y_title", lang))
    return _finish(fig, message("fig.rope_config.angle_title", lang, label=curves.plot_label))


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


def make_config_logit_figure(
    curves: RopeConfigCurves, *, lang: Lang = "en", shown_with: Sequence[RopeConfigCurves] = ()
) -> go.Figure:
    """The logit of a query with itself against the distance k (log axis), without and with the
    config's scaling (times m^2), as bin means with the bin's range shaded; L and T marked."""
    fig = go.Figure()
    unscaled = message("fig.rope_config.logit_unscaled", lang)
    for trace in _logit_traces(curves.logit_unscaled, name=unscaled, colour=TARGET_COLOUR,
                               fill="rgba(31, 119, 180, 0.25)", lang=lang):
        fig.add_trace(trace)
    if curves.scaled:
        scaled = message("fig.rope_config.logit_scaled", lang, method=method_text(curves, lang),
                         m=curves.attention_factor)
        for trace in _logit_traces(curves.logit_scaled, name=scaled, colour=SCALED_COLOUR,
                                   fill="rgba(44, 160, 44, 0.25)", lang=lang):
            fig.add_trace(trace)
    shown = (curves, *shown_with)
    y_range = _logit_range(shown)
    x_last = max(c.target_context for c in shown)
    fig.add_trace(go.Scatter(
        x=[curves.trained_context] * 2, y=y_range, mode="lines",
        name=message("fig.rope_config.trained_context", lang, length=curves.trained_context),
        line={"color": TRAINED_COLOUR, "width": 1.5, "dash": "dash"}, hoverinfo="skip",
    ))
    if curves.target_context != curves.trained_context:
        fig.add_trace(go.Scatter(
            x=[curves.target_context] * 2, y=y_range, mode="lines",
            name=message("fig.rope_config.target_context", lang, length=curves.target_context),
            line={"color": BEYOND_COLOUR, "width": 1.5, "dash": "longdash"}, hoverinfo="skip",
        ))
    fig.update_xaxes(type="log", dtick=1, range=[0, math.log10(x_last * 1.3)],
                     title_text=message("fig.rope_config.logit_x", lang))
    fig.update_yaxes(range=y_range, title_text=message("fig.rope_config.logit_y", lang))
    return _finish(fig, message("fig.rope_config.logit_title", lang, label=curves.plot_label))


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


def _plain_name(curves: RopeConfigCurves, shown: Sequence[RopeConfigCurves], lang: Lang) -> str:
    if len(_plain_groups(shown)) == 1:
        return message("fig.rope_config.plain", lang)
    return message("fig.rope_config.plain_of", lang, d_head=curves.d_head,
                   theta=curves.rope_theta)


def _context_lines(fig: go.Figure, curves: RopeConfigCurves, colour: str, *, vertical: bool,
                   span: list[float], lang: Lang) -> None:
    """L (dashed) and T (long dashes) of one config in its colour, named on hover only (the
    caption says which dash is which)."""
    for length, dash, key in ((curves.trained_context, "dash", "trained_context"),
                              (curves.target_context, "longdash", "target_context")):
        if key == "target_context" and length == curves.trained_context:
            continue
        name = f"{curves.plot_label}: " + message(f"fig.rope_config.{key}", lang, length=length)
        line = {"color": colour, "width": 1.5, "dash": dash}
        if vertical:
            fig.add_trace(go.Scatter(x=[length, length], y=span, mode="lines", name=name,
                                     line=line, showlegend=False, legendgroup=curves.label,
                                     hovertemplate=name + "<extra></extra>"))
        else:
            fig.add_trace(go.Scatter(x=span, y=[length, length], mode="lines", name=name,
                                     line=line, showlegend=False, legendgroup=curves.label,
                                     hovertemplate=name + "<extra></extra>"))


def _overlay_legend(fig: go.Figure, title: str) -> go.Figure:
    """The overlay's legend: one row per config below the axis."""
    fig = _finish(fig, title)
    fig.update_layout(legend={"orientation": "h", "y": -0.22, "yanchor": "top"},
                      margin={"b": 110})
    return fig


def make_overlay_wavelength_figure(shown: Sequence[RopeConfigCurves], colours: Sequence[str],
                                   *, lang: Lang = "en") -> go.Figure:
    """Every config's scaled wavelengths per pair on one log axis, each in its colour (its band
    on hover), the plain RoPE wavelengths once per distinct (d_head, rope_theta) in grey, each
    config's L and T across and its band edges, in its colour."""
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
    for curves, colour in zip(shown, colours, strict=True):
        bands = curves.bands
        fig.add_trace(go.Scatter(
            x=curves.pairs, y=bands.scaled_wavelengths, mode="lines+markers",
            name=curves.plot_label, line={"color": colour, "width": 2}, legendgroup=curves.label,
            marker={"color": colour, "size": 5, "maxdisplayed": PAIR_MARKERS},
            customdata=np.stack([bands.ratio, [names[b] for b in bands.bands]], axis=-1),
            hovertemplate=message("fig.rope_config.overlay_wavelength_hover", lang,
                                  label=curves.plot_label),
        ))
        _context_lines(fig, curves, colour, vertical=False, span=x_range, lang=lang)
        if bands.pair_edges is not None and bands.wavelength_edges is not None:
            for edge, wavelength in zip(bands.pair_edges, bands.wavelength_edges, strict=True):
                trace = _vertical(
                    float(np.clip(edge, -0.5, half - 0.5)), y_range, colour=colour, dash="dot",
                    group=curves.label, name=message("fig.rope_config.band_edges", lang),
                    hover=message("fig.rope_config.band_edge_hover", lang, pair=float(edge),
                                  wavelength=wavelength))
                trace.showlegend = False
                fig.add_trace(trace)
    fig.update_xaxes(title_text=message("fig.rope_config.pair_x", lang), range=x_range)
    fig.update_yaxes(type="log", dtick=1, range=y_range,
                     title_text=message("fig.rope_config.wavelength_y", lang))
    return _overlay_legend(fig, message("fig.rope_config.overlay_wavelength_title", lang))


def make_overlay_angle_figure(shown: Sequence[RopeConfigCurves], colours: Sequence[str],
                              *, lang: Lang = "en") -> go.Figure:
    """Every config's largest angle per pair at its T with its scaling (markers in its colour,
    outlined red where a pair passes every trained angle) and in training (dashed, its colour);
    2π across."""
    half = max(c.pairs.size for c in shown)
    fig = go.Figure()
    for curves, colour in zip(shown, colours, strict=True):
        beyond = curves.beyond_scaled
        fig.add_trace(go.Scatter(
            x=curves.pairs, y=curves.scaled_angles, mode="lines+markers", name=curves.plot_label,
            legendgroup=curves.label, line={"color": colour, "width": 1.5},
            marker={"color": colour, "size": 6, "maxdisplayed": PAIR_MARKERS,
                    "line": {"color": np.where(beyond, BEYOND_COLOUR, colour).tolist(),
                             "width": np.where(beyond, 2, 0).tolist()}},
            hovertemplate=message("fig.rope_config.overlay_angle_hover", lang,
                                  label=curves.plot_label, last=curves.target_context - 1),
        ))
        fig.add_trace(go.Scatter(
            x=curves.pairs, y=curves.trained_angles, mode="lines", legendgroup=curves.label,
            name=f"{curves.plot_label}: " + message("fig.rope.extension_trained", lang,
                                               last=curves.trained_context - 1),
            line={"color": colour, "width": 1, "dash": "dash"}, showlegend=False,
            hovertemplate=message("fig.rope.extension_target_hover", lang),
        ))
    fig.add_trace(full_turn_trace(np.arange(half), lang=lang))
    y_range = _log_range([v for c in shown for v in _angle_values(c)])
    fig.update_xaxes(title_text=message("fig.rope_config.pair_x", lang), range=[-0.5, half - 0.5])
    fig.update_yaxes(type="log", dtick=1, range=y_range,
                     title_text=message("fig.rope.extension_y_title", lang))
    return _overlay_legend(fig, message("fig.rope_config.overlay_angle_title", lang))


def make_overlay_logit_figure(shown: Sequence[RopeConfigCurves], colours: Sequence[str],
                              *, lang: Lang = "en") -> go.Figure:
    """Every config's self-logit against distance up to its T, with its scaling and its
    attention factor (m² on the logit), in its colour with its bin range faint; the plain RoPE
    logit once per distinct (d_head, rope_theta) in grey, to the farthest T; each config's L
    and T as vertical lines in its colour."""
    fig = go.Figure()
    farthest = max(shown, key=lambda c: c.target_context)
    for curves in _plain_groups(shown):
        profile = curves.logit_unscaled
        if curves is not farthest and (curves.d_head, curves.rope_theta) == (
                farthest.d_head, farthest.rope_theta):
            profile = farthest.logit_unscaled
        fig.add_trace(go.Scatter(
            x=profile.distances.astype(np.float32), y=profile.mean.astype(np.float32),
            mode="lines", name=_plain_name(curves, shown, lang),
            line={"color": NEUTRAL, "width": 1.5},
            hovertemplate=message("fig.rope_config.logit_hover", lang,
                                  curve=_plain_name(curves, shown, lang)),
        ))
    for curves, colour in zip(shown, colours, strict=True):
        name = curves.plot_label + (f" (m = {curves.attention_factor:.3g})"
                               if abs(curves.attention_factor - 1) > 1e-12 else "")
        traces = _logit_traces(curves.logit_scaled, name=name, colour=colour,
                               fill=_faint(colour, 0.15), lang=lang)
        for trace in traces:
            trace.legendgroup = curves.label
            fig.add_trace(trace)
    y_range = _logit_range(shown)
    for curves, colour in zip(shown, colours, strict=True):
        _context_lines(fig, curves, colour, vertical=True, span=y_range, lang=lang)
    fig.update_xaxes(type="log", dtick=1,
                     range=[0, math.log10(farthest.target_context * 1.3)],
                     title_text=message("fig.rope_config.logit_x", lang))
    fig.update_yaxes(range=y_range, title_text=message("fig.rope_config.logit_y", lang))
    return _overlay_legend(fig, message("fig.rope_config.overlay_logit_title", lang))
