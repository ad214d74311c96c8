"""`core.rope_scaling` against Hugging Face transformers' own ``modeling_rope_utils`` and against
the methods' formulas written here as slow loops.

transformers (imported here only, never by `core`) builds a ``LlamaConfig`` from the same
``rope_scaling`` dict and calls ``ROPE_INIT_FUNCTIONS[rope_type](config, device="cpu",
seq_len=...)``: its float32 result must agree to rtol 1e-6, and the same code run in float64 (its
``torch`` swapped for one whose float32 is float64) to rtol 1e-12, so every formula and default
is pinned, not just approximated.
"""

from __future__ import annotations

import copy
import math
import types
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from core import rope, rope_scaling
from core.rope import RotationSettings
from core.rope_scaling import (
    critical_pair,
    full_turn_pairs,
    rope_scaled_frequencies,
    rope_type_of,
    scaling_bands,
)
from tests import reference

QWEN_YARN = {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}
DEEPSEEK_YARN = {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 0.707,
                 "mscale_all_dim": 0.707, "original_max_position_embeddings": 4096, "type": "yarn"}
LLAMA31 = {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
           "original_max_position_embeddings": 8192, "rope_type": "llama3"}


def synthetic_factors(half: int, start: float, stop: float) -> list[float]:
    return [float(x) for x in np.linspace(start, stop, half)]


# (scaling, d_head, base, max_position_embeddings, seq_len, top-level original or None)
CASES = {
    "linear-2": ({"rope_type": "linear", "factor": 2.0}, 64, 10000.0, 4096, None, None),
    "linear-4-theta5e5": ({"type": "linear", "factor": 4}, 128, 500000.0, 8192, None, None),
    "linear-8.5-d96": ({"rope_type": "linear", "factor": 8.5}, 96, 1e6, 2048, None, None),
    "dynamic-at-init": ({"rope_type": "dynamic", "factor": 2.0}, 64, 10000.0, 2048, None, None),
    "dynamic-below-max": ({"type": "dynamic", "factor": 8.0}, 96, 10000.0, 4096, 3000, None),
    "dynamic-10k": ({"rope_type": "dynamic", "factor": 4.0}, 128, 10000.0, 4096, 10000, None),
    "dynamic-d16": ({"rope_type": "dynamic", "factor": 1.5}, 16, 1e6, 1024, 100000, None),
    "yarn-qwen2.5": (QWEN_YARN, 128, 1e6, 32768, None, None),
    "yarn-deepseek-v2-lite": (DEEPSEEK_YARN, 64, 10000.0, 163840, None, None),
    "yarn-gpt-oss-untruncated": ({"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0,
                                  "beta_slow": 1.0, "truncate": False,
                                  "original_max_position_embeddings": 4096},
                                 64, 150000.0, 131072, None, None),
    "yarn-betas-16-2": ({"rope_type": "yarn", "factor": 8, "beta_fast": 16, "beta_slow": 2,
                         "original_max_position_embeddings": 2048}, 32, 10000.0, 16384, None,
                        None),
    "yarn-mscale-1-0.707": ({"rope_type": "yarn", "factor": 16.0, "mscale": 1.0,
                             "mscale_all_dim": 0.707, "original_max_position_embeddings": 4096},
                            64, 10000.0, 65536, None, None),
    "yarn-attention-factor": ({"rope_type": "yarn", "factor": 4.0, "attention_factor": 1.25,
                               "original_max_position_embeddings": 1024}, 64, 10000.0, 4096,
                              None, None),
    "yarn-null-factor": ({"rope_type": "yarn", "factor": None,
                          "original_max_position_embeddings": 4096}, 64, 10000.0, 16384, None,
                         None),
    "yarn-original-from-max": ({"rope_type": "yarn", "factor": 2.0}, 64, 10000.0, 2048, None,
                               None),
    "llama3.1": (LLAMA31, 128, 500000.0, 131072, None, None),
    "llama3-factor32": ({**LLAMA31, "factor": 32.0}, 64, 500000.0, 131072, None, None),
    "llama3-low2-high8": ({"rope_type": "llama3", "factor": 4.0, "low_freq_factor": 2.0,
                           "high_freq_factor": 8.0, "original_max_position_embeddings": 1024},
                          64, 10000.0, 8192, None, None),
    "longrope-short": ({"rope_type": "longrope", "short_factor": synthetic_factors(8, 1, 2),
                        "long_factor": synthetic_factors(8, 1, 30),
                        "original_max_position_embeddings": 1024}, 16, 10000.0, 32768, 1024,
                       None),
    "longrope-long": ({"rope_type": "longrope", "short_factor": synthetic_factors(8, 1, 2),
                       "long_factor": synthetic_factors(8, 1, 30),
                       "original_max_position_embeddings": 1024}, 16, 10000.0, 32768, 1025,
                      None),
    "longrope-factor-and-attention": ({"rope_type": "longrope", "factor": 8.0,
                                       "attention_factor": 1.1,
                                       "short_factor": synthetic_factors(16, 1, 1.5),
                                       "long_factor": synthetic_factors(16, 1.2, 9),
                                       "original_max_position_embeddings": 2048},
                                      32, 10000.0, 16384, 100000, None),
    "longrope-top-level-original-wins": ({"rope_type": "longrope",
                                          "short_factor": synthetic_factors(8, 1, 2),
                                          "long_factor": synthetic_factors(8, 2, 40),
                                          "original_max_position_embeddings": 999},
                                         16, 10000.0, 65536, 1500, 1024),
}


