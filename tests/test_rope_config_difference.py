"""Each config minus a baseline, on the RoPE page's config view (`arrange=difference`, the
baseline in `baseline`): `core.rope_config.config_difference` against transformers' own YaRN and
slow loops, the difference figures (a small change such as YaRN's beta_fast 32 -> 64 visible,
the baseline minus itself zero, every line a legend entry), the view through AppTest, and the
export file names of every arrangement."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from core.rope_config import (
    LOGIT_BINS,
    PRESETS,
    config_contexts,
    config_difference,
    parse_config,
    rope_config_curves,
    variant,
)
from figures.rope_config import (
    make_difference_logit_figure,
    make_difference_wavelength_figure,
    make_overlay_wavelength_figure,
)
from locales import message
from tests.apptest import decode, notices, open_page
from tests.reference import published_config, rope_self_logit_loop
from tests.test_rope_config_pages import CONFIG_CHARTS, OVERLAID, chart_keys, figure
from ui.rope_codes import pack_overlay, pinned
from ui.rope_workbench import Drawn, file_parts

ROPE = "app_pages/rope.py"
QWEN = PRESETS["qwen2.5-7b-yarn"]
FAST_64 = variant(QWEN, "yarn", {"beta_fast": 64})  # the published Qwen2.5 YaRN, beta_fast 64
COLOURS = ["#1f77b4", "#ff7f0e"]
DIFFERENCE_CHARTS = ["difference_wavelengths_chart", "difference_logits_chart"]
# Qwen2.5 with beta_fast 64 on the controls, the published Qwen2.5 pinned beside it, drawn as
# their difference from the pinned one.
QWEN_DIFFERENCE = {
    "view": "config", "config": "qwen2.5-7b-yarn", "beta_fast": "64", "arrange": "difference",
    "baseline": "pin1",
    "overlay": pack_overlay([pinned("Qwen2.5 published", QWEN, None, {})]),
}


def transformers_qwen_yarn(beta_fast: float) -> np.ndarray:
    """transformers' YaRN inverse frequencies of Qwen2.5's config.json with this beta_fast."""
    from transformers import LlamaConfig
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    fields = published_config("qwen2.5-7b-yarn")
    fields["rope_scaling"] = {**fields["rope_scaling"], "beta_fast": beta_fast}
    inv_freq, _ = ROPE_INIT_FUNCTIONS["yarn"](LlamaConfig(**fields), device="cpu")
    return inv_freq.double().numpy()


# --- the numbers -------------------------------------------------------------------------------
def test_beta_fast_64_against_32_is_log2_of_transformers_frequencies_ratio():
    """Qwen2.5 (d 128, base 1e6, L 32768): YaRN's ramp starts at pair floor(i(beta_fast)),
    i(b) = 64 ln(32768 / (2 pi b)) / ln(1e6): 23 for 32, 20 for 64, and ends at
    ceil(i(1)) = 40 for both. So pairs 21 to 39 turn faster with 64 (their wavelength ratio
    below 1), every other pair as before, and the attention factor is the same."""
    difference = config_difference(FAST_64, QWEN)
    want = np.log2(transformers_qwen_yarn(32) / transformers_qwen_yarn(64))  # (64,)
    np.testing.assert_allclose(difference.log2_wavelength_ratio, want, atol=1e-6)
    changed = np.flatnonzero(np.abs(difference.log2_wavelength_ratio) > 1e-9)
    assert changed.tolist() == list(range(21, 40))
    assert (difference.log2_wavelength_ratio[changed] > 0).all()  # the ramp starts earlier
    assert difference.attention_ratio == 1.0


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_baseline_minus_itself_is_zero(name):
    difference = config_difference(PRESETS[name], PRESETS[name])
    assert not difference.log2_wavelength_ratio.any()
    for values in (difference.logit.mean, difference.logit.low, difference.logit.high):
        assert not values.any()
    assert difference.attention_ratio == 1.0


def test_the_logit_difference_is_the_loops_difference_bin_by_bin():
    """Short contexts: every bin holds each of its distances, so its mean, lowest and highest
    are the loops' (each config's logit with its attention factor squared, minus the
    baseline's) over exactly those distances, up to the longer of the two targets."""
    def small(scaling, max_pos):
        return parse_config(json.dumps({"head_dim": 8, "rope_theta": 100.0,
                                        "max_position_embeddings": max_pos,
                                        "rope_scaling": scaling}))

    config = small({"type": "yarn", "factor": 2.0, "original_max_position_embeddings": 150}, 300)
    baseline = small({"type": "linear", "factor": 1.25}, 200)  # T = 250
    difference = config_difference(config, baseline)
    theta, m = config.scaled_frequencies(seq_len=config_contexts(config)[1])
    base_theta, base_m = baseline.scaled_frequencies(seq_len=config_contexts(baseline)[1])
    # distances 1 .. max(T, T_baseline) - 1 = 299, in log-spaced bins of whole distances
    edges = np.unique(np.round(np.geomspace(1, 300, LOGIT_BINS + 1)).astype(int))
    assert edges.size - 1 == difference.logit.distances.size
    for index, (start, stop) in enumerate(itertools.pairwise(edges)):
        values = [rope_self_logit_loop(theta, m**2, k) - rope_self_logit_loop(base_theta,
                                                                               base_m**2, k)
                  for k in range(start, stop)]
        assert difference.logit.mean[index] == pytest.approx(np.mean(values), abs=1e-12)
        assert difference.logit.low[index] == pytest.approx(min(values), abs=1e-12)
        assert difference.logit.high[index] == pytest.approx(max(values), abs=1e-12)
    assert difference.attention_ratio == pytest.approx(m / base_m)


