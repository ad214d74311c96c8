"""A model's config on the RoPE page (view `config`) and the extrapolation page: the figures of
figures/rope_config.py against slow references, and the pages through AppTest (URL
parameters `config`, `compare`, `factor`; the pasted config.json; both languages)."""

from __future__ import annotations

import itertools
import json
import math
import re

import numpy as np
import pytest

from core.rope_config import (
    LOGIT_BINS,
    MAX_CONFIG_CHARS,
    PRESETS,
    NoContextError,
    NoHeadWidthError,
    beyond_trained_angles,
    config_contexts,
    parse_config,
    rope_config_curves,
    variant,
)
from core.rope_scaling import critical_pair, scaling_bands
from figures.common import presentation_colour
from figures.contrast import readable
from figures.rope import BEYOND_COLOUR
from figures.rope_config import (
    TARGET_DASH,
    make_overlay_angle_figure,
    make_overlay_logit_figure,
    make_overlay_wavelength_figure,
)
from locales import message
from tests.apptest import (
    control,
    decode,
    has_cjk,
    notices,
    open_page,
    plotly_figures,
    unescape,
)
from tests.reference import published_config
from tests.test_controls import _keys_in_hidden_blocks
from ui.codec import pack
from ui.rope_codes import pack_overlay, pasted_fields, pinned, unpack_overlay, unpack_pasted
from ui.rope_config import OVERLAY_COLOURS

ROPE, EXTRAPOLATION = "app_pages/rope.py", "app_pages/extrapolation.py"
ONE = ["#1f77b4"]  # one config's colour: drawn alone, its figure keeps its own palette
CONFIG_CHARTS = ["config_wavelengths_chart", "config_angles_chart", "config_logits_chart"]
BOTH_CHARTS = ["config_wavelengths_chart", "compare_wavelengths_chart", "config_angles_chart",
               "compare_angles_chart", "config_logits_chart", "compare_logits_chart"]


def small_config(d_head: int = 8, max_pos: int = 60, scaling: dict | None = None, **fields):
    return parse_config(json.dumps({"head_dim": d_head, "max_position_embeddings": max_pos,
                                    "rope_theta": 100.0, "rope_scaling": scaling, **fields}))


def self_logit_loop(theta: np.ndarray, scale: float, k: int) -> float:
    """A query with itself at distance k, every pair the unit vector (1, 0): the slow way."""
    total = 0.0
    for angle in theta:
        query = np.array([1.0, 0.0])
        key = np.array([math.cos(k * angle), math.sin(k * angle)])  # the key rotated by k
        total += query @ key
    return scale * total / theta.size


# --- the numbers the figures draw ---------------------------------------------------------------
def test_contexts_of_the_presets():
    """L from original_max_position_embeddings (top level, then rope_scaling's), T the longest
    context the config is made for: Qwen2.5's YaRN reaches 4 x 32768 though its
    max_position_embeddings is 32768."""
    assert config_contexts(PRESETS["llama-2-7b"]) == (4096, 4096, 1.0)
    assert config_contexts(PRESETS["llama-3.1-8b"]) == (8192, 131072, 8.0)
    assert config_contexts(PRESETS["qwen2.5-7b-yarn"]) == (32768, 131072, 4.0)
    assert config_contexts(PRESETS["phi-3-mini-128k"]) == (4096, 131072, 32.0)
    assert config_contexts(PRESETS["deepseek-v2-lite"]) == (4096, 163840, 40.0)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_curves_equal_core_rope_scaling(name):
    config = PRESETS[name]
    curves = rope_config_curves(config)
    trained, target, _ = config_contexts(config)
    bands = scaling_bands(config.d_head, base=config.rope_theta, scaling=config.rope_scaling,
                          max_position_embeddings=config.max_position_embeddings,
                          seq_len=target,
                          original_max_position_embeddings=config.original_max_position_embeddings)
    theta = config.rope_theta ** (-np.arange(0, config.d_head, 2) / config.d_head)
    scaled, attention = config.scaled_frequencies(seq_len=target)
    assert curves.bands.bands == bands.bands
    np.testing.assert_allclose(curves.bands.wavelengths, 2 * np.pi / theta, rtol=1e-12)
    np.testing.assert_allclose(curves.trained_angles, (trained - 1) * theta, rtol=1e-12)
    np.testing.assert_allclose(curves.target_angles, (target - 1) * theta, rtol=1e-12)
    np.testing.assert_allclose(curves.scaled_angles, (target - 1) * scaled, rtol=1e-12)
    assert curves.attention_factor == attention
    assert curves.critical_pair == critical_pair(theta, trained)
    assert curves.pairs.size == config.d_head // 2
    # The critical pair: every pair before it turns fully within L, none from it on.
    turns = 2 * np.pi / theta <= trained
    assert turns[:curves.critical_pair].all() and not turns[curves.critical_pair:].any()


@pytest.mark.parametrize("name", ["llama-2-7b", "llama-3.1-8b", "qwen2.5-7b-yarn",
                                  "deepseek-v2-lite"])
def test_a_configs_pairs_beyond_training_are_the_extrapolation_rule(name):
    """One rule for a pair past its trained angles: a config's unscaled pairs beyond L are
    `core.rope.rope_context_extension`'s at the same L, T and base (no scaling)."""
    from core.rope import rope_context_extension

    config = PRESETS[name]
    curves = rope_config_curves(config)
    extension = rope_context_extension(config.d_head, curves.trained_context,
                                       curves.target_context, base=config.rope_theta,
                                       methods=("none",))
    np.testing.assert_array_equal(curves.beyond_unscaled, extension.beyond["none"])


def test_beyond_trained_angles_needs_more_than_one_step_past_and_no_full_turn():
    """Three pairs trained to L = 11 (10 steps), written out: one that turned fully in training
    (never beyond), one a fraction of a step past (position interpolation's reach: not
    beyond), one two steps past (beyond)."""
    step = np.array([1.0, 0.1, 0.1])  # theta_i
    trained = 10 * step  # (L-1) theta_i: 10 (> 2 pi), 1, 1
    reached = np.array([100.0, 1.05, 1.2])  # 0.5 and 2 steps past for the slow pairs
    assert beyond_trained_angles(trained, reached, step).tolist() == [False, False, True]


def test_llama_31_bands_and_critical_pair():
    curves = rope_config_curves(PRESETS["llama-3.1-8b"])
    assert curves.bands.bands.count("unchanged") == 29
    assert curves.bands.bands.count("blended") == 6
    assert curves.bands.bands.count("interpolated") == 29
    assert curves.critical_pair == 35  # 2 pi 500000^(70/128) > 8192 > 2 pi 500000^(68/128)
    # Interpolated pairs turn 8 times slower; with T = 16 L they still pass their trained range.
    interpolated = np.asarray(curves.bands.bands) == "interpolated"
    np.testing.assert_allclose(curves.bands.ratio[interpolated], 1 / 8)
    assert int(curves.beyond_unscaled.sum()) == 29 and int(curves.beyond_scaled.sum()) == 29