# --- transformers, in float32 as shipped and in float64 ------------------------------------------
@pytest.fixture(scope="module")
def hf() -> types.SimpleNamespace:
    from transformers import LlamaConfig
    from transformers import modeling_rope_utils as mru
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    return types.SimpleNamespace(LlamaConfig=LlamaConfig, mru=mru,
                                 default=LlamaRotaryEmbedding.compute_default_rope_parameters)


def hf_rope(hf, scaling, d_head, base, max_position, seq_len=None, original=None):
    """transformers' (inv_freq, attention_factor) for a LlamaConfig holding these fields."""
    extra = {} if original is None else {"original_max_position_embeddings": original}
    config = hf.LlamaConfig(hidden_size=2 * d_head, num_attention_heads=2, head_dim=d_head,
                            max_position_embeddings=max_position, rope_theta=base,
                            rope_scaling=copy.deepcopy(scaling), **extra)
    rope_type = config.rope_parameters["rope_type"]
    if rope_type == "default":
        inv_freq, attention = hf.default(config)
    else:
        inv_freq, attention = hf.mru.ROPE_INIT_FUNCTIONS[rope_type](config, device="cpu",
                                                                    seq_len=seq_len)
    return inv_freq.double().numpy(), float(attention)


@pytest.fixture
def hf_float64(hf, monkeypatch) -> Iterator[types.SimpleNamespace]:
    """transformers' rope functions with every float32 of theirs made float64: their module's
    ``torch.float``/``torch.float32`` and, for the test's duration, ``Tensor.float()``."""
    import torch

    class Float64Torch(types.ModuleType):
        float = torch.float64
        float32 = torch.float64

        def __getattr__(self, name):
            return getattr(torch, name)

    monkeypatch.setattr(hf.mru, "torch", Float64Torch("torch"))
    monkeypatch.setattr(torch.Tensor, "float", torch.Tensor.double)
    yield hf


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_equals_transformers_float32(hf, case):
    scaling, d_head, base, max_position, seq_len, original = CASES[case]
    want, want_attention = hf_rope(hf, scaling, d_head, base, max_position, seq_len, original)
    got, attention = rope_scaled_frequencies(
        d_head, base=base, scaling=scaling, max_position_embeddings=max_position,
        seq_len=seq_len, original_max_position_embeddings=original,
    )
    assert got.dtype == np.float64 and got.shape == (d_head // 2,)
    assert isinstance(attention, float)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=0)
    assert attention == pytest.approx(want_attention, rel=1e-6)


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_equals_transformers_code_run_in_float64(hf_float64, case):
    scaling, d_head, base, max_position, seq_len, original = CASES[case]
    want, want_attention = hf_rope(hf_float64, scaling, d_head, base, max_position, seq_len,
                                   original)
    got, attention = rope_scaled_frequencies(
        d_head, base=base, scaling=scaling, max_position_embeddings=max_position,
        seq_len=seq_len, original_max_position_embeddings=original,
    )
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
    assert attention == pytest.approx(want_attention, rel=1e-12)


def test_the_float64_swap_reaches_transformers(hf_float64):
    """The float64 run is really float64 (else the rtol=1e-12 test would be vacuous)."""
    inv_freq, _ = hf_float64.mru.ROPE_INIT_FUNCTIONS["linear"](
        hf_float64.LlamaConfig(hidden_size=64, num_attention_heads=1, rope_theta=10000.0,
                               rope_scaling={"rope_type": "linear", "factor": 2.0}), "cpu")
    assert str(inv_freq.dtype) == "torch.float64"


@pytest.mark.parametrize("d_head, base", [(2, 10000.0), (64, 10000.0), (128, 500000.0)])
def test_no_scaling_is_plain_rope_in_transformers_and_core_rope(hf, d_head, base):
    for scaling in (None, {}, {"rope_type": "default"}, {"type": "default", "factor": 3}):
        got, attention = rope_scaled_frequencies(d_head, base=base, scaling=scaling)
        np.testing.assert_array_equal(
            got, rope.rope_frequencies(d_head, settings=RotationSettings(base=base)))
        assert attention == 1.0
    want, _ = hf_rope(hf, None, d_head, base, 4096)
    np.testing.assert_allclose(got, want, rtol=1e-6)