def test_configs_of_other_head_widths_have_no_per_pair_difference():
    difference = config_difference(PRESETS["deepseek-v2-lite"], PRESETS["llama-3.1-8b"])
    assert difference.log2_wavelength_ratio is None  # 32 pairs against 64: not the same pairs
    assert difference.logit.mean.size > 0 and difference.logit.mean.any()


# --- the figures -------------------------------------------------------------------------------
def difference_figures():
    curves = [rope_config_curves(FAST_64, label="beta_fast 64"),
              rope_config_curves(QWEN, label="published")]
    differences = [config_difference(FAST_64, QWEN), config_difference(QWEN, QWEN)]
    return curves, differences


def test_beta_fast_32_and_64_are_visibly_different_only_in_the_difference_view():
    curves, differences = difference_figures()
    fig = make_difference_wavelength_figure(curves, differences, COLOURS, 1)
    [line] = [trace for trace in fig.data if trace.name == "beta_fast 64"]
    [zero] = [trace for trace in fig.data if trace.name == "published (baseline: 0)"]
    low, high = fig.layout.yaxis.range
    assert low < 0 < high
    largest = float(np.abs(np.asarray(line.y)).max())
    assert largest > 0.15  # pair 23: 3/20 up the ramp, log2(1 / (1 - 3/4 x 3/20)) = 0.172
    assert largest >= 0.5 * (high - low)  # over half the axis: plainly seen
    assert list(zero.y) == [0.0, 0.0] and list(zero.x) == [-0.5, 63.5]
    assert fig.layout.yaxis.title.text == message("fig.rope_config.difference_wavelength_y",
                                                  "en")
    assert "log₂" in fig.layout.yaxis.title.text and "baseline" in fig.layout.yaxis.title.text
    # The overlay draws the same two on one log axis of wavelengths: under 1% of its height.
    overlay = make_overlay_wavelength_figure(curves, COLOURS)
    span = overlay.layout.yaxis.range[1] - overlay.layout.yaxis.range[0]  # in decades
    assert np.log10(2**largest) < 0.01 * span


def test_the_difference_figures_name_every_line_they_draw():
    curves, differences = difference_figures()
    wavelengths = make_difference_wavelength_figure(curves, differences, COLOURS, 1)
    named = {(trace.legendgroup, trace.name): trace for trace in wavelengths.data
             if trace.showlegend is not False}
    for group, beta, edge in (("beta_fast 64", 64, "512"), ("published", 32, "1,024")):
        first = named[(group, f"band edge beta_fast = {beta}: λ = L/{beta} = {edge}")]
        assert first.line.dash == "dot" and first.line.color == COLOURS[group == "published"]
        assert (group, "band edge beta_slow = 1: λ = L/1 = 32,768") in named
    logits = make_difference_logit_figure(curves, differences, COLOURS, 1)
    names = [(trace.legendgroup, trace.name) for trace in logits.data
             if trace.showlegend is not False]
    for group in ("beta_fast 64", "published"):
        assert (group, "original context L = 32,768") in names
        assert (group, "target context T = 131,072") in names
    assert ("published", "published (baseline: 0)") in names
    assert logits.layout.xaxis.type == "log"
    assert logits.layout.yaxis.title.text == "logit q · R<sub>k</sub> q minus the baseline's"


# --- the view ----------------------------------------------------------------------------------
def export_name(at, key: str) -> str:
    """The file name a chart's downloads and camera button use (ui.charts.show_chart)."""
    for chart in at.get("plotly_chart"):
        if chart.key == key:
            return json.loads(chart.proto.config)["toImageButtonOptions"]["filename"]
    raise AssertionError(key)


