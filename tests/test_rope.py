"""`core.rope` (and the RoPE / sinusoid panels of `core.extrapolation`) against independent code.

References written here, as their sources write them: Hugging Face's ``rotate_half`` /
``apply_rotary_pos_emb`` (transformers' LLaMA: ``emb = cat(freqs, freqs)``,
``q * cos + rotate_half(q) * sin``), RoFormer's per-pair rotation as a loop, and the decay bound
with Python complex numbers.
"""

from __future__ import annotations

import cmath
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import core
from core import extrapolation, limits, rope
from core.rope import RotationSettings
from figures.extrapolation import (
    make_learned_reach_figure,
    make_rope_reach_figure,
    make_sinusoid_novelty_figure,
)
from figures.rope import (
    make_context_extension_figure,
    make_rope_decay_figure,
    make_rope_logits_figure,
    make_rope_rotation_figure,
)
from tests import reference
from ui.pages import params_of

LAYOUTS = ["interleaved", "half_split"]
SCALINGS = [(None, 1.0), ("position_interpolation", 4.0), ("ntk_aware", 8.0)]


# --- independent references ----------------------------------------------------------------------
def hf_rotate_half(x: np.ndarray) -> np.ndarray:
    """transformers' rotate_half, in numpy: (x1, x2) -> (-x2, x1) on the two halves."""
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return np.concatenate((-x2, x1), axis=-1)


def hf_apply_rotary(q: np.ndarray, positions: np.ndarray, base: float) -> np.ndarray:
    """LlamaRotaryEmbedding + apply_rotary_pos_emb, in numpy float64."""
    dim = q.shape[-1]
    inv_freq = 1.0 / (base ** (np.arange(0, dim, 2, dtype=np.float64) / dim))
    freqs = np.outer(np.asarray(positions, dtype=np.float64), inv_freq)  # (seq, dim/2)
    emb = np.concatenate((freqs, freqs), axis=-1)  # (seq, dim)
    return q * np.cos(emb) + hf_rotate_half(q) * np.sin(emb)