def test_qwen_yarn_keeps_every_pair_in_range_and_scales_the_logit():
    curves = rope_config_curves(PRESETS["qwen2.5-7b-yarn"])
    assert int(curves.beyond_unscaled.sum()) == 24 and int(curves.beyond_scaled.sum()) == 0
    assert curves.attention_factor == pytest.approx(0.1 * math.log(4) + 1)
    assert curves.logit_scaled.mean[0] == pytest.approx(
        self_logit_loop(2 * np.pi / curves.bands.scaled_wavelengths,
                        curves.attention_factor**2, 1))


def test_self_logit_bins_are_the_loops_values():
    """Distances 1 .. T-1 in log-spaced bins: narrow bins hold every distance, so their mean,
    lowest and highest are the loop's over exactly those distances."""
    config = small_config(d_head=8, max_pos=300,
                          scaling={"type": "yarn", "factor": 2.0,
                                   "original_max_position_embeddings": 150})
    curves = rope_config_curves(config)
    trained, target, _ = config_contexts(config)
    assert (trained, target) == (150, 300)
    theta = 2 * np.pi / curves.bands.wavelengths
    scaled = 2 * np.pi / curves.bands.scaled_wavelengths
    edges = np.unique(np.round(np.geomspace(1, target, LOGIT_BINS + 1)).astype(int))
    assert edges.size - 1 == curves.logit_unscaled.distances.size
    for index, (start, stop) in enumerate(itertools.pairwise(edges)):
        assert stop - start <= 32  # every distance of the bin is evaluated
        plain = [self_logit_loop(theta, 1.0, k) for k in range(start, stop)]
        with_m = [self_logit_loop(scaled, curves.attention_factor**2, k)
                  for k in range(start, stop)]
        assert curves.logit_unscaled.mean[index] == pytest.approx(np.mean(plain), abs=1e-12)
        assert curves.logit_unscaled.low[index] == pytest.approx(min(plain), abs=1e-12)
        assert curves.logit_unscaled.high[index] == pytest.approx(max(plain), abs=1e-12)
        assert curves.logit_scaled.mean[index] == pytest.approx(np.mean(with_m), abs=1e-12)
    assert curves.logit_unscaled.distances[0] == 1


def test_self_logit_over_ten_million_positions_is_bounded():
    """A pasted config may ask for 10M positions and 1024 columns: bins of sampled distances,
    each range inside [-m^2, m^2] and around its mean."""
    config = parse_config(json.dumps({
        "head_dim": 1024, "rope_theta": 1e8, "max_position_embeddings": 10_000_000,
        "rope_scaling": {"rope_type": "llama3", "factor": 64, "low_freq_factor": 1,
                         "high_freq_factor": 4, "original_max_position_embeddings": 8192}}))
    curves = rope_config_curves(config)
    for profile in (curves.logit_unscaled, curves.logit_scaled):
        assert profile.distances.size <= LOGIT_BINS
        assert (profile.low <= profile.mean + 1e-12).all()
        assert (profile.mean <= profile.high + 1e-12).all()
        assert np.all(np.diff(profile.distances) > 0)
    assert curves.logit_unscaled.distances[-1] < 10_000_000
    assert curves.logit_unscaled.high.max() <= 1 + 1e-12


def test_an_unusable_original_context_names_its_field():
    config = small_config(scaling={"type": "linear", "factor": 2,
                                   "original_max_position_embeddings": -5})
    with pytest.raises(ValueError, match=r"original_max_position_embeddings.*=-5"):
        rope_config_curves(config)


# --- figures ---------------------------------------------------------------------------------
def test_wavelength_figure_marks_bands_contexts_critical_pair_and_edges():
    curves = rope_config_curves(PRESETS["llama-3.1-8b"])
    fig = make_overlay_wavelength_figure([curves], ONE)
    names = [trace.name for trace in fig.data]
    assert names[:4] == ["without scaling: 2π/θᵢ", "scaled: unchanged", "scaled: blended",
                         "scaled: interpolated"]
    by_name = {trace.name: trace for trace in fig.data}
    interpolated = by_name["scaled: interpolated"]
    np.testing.assert_allclose(interpolated.y, 8 * curves.bands.wavelengths[interpolated.x])
    assert list(by_name["original context L = 8,192"].y) == [8192, 8192]
    assert list(by_name["target context T = 131,072"].y) == [131072, 131072]
    assert list(by_name["critical pair 35"].x) == [34.5, 34.5]
    # Each band edge a legend entry of its own, named by the field that sets it: Llama 3.1's
    # wavelengths L / high_freq_factor = 8192 / 4 and L / low_freq_factor = 8192 / 1.
    edges = [trace for trace in fig.data if trace.name.startswith("band edge")]
    assert [trace.name for trace in edges] == [
        "band edge high_freq_factor = 4: λ = L/4 = 2,048",
        "band edge low_freq_factor = 1: λ = L/1 = 8,192"]
    assert [trace.x[0] for trace in edges] == pytest.approx(list(curves.bands.pair_edges))
    assert all(trace.showlegend is not False for trace in edges)
    assert fig.layout.yaxis.type == "log"
    assert fig.layout.title.text == "Wavelength of each pair · Llama 3.1 8B (8k -> 128k, llama3)"


def test_plain_configs_draw_no_scaled_traces():
    curves = rope_config_curves(PRESETS["llama-2-7b"])
    names = [trace.name for trace in make_overlay_wavelength_figure([curves], ONE).data]
    assert not any(name.startswith("scaled") or "target context" in name for name in names)
    angles = make_overlay_angle_figure([curves], ONE)
    assert len(angles.data[1].x) == 0  # no pair beyond: T = L
    logits = make_overlay_logit_figure([curves], ONE)
    assert [trace.name for trace in logits.data][2] == "without scaling"


def test_figures_side_by_side_share_their_y_range():
    first = rope_config_curves(PRESETS["llama-3.1-8b"])
    second = rope_config_curves(PRESETS["deepseek-v2-lite"])
    colours = ["#1f77b4", "#ff7f0e"]
    for make in (make_overlay_wavelength_figure, make_overlay_angle_figure,
                 make_overlay_logit_figure):
        left = make([first, second], colours, panel=0)
        right = make([first, second], colours, panel=1)
        assert left.layout.title.text.endswith(first.label)  # each panel its own config
        assert right.layout.title.text.endswith(second.label)
        assert left.layout.yaxis.range == right.layout.yaxis.range
        low, high = left.layout.yaxis.range
        for alone in (make([first], ONE), make([second], ONE)):  # the shared range holds each
            assert low <= alone.layout.yaxis.range[0] and alone.layout.yaxis.range[1] <= high
        with pytest.raises(ValueError, match="panel=2 is not allowed"):
            make([first, second], colours, panel=2)


def test_angle_figure_marks_the_pairs_beyond_training():
    curves = rope_config_curves(PRESETS["llama-3.1-8b"])
    fig = make_overlay_angle_figure([curves], ONE)
    beyond = next(t for t in fig.data if t.name == "past every angle within L")
    assert list(beyond.x) == list(np.flatnonzero(curves.beyond_scaled))
    scaled = next(t for t in fig.data if "llama3 ×8" in t.name)
    np.testing.assert_allclose(scaled.y, curves.scaled_angles)
    assert fig.layout.title.text.startswith("Largest angle of each pair")