def test_the_difference_view_subtracts_the_chosen_baseline():
    at = open_page(ROPE, QWEN_DIFFERENCE)
    assert not at.exception, [e.value for e in at.exception]
    assert notices(at) == [] and chart_keys(at) == DIFFERENCE_CHARTS
    baseline = at.radio(key="baseline")
    assert baseline.value == "pin1" and len(baseline.options) == 2
    wavelengths = figure(at, "difference_wavelengths_chart")
    assert wavelengths["layout"]["title"]["text"] == (
        "Wavelength per pair, each config against Qwen2.5 published")
    [edited] = [t for t in wavelengths["data"] if t["name"] == "Qwen2.5 7B + YaRN · beta_fast 64"]
    np.testing.assert_allclose(decode(edited["y"]), np.log2(
        transformers_qwen_yarn(32) / transformers_qwen_yarn(64)), atol=1e-6)
    assert export_name(at, "difference_wavelengths_chart") == (
        "pe-rope-config-difference-wavelengths_qwen2.5-7b-yarn_beta-fast64_minus_published")
    # The other baseline: the edited config is 0, the published one the mirror image.
    baseline.set_value("edited").run()
    assert not at.exception and chart_keys(at) == DIFFERENCE_CHARTS
    [pinned_line] = [t for t in figure(at, "difference_wavelengths_chart")["data"]
                     if t["name"] == "Qwen2.5 published"]
    np.testing.assert_allclose(decode(pinned_line["y"]), -decode(edited["y"]), atol=1e-12)


def test_a_baseline_that_is_not_drawn_is_said():
    at = open_page(ROPE, {**QWEN_DIFFERENCE, "baseline": "pin3"})
    assert not at.exception
    assert notices(at) == [message("rope-config.baseline_missing", "en", value="pin3",
                                   choices="edited, pin1")]
    assert at.radio(key="baseline").value == "edited"
    assert chart_keys(at) == DIFFERENCE_CHARTS
    at = open_page(ROPE, {**QWEN_DIFFERENCE, "baseline": "somewhere"})
    [notice] = notices(at)
    assert notice.startswith("URL parameter baseline=somewhere is not allowed")


def test_a_difference_of_one_config_says_it_needs_two():
    at = open_page(ROPE, {"view": "config", "arrange": "difference"})
    assert not at.exception
    assert [i.value for i in at.info] == [message("rope-config.difference_needs_two", "en")]
    assert chart_keys(at) == CONFIG_CHARTS


# --- export file names: what is drawn, each config once --------------------------------------
def test_export_names_say_each_config_once_in_every_arrangement():
    at = open_page(ROPE, OVERLAID)
    name = export_name(at, "config_wavelengths_chart")
    assert name == "pe-rope-config-wavelengths_llama-3.1-8b_yarn-x16-beta-fast24_unscaled_x16"
    parts = name.split("_")
    assert len(parts) == len(set(parts))
    at = open_page(ROPE, {**OVERLAID, "arrange": "side"})
    names = [export_name(at, f"{panel}_angles_chart")
             for panel in ("config", "compare", "overlay2")]
    assert names == ["pe-rope-config-angles_llama-3.1-8b_yarn-x16-beta-fast24",
                     "pe-rope-config-angles_llama-3.1-8b_unscaled",
                     "pe-rope-config-angles_llama-3.1-8b_x16"]
    at = open_page(ROPE, {"view": "config", "compare": "mistral-7b"})
    assert export_name(at, "config_logits_chart") == (
        "pe-rope-config-logits_llama-3.1-8b_mistral-7b")


def drawn(source: str, changes: str = "", role: str = "edited") -> Drawn:
    return Drawn(PRESETS["llama-2-7b"], source, "#000000", role, source, changes)


@pytest.mark.parametrize("configs, minus, parts", [
    ([drawn("llama-3.1-8b")], None, ["llama-3.1-8b"]),
    ([drawn("llama-3.1-8b", "x32"), drawn("llama-3.1-8b")], None,
     ["llama-3.1-8b", "x32", "published"]),
    ([drawn("llama-3.1-8b"), drawn("llama-3.1-8b")], None,
     ["llama-3.1-8b", "published", "published-2"]),
    ([drawn("pasted"), drawn("mistral-7b")], None, ["pasted", "mistral-7b"]),
    ([drawn("qwen2.5-7b-yarn", "beta_fast64")], drawn("qwen2.5-7b-yarn"),
     ["qwen2.5-7b-yarn", "beta_fast64", "minus", "published"]),
    ([drawn("llama-3.1-8b", "yarn")], drawn("mistral-7b"),
     ["llama-3.1-8b", "yarn", "minus", "mistral-7b"]),
])
def test_file_parts(configs, minus, parts):
    assert file_parts(configs, minus=minus) == parts
