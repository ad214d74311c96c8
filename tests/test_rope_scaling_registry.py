"""`core.rope_scaling.ROPE_INIT_FUNCTIONS`: one function per RoPE scaling method, the one path
`core.rope`'s scalings and context extension take.

Position interpolation is transformers' ``linear``; static NTK-aware scaling (base * s^(d/(d-2)))
is no transformers rope_type, but its ``dynamic`` at factor 1 and running length l = s L_max
multiplies the base by (l / L_max)^(d/(d-2)) = s^(d/(d-2)): the same frequencies. Both are checked
against transformers' own ``ROPE_INIT_FUNCTIONS`` in float32 (rtol 1e-6) and run in float64
(rtol 1e-12), with the fixtures of tests/test_rope_scaling.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from core import rope, rope_scaling
from core.rope import RotationSettings
from core.rope_scaling import ROPE_INIT_FUNCTIONS, RopeInputs
from tests import test_rope_scaling
from tests.test_rope_scaling import hf_rope

# transformers as shipped (float32) and its code run in float64: the fixtures of
# tests/test_rope_scaling.py, requested by name in each test.
hf = test_rope_scaling.hf
hf_float64 = test_rope_scaling.hf_float64
PRECISIONS = pytest.mark.parametrize("transformers, rtol", [("hf", 1e-6), ("hf_float64", 1e-12)])

LINEAR_CASES = [(8, 10000.0, 2.0), (64, 500000.0, 16.0), (96, 1e6, 3.5), (128, 10000.0, 64.0)]
# (d_head, base, s): s * MAX_POSITION is a whole running length for transformers' dynamic.
NTK_CASES = [(4, 10000.0, 8.0), (64, 10000.0, 4.0), (128, 500000.0, 2.5), (96, 1e6, 64.0)]
MAX_POSITION = 4096


def registry(method: str, d_head: int, base: float, factor: float) -> np.ndarray:
    return ROPE_INIT_FUNCTIONS[method](RopeInputs(d_head, base, {"factor": factor})).inv_freq


@PRECISIONS
@pytest.mark.parametrize("d_head, base, factor", LINEAR_CASES)
def test_linear_and_position_interpolation_are_transformers_linear(request, transformers, rtol,
                                                                   d_head, base, factor):
    scaling = {"rope_type": "linear", "factor": factor}
    want, _ = hf_rope(request.getfixturevalue(transformers), scaling, d_head, base, MAX_POSITION)
    np.testing.assert_allclose(registry("linear", d_head, base, factor), want, rtol=rtol, atol=0)
    interpolated = RotationSettings(base=base, scaling="position_interpolation", factor=factor)
    np.testing.assert_allclose(rope.rope_frequencies(d_head, settings=interpolated), want,
                               rtol=rtol, atol=0)


@PRECISIONS
@pytest.mark.parametrize("d_head, base, s", NTK_CASES)
def test_ntk_aware_is_transformers_dynamic_at_factor_one_and_length_s_times_max(
        request, transformers, rtol, d_head, base, s):
    dynamic = {"rope_type": "dynamic", "factor": 1.0}
    length = int(s * MAX_POSITION)
    assert length == s * MAX_POSITION
    want, _ = hf_rope(request.getfixturevalue(transformers), dynamic, d_head, base, MAX_POSITION,
                      length)
    got = registry("ntk_aware", d_head, base, s)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=0)
    ntk_aware = RotationSettings(base=base, scaling="ntk_aware", factor=s)
    np.testing.assert_allclose(rope.rope_frequencies(d_head, settings=ntk_aware), want,
                               rtol=rtol, atol=0)
    # bloc97's base written out: the fastest pair kept, the slowest turning s times slower.
    new_base = base * s ** (d_head / (d_head - 2))
    np.testing.assert_allclose(got, new_base ** (-np.arange(0, d_head, 2) / d_head), rtol=1e-13)
    assert got[-1] == pytest.approx(base ** (-(d_head - 2) / d_head) / s, rel=1e-13)


def test_registry_has_transformers_methods_and_ntk_aware():
    """Every method transformers 5.24 names but "proportional" (Gemma's partial rotation with
    zero frequencies, not drawn here), plus plain RoPE and static NTK-aware."""
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS as HF_ROPE_INIT_FUNCTIONS

    assert set(HF_ROPE_INIT_FUNCTIONS) - set(ROPE_INIT_FUNCTIONS) == {"proportional"}
    assert set(ROPE_INIT_FUNCTIONS) == {"default", "linear", "ntk_aware", "dynamic", "yarn",
                                        "llama3", "longrope"}
    # A config names a transformers rope_type: ntk_aware is reached only by name.
    assert set(ROPE_INIT_FUNCTIONS) - set(rope_scaling.ROPE_TYPES) == {"ntk_aware"}
    with pytest.raises(ValueError, match="rope_type"):
        rope_scaling.rope_scaled_frequencies(8, base=1e4, scaling={"rope_type": "ntk_aware",
                                                                   "factor": 2.0})


@pytest.mark.parametrize("scaling, method", [(None, "default"),
                                             ("position_interpolation", "linear"),
                                             ("ntk_aware", "ntk_aware")])
def test_rotation_settings_scale_through_the_registry(monkeypatch, scaling, method):
    """`rope_frequencies` (and so every rotation) is the registry entry's inverse frequencies:
    replacing the entry replaces what core.rope rotates by."""
    settings = RotationSettings(base=500000.0, scaling=scaling, factor=4.0)
    assert rope.SCALING_ROPE_TYPES.get(scaling, "default") == method
    np.testing.assert_array_equal(rope.rope_frequencies(16, settings=settings),
                                  registry(method, 16, 500000.0, 4.0))
    seen = []

    def spy(inputs: RopeInputs) -> rope_scaling.ScaledFrequencies:
        seen.append(inputs)
        return rope_scaling.ScaledFrequencies(np.full(inputs.d_head // 2, 0.5), 1.0, 1.0)

    monkeypatch.setitem(ROPE_INIT_FUNCTIONS, method, spy)
    np.testing.assert_array_equal(rope.rope_angles([0.0, 2.0], 16, settings=settings),
                                  [[0.0] * 8, [1.0] * 8])
    assert [(i.d_head, i.base, dict(i.scaling)) for i in seen] == [(16, 500000.0,
                                                                    {"factor": 4.0})]


def test_context_extension_is_the_registrys_frequencies_at_the_last_position():
    d_head, train_length, factor = 64, 2048, 4.0
    target_length = int(train_length * factor)
    extension = rope.rope_context_extension(d_head, train_length, target_length, base=1e4,
                                            factor=factor, methods=rope.EXTENSION_METHODS)
    assert list(extension.target) == ["none", "position_interpolation", "ntk_aware", "yarn",
                                      "dynamic", "llama3"]
    assert rope.EXTENSION_ROPE_TYPES == {"none": "default", "position_interpolation": "linear",
                                         "ntk_aware": "ntk_aware", "yarn": "yarn",
                                         "dynamic": "dynamic", "llama3": "llama3"}
    for method in ("none", "position_interpolation", "ntk_aware"):
        inv_freq = registry(rope.EXTENSION_ROPE_TYPES[method], d_head, 1e4, factor)
        np.testing.assert_array_equal(extension.target[method], (target_length - 1) * inv_freq)


@pytest.mark.parametrize("fields, names", [
    ({"d_head": 7}, ["d_head=7"]),
    ({"d_head": 2048}, ["d_head=2048"]),
    ({"base": 1.0}, ["base=1.0"]),
    ({"max_position_embeddings": 0}, ["max_position_embeddings=0"]),
    ({"seq_len": -1}, ["seq_len=-1"]),
    ({"original_max_position_embeddings": True}, ["original_max_position_embeddings=True"]),
    ({"scaling": [("factor", 2)]}, ["rope_scaling=", "must be a dict"]),
])
def test_rope_inputs_name_what_is_wrong(fields, names):
    arguments = {"d_head": 8, "base": 1e4, "scaling": {"factor": 2.0}, **fields}
    with pytest.raises(ValueError) as error:
        RopeInputs(**arguments)
    for name in names:
        assert name in str(error.value), (name, str(error.value))


@pytest.mark.parametrize("method", ["linear", "ntk_aware", "dynamic", "yarn", "llama3"])
def test_each_method_names_the_factor_it_is_missing(method):
    inputs = RopeInputs(8, 1e4, {}, max_position_embeddings=4096)
    with pytest.raises(ValueError, match=f"no 'factor': rope_type '{method}' requires it"):
        ROPE_INIT_FUNCTIONS[method](inputs)