def test_logit_figure_draws_mean_and_range_with_the_attention_factor():
    curves = rope_config_curves(PRESETS["qwen2.5-7b-yarn"])
    fig = make_overlay_logit_figure([curves], ONE)
    names = [trace.name for trace in fig.data]
    scaled = "yarn ×4, × m² (m = 1.14)"
    assert names[:6] == ["without scaling: lowest in bin", "without scaling: highest in bin",
                         "without scaling", f"{scaled}: lowest in bin",
                         f"{scaled}: highest in bin", scaled]
    assert fig.data[1].fill == "tonexty" and fig.data[4].fill == "tonexty"
    np.testing.assert_allclose(fig.data[5].y, curves.logit_scaled.mean, rtol=1e-6)
    assert fig.layout.xaxis.type == "log"


@pytest.mark.parametrize("make", [make_overlay_wavelength_figure, make_overlay_logit_figure])
def test_overlay_legends_name_each_configs_contexts_and_band_edges(make):
    """Every line an overlay draws is a legend entry (and so in its exported image), grouped
    under its config: its L dashed, its T in long dashes, its band edges dotted, each in the
    config's colour and named with its numbers written out."""
    llama = rope_config_curves(PRESETS["llama-3.1-8b"], label="Llama")
    qwen = rope_config_curves(PRESETS["qwen2.5-7b-yarn"], label="Qwen")
    colours = ["#1f77b4", "#ff7f0e"]
    fig = make([llama, qwen], colours)
    entries = {(trace.legendgroup, trace.name): trace for trace in fig.data
               if trace.showlegend is not False}
    across = "y" if make is make_overlay_wavelength_figure else "x"
    for group, colour, trained in (("Llama", colours[0], 8192), ("Qwen", colours[1], 32768)):
        for name, length, dash in ((f"original context L = {trained:,}", trained, "dash"),
                                   ("target context T = 131,072", 131072, TARGET_DASH)):
            line = entries[(group, name)]
            assert list(getattr(line, across)) == [length, length]
            assert (line.line.color, line.line.dash) == (colour, dash)
    if make is make_overlay_wavelength_figure:  # the band edges, by the field that sets each
        for group, names, curves in (
            ("Llama", ["band edge high_freq_factor = 4: λ = L/4 = 2,048",
                       "band edge low_freq_factor = 1: λ = L/1 = 8,192"], llama),
            ("Qwen", ["band edge beta_fast = 32: λ = L/32 = 1,024",
                      "band edge beta_slow = 1: λ = L/1 = 32,768"], qwen),
        ):
            edges = [entries[(group, name)] for name in names]
            assert [edge.x[0] for edge in edges] == pytest.approx(list(curves.bands.pair_edges))
            assert {edge.line.dash for edge in edges} == {"dot"}
    # each config's entries follow its own, in the legend's order
    order = [trace.legendgroup for trace in fig.data if trace.showlegend is not False
             and trace.legendgroup in ("Llama", "Qwen")]
    assert order == sorted(order, key=["Llama", "Qwen"].index)


def test_the_overlay_angle_legend_names_the_angles_within_l_and_the_outline():
    llama = rope_config_curves(PRESETS["llama-3.1-8b"], label="Llama")
    phi = rope_config_curves(PRESETS["phi-3-mini-128k"], label="Phi")
    fig = make_overlay_angle_figure([llama, phi], ["#1f77b4", "#ff7f0e"])
    names = [(trace.legendgroup, trace.name) for trace in fig.data
             if trace.showlegend is not False]
    assert ("Llama", "within L = 8,192: (L − 1)·θᵢ") in names
    assert ("Phi", "within L = 4,096: (L − 1)·θᵢ") in names
    [outline] = [trace for trace in fig.data
                 if trace.name == "outlined: past every angle within L"]
    assert outline.marker.line.color == BEYOND_COLOUR  # the outline the configs' markers have
    assert names[-1][1] == "2π: one full turn"


@pytest.mark.parametrize("arrange", ["overlay", "side", "difference"])
def test_the_config_views_captions_name_only_colours_drawn(arrange):
    """A caption that names a colour (grey: plain RoPE) has a trace of that colour drawn."""
    from tests.test_colour_words import COLOUR_WORDS, rgb_name

    at = open_page(ROPE, {**OVERLAID, "arrange": arrange})
    drawn = {rgb_name(colour) for figure_ in plotly_figures(at) for trace in figure_["data"]
             for colour in ((trace.get("line") or {}).get("color"),
                            (trace.get("marker") or {}).get("color"))
             if isinstance(colour, str)}
    said = {word for caption in at.caption for word in re.findall(COLOUR_WORDS, caption.value)}
    assert said <= drawn, (said, drawn)
    if arrange == "overlay":
        assert said == {"grey"}


def test_numbers_on_the_config_view_are_written_out():
    """1,000,000, never 1e+06: the table, the legends (a plain RoPE's base among them) and the
    log axes' ticks."""
    at = open_page(ROPE, {"view": "config", "compare": "qwen2.5-7b-yarn",
                          "config": "mistral-7b"})
    texts = [str(value) for value in table(at).to_numpy().ravel()]
    for figure_ in plotly_figures(at):
        texts += [trace.get("name") or "" for trace in figure_["data"]]
        for axis in ("xaxis", "yaxis"):
            layout = figure_["layout"][axis]
            if layout.get("type") == "log":
                assert layout["exponentformat"] == "none" and layout["separatethousands"]
    assert not [text for text in texts if re.search(r"\d[eE][+-]?\d", text)]
    assert "without scaling (d_head 128, θ base 1,000,000)" in texts


def test_figures_in_chinese():
    curves = rope_config_curves(PRESETS["qwen2.5-7b-yarn"], label="Qwen2.5 7B + YaRN")
    for make, title in ((make_overlay_wavelength_figure, "fig.rope_config.wavelength_title"),
                        (make_overlay_angle_figure, "fig.rope_config.angle_title"),
                        (make_overlay_logit_figure, "fig.rope_config.logit_title")):
        fig = make([curves], ONE, lang="zh")
        assert fig.layout.title.text == message(title, "zh", label="Qwen2.5 7B + YaRN")
        assert has_cjk(fig.layout.xaxis.title.text) and has_cjk(fig.layout.yaxis.title.text)
    names = [t.name for t in make_overlay_wavelength_figure([curves], ONE, lang="zh").data]
    assert "缩放后：插值" in names and "临界维度对 40" in names


def test_the_widest_config_stays_small():
    """1024 columns (512 pairs) and 10M positions: the three figures together stay far below
    the 1.5 MB a rerun may send."""
    config = parse_config(json.dumps({
        "head_dim": 1024, "rope_theta": 1e8, "max_position_embeddings": 10_000_000,
        "rope_scaling": {"rope_type": "llama3", "factor": 64, "low_freq_factor": 1,
                         "high_freq_factor": 4, "original_max_position_embeddings": 8192}}))
    curves = rope_config_curves(config)
    sizes = [len(make([curves], ONE).to_json()) for make in (
        make_overlay_wavelength_figure, make_overlay_angle_figure, make_overlay_logit_figure)]
    assert sum(sizes) < 150_000, sizes


# --- the RoPE page's config view -----------------------------------------------------------------
def chart_keys(at) -> list[str]:
    return [chart.key for chart in at.get("plotly_chart")]


