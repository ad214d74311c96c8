"""The RoPE page through Streamlit's AppTest: it renders, its controls drive it, bad URL values are
explained, and the numbers shown are the right ones."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.apptest import (
    control,
    decode,
    figure_titled,
    notices,
    open_at_defaults,
    open_page,
    open_with_one_bad_value,
    plotly_figures,
    set_control,
)
from tests.test_rope import hf_apply_rotary, loop_interleaved_rotate

ROPE = "app_pages/rope.py"


def test_default_render():
    open_at_defaults(ROPE, charts=1)


def seeded_q_k(d_head: int) -> tuple[np.ndarray, np.ndarray]:
    q, k = np.random.default_rng(0).standard_normal((2, d_head))  # the page's seed 0
    return q, k


def test_rope_logit_curve_equals_hugging_face_formula_and_both_anchors_agree():
    at = open_page(ROPE, {"d_head": "16", "positions": "30", "layout": "half_split",
                          "view": "relative"})
    assert control(at, "d_head").value == 16
    figure = figure_titled(at, "Attention score against")
    first, second = (decode(trace["y"]) for trace in figure["data"])
    q, k = seeded_q_k(16)
    m = 29
    for offset in (0, 1, 5, 29):
        expected = hf_apply_rotary(q[None], [m], 1e4)[0] @ hf_apply_rotary(k[None], [m - offset],
                                                                             1e4)[0]
        assert first[offset] == pytest.approx(expected, abs=1e-9)
    np.testing.assert_allclose(first, second, atol=1e-9)
    assert "largest difference" in at.caption[0].value


def test_rope_changing_layout_changes_the_curve_to_the_per_pair_loop():
    at = open_page(ROPE, {"d_head": "8", "positions": "12", "view": "relative"})
    before = decode(figure_titled(at, "Attention score against")["data"][0]["y"])
    at.radio(key="layout").set_value("half_split").run()
    after = decode(figure_titled(at, "Attention score against")["data"][0]["y"])
    assert not np.allclose(before, after)
    q, k = seeded_q_k(8)
    expected = [
        loop_interleaved_rotate(q[None], [11], 1e4)[0]
        @ loop_interleaved_rotate(k[None], [11 - r], 1e4)[0]
        for r in range(12)
    ]
    np.testing.assert_allclose(before, expected, atol=1e-9)


def test_rope_rotation_points_are_the_sinusoid_pairs():
    at = open_page(ROPE, {"d_head": "8", "positions": "20", "base": "100"})
    figure = figure_titled(at, "One pair")
    points = [t for t in figure["data"] if t.get("mode") == "markers"]
    assert len(points) == 3  # pairs 0, 2 and 3 of d_head = 8
    for trace, pair in zip(points, (0, 2, 3), strict=True):
        x, y = decode(trace["x"]), decode(trace["y"])
        angles = np.arange(20) * 100.0 ** (-2 * pair / 8)
        np.testing.assert_allclose(x, np.cos(angles), atol=1e-12)
        np.testing.assert_allclose(y, np.sin(angles), atol=1e-12)


def test_rope_rotation_caption_counts_the_points_drawn():
    """Long sequences draw a sample of positions: the caption says how many, and that many are
    drawn on each circle, each at its exact rotation (first and last position included)."""
    at = open_page(ROPE, {"d_head": "8", "positions": "8192", "base": "100"})
    figure = figure_titled(at, "One pair")
    points = [t for t in figure["data"] if t.get("mode") == "markers"]
    drawn = {len(decode(trace["x"])) for trace in points}
    assert drawn == {128}
    caption = " ".join(c.value for c in at.caption)
    assert "128 of 8192 positions drawn" in caption
    positions = decode(points[0]["customdata"])
    assert positions[0] == 0 and positions[-1] == 8191
    np.testing.assert_allclose(decode(points[0]["x"]), np.cos(positions * 1.0), atol=1e-9)


def test_rope_base_preset_button_sets_llama3_base():
    at = open_page(ROPE, {"view": "decay"})
    at.button(key="base_preset_500000").click().run()
    assert control(at, "base").value == 500000.0
    decay = figure_titled(at, "Long-term decay")
    assert {t["name"] for t in decay["data"]} == {"base 500000", "base 10000"}


def test_rope_context_extension_counts_follow_the_factor():
    at = open_page(ROPE, {"d_head": "128", "factor": "4", "view": "extension"})
    titles = [a["text"] for a in figure_titled(at, "Context extension")["layout"]["annotations"]]
    assert "<b>no scaling</b><br>23 of 64 pairs beyond" in titles
    assert "<b>position interpolation</b><br>0 of 64 pairs beyond" in titles
    set_control(at, "factor", 1)
    titles = [a["text"] for a in figure_titled(at, "Context extension")["layout"]["annotations"]]
    assert "<b>no scaling</b><br>0 of 64 pairs beyond" in titles


def test_rope_scaling_keeps_the_relative_property():
    at = open_page(ROPE, {"scaling": "ntk_aware", "factor": "8", "positions": "64",
                          "view": "relative"})
    assert not at.exception
    assert at.radio(key="scaling").value == "ntk_aware"
    first, second = (decode(t["y"]) for t in figure_titled(at, "Attention score against")["data"])
    np.testing.assert_allclose(first, second, atol=1e-9)


# --- bad URL values -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "page, name, value",
    [
        (ROPE, "d_head", "7"),
        (ROPE, "d_head", "4096"),
        (ROPE, "base", "1"),
        (ROPE, "base", "nan"),
        (ROPE, "layout", "concatenated"),
        (ROPE, "positions", "0"),
        (ROPE, "scaling", "yarn"),
        (ROPE, "factor", "0"),
        (ROPE, "factor", "1e9"),
        (ROPE, "view", "all"),
    ],
)
def test_bad_url_value_gives_a_notice_naming_the_parameter(page, name, value):
    at = open_with_one_bad_value(page, name, value)
    assert len(plotly_figures(at)) >= 1  # the default section's chart


def test_notice_for_base_mentions_value_and_rule():
    at = open_page(ROPE, {"base": "0.5"})
    assert "base=0.5 is not allowed" in notices(at)[0]
    assert math.isclose(control(at, "base").value, 10000.0)


def test_context_extension_at_any_trained_length_draws_six_methods():
    """train_length is the extension view's own control (above its chart); the chart has a
    panel for each method, YaRN, dynamic NTK and Llama 3 included, with the counts core gives
    (pinned to transformers in tests/test_rope_scaling.py)."""
    from core import rope

    at = open_page(ROPE, {"view": "extension", "train_length": "8192", "factor": "16",
                          "base": "500000"})
    assert not at.exception and notices(at) == []
    assert "train_length" in {w.key for w in at.main.select_slider}
    assert "train_length" not in {w.key for w in at.sidebar.select_slider}
    figure = figure_titled(at, "Context extension ×16: 8192 → 131072")
    expected = rope.rope_context_extension(128, 8192, 131072, base=500000.0, factor=16,
                                           methods=rope.EXTENSION_METHODS)
    titles = [a["text"] for a in figure["layout"]["annotations"]]
    for name, method in (("no scaling", "none"), ("YaRN", "yarn"), ("dynamic NTK", "dynamic"),
                         ("Llama 3", "llama3")):
        count = int(expected.beyond[method].sum())
        assert f"<b>{name}</b><br>{count} of 64 pairs beyond" in titles, (name, titles)
    targets = [decode(t["y"]) for t in figure["data"] if t.get("legendgroup") == "target"]
    assert len(targets) == 6
    np.testing.assert_allclose(targets[3], expected.target["yarn"], rtol=1e-6)


@pytest.mark.parametrize("value", ["0", "131073", "2k"])
def test_a_bad_trained_length_is_said_in_the_extension_view(value):
    at = open_page(ROPE, {"view": "extension", "train_length": value})
    assert not at.exception
    [notice] = notices(at)
    assert notice.startswith(f"URL parameter train_length={value} is not allowed")
    assert figure_titled(at, "Context extension ×4: 2048 → 8192")