def loop_interleaved_rotate(x: np.ndarray, positions, base: float) -> np.ndarray:
    """RoFormer eq. (34), one pair at a time: pairs (2i, 2i+1), math.cos / math.sin."""
    out = np.zeros_like(x, dtype=np.float64)
    seq, d = x.shape[-2], x.shape[-1]
    for lead in np.ndindex(x.shape[:-2]):
        for s in range(seq):
            for i in range(d // 2):
                angle = float(positions[s]) * base ** (-2 * i / d)
                a, b = x[(*lead, s, 2 * i)], x[(*lead, s, 2 * i + 1)]
                out[(*lead, s, 2 * i)] = a * math.cos(angle) - b * math.sin(angle)
                out[(*lead, s, 2 * i + 1)] = a * math.sin(angle) + b * math.cos(angle)
    return out


def loop_decay_bound(r: float, d: int, base: float) -> float:
    thetas = [base ** (-2 * k / d) for k in range(d // 2)]
    total, partial = 0.0, 0j
    for theta in thetas:
        partial += cmath.exp(1j * r * theta)  # S_j, j = 1 .. d/2
        total += abs(partial)
    return total / (d // 2)


# --- frequencies ---------------------------------------------------------------------------------
@pytest.mark.parametrize("d_head", [2, 8, 64, 128])
@pytest.mark.parametrize("base", [10000.0, 500000.0])
def test_frequencies_are_the_sinusoids(d_head, base):
    expected = [base ** (-2 * i / d_head) for i in range(d_head // 2)]
    theta = rope.rope_frequencies(d_head, settings=RotationSettings(base=base))
    np.testing.assert_allclose(theta, expected, rtol=1e-14)
    np.testing.assert_array_equal(theta, core.frequencies(d_head, base=base))
    assert core.rope_frequencies is rope.rope_frequencies  # the lazy export of core


# --- the two layouts against independent code ----------------------------------------------------
@pytest.mark.parametrize("shape", [(5, 8), (2, 3, 7, 16), (1, 2)])
@pytest.mark.parametrize("base", [10000.0, 500000.0])
def test_half_split_equals_hugging_face_rotate_half(shape, base):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape)
    positions = rng.integers(0, 5000, shape[-2])
    ours = rope.rope_rotate(x, positions, settings=RotationSettings(base=base, layout="half_split"))
    np.testing.assert_allclose(ours, hf_apply_rotary(x, positions, base), atol=1e-12)


@pytest.mark.parametrize("shape", [(5, 8), (2, 3, 7, 16), (1, 2)])
def test_interleaved_equals_per_pair_loop(shape):
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape)
    positions = rng.uniform(-100, 3000, shape[-2])  # floats and negatives are allowed
    ours = rope.rope_rotate(x, positions, settings=RotationSettings(layout="interleaved"))
    np.testing.assert_allclose(ours, loop_interleaved_rotate(x, positions, 10000.0), atol=1e-12)


def test_layouts_are_a_column_permutation_of_each_other():
    # half_split on columns [a0, a1, ..., b0, b1, ...] equals interleaved on [a0, b0, a1, b1, ...]
    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, 10))
    positions = np.arange(6) * 37
    perm = np.stack([np.arange(5), np.arange(5) + 5], axis=1).reshape(-1)  # (0, 5, 1, 6, ...)
    half = rope.rope_rotate(x, positions, settings=RotationSettings(layout="half_split"))
    inter = rope.rope_rotate(x[:, perm], positions, settings=RotationSettings(layout="interleaved"))
    np.testing.assert_allclose(inter, half[:, perm], atol=1e-12)


def test_float32_stays_float32_and_position_zero_is_identity():
    x = np.random.default_rng(4).standard_normal((3, 8)).astype(np.float32)
    out = rope.rope_rotate(x, [0, 0, 0])
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, x)


# --- properties: norms, relative positions -------------------------------------------------------


@given(
    positions=st.lists(st.integers(0, 100_000), min_size=1, max_size=6),
    layout=st.sampled_from(LAYOUTS),
    scaling=st.sampled_from(SCALINGS),
    seed=st.integers(0, 2**32 - 1),
)
def test_rotation_preserves_norms(positions, layout, scaling, seed):
    x = np.random.default_rng(seed).standard_normal((len(positions), 12))
    method, factor = scaling
    settings = RotationSettings(layout=layout, scaling=method, factor=factor)
    out = rope.rope_rotate(x, positions, settings=settings)
    np.testing.assert_allclose(np.linalg.norm(out, axis=-1), np.linalg.norm(x, axis=-1),
                               rtol=1e-12)


@given(
    m=st.integers(0, 20_000),
    n=st.integers(0, 20_000),
    shift=st.integers(-5_000, 50_000),
    layout=st.sampled_from(LAYOUTS),
    scaling=st.sampled_from(SCALINGS),
    seed=st.integers(0, 2**32 - 1),
)
def test_logits_depend_only_on_m_minus_n(m, n, shift, layout, scaling, seed):
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((2, 1, 16))
    method, factor = scaling
    settings = RotationSettings(layout=layout, scaling=method, factor=factor)
    here = rope.rope_scores(q, k, [m], [n], settings=settings)[0, 0]
    there = rope.rope_scores(q, k, [m + shift], [n + shift], settings=settings)[0, 0]
    # float64 angles of ~1e5 radians carry ~1e-11 absolute error; |q||k| ~ 16.
    assert here == pytest.approx(there, abs=1e-8)


def test_scores_are_dot_products_of_rotated_vectors():
    rng = np.random.default_rng(5)
    q, k = rng.standard_normal((2, 2, 4, 8))  # (batch, seq, d)
    pq, pk = [0, 3, 9, 20], [1, 2, 3, 50]
    scores = rope.rope_scores(q, k, pq, pk, settings=RotationSettings(layout="half_split"))
    expected = np.einsum("bqd,bkd->bqk", hf_apply_rotary(q, pq, 1e4), hf_apply_rotary(k, pk, 1e4))
    np.testing.assert_allclose(scores, expected, atol=1e-12)


def test_offset_logits_same_curve_from_both_anchors_and_equal_a_loop():
    result = rope.rope_offset_logits(16, 40, (39.0, 1039.0), seed=0)
    assert result.logits.shape == (2, 40)
    assert result.spread < 1e-10
    q, k = np.random.default_rng(0).standard_normal((2, 16))
    for offset in (0, 1, 7, 39):
        rq = loop_interleaved_rotate(q[None], [39], 1e4)[0]
        rk = loop_interleaved_rotate(k[None], [39 - offset], 1e4)[0]
        assert result.logits[0, offset] == pytest.approx(float(rq @ rk), abs=1e-12)
    # offset 0: the rotation cancels, the logit is the plain q . k
    assert result.logits[1, 0] == pytest.approx(float(q @ k), abs=1e-12)


# --- context extension ---------------------------------------------------------------------------
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("s", [2.0, 4.0, 2.5, 16.0])
def test_position_interpolation_at_s_p_equals_no_scaling_at_p(layout, s):
    x = np.random.default_rng(6).standard_normal((2, 7, 32))
    p = np.array([0, 1, 5, 100, 2047, 3000, 9999])
    interpolated = RotationSettings(layout=layout, scaling="position_interpolation", factor=s)
    scaled = rope.rope_rotate(x, s * p, settings=interpolated)
    plain = rope.rope_rotate(x, p, settings=RotationSettings(layout=layout))
    np.testing.assert_allclose(scaled, plain, atol=1e-12)


@pytest.mark.parametrize("d_head", [4, 64, 128])
def test_ntk_aware_is_a_larger_base(d_head):
    s = 8.0
    ntk_aware = RotationSettings(scaling="ntk_aware", factor=s)
    ntk = rope.rope_frequencies(d_head, settings=ntk_aware)
    new_base = 10000.0 * s ** (d_head / (d_head - 2))  # bloc97's formula, written out
    np.testing.assert_allclose(ntk, [new_base ** (-2 * i / d_head) for i in range(d_head // 2)],
                               rtol=1e-13)
    plain = rope.rope_frequencies(d_head)
    assert ntk[0] == plain[0] == 1.0  # the fastest pair is untouched
    assert ntk[-1] == pytest.approx(plain[-1] / s, rel=1e-13)  # the slowest is interpolated
    x = np.random.default_rng(7).standard_normal((3, d_head))
    np.testing.assert_allclose(
        rope.rope_rotate(x, [1, 50, 4000], settings=ntk_aware),
        rope.rope_rotate(x, [1, 50, 4000], settings=RotationSettings(base=new_base)),
        atol=1e-12,
    )


def test_ntk_aware_with_one_pair_changes_nothing():
    ntk_aware = RotationSettings(scaling="ntk_aware", factor=4)
    assert rope.rope_frequencies(2, settings=ntk_aware)[0] == 1.0


def test_context_extension_counts_pairs_like_a_loop():
    d, L, T = 128, 2048, 8192
    ext = rope.rope_context_extension(d, L, T)
    assert ext.factor == 4.0
    for method, s in [("none", 1.0), ("position_interpolation", 4.0), ("ntk_aware", 4.0)]:
        expected = []
        for i in range(d // 2):
            theta = 10000.0 ** (-2 * i / d)
            if method == "ntk_aware":
                theta = (10000.0 * s ** (d / (d - 2))) ** (-2 * i / d)
            last = (T - 1) / s if method == "position_interpolation" else T - 1
            trained = (L - 1) * 10000.0 ** (-2 * i / d)
            step = 10000.0 ** (-2 * i / d)
            expected.append(trained < 2 * math.pi and last * theta > trained + step)
            assert ext.target[method][i] == pytest.approx(last * theta, rel=1e-12)
        np.testing.assert_array_equal(ext.beyond[method], expected)
    # pairs 41 .. 63 have (L - 1) theta_i < 2 pi: 23 pairs never turned fully in training
    assert int(ext.beyond["none"].sum()) == 23
    assert int(ext.beyond["position_interpolation"].sum()) == 0
    assert int(ext.beyond["ntk_aware"].sum()) == 22


def test_trajectory_is_the_sinusoids_pair():
    d, positions = 16, np.arange(40)
    table = reference.loop_interleaved(40, d)  # sin at column 2i, cos at 2i + 1
    for layout in LAYOUTS:
        for pair in (0, 4, 7):
            points = rope.rope_pair_trajectory(pair, positions, d,
                                               settings=RotationSettings(layout=layout))
            np.testing.assert_allclose(points[:, 0], table[:, 2 * pair + 1], atol=1e-12)  # cos
            np.testing.assert_allclose(points[:, 1], table[:, 2 * pair], atol=1e-12)  # sin


def test_sample_positions():
    np.testing.assert_array_equal(rope.sample_positions(5), np.arange(5))
    sampled = rope.sample_positions(8192, 1024)
    assert sampled.size == 1024 and sampled[0] == 0 and sampled[-1] == 8191
    assert np.all(np.diff(sampled) > 0)


# --- the long-term decay -------------------------------------------------------------------------
@pytest.mark.parametrize("base", [10000.0, 500000.0])
def test_decay_bound_equals_a_loop(base):
    distances = [0, 1, 2, 10, 50, 250, 1000, 5000]
    ours = rope.rope_decay_bound(distances, 32, base=base)
    np.testing.assert_allclose(ours, [loop_decay_bound(r, 32, base) for r in distances],
                               rtol=1e-12)
    assert ours[0] == pytest.approx((16 + 1) / 2)  # S_j = j at r = 0


def test_decay_bound_decays_and_in_chunks():
    distances = np.arange(5000)  # more than one chunk of 2048
    bound = rope.rope_decay_bound(distances, 128)
    assert bound[0] > bound[100] > bound[4000]
    np.testing.assert_allclose(bound[[0, 3000, 4999]],
                               rope.rope_decay_bound([0, 3000, 4999], 128), rtol=1e-13)


# --- input checks --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call, names",
    [
        (lambda: rope.rope_frequencies(7), ["d_head=7"]),
        (lambda: rope.rope_frequencies(0), ["d_head=0"]),
        (lambda: rope.rope_frequencies(2048), ["d_head=2048"]),
        (lambda: RotationSettings(base=1.0), ["base=1.0"]),
        (lambda: RotationSettings(scaling="yarn"), ["scaling='yarn'"]),
        (lambda: RotationSettings(factor=0.5), ["factor=0.5"]),
        (lambda: RotationSettings(factor=float("nan")), ["factor=nan"]),
        (lambda: rope.rope_rotate(np.ones((3, 7)), [0, 1, 2]), ["d_head", "7"]),
        (lambda: rope.rope_rotate(np.ones((3, 8)), [0, 1]), ["positions", "2", "3"]),
        (lambda: rope.rope_rotate(np.ones(8), [0]), ["x must have shape"]),
        (lambda: RotationSettings(layout="concatenated"), ["layout"]),
        (lambda: rope.rope_rotate(np.ones((1, 8)), [np.nan]), ["positions", "finite"]),
        (lambda: rope.rope_scores(np.ones((1, 8)), np.ones((1, 4)), [0], [0]), ["d_head"]),
        (lambda: rope.rope_pair_trajectory(4, [0], 8), ["pair=4"]),
        (lambda: rope.rope_rotate(np.ones((1, 8)), [0], settings={"layout": "interleaved"}),
         ["settings", "RotationSettings"]),
        (lambda: rope.rope_decay_bound(np.arange(70_000), 8), ["distances", "65536"]),
        (lambda: rope.rope_context_extension(8, 0, 10), ["train_length=0"]),
    ],
)
def test_bad_inputs_raise_value_errors_naming_the_parameter(call, names):
    with pytest.raises(ValueError) as error:
        call()
    for name in names:
        assert name in str(error.value)


def test_rotation_settings_are_checked_hashable_cache_keys():
    """One frozen value for base, layout, scaling and factor: equal settings are one cache key
    (numbers normalised to float), and the defaults are RoFormer's plain RoPE."""
    settings = RotationSettings(base=10000, layout="half_split", scaling="ntk_aware", factor=4)
    same = RotationSettings(10000.0, "half_split", "ntk_aware", 4.0)
    assert settings == same and hash(settings) == hash(same) and {settings: 1}[same] == 1
    assert isinstance(settings.base, float) and isinstance(settings.factor, float)
    assert RotationSettings() == rope.PLAIN == RotationSettings(10000.0, "interleaved", None, 1.0)
    with pytest.raises(AttributeError):
        settings.base = 2.0  # type: ignore[misc]
    assert core.RotationSettings is RotationSettings


def test_page_limits_agree_with_core():
    spec = params_of("rope")
    assert spec["d_head"].maximum == rope.MAX_D_HEAD
    assert spec["factor"].maximum == rope.MAX_FACTOR
    assert spec["layout"].choices == rope.ROPE_LAYOUTS
    assert spec["scaling"].choices == ("none", *rope.SCALINGS)
    ext = params_of("extrapolation")
    assert ext["d_model"].maximum == limits.MAX_EXTRAPOLATION_D_MODEL
    assert ext["target_length"].maximum == extrapolation.MAX_LENGTH


# --- core.extrapolation: sinusoid, learned table, RoPE -------------------------------------------
@pytest.mark.parametrize("L, T, d", [(5, 12, 4), (10, 40, 16), (30, 31, 8), (8, 8, 6), (3, 2, 4)])
def test_sinusoid_novelty_equals_brute_force(L, T, d):
    table = reference.loop_interleaved(max(T, L), d)
    trained = table[:L]
    expected = [np.linalg.norm(trained - table[p], axis=1).min() for p in range(T)]
    novelty = extrapolation.sinusoid_novelty(L, T, d)
    np.testing.assert_allclose(novelty.nearest_distance, expected, atol=1e-6)
    assert novelty.neighbour_spacing == pytest.approx(np.linalg.norm(table[1] - table[0]))
    assert novelty.largest_novelty == pytest.approx(max(expected) / novelty.neighbour_spacing,
                                                    abs=1e-6)


def test_sinusoid_novelty_grows_past_the_training_length():
    novelty = extrapolation.sinusoid_novelty(2048, 8192, 128)
    assert np.all(novelty.nearest_distance[:2048] == 0)
    assert novelty.nearest_distance[2048] > 0
    assert novelty.nearest_distance[8191] > 3 * novelty.neighbour_spacing


def test_learned_reach_ends_with_the_table():
    table = np.arange(15, dtype=np.float32).reshape(5, 3)
    reach = extrapolation.learned_reach(table, 8)
    np.testing.assert_allclose(reach.norms[:5], [math.sqrt(sum(v * v for v in row))
                                                 for row in table.tolist()])
    assert np.isnan(reach.norms[5:]).all() and reach.rows == 5
    assert extrapolation.learned_reach(table, 3).norms.shape == (3,)


def test_rope_reach_is_the_context_extension_at_t_over_l():
    reach = extrapolation.rope_reach(1000, 3000, 64)
    direct = rope.rope_context_extension(64, 1000, 3000, factor=3.0)
    assert reach.factor == 3.0
    for method in direct.target:
        np.testing.assert_array_equal(reach.target[method], direct.target[method])
        np.testing.assert_array_equal(reach.beyond[method], direct.beyond[method])


# --- figures -------------------------------------------------------------------------------------
def test_figures_have_their_traces_and_axes():
    positions = np.arange(10)
    trajectories = [rope.rope_pair_trajectory(i, positions, 8) for i in (0, 3)]
    fig = make_rope_rotation_figure(positions, trajectories, ["fast", "slow"])
    assert len(fig.data) == 8  # per pair: a circle, the points, arrows to the first and last
    np.testing.assert_allclose(fig.data[1].x, trajectories[0][:, 0])
    first, last = fig.data[2], fig.data[3]  # origin -> the pair at p = 0 and at p = 9
    assert list(first.x[:2]) == [0.0, trajectories[0][0, 0]]
    assert list(last.y[:2]) == [0.0, trajectories[0][9, 1]]
    assert last.marker.symbol == "arrow" and last.marker.angleref == "previous"

    offsets = np.arange(5)
    fig = make_rope_logits_figure(offsets, {"m=4": np.ones(5), "m=1004": np.ones(5)})
    assert [t.name for t in fig.data] == ["m=4", "m=1004"]
    assert "m − n" in fig.layout.xaxis.title.text

    fig = make_rope_decay_figure(offsets, {"base 10000": np.ones(5), "base 500000": np.ones(5)})
    assert len(fig.data) == 2

    ext = rope.rope_context_extension(128, 2048, 8192)
    fig = make_context_extension_figure(ext)
    # Per method: the target, its pairs past training, the training line, 2π.
    assert len(fig.data) == 12
    titles = [a.text for a in fig.layout.annotations]
    assert "<b>no scaling</b><br>23 of 64 pairs beyond" in titles
    assert "<b>position interpolation</b><br>0 of 64 pairs beyond" in titles
    assert fig.layout.yaxis.type == "log"

    novelty = extrapolation.sinusoid_novelty(10, 30, 8)
    fig = make_sinusoid_novelty_figure(novelty, 10)
    np.testing.assert_allclose(fig.data[0].y, novelty.nearest_distance)
    learned = extrapolation.learned_reach(np.ones((5, 2)), 9)
    fig = make_learned_reach_figure(learned, 4)
    assert any("no row" in (a.text or "") for a in fig.layout.annotations)
    fig = make_rope_reach_figure(ext)
    assert len(fig.data) == 5 and fig.layout.yaxis.type == "log"


@pytest.mark.parametrize("make", ["rope", "extrapolation"])
def test_context_extension_figures_show_every_line_and_name_the_red(make):
    """The target with position interpolation lies on the training line: the training line is
    drawn above the targets, dashed, so both show; the red markers (angles never seen in
    training) and 2π have legend entries; no label is drawn over the lines."""
    from figures.extrapolation import make_rope_reach_figure
    from figures.rope import BEYOND_COLOUR, TRAINED_COLOUR

    ext = rope.rope_context_extension(128, 2048, 8192)
    fig = (make_context_extension_figure(ext) if make == "rope" else make_rope_reach_figure(ext))
    panels = sorted({trace.xaxis or "x" for trace in fig.data})
    for axis in panels:
        traces = [t for t in fig.data if (t.xaxis or "x") == axis]
        trained = [i for i, t in enumerate(traces) if t.line.color == TRAINED_COLOUR]
        # The target's angles: every trace but the training line and 2π.
        angles = [i for i, t in enumerate(traces)
                  if i not in trained and not t.name.startswith("2π")]
        assert len(angles) >= 2
        assert len(trained) == 1 and traces[trained[0]].line.dash in ("dash", "dot", "dashdot")
        # Every target drawn before (under) the dashed training line, except markers that sit
        # on it (the interpolated target's open diamonds).
        for i in angles:
            assert i < trained[0] or traces[i].mode == "markers"
    named = {t.name: t for t in fig.data if t.showlegend is not False}
    red = [t for t in named.values() if t.marker.color == BEYOND_COLOUR]
    assert len(red) == 1 and red[0].name == "angles never seen in training"
    two_pi = [t for t in named.values() if t.name.startswith("2π")]
    assert len(two_pi) == 1 and list(two_pi[0].y) == [2 * np.pi, 2 * np.pi]
    assert not [a for a in fig.layout.annotations if "2π" in (a.text or "")]
    # The red markers are exactly the pairs beyond training, at their target angles.
    beyond = ext.beyond["none"]
    first_red = next(t for t in fig.data if t.marker.color == BEYOND_COLOUR)
    np.testing.assert_array_equal(first_red.x, ext.pairs[beyond])
    np.testing.assert_allclose(first_red.y, ext.target["none"][beyond])


@pytest.mark.parametrize("make", ["rope", "extrapolation"])
def test_context_extension_figures_draw_a_bounded_number_of_markers(make):
    """At d_head 1024 (512 pairs) no marker trace draws more markers than its panel can tell
    apart (plotly's maxdisplayed): a third-width panel EXTENSION_MARKERS, a half-width chart
    PAIR_MARKERS. Each marker is an SVG node: 512 a trace in six panels doubled the redraw."""
    from figures.extrapolation import make_rope_reach_figure
    from figures.rope import EXTENSION_MARKERS, PAIR_MARKERS

    ext = rope.rope_context_extension(1024, 2048, 8192)
    fig, most = ((make_context_extension_figure(ext), EXTENSION_MARKERS) if make == "rope"
                 else (make_rope_reach_figure(ext), PAIR_MARKERS))
    marked = [t for t in fig.data if "markers" in (t.mode or "") and len(t.x) > most]
    assert marked  # the target and the red pairs have more than that
    for trace in marked:
        assert trace.marker.maxdisplayed and trace.marker.maxdisplayed <= most, trace.name