def figure(at, key: str) -> dict:
    for chart in at.get("plotly_chart"):
        if chart.key == key:
            return json.loads(chart.proto.spec)
    raise AssertionError(f"no chart {key}: {chart_keys(at)}")


def table(at):
    """The config table's numbers (its first row is each config's colour in the charts), its
    headers (markdown: ui.text.markdown_text) as a person reads them."""
    value = at.table[0].value
    assert value.index[0] in {message("rope-config.table_colour", lang) for lang in ("en", "zh")}
    return value.iloc[1:].rename(columns=unescape)


def test_config_view_at_its_defaults():
    at = open_page(ROPE, {"view": "config"})
    assert not at.exception, [e.value for e in at.exception]
    assert notices(at) == []
    assert at.radio(key="config").value == "llama-3.1-8b"
    assert at.radio(key="compare").value == "none"
    assert control(at, "factor").value == 8  # the config's own
    assert chart_keys(at) == CONFIG_CHARTS
    assert list(table(at).columns) == ["Llama 3.1 8B"]
    column = table(at)["Llama 3.1 8B"].tolist()
    assert column[:7] == ["llama3 ×8", "128", "500,000", "8,192", "131,072",
                          "16× L; factor 8 covers 65,536: T is 2× past it", "1"]
    assert column[-1] == "meta-llama/Llama-3.1-8B config.json"  # the numbers' source
    assert [s.value for s in at.subheader] == ["A model's config"]


def test_a_link_with_a_config_and_no_view_opens_the_config_view_with_its_factor():
    at = open_page(ROPE, {"config": "llama-3.1-8b"})
    assert not at.exception
    assert at.radio(key="view").value == "config"
    assert control(at, "factor").value == 8
    assert table(at)["Llama 3.1 8B"].tolist()[0] == "llama3 ×8"


def test_a_link_with_a_factor_overrides_the_configs():
    at = open_page(ROPE, {"config": "llama-3.1-8b", "factor": "16"})
    assert not at.exception and notices(at) == []
    assert control(at, "factor").value == 16
    assert list(table(at).columns) == ["Llama 3.1 8B · factor 16"]
    assert table(at).iloc[0, 0] == "llama3 ×16"
    interpolated = next(t for t in figure(at, "config_wavelengths_chart")["data"]
                        if t["name"] == "scaled: interpolated")
    pairs = decode(interpolated["x"]).astype(int)
    plain = 2 * np.pi * 500000.0 ** (2 * pairs / 128)
    np.testing.assert_allclose(decode(interpolated["y"]), 16 * plain, rtol=1e-12)


def test_choosing_another_config_starts_from_its_own_factor():
    at = open_page(ROPE, {"view": "config", "factor": "16"})
    assert control(at, "factor").value == 16
    at.radio(key="config").set_value("qwen2.5-7b-yarn").run()
    assert control(at, "factor").value == 4  # not the 16 meant for Llama
    assert table(at).iloc[0, 0] == "yarn ×4"
    at.radio(key="config").set_value("deepseek-v2-lite").run()
    assert control(at, "factor").value == 40
    at.radio(key="view").set_value("extension").run()  # factor's other meaning: default 4
    assert control(at, "factor").value == 4
    assert chart_keys(at) == ["extension_chart"]
    at.radio(key="view").set_value("config").run()
    assert control(at, "factor").value == 40


@pytest.mark.parametrize("query, factor", [
    ({"view": "extension", "factor": "8"}, 8),
    ({"view": "extension"}, 4),
    ({"scaling": "ntk_aware", "factor": "16", "view": "relative"}, 16),
    ({"d_head": "64", "base": "500000", "layout": "half_split", "positions": "300",
      "scaling": "position_interpolation", "factor": "8"}, 8),
])
def test_links_to_the_other_views_keep_their_factor(query, factor):
    at = open_page(ROPE, query)
    assert not at.exception and notices(at) == []
    assert at.radio(key="view").value == query.get("view", "rotation")
    assert control(at, "factor").value == factor


def test_compare_side_by_side_draws_two_panels_on_the_same_scales():
    at = open_page(ROPE, {"view": "config", "compare": "qwen2.5-7b-yarn", "arrange": "side"})
    assert not at.exception
    assert chart_keys(at) == BOTH_CHARTS
    assert list(table(at).columns) == ["Llama 3.1 8B", "Qwen2.5 7B + YaRN"]
    for kind in ("wavelengths", "angles", "logits"):
        left, right = figure(at, f"config_{kind}_chart"), figure(at, f"compare_{kind}_chart")
        assert left["layout"]["yaxis"]["range"] == right["layout"]["yaxis"]["range"]
    assert "Qwen2.5" in figure(at, "compare_angles_chart")["layout"]["title"]["text"]


def test_a_config_compared_with_itself_overridden():
    at = open_page(ROPE, {"view": "config", "compare": "llama-3.1-8b", "factor": "32"})
    assert list(table(at).columns) == ["Llama 3.1 8B · factor 32", "Llama 3.1 8B"]
    assert table(at).iloc[0].tolist() == ["llama3 ×32", "llama3 ×8"]


def test_a_factor_for_a_config_without_scaling_is_explained():
    at = open_page(ROPE, {"view": "config", "config": "llama-2-7b", "factor": "8"})
    assert not at.exception
    assert [i.value for i in at.info] == [
        "Llama 2 7B has no rope_scaling: factor=8 does not apply to it."]
    assert table(at).iloc[0, 0] == "no scaling"


@pytest.mark.parametrize("name, value", [("config", "gpt-5"), ("compare", "<b>x</b>"),
                                         ("factor", "0"), ("factor", "65")])
def test_bad_config_url_values_give_a_notice_naming_the_parameter(name, value):
    at = open_page(ROPE, {"view": "config", name: value})
    assert not at.exception
    [notice] = notices(at)
    assert notice.startswith(f"URL parameter {name}={value} is not allowed")
    assert chart_keys(at) == CONFIG_CHARTS


def test_the_config_view_hides_the_controls_it_does_not_use():
    at = open_page(ROPE, {"view": "config"})
    hidden = _keys_in_hidden_blocks(at)
    assert {"d_head", "base", "positions"} <= hidden
    assert not ({"config", "compare", "factor", "pasted_config"} & hidden)
    # the config's controls are the view's own: above its charts, not in the sidebar
    assert {"config", "compare"} <= {w.key for w in at.main.radio}
    assert not {"config", "compare", "layout", "scaling"} & {w.key for w in at.sidebar.radio}
    at = open_page(ROPE, {"view": "rotation", "config": "mistral-7b"})
    assert at.radio(key="view").value == "rotation"  # a view in the link wins
    assert "config" not in {w.key for w in at.radio}  # the config view's own control
    at.radio(key="view").set_value("config").run()
    assert at.radio(key="config").value == "mistral-7b"  # the link's config, kept for its view