# --- the formulas, as slow loops -----------------------------------------------------------------
def plain_theta(i: int, d: int, base: float) -> float:
    return base ** (-2 * i / d)


def loop_yarn(d, base, factor, L, beta_fast=32.0, beta_slow=1.0, truncate=True):
    """YaRN as its authors' code writes it (jquesnelle/yarn ``_yarn_find_correction_range`` and
    ``_yarn_linear_ramp_mask``; Peng et al. 2023 §3.2, eq. 17-20): the index whose pair turns
    beta times in L is d ln(L / (2 pi beta)) / (2 ln base); the mask is 1 - ramp between them."""

    def index(beta):
        return d * math.log(L / (beta * 2 * math.pi)) / (2 * math.log(base))

    low, high = index(beta_fast), index(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, d - 1)
    if low == high:
        high += 0.001
    out = []
    for i in range(d // 2):
        ramp = min(max((i - low) / (high - low), 0.0), 1.0)
        theta = plain_theta(i, d, base)
        out.append(theta / factor * ramp + theta * (1 - ramp))
    return np.array(out)


def loop_llama3(d, base, factor, low_freq_factor, high_freq_factor, L):
    """Meta's ``apply_scaling`` (llama-models, Llama 3.1), one frequency at a time."""
    low_freq_wavelen = L / low_freq_factor
    high_freq_wavelen = L / high_freq_factor
    out = []
    for i in range(d // 2):
        freq = plain_theta(i, d, base)
        wavelen = 2 * math.pi / freq
        if wavelen < high_freq_wavelen:
            out.append(freq)
        elif wavelen > low_freq_wavelen:
            out.append(freq / factor)
        else:
            smooth = (L / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
            out.append((1 - smooth) * freq / factor + smooth * freq)
    return np.array(out)


def loop_dynamic_ntk(d, base, factor, max_position, seq_len):
    """bloc97's NTK-aware base b * a^(d/(d-2)), with emozilla's dynamic a = s l/L - (s - 1)."""
    length = max(seq_len, max_position)
    alpha = factor * length / max_position - (factor - 1)
    new_base = base * alpha ** (d / (d - 2))
    return np.array([new_base ** (-2 * i / d) for i in range(d // 2)])


@pytest.mark.parametrize("d, base, factor, L, fast, slow, truncate", [
    (128, 1e6, 4.0, 32768, 32, 1, True),
    (64, 10000.0, 40.0, 4096, 32, 1, True),
    (64, 150000.0, 32.0, 4096, 32, 1, False),
    (32, 10000.0, 8.0, 2048, 16, 2, True),
    (8, 10000.0, 2.0, 10, 32, 1, True),  # the ramp collapses to one pair: transformers' +0.001
])
def test_yarn_equals_its_authors_loop(d, base, factor, L, fast, slow, truncate):
    scaling = {"rope_type": "yarn", "factor": factor, "original_max_position_embeddings": L,
               "beta_fast": fast, "beta_slow": slow, "truncate": truncate}
    got, attention = rope_scaled_frequencies(d, base=base, scaling=scaling)
    np.testing.assert_allclose(got, loop_yarn(d, base, factor, L, fast, slow, truncate),
                               rtol=1e-13)
    assert attention == pytest.approx(0.1 * math.log(factor) + 1)  # sqrt(1/t), Peng et al.


def test_yarn_bands_agree_with_the_papers_ramp_in_rotations():
    """Peng et al.'s gamma(r) ramps linearly in r = L / lambda_i (rotations in the pretraining
    context): kept where r > beta, interpolated where r < alpha. The released code (and
    transformers) ramps linearly in the pair index between the floor/ceil of those edges, so the
    blended *values* differ from the paper's, but the pairs kept and the pairs interpolated are
    the same ones: checked here for Qwen2.5's and DeepSeek's settings."""
    for d, base, scaling in ((128, 1e6, QWEN_YARN), (64, 10000.0, DEEPSEEK_YARN)):
        bands = scaling_bands(d, base=base, scaling=scaling)
        L = scaling["original_max_position_embeddings"]
        for i, band in enumerate(bands.bands):
            r = L / (2 * math.pi / plain_theta(i, d, base))
            if r > 32:
                assert band == "unchanged", i
            elif r < 1:
                assert band == "interpolated", i
        assert set(bands.bands) == {"unchanged", "blended", "interpolated"}


def test_yarn_deepseek_mscale_ratio():
    """DeepSeek's attention factor: get_mscale(s, mscale) / get_mscale(s, mscale_all_dim)."""
    def get_mscale(s, m=1.0):
        return 1.0 if s <= 1 else 0.1 * m * math.log(s) + 1.0

    _, equal = rope_scaled_frequencies(64, base=1e4, scaling=DEEPSEEK_YARN)
    assert equal == 1.0  # mscale == mscale_all_dim cancels
    _, ratio = rope_scaled_frequencies(64, base=1e4, scaling={**DEEPSEEK_YARN,
                                                              "mscale": 1.0})
    assert ratio == pytest.approx(get_mscale(40, 1.0) / get_mscale(40, 0.707), rel=1e-15)
    # transformers treats a zero (or null) mscale as absent: the plain 0.1 ln s + 1.
    _, plain = rope_scaled_frequencies(64, base=1e4, scaling={**DEEPSEEK_YARN, "mscale": 0})
    assert plain == pytest.approx(0.1 * math.log(40) + 1)


@pytest.mark.parametrize("d, base, factor, low, high, L", [
    (128, 500000.0, 8.0, 1.0, 4.0, 8192),
    (64, 500000.0, 32.0, 1.0, 4.0, 8192),
    (64, 10000.0, 4.0, 2.0, 8.0, 1024),
])
def test_llama3_equals_metas_loop(d, base, factor, low, high, L):
    scaling = {"rope_type": "llama3", "factor": factor, "low_freq_factor": low,
               "high_freq_factor": high, "original_max_position_embeddings": L}
    got, attention = rope_scaled_frequencies(d, base=base, scaling=scaling)
    np.testing.assert_allclose(got, loop_llama3(d, base, factor, low, high, L), rtol=1e-13)
    assert attention == 1.0
    bands = scaling_bands(d, base=base, scaling=scaling)
    for i, band in enumerate(bands.bands):
        wavelength = 2 * math.pi / plain_theta(i, d, base)
        expected = ("unchanged" if wavelength < L / high else
                    "interpolated" if wavelength > L / low else "blended")
        assert band == expected, i
    assert bands.wavelength_edges == (L / high, L / low)
    assert bands.factor == factor


@pytest.mark.parametrize("d, base, factor, M, seq", [
    (64, 10000.0, 2.0, 2048, 2048), (128, 10000.0, 4.0, 4096, 10000), (16, 1e6, 1.5, 1024, 1e5),
])
def test_dynamic_equals_the_ntk_formula(d, base, factor, M, seq):
    scaling = {"rope_type": "dynamic", "factor": factor}
    got, _ = rope_scaled_frequencies(d, base=base, scaling=scaling, max_position_embeddings=M,
                                     seq_len=int(seq))
    np.testing.assert_allclose(got, loop_dynamic_ntk(d, base, factor, M, seq), rtol=1e-13)


def test_longrope_divides_by_the_searched_factors_and_picks_by_length():
    """Ding et al.'s theta_i / f_i; long_factor only past L; m = sqrt(1 + ln s / ln L)."""
    short, long_ = synthetic_factors(8, 1.0, 2.0), synthetic_factors(8, 1.0, 30.0)
    scaling = {"type": "longrope", "short_factor": short, "long_factor": long_,
               "original_max_position_embeddings": 1024}
    plain = np.array([plain_theta(i, 16, 10000.0) for i in range(8)])
    for seq_len, factors in ((None, short), (0, short), (1024, short), (1025, long_)):
        got, attention = rope_scaled_frequencies(16, base=10000.0, scaling=scaling,
                                                 max_position_embeddings=32768, seq_len=seq_len)
        np.testing.assert_allclose(got, plain / np.array(factors), rtol=1e-14)
        assert attention == pytest.approx(math.sqrt(1 + math.log(32) / math.log(1024)))
    _, one = rope_scaled_frequencies(16, base=1e4, scaling=scaling, max_position_embeddings=512)
    assert one == 1.0  # implicit factor 512/1024 <= 1
    # "su" is Phi-3's first name for the same method.
    su, _ = rope_scaled_frequencies(16, base=1e4, scaling={**scaling, "type": "su"},
                                    max_position_embeddings=32768)
    np.testing.assert_array_equal(su, plain / np.array(short))


# --- the same methods in core.rope -------------------------------------------------------------
@pytest.mark.parametrize("d_head, base, factor", [(8, 10000.0, 2.0), (64, 500000.0, 16.0),
                                                  (96, 1e6, 3.5)])
def test_linear_is_core_ropes_position_interpolation(d_head, base, factor):
    """Chen et al. divide positions by s; transformers divides the frequencies: the same angles."""
    scaling = {"rope_type": "linear", "factor": factor}
    inv_freq, attention = rope_scaled_frequencies(d_head, base=base, scaling=scaling)
    plain = rope.rope_frequencies(d_head, settings=RotationSettings(base=base))
    np.testing.assert_allclose(inv_freq, plain / factor, rtol=1e-15)
    positions = np.array([0.0, 1.0, 17.0, 4095.0, 1e5])
    interpolated = RotationSettings(base=base, scaling="position_interpolation", factor=factor)
    angles = rope.rope_angles(positions, d_head, settings=interpolated)  # (P, d/2)
    np.testing.assert_allclose(np.multiply.outer(positions, inv_freq), angles, rtol=1e-14)
    assert attention == 1.0


@pytest.mark.parametrize("d_head, s", [(64, 4.0), (128, 2.0), (16, 8.0)])
def test_dynamic_meets_core_ropes_ntk_aware(d_head, s):
    """Where dynamic NTK and `core.rope`'s fixed NTK-aware base coincide.

    Dynamic NTK multiplies the base by a^(d/(d-2)) with a = s l / M - (s - 1) (l the running
    length, M max_position_embeddings); `rope_frequencies` with
    ``RotationSettings(scaling="ntk_aware", factor=s')`` by s'^(d/(d-2)). So they agree when
    a = s'. At l = s M (the length the factor is "for") a is s^2 - s + 1, not s: the two
    coincide at s' = s only at l = M (2s - 1)/s, and with a dynamic factor of 1 at l = s' M.
    Both cases are checked; l = s M is checked against s^2 - s + 1.
    """
    M = 4096
    dynamic = {"rope_type": "dynamic", "factor": s}
    at_2s_minus_1, _ = rope_scaled_frequencies(d_head, base=1e4, scaling=dynamic,
                                               max_position_embeddings=M,
                                               seq_len=int(M * (2 * s - 1) / s))
    ntk = rope.rope_frequencies(d_head, settings=RotationSettings(base=1e4, scaling="ntk_aware",
                                                                  factor=s))
    np.testing.assert_allclose(at_2s_minus_1, ntk, rtol=1e-14)
    factor_one, _ = rope_scaled_frequencies(
        d_head, base=1e4, scaling={"rope_type": "dynamic", "factor": 1.0},
        max_position_embeddings=M, seq_len=int(s * M))
    np.testing.assert_allclose(factor_one, ntk, rtol=1e-14)
    at_s_m, _ = rope_scaled_frequencies(d_head, base=1e4, scaling=dynamic,
                                        max_position_embeddings=M, seq_len=int(s * M))
    np.testing.assert_allclose(
        at_s_m, rope.rope_frequencies(d_head, settings=RotationSettings(
            base=1e4, scaling="ntk_aware", factor=s * s - s + 1)), rtol=1e-14)


def test_dynamic_is_plain_rope_up_to_max_position_and_with_one_pair():
    scaling = {"rope_type": "dynamic", "factor": 4.0}
    for seq_len in (None, 0, 1, 4096):
        got, _ = rope_scaled_frequencies(64, base=1e4, scaling=scaling,
                                         max_position_embeddings=4096, seq_len=seq_len)
        np.testing.assert_array_equal(
            got, rope.rope_frequencies(64, settings=RotationSettings(base=1e4)))
    one_pair, _ = rope_scaled_frequencies(2, base=1e4, scaling=scaling,
                                          max_position_embeddings=16, seq_len=10**6)
    np.testing.assert_array_equal(one_pair, [1.0])  # base^0 = 1 for every base


def test_where_original_max_position_embeddings_comes_from():
    """transformers' standardize_rope_params: top-level field > rope_scaling's > max_position."""
    def ramp_edges(**kw):
        return scaling_bands(64, base=1e4, scaling=kw.pop("scaling"), **kw).pair_edges

    inner = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 2048}
    bare = {"rope_type": "yarn", "factor": 4.0}
    assert ramp_edges(scaling=inner, original_max_position_embeddings=8192) == ramp_edges(
        scaling=bare, max_position_embeddings=8192)
    assert ramp_edges(scaling=inner, max_position_embeddings=8192) == ramp_edges(
        scaling=bare, max_position_embeddings=2048)
    with pytest.raises(ValueError, match="original_max_position_embeddings"):
        rope_scaled_frequencies(64, base=1e4, scaling=bare)


# --- bands and full turns ------------------------------------------------------------------------
def test_bands_of_each_method():
    assert set(scaling_bands(16, base=1e4, scaling=None).bands) == {"unchanged"}
    linear = scaling_bands(16, base=1e4, scaling={"rope_type": "linear", "factor": 4})
    assert set(linear.bands) == {"interpolated"} and linear.factor == 4
    np.testing.assert_allclose(linear.ratio, 0.25)
    np.testing.assert_allclose(linear.scaled_wavelengths, 4 * linear.wavelengths)
    dynamic = scaling_bands(16, base=1e4, scaling={"rope_type": "dynamic", "factor": 4},
                            max_position_embeddings=100, seq_len=400)
    assert dynamic.bands == ("unchanged", *["blended"] * 6, "interpolated")
    assert dynamic.factor == pytest.approx(4 * 4 - 4 + 1)  # s l / M - (s - 1) at l = s M
    below = scaling_bands(16, base=1e4, scaling={"rope_type": "dynamic", "factor": 4},
                          max_position_embeddings=100, seq_len=50)
    assert set(below.bands) == {"unchanged"}
    long_rope = scaling_bands(8, base=1e4, scaling={"rope_type": "longrope",
                                                    "short_factor": [1, 1, 2, 3],
                                                    "long_factor": [1, 2, 4, 8]},
                              max_position_embeddings=4096)
    assert long_rope.bands == ("unchanged", "unchanged", "rescaled", "rescaled")
    assert long_rope.wavelength_edges is None and long_rope.pair_edges is None
    np.testing.assert_array_equal(long_rope.pairs, np.arange(4))


def test_yarn_band_edges_are_the_ramp_transformers_uses():
    bands = scaling_bands(128, base=1e6, scaling=QWEN_YARN)
    low, high = bands.pair_edges
    assert (low, high) == rope_scaling.yarn_ramp_edges(128, 1e6, 32768, 32, 1, True)
    assert low == int(low) and high == int(high)  # truncate: floor and ceil
    for i, band in enumerate(bands.bands):
        assert band == ("unchanged" if i <= low else "interpolated" if i >= high else "blended")
    assert bands.wavelength_edges == (32768 / 32, 32768 / 1)
    # The unrounded edges are the pairs whose wavelength is L / beta.
    assert reference.pair_at_wavelength(128, 1e6, 32768 / 32) == pytest.approx(
        rope_scaling.correction_pair(32, 128, 1e6, 32768))
    assert math.floor(reference.pair_at_wavelength(128, 1e6, 32768 / 32)) == low
    assert bands.factor == 4.0


@pytest.mark.parametrize("beta_slow", [1e-320, 5e-324])
def test_a_subnormal_beta_slow_ends_the_ramp_at_the_last_pair(beta_slow):
    """Issue 52: L / (2 pi beta_slow) overflowed to inf and ceil(inf) raised OverflowError. As a
    difference of logs the pair turning beta_slow times is finite, far past the last pair: the
    ramp ends at d - 1, as transformers clamps it."""
    pair = rope_scaling.correction_pair(beta_slow, 128, 1e6, 32768)
    assert pair == pytest.approx(
        64 * (math.log(32768 / (2 * math.pi)) - math.log(beta_slow)) / math.log(1e6))
    low, high = rope_scaling.yarn_ramp_edges(128, 1e6, 32768, 32, beta_slow, True)
    assert (low, high) == (rope_scaling.yarn_ramp_edges(128, 1e6, 32768, 32, 1, True)[0], 127)
    inv_freq, _ = rope_scaled_frequencies(128, base=1e6,
                                          scaling={**QWEN_YARN, "beta_slow": beta_slow})
    assert np.all(np.isfinite(inv_freq))


@given(d_half=st.integers(1, 256), base=st.floats(2.0, 1e7),
       context=st.floats(1.0, 1e7))
def test_critical_pair_is_the_closed_form(d_half, base, context):
    """Pair i completes a turn within `context` iff 2 pi base^(2i/d) <= context, i.e.
    i <= (d/2) log_base(context / 2 pi): the first that does not is floor of that + 1."""
    d = 2 * d_half
    x = d_half * math.log(context / (2 * math.pi)) / math.log(base)
    if abs(x - round(x)) < 1e-9:
        return  # a wavelength equal to the context up to rounding: either answer is right
    expected = min(max(math.floor(x) + 1, 0), d_half)
    inv_freq = rope.rope_frequencies(d, settings=RotationSettings(base=base))
    assert critical_pair(inv_freq, context) == expected
    turns = full_turn_pairs(inv_freq, context)
    assert turns.dtype == bool and turns.sum() == expected
    assert [bool(t) for t in turns] == [2 * math.pi / plain_theta(i, d, base) <= context
                                        for i in range(d_half)]


def test_scaling_slows_the_pairs_that_complete_a_turn():
    """Llama 3.1 at 8k: interpolation slows the slow pairs, so no more pairs complete a turn."""
    plain = rope.rope_frequencies(128, settings=RotationSettings(base=500000.0))
    scaled, _ = rope_scaled_frequencies(128, base=500000.0, scaling=LLAMA31)
    assert critical_pair(scaled, 8192) <= critical_pair(plain, 8192)
    assert critical_pair(plain, 2 * math.pi) == 1  # only pair 0 (wavelength 2 pi)
    assert critical_pair(plain, 1.0) == 0
    assert critical_pair(plain, 1e30) == 64


# --- bad inputs ----------------------------------------------------------------------------------
YARN = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 1024}
PHI = {"type": "longrope", "short_factor": [1.0] * 4, "long_factor": [2.0] * 4}


@pytest.mark.parametrize("kwargs, names", [
    ({"d_head": 7}, ["d_head=7", "even"]),
    ({"d_head": 0}, ["d_head=0"]),
    ({"d_head": 2048}, ["d_head=2048", "1024"]),
    ({"d_head": True}, ["d_head=True"]),
    ({"d_head": 8.5}, ["d_head=8.5"]),
    ({"base": 1.0}, ["base=1.0", "> 1"]),
    ({"base": float("nan")}, ["base=nan"]),
    ({"base": "10000"}, ["base='10000'"]),
    ({"base": 1e12}, ["base=1000000000000.0", "1e+08"]),
    ({"scaling": "yarn"}, ["rope_scaling='yarn'", "dict"]),
    ({"scaling": ["linear"]}, ["rope_scaling=['linear']"]),
    ({"scaling": {"factor": 4}}, ["rope_type", "'linear'"]),
    ({"scaling": {"rope_type": "ntk"}}, ["rope_type", "'ntk'", "'yarn'"]),
    ({"scaling": {"type": "__import__('os')"}}, ["type", "__import__", "'llama3'"]),
    ({"scaling": {"rope_type": 3}}, ["rope_type", "=3"]),
    ({"scaling": {"rope_type": "linear"}}, ["'factor'", "linear"]),
    ({"scaling": {"rope_type": "linear", "factor": 0.5}}, ["factor", "0.5", ">= 1"]),
    ({"scaling": {"rope_type": "linear", "factor": float("inf")}}, ["factor", "inf"]),
    ({"scaling": {"rope_type": "linear", "factor": "8"}}, ["factor", "'8'"]),
    ({"scaling": {"rope_type": "linear", "factor": True}}, ["factor", "True"]),
    ({"scaling": {"rope_type": "linear", "factor": 1e6}}, ["factor", "1024"]),
    ({"scaling": {"rope_type": "dynamic", "factor": 2.0}}, ["max_position_embeddings"]),
    ({"scaling": {"rope_type": "dynamic", "factor": 2.0}, "max_position_embeddings": 0},
     ["max_position_embeddings=0"]),
    ({"scaling": YARN, "seq_len": -1}, ["seq_len=-1"]),
    ({"scaling": YARN, "max_position_embeddings": 10**9}, ["max_position_embeddings", "10000000"]),
    ({"scaling": {**YARN, "original_max_position_embeddings": 0}},
     ["original_max_position_embeddings']=0"]),
    ({"scaling": {**YARN, "original_max_position_embeddings": "4096"}},
     ["original_max_position_embeddings", "'4096'"]),
    ({"scaling": YARN, "original_max_position_embeddings": 2.5},
     ["original_max_position_embeddings=2.5"]),
    ({"scaling": {**YARN, "beta_fast": -1}}, ["beta_fast", "-1"]),
    ({"scaling": {**YARN, "beta_fast": 1, "beta_slow": 32}}, ["beta_fast", "beta_slow"]),
    ({"scaling": {**YARN, "beta_slow": float("nan")}}, ["beta_slow", "nan"]),
    ({"scaling": {**YARN, "mscale": -0.5}}, ["mscale", "-0.5"]),
    ({"scaling": {**YARN, "attention_factor": 0}}, ["attention_factor", "> 0"]),
    ({"scaling": {**YARN, "truncate": "no"}}, ["truncate", "'no'", "true or false"]),
    ({"scaling": {**YARN, "factor": None}}, ["factor", "max_position_embeddings"]),
    ({"scaling": {**YARN, "factor": None}, "max_position_embeddings": 512}, ["factor", "0.5"]),
    ({"scaling": {"rope_type": "yarn", "original_max_position_embeddings": 4}}, ["'factor'"]),
    ({"scaling": {**LLAMA31}, "d_head": 8, "base": 1e4}, []),  # valid: no error expected
    ({"scaling": {k: v for k, v in LLAMA31.items() if k != "low_freq_factor"}},
     ["'low_freq_factor'", "llama3"]),
    ({"scaling": {**LLAMA31, "high_freq_factor": 1.0}}, ["high_freq_factor", "greater"]),
    ({"scaling": {**LLAMA31, "low_freq_factor": 0}}, ["low_freq_factor']=0", "> 0"]),
    ({"scaling": {"type": "longrope", "short_factor": [1.0] * 4}}, ["'long_factor'"]),
    ({"scaling": {**PHI, "long_factor": [2.0] * 3}, "max_position_embeddings": 8},
     ["long_factor", "3 entries", "4"]),
    ({"scaling": {**PHI, "short_factor": [1.0, 1.0, -1.0, 1.0]}, "max_position_embeddings": 8},
     ["short_factor'][2]=-1.0", ">= 0.000976562"]),
    # theta_i / 1e-320 is inf: a factor below 1/1024 is refused like one above 1024
    ({"scaling": {**PHI, "long_factor": [1.0, 1.0, 1e-320, 1.0]}, "max_position_embeddings": 8},
     ["long_factor'][2]=1e-320", ">= 0.000976562"]),
    ({"scaling": {**PHI, "factor": 4.0}, "original_max_position_embeddings": 1,
      "max_position_embeddings": 8}, ["original_max_position_embeddings=1", "L >= 2"]),
    ({"scaling": {**PHI, "short_factor": [1.0, 1.0, float("nan"), 1.0]},
      "max_position_embeddings": 8}, ["short_factor'][2]=nan"]),
    ({"scaling": {**PHI, "short_factor": "1111"}, "max_position_embeddings": 8},
     ["short_factor", "'1111'", "list of 4"]),
    ({"scaling": {**PHI, "short_factor": [1, 1, "x", 1]}, "max_position_embeddings": 8},
     ["short_factor'][2]='x'"]),
    ({"scaling": PHI}, ["max_position_embeddings"]),
])
def test_bad_inputs_raise_value_errors_naming_the_key(kwargs, names):
    arguments = {"d_head": 8, "base": 10000.0, **kwargs}
    if not names:
        rope_scaled_frequencies(**arguments)
        return
    with pytest.raises(ValueError) as error:
        rope_scaled_frequencies(**arguments)
    for name in names:
        assert name in str(error.value), (name, str(error.value))


def test_rope_type_of_reads_both_keys_and_aliases():
    assert rope_type_of(None) == rope_type_of({}) == "default"
    assert rope_type_of({"type": "yarn"}) == "yarn"
    assert rope_type_of({"rope_type": "llama3", "type": "yarn"}) == "llama3"  # transformers'
    assert rope_type_of({"rope_type": None, "type": "linear"}) == "linear"
    assert rope_type_of({"type": "su"}) == "longrope"
    assert set(rope_scaling.ROPE_TYPES) == {"default", "linear", "dynamic", "yarn", "llama3",
                                            "longrope"}


def test_helpers_reject_bad_inputs():
    for call, name in [
        (lambda: critical_pair([1.0, -1.0], 10), "inv_freq"),
        (lambda: critical_pair([1.0, np.nan], 10), "inv_freq"),
        (lambda: critical_pair([1.0], 0), "context=0"),
        (lambda: full_turn_pairs([1.0], float("inf")), "context=inf"),
        (lambda: scaling_bands(9, base=1e4, scaling=None), "d_head=9"),
    ]:
        with pytest.raises(ValueError, match=name):
            call()


@given(st.dictionaries(
    st.sampled_from(rope_scaling.SCALING_KEYS),
    st.one_of(st.none(), st.booleans(), st.integers(-10, 10**7), st.floats(allow_nan=True),
              st.text(max_size=8), st.lists(st.floats(0.5, 70), max_size=6)),
    max_size=6,
))
def test_any_scaling_dict_gives_frequencies_or_a_value_error(scaling):
    try:
        inv_freq, attention = rope_scaled_frequencies(8, base=1e4, scaling=scaling,
                                                      max_position_embeddings=4096, seq_len=5000)
    except ValueError:
        return
    assert inv_freq.shape == (4,) and np.all(np.isfinite(inv_freq)) and np.all(inv_freq > 0)
    assert math.isfinite(attention) and attention > 0


@pytest.mark.parametrize(("train_length", "factor", "d_head", "base"), [
    (2048, 4, 128, 10000.0), (8192, 16, 128, 500000.0), (4096, 8, 64, 10000.0), (100, 3, 32, 10.0),
])
def test_context_extension_draws_yarn_dynamic_and_llama3_as_transformers(
        hf_float64, train_length, factor, d_head, base):
    """The RoPE page's context extension at any L: each method's largest angle at T = factor x L
    is (T - 1) times the inverse frequencies transformers' rope_utils gives a model trained on L
    (YaRN and Llama 3 with their defaults, original_max_position_embeddings L; dynamic at its
    running length T), and a pair is beyond when that passes L theta_i below a full turn."""
    from core.rope import EXTENSION_METHODS, rope_context_extension

    target = train_length * factor
    extension = rope_context_extension(d_head, train_length, target, base=base, factor=factor,
                                       methods=EXTENSION_METHODS)
    assert list(extension.target) == list(EXTENSION_METHODS)
    fields = {
        "yarn": ({"rope_type": "yarn", "factor": factor}, target, None, train_length),
        "llama3": ({"rope_type": "llama3", "factor": factor, "low_freq_factor": 1.0,
                    "high_freq_factor": 4.0}, target, None, train_length),
        "dynamic": ({"rope_type": "dynamic", "factor": factor}, train_length, target, None),
    }
    theta = base ** (-np.arange(0, d_head, 2) / d_head)
    for method, (scaling, max_position, seq_len, original) in fields.items():
        if original is not None:
            scaling = {**scaling, "original_max_position_embeddings": original}
        inv_freq, _ = hf_rope(hf_float64, scaling, d_head, base, max_position, seq_len)
        np.testing.assert_allclose(extension.target[method], (target - 1) * inv_freq,
                                   rtol=1e-9)
        beyond = [(train_length - 1) * t < 2 * np.pi and a > train_length * t * (1 + 1e-12)
                  for t, a in zip(theta, (target - 1) * inv_freq, strict=True)]
        assert extension.beyond[method].tolist() == beyond, method