def test_config_view_in_chinese_and_presentation_mode():
    at = open_page(ROPE, {"view": "config", "lang": "zh", "compare": "phi-3-mini-128k",
                          "arrange": "side"})
    assert not at.exception
    assert [s.value for s in at.subheader] == [message("rope-config.heading", "zh")]
    assert at.radio(key="config").label == message("rope-config.config", "zh")
    assert table(at).index.name == message("rope-config.table_quantity", "zh")
    assert figure(at, "compare_wavelengths_chart")["layout"]["title"]["text"] == message(
        "fig.rope_config.wavelength_title", "zh", label="Phi-3 mini 128k")
    assert message("rope-config.intro", "zh") in [m.value for m in at.markdown]
    at = open_page(ROPE, {"view": "config", "present": "1"})
    shown = [m.value for m in at.markdown] + [c.value for c in at.caption]
    assert message("rope-config.intro", "en") not in shown
    assert not any("critical dimension" in text for text in shown)
    assert len(at.table) == 1 and chart_keys(at) == CONFIG_CHARTS  # results stay


# --- the pasted config.json --------------------------------------------------------------------
def paste(at, text: str):
    at.text_area(key="pasted_config").input(text).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


GOOD_PASTE = json.dumps({"hidden_size": 2048, "num_attention_heads": 32,
                         "max_position_embeddings": 16384, "rope_theta": 10000.0,
                         "rope_scaling": {"type": "linear", "factor": 2.5}})


def test_a_pasted_config_is_drawn_instead_of_the_preset_and_the_url_carries_its_fields():
    at = open_page(ROPE, {"view": "config", "compare": "mistral-7b"})
    paste(at, GOOD_PASTE)
    assert notices(at) == []
    assert list(table(at).columns) == ["pasted 1", "Mistral 7B"]  # named (`name`)
    assert table(at).iloc[:5, 0].tolist() == ["linear ×2.5", "64", "10,000", "16,384", "40,960"]
    assert at.query_params.get("config") in (None, ["llama-3.1-8b"])
    assert "pasted_config" not in at.query_params  # the text itself never
    code = at.query_params["pasted"]  # its RoPE fields, as the config reads them
    assert unpack_pasted(code).to_config_json() == parse_config(GOOD_PASTE).to_config_json()
    paste(at, "")  # cleared: the preset again, and nothing in the link
    assert list(table(at).columns) == ["Llama 3.1 8B", "Mistral 7B"]
    assert "pasted" not in at.query_params


# Qwen2.5's RoPE fields as an engineer keeps them in her notes: no hidden_size, no
# num_attention_heads, no head_dim.
QWEN_SNIPPET = ('{"rope_theta": 1000000.0, "max_position_embeddings": 32768, "rope_scaling": '
                '{"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}}')


def transformers_yarn(head_dim: int):
    """transformers' own YaRN inverse frequencies and attention factor for QWEN_SNIPPET at
    `head_dim` (a LlamaConfig with head_dim set): float64 numpy, float."""
    from transformers import LlamaConfig
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    config = LlamaConfig(**json.loads(QWEN_SNIPPET), head_dim=head_dim, hidden_size=4096,
                         num_attention_heads=32)
    assert config.head_dim == head_dim
    inv_freq, attention = ROPE_INIT_FUNCTIONS["yarn"](config, device="cpu")
    return inv_freq.double().numpy(), float(attention)


def link_values(at) -> dict[str, str]:
    """The controls the view's link carries (ui.share: those that differ from their defaults,
    as the URL writes them). AppTest does not show a bound widget's writes to the URL."""
    return {name: value for name, value in at.session_state["_share_values"].items()
            if value is not None}


def drawn_inv_freq(at) -> tuple[np.ndarray, np.ndarray]:
    """(pairs, theta') as the wavelength chart draws them: 2 pi / each scaled wavelength."""
    pairs, theta = [], []
    for trace in figure(at, "config_wavelengths_chart")["data"]:
        if trace["name"].startswith("scaled: "):
            pairs.append(decode(trace["x"]).astype(int))
            theta.append(2 * np.pi / decode(trace["y"]).astype(np.float64))
    order = np.argsort(np.concatenate(pairs))
    return np.concatenate(pairs)[order], np.concatenate(theta)[order]


def self_logit_at_one(at) -> float:
    """The scaled self-logit's first bin (k = 1 exactly) as the logit chart draws it."""
    [mean] = [trace for trace in figure(at, "config_logits_chart")["data"]
              if trace["name"].startswith("yarn ×4, × m²") and trace.get("showlegend", True)]
    assert decode(mean["x"])[0] == 1
    return float(decode(mean["y"])[0])


def test_the_qwen_snippet_pasted_alone_is_drawn_at_the_stated_head_width_as_transformers():
    """The snippet draws (no error, no refusal): its head width is a control, shown with its
    default 128 said beside it, and at 128 the drawn frequencies and attention factor are
    transformers' own YaRN's."""
    at = paste(open_page(ROPE, {"view": "config"}), QWEN_SNIPPET)
    assert notices(at) == []  # accepted, not refused, not a warning
    assert chart_keys(at) == CONFIG_CHARTS
    width = control(at, "head_dim")
    assert width.value == 128 and "head_dim" not in _keys_in_hidden_blocks(at)  # on show
    assert "128" in width.help
    assert any("The paste gives no head width" in c.value and "128" in c.value
               for c in at.caption)
    assert list(table(at).columns) == ["pasted 1"]
    assert table(at).iloc[1, 0] == "128"
    assert table(at).iloc[2, 0] == "1,000,000"  # as people write it, not 1e+06
    inv_freq, attention = transformers_yarn(128)
    pairs, theta = drawn_inv_freq(at)
    assert pairs.tolist() == list(range(64))
    np.testing.assert_allclose(theta, inv_freq, rtol=2e-6)  # transformers computes in float32
    want = attention**2 * np.cos(inv_freq).mean()  # m^2 mean cos(theta'_i) at k = 1
    assert self_logit_at_one(at) == pytest.approx(want, rel=1e-6)
    assert table(at).loc["attention factor m (at T)"].tolist() == [f"{attention:.4g}"]
    # The link carries the fields without a head width, and no head_dim: it is the default.
    fields = pasted_fields(at.query_params["pasted"])
    assert "head_dim" not in fields and "head_dim" not in link_values(at)
    # The preset the paste replaces is greyed, and the page says why in words.
    assert at.radio(key="config").disabled
    assert message("rope-config.config_not_drawn", "en") in [c.value for c in at.caption]
    with pytest.raises(NoHeadWidthError):  # core itself assumes nothing
        parse_config(QWEN_SNIPPET)


def test_the_head_width_control_redraws_and_travels_in_the_link():
    at = paste(open_page(ROPE, {"view": "config"}), QWEN_SNIPPET)
    control(at, "head_dim").set_value(64).run()
    assert not at.exception and notices(at) == []
    link = link_values(at)  # what the address bar and "Link to this view" carry
    assert link["head_dim"] == "64" and "head_dim" not in pasted_fields(link["pasted"])
    assert table(at).iloc[1, 0] == "64"
    inv_freq, _ = transformers_yarn(64)
    np.testing.assert_allclose(drawn_inv_freq(at)[1], inv_freq, rtol=2e-6)
    # The link opened afresh: the same paste in the box, the same width, the same drawing.
    again = open_page(ROPE, link)
    assert not again.exception and notices(again) == []
    assert json.loads(again.text_area(key="pasted_config").value) == json.loads(QWEN_SNIPPET)
    assert control(again, "head_dim").value == 64
    assert table(again).iloc[1, 0] == "64"


@pytest.mark.parametrize("value", ["7", "0", "2048", "wide"])
def test_a_head_width_the_page_cannot_use_gets_the_usual_notice(value):
    at = open_page(ROPE, {"view": "config", "head_dim": value,
                          "pasted": pack(json.loads(QWEN_SNIPPET))})
    assert not at.exception
    [notice] = notices(at)
    assert notice.startswith(f"URL parameter head_dim={value} is not allowed")
    assert "Using the default, 128" in notice
    assert control(at, "head_dim").value == 128 and table(at).iloc[1, 0] == "128"


def test_a_head_width_the_config_does_not_need_is_said_and_dropped():
    """A link's head_dim with no paste that lacks one: said, not silently ignored."""
    at = open_page(ROPE, {"view": "config", "head_dim": "64"})
    assert not at.exception
    assert notices(at) == [message("rope-config.head_dim_unused", "en", value=64)]
    assert not [w for w in at.number_input if w.key == "head_dim"]  # no control to set
    assert "head_dim" not in link_values(at) and table(at).iloc[1, 0] == "128"  # Llama 3.1's
    at = paste(open_page(ROPE, {"view": "config"}), GOOD_PASTE)  # a paste with its own width
    assert not [w for w in at.number_input if w.key == "head_dim"]
    assert table(at).iloc[1, 0] == "64"  # 2048 / 32


@pytest.mark.parametrize("text, field", [
    ("[" * 100_000 + "]" * 100_000, f"config has 200000 characters: at most {MAX_CONFIG_CHARS}"),
    ('{"a": ' * 20 + "1" + "}" * 20, "nests deeper than 8 levels"),
    ('{"head_dim": 128, "x": "' + "a" * 1_000_000 + '"}', "config has 1000026 characters"),
    ('{"head_dim": 128, "max_position_embeddings": 4096, "rope_theta": NaN}', "NaN"),
    ('{"hidden_size": 4095, "num_attention_heads": 32, "max_position_embeddings": 8}',
     "hidden_size=4095 is not a multiple of num_attention_heads=32"),
    ('{"head_dim": 127, "max_position_embeddings": 8}', "rotated head width is 127"),
    ('{"head_dim": 64, "max_position_embeddings": 8, "rope_scaling": {"type": "yarn"}}',
     "rope_scaling has no 'factor'"),
    ('{"head_dim": 64, "max_position_embeddings": 8, "rope_scaling": {"type": "linear", '
     '"factor": 2, "original_max_position_embeddings": true}}',
     "original_max_position_embeddings']=True"),
    ("__import__('os').system('id')", "not valid JSON"),
    ('{"head_dim": 64, "max_position_embeddings": 8, "rope_scaling": '
     '{"type": "<img src=x onerror=alert(1)>", "factor": 2}}', "<img src=x onerror=alert(1)>"),
])
@pytest.mark.parametrize("page", [ROPE, EXTRAPOLATION])
def test_an_unusable_paste_gives_a_notice_naming_the_field_and_keeps_the_preset(page, text,
                                                                               field):
    at = open_page(page, {"view": "config"} if page == ROPE else {"config": "llama-3.1-8b"})
    paste(at, text)
    [notice] = notices(at)
    assert notice.startswith("The pasted config.json is not used (the preset is): ")
    assert field in notice
    if page == ROPE:
        assert list(table(at).columns) == ["Llama 3.1 8B"]
        assert chart_keys(at) == CONFIG_CHARTS
    else:
        assert "Llama 3.1 8B" in figure(at, "rope_chart")["layout"]["title"]["text"]


def test_a_long_paste_is_cut_after_its_notice():
    """A session keeps at most one character over the limit: the next run still refuses it."""
    at = open_page(ROPE, {"view": "config"})
    paste(at, "x" * 1_000_000)
    assert "config has 1000000 characters" in notices(at)[0]
    assert len(at.text_area(key="pasted_config").value) == MAX_CONFIG_CHARS + 1
    at.radio(key="compare").set_value("mistral-7b").run()
    assert f"config has {MAX_CONFIG_CHARS + 1} characters" in notices(at)[0]
    assert list(table(at).columns) == ["Llama 3.1 8B", "Mistral 7B"]


def test_a_paste_notice_in_chinese():
    at = open_page(ROPE, {"view": "config", "lang": "zh"})
    paste(at, '{"head_dim": 127, "max_position_embeddings": 8}')
    [notice] = notices(at)
    assert notice.startswith("粘贴的 config.json 未被使用（仍用预设）：")
    assert "head width is 127" in notice


# RoPE's fields alone, as a note keeps Llama 3's: no context window.
ROPE_ONLY = '{"rope_theta": 500000, "head_dim": 128}'


def test_a_rope_only_paste_draws_plain_rope_to_a_stated_context():
    """No max_position_embeddings: not refused. Plain RoPE is drawn (its frequencies need no
    context); the context is a control, its default 8192 said beside it, and it travels in the
    link apart from the pasted fields."""
    at = paste(open_page(ROPE, {"view": "config"}), ROPE_ONLY)
    assert notices(at) == [] and chart_keys(at) == CONFIG_CHARTS
    assert list(table(at).columns) == ["pasted 1"]
    assert table(at).iloc[:5, 0].tolist()[1:5] == ["128", "500,000", "8,192", "8,192"]
    expected = parse_config(json.dumps({"rope_theta": 500000, "head_dim": 128,
                                        "max_position_embeddings": 8192}))
    assert expected.rope_type == "default"
    inv_freq, _ = expected.scaled_frequencies()
    np.testing.assert_allclose(inv_freq, 500000.0 ** (-np.arange(0, 128, 2) / 128), rtol=1e-12)
    context = control(at, "max_position_embeddings")
    assert context.value == 8192 and "8192" in context.help
    assert any("no context window" in c.value and "8,192" in c.value for c in at.caption)
    assert not [w for w in at.number_input if w.key == "head_dim"]  # it has its own width
    fields = pasted_fields(at.query_params["pasted"])
    assert "max_position_embeddings" not in fields
    context.set_value(32768).run()
    assert not at.exception and notices(at) == []
    link = link_values(at)
    assert link["max_position_embeddings"] == "32768"
    assert table(at).iloc[3, 0] == "32,768"
    again = open_page(ROPE, link)  # the link opened afresh: the same context
    assert not again.exception and notices(again) == []
    assert control(again, "max_position_embeddings").value == 32768
    assert table(again).iloc[3, 0] == "32,768"
    with pytest.raises(NoContextError):  # core itself assumes nothing
        parse_config(ROPE_ONLY)


def test_a_rope_only_paste_on_the_extrapolation_page_says_the_context_it_assumed():
    """A page without the context control draws the paste to 8192 positions and says so."""
    at = paste(open_page(EXTRAPOLATION, {"config": "llama-3.1-8b"}), ROPE_ONLY)
    assert notices(at) == [message("rope-config.paste_context_assumed", "en", context="8,192")]
    assert "Llama 3.1 8B" not in figure(at, "rope_chart")["layout"]["title"]["text"]


def test_a_context_the_config_does_not_need_is_said_and_dropped():
    at = open_page(ROPE, {"view": "config", "max_position_embeddings": "4096"})
    assert not at.exception
    assert notices(at) == [message("rope-config.max_position_embeddings_unused", "en",
                                   value=4096)]
    assert not [w for w in at.number_input if w.key == "max_position_embeddings"]


def test_a_refused_paste_leaves_nothing_to_pin():
    """The preset drawn in a refused paste's place is not pinned silently: the button is off and
    says why (before, it pinned the preset: two identical "Llama 3.1 8B" columns)."""
    at = paste(open_page(ROPE, {"view": "config"}),
               '{"head_dim": 127, "max_position_embeddings": 8}')
    assert list(table(at).columns) == ["Llama 3.1 8B"]
    pin = at.button(key="pin_config")
    assert pin.disabled
    assert message("rope-config.pin_fallback", "en") in [c.value for c in at.caption]
    paste(at, "")  # the box emptied: the preset is the config, and can be pinned
    assert not at.button(key="pin_config").disabled


def test_each_paste_has_a_name_of_its_own_and_it_can_be_changed():
    at = paste(open_page(ROPE, {"view": "config"}), ROPE_ONLY)
    assert list(table(at).columns) == ["pasted 1"]
    at.button(key="pin_config").click().run()
    paste(at, '{"rope_theta": 10000, "head_dim": 64}')
    assert list(table(at).columns) == ["pasted 2", "pasted 1"]  # the edited one, the pin
    named = json.dumps({"_name_or_path": "meta-llama/Llama-3.1-8B", "head_dim": 128,
                        "rope_theta": 500000.0, "max_position_embeddings": 131072})
    paste(at, named)
    assert list(table(at).columns) == ["meta-llama/Llama-3.1-8B", "pasted 1"]
    at.text_input(key="name").input("my Llama").run()
    assert not at.exception
    assert list(table(at).columns) == ["my Llama", "pasted 1"]
    assert link_values(at)["name"] == "my Llama"
    paste(at, named.replace("131072", "65536"))  # the paste edited: the name typed stays
    assert list(table(at).columns) == ["my Llama", "pasted 1"]
    paste(at, "")  # emptied, then a paste of RoPE's fields alone: numbered again
    paste(at, '{"rope_theta": 1000000, "head_dim": 128}')
    assert list(table(at).columns) == ["pasted 2", "pasted 1"]
    paste(at, '{"rope_theta": 2000000, "head_dim": 128}')  # edited: the same number
    assert list(table(at).columns) == ["pasted 2", "pasted 1"]
    zh = paste(open_page(ROPE, {"view": "config", "lang": "zh"}), ROPE_ONLY)
    assert list(table(zh).columns) == ["粘贴 1"]


@pytest.mark.parametrize("arrange, charts", [("overlay", CONFIG_CHARTS), ("side", BOTH_CHARTS)])
def test_the_config_view_at_its_widest_stays_within_the_payload_budget(arrange, charts):
    at = open_page(ROPE, {"view": "config", "compare": "phi-3-mini-128k", "arrange": arrange})
    paste(at, json.dumps({
        "head_dim": 1024, "rope_theta": 1e8, "max_position_embeddings": 10_000_000,
        "rope_scaling": {"rope_type": "llama3", "factor": 64, "low_freq_factor": 1,
                         "high_freq_factor": 4, "original_max_position_embeddings": 8192}}))
    assert notices(at) == [] and chart_keys(at) == charts
    sent = sum(len(chart.proto.spec) for chart in at.get("plotly_chart"))
    assert sent <= 1_500_000  # issue 6: <= 1.5 MB per rerun
    assert sent <= 250_000  # measured: about 120 KB


# --- the extrapolation page ------------------------------------------------------------------
def test_extrapolation_rope_panel_follows_the_config_and_its_factor():
    at = open_page(EXTRAPOLATION, {"config": "llama-3.1-8b", "factor": "8"})
    assert not at.exception and notices(at) == []
    assert control(at, "factor").value == 8
    rope = figure(at, "rope_chart")
    assert rope["layout"]["title"]["text"] == "Largest angle of each pair · Llama 3.1 8B"
    assert any("llama3 ×8" in trace["name"] for trace in rope["data"])
    text = "\n".join(unescape(m.value) for m in at.markdown)  # a config's name is escaped
    # L is Llama 3.1's context before its extension (8192), not what it was trained on last
    assert ("**RoPE of Llama 3.1 8B** (d_head = 128, original context L = 8192 before "
            "extension") in text
    at = open_page(EXTRAPOLATION, {"config": "llama-3.1-8b", "factor": "12"})
    assert control(at, "factor").value == 12
    assert any("llama3 ×12" in trace["name"] for trace in figure(at, "rope_chart")["data"])
    at.radio(key="config").set_value("qwen2.5-7b-yarn").run()
    assert control(at, "factor").value == 4


def test_extrapolation_compare_draws_both_configs_on_one_rope_panel_beside_alibi():
    at = open_page(EXTRAPOLATION, {"config": "llama-3.1-8b", "compare": "deepseek-v2-lite"})
    assert not at.exception
    assert chart_keys(at)[-2:] == ["rope_chart", "alibi_chart"]  # one row: nothing alone
    names = [trace["name"] for trace in figure(at, "rope_chart")["data"]
             if trace.get("showlegend", True)]
    # each config, then its angles within its L: grouped under its name in the legend
    assert names[:4] == ["Llama 3.1 8B", "within L = 8,192: (L − 1)·θᵢ", "DeepSeek-V2-Lite",
                         "within L = 4,096: (L − 1)·θᵢ"]
    said = " ".join(unescape(m.value) for m in at.markdown)
    assert "RoPE of Llama 3.1 8B" in said and "RoPE of DeepSeek-V2-Lite" in said


def test_extrapolation_without_a_config_is_as_before():
    at = open_page(EXTRAPOLATION, {"train_length": "2048", "target_length": "8192"})
    assert not at.exception and notices(at) == []
    assert figure(at, "rope_chart")["layout"]["title"]["text"].startswith("RoPE: slow pairs")
    assert "factor" in _keys_in_hidden_blocks(at)  # no config: no factor to set
    assert len(plotly_figures(at)) >= 3


def test_the_table_says_what_context_each_factor_covers():
    """T / L and the context a factor is meant for (s x L), said apart from T: Llama 3.1's
    factor 8 covers 65,536 while its config asks for 131,072."""
    at = open_page(ROPE, {"view": "config", "compare": "qwen2.5-7b-yarn"})
    row = table(at).loc["T / L, and the context the factor covers"].tolist()
    assert row == ["16× L; factor 8 covers 65,536: T is 2× past it",
                   "4× L; factor 4 covers 131,072"]
    at = open_page(ROPE, {"view": "config", "config": "llama-2-7b"})
    assert table(at).loc["T / L, and the context the factor covers"].tolist() == [
        "1× L (no scaling)"]


# --- every field a control, configs overlaid -------------------------------------------------
LLAMA_VARIANTS = pack_overlay([
    pinned("Llama 3.1 unscaled", PRESETS["llama-3.1-8b"], "default", {}),
    pinned("Llama 3.1 llama3 ×16", PRESETS["llama-3.1-8b"], None, {"factor": 16})])
OVERLAID = {"view": "config", "rope_type": "yarn", "factor": "16", "beta_fast": "24",
            "overlay": LLAMA_VARIANTS}


def legend(at, key: str) -> list[str]:
    return [trace["name"] for trace in figure(at, key)["data"]
            if trace.get("showlegend", True) and trace.get("name")]


def test_three_configs_overlaid_on_one_axis_each_its_colour():
    at = open_page(ROPE, OVERLAID)
    assert not at.exception and notices(at) == []
    live = "Llama 3.1 8B · yarn, factor 16, beta_fast 24"
    assert list(table(at).columns) == [live, "Llama 3.1 unscaled", "Llama 3.1 llama3 ×16"]
    assert table(at).iloc[0].tolist() == ["yarn ×16", "no scaling", "llama3 ×16"]
    assert chart_keys(at) == CONFIG_CHARTS
    # each config, then its L, its T and its band edges, grouped under its name
    assert legend(at, "config_wavelengths_chart") == [
        message("fig.rope_config.plain", "en"),
        live, "original context L = 8,192", "target context T = 131,072",
        "band edge beta_fast = 24: λ = L/24 = 341.3", "band edge beta_slow = 1: λ = L/1 = 8,192",
        "Llama 3.1 unscaled", "original context L = 8,192", "target context T = 131,072",
        "Llama 3.1 llama3 ×16", "original context L = 8,192", "target context T = 131,072",
        "band edge high_freq_factor = 4: λ = L/4 = 2,048",
        "band edge low_freq_factor = 1: λ = L/1 = 8,192"]
    colours = {trace["name"]: trace["line"]["color"]
               for trace in figure(at, "config_angles_chart")["data"] if "line" in trace}
    assert [colours[name] for name in table(at).columns] == [
        readable(c, ("#ffffff", "#171614")) for c in OVERLAY_COLOURS[:3]]
    # The long distance: YaRN's logit at k = 1 is m^2 mean cos(theta'_i), theta' and m from
    # transformers' own YaRN on the same rope_scaling.
    from transformers import LlamaConfig
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    config = LlamaConfig(**{**published_config("llama-3.1-8b"), "rope_scaling": {
        "rope_type": "yarn", "factor": 16, "beta_fast": 24, "beta_slow": 1,
        "original_max_position_embeddings": 8192}})
    inv_freq, m = ROPE_INIT_FUNCTIONS["yarn"](config, device="cpu", seq_len=131072)
    want = float(m) ** 2 * np.cos(inv_freq.double().numpy()).mean()
    [mean] = [trace for trace in figure(at, "config_logits_chart")["data"]
              if trace["name"].startswith(live) and trace.get("showlegend", True)]
    assert mean["name"] == f"{live} (m = {float(m):.3g})"
    assert decode(mean["y"])[0] == pytest.approx(want, rel=1e-6)


def test_pinning_and_unpinning_the_edited_config():
    at = open_page(ROPE, {"view": "config", "factor": "16"})
    at.button(key="pin_config").click().run()
    [pin] = unpack_overlay(at.query_params["overlay"])
    assert (pin.name, pin.config) == ("Llama 3.1 8B · factor 16",
                                      variant(PRESETS["llama-3.1-8b"], "llama3", {"factor": 16}))
    at.radio(key="rope_type").set_value("dynamic").run()
    assert list(table(at).columns) == ["Llama 3.1 8B · dynamic, factor 16",
                                       "Llama 3.1 8B · factor 16"]
    at.button(key="pin_config").click().run()
    at.button(key="pin_config").click().run()  # three pinned: four configs drawn
    assert len(table(at).columns) == 4 and at.button(key="pin_config").disabled
    at.button(key="unpin_0").click().run()
    assert [p.name for p in unpack_overlay(at.query_params["overlay"])] == [
        "Llama 3.1 8B · dynamic, factor 16"] * 2
    at.button(key="unpin_0").click().run()
    at.button(key="unpin_0").click().run()
    assert "overlay" not in at.query_params and len(table(at).columns) == 1


def test_a_field_changed_for_one_config_goes_back_to_the_next_configs_own():
    at = open_page(ROPE, {"view": "config", "config": "deepseek-v2-lite", "beta_fast": "16"})
    assert table(at).iloc[0].tolist() == ["yarn ×40"]
    assert control(at, "beta_fast").value == 16 and control(at, "mscale").value == 0.707
    at.radio(key="config").set_value("qwen2.5-7b-yarn").run()
    assert control(at, "beta_fast").value == 32 and control(at, "mscale").value == 0
    assert control(at, "factor").value == 4
    assert "beta_fast" not in at.query_params and "factor" not in at.query_params


@pytest.mark.parametrize("query, notice", [
    ({"rope_type": "llama3", "beta_fast": "24"},
     "URL parameter beta_fast is not read by llama3: it is left out."),
    ({"overlay": "garbage"},
     "URL parameter overlay is not usable: it is not an overlay's code. It is left out."),
    ({"pasted": pack({"head_dim": 63, "max_position_embeddings": 8})},
     "URL parameter pasted is not usable: the rotated head width is 63"),
    ({"rope_type": "longrope"}, "Not drawn: rope_scaling has no 'short_factor'"),
    ({"beta_slow": "-1", "rope_type": "yarn"}, "URL parameter beta_slow=-1.0 is not allowed"),
    ({"compare": "mistral-7b", "overlay": pack_overlay([
        pinned(f"pin {n}", PRESETS["llama-2-7b"], None, {}) for n in range(3)])},
     "5 configs asked for, at most 4 are drawn together: pin 2 left out."),
])
def test_a_link_the_view_cannot_follow_says_so(query, notice):
    at = open_page(ROPE, {"view": "config", **query})
    assert not at.exception, [e.value for e in at.exception]
    assert any(shown.startswith(notice) for shown in notices(at)), notices(at)
    assert chart_keys(at) == CONFIG_CHARTS


def test_on_a_slide_the_tables_colours_are_the_charts():
    at = open_page(ROPE, {**OVERLAID, "present": "1"})
    colours = {trace["name"]: trace["line"]["color"]
               for trace in figure(at, "config_angles_chart")["data"] if "line" in trace}
    shown = [colours[name] for name in table(at).columns]
    assert shown == [readable(presentation_colour(c), ("#ffffff", "#171614"))
                     for c in OVERLAY_COLOURS[:3]]
    assert shown[0] == "#0072B2"  # Okabe and Ito's blue
    styles = at.table[0].proto.arrow_data.styler.styles
    assert all(f"color: {colour}" in styles for colour in shown)


def test_the_per_pair_table_is_built_only_while_open():
    """Folded, the per-pair table is not sent (a change of the view re-sends nothing of it);
    opened, it holds every pair of the config: θ_i = base^(-2i/d) (Llama 3.1 8B: base 500000,
    d = 128), and it stays open across a change of the factor."""
    at = open_page(ROPE, {"view": "config"})
    assert len(at.dataframe) == 0
    at.session_state["config_pairs"] = True
    at.run()
    assert not at.exception
    [pairs] = at.dataframe
    theta = pairs.value["Llama 3.1 8B · θᵢ"].to_numpy()
    assert theta.shape == (64,)
    np.testing.assert_allclose(theta, 500000.0 ** (-2 * np.arange(64) / 128), rtol=1e-6)
    control(at, "factor").set_value(4).run()
    assert not at.exception and len(at.dataframe) == 1
