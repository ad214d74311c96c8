"""`core.rope_config`: the presets' numbers, each preset against transformers' own model config
class built from the same config.json fields, `parse_config` on pasted text (round trips and
hostile input), and `override`."""

from __future__ import annotations

import contextlib
import json
import math
import re
import types

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from core import rope_config
from core.rope_config import (
    METHOD_FIELDS,
    PRESETS,
    RopeConfig,
    config_contexts,
    field_value,
    override,
    parse_config,
    rope_config_curves,
    variant,
)
from tests.reference import published_config, published_models

# The brief each preset must meet, written out again here (not read from the module).
EXPECTED = {
    # name: (d_head, rope_theta, max_position_embeddings, rope type, top-level original)
    "llama-2-7b": (128, 10000.0, 4096, "default", None),
    "llama-3.1-8b": (128, 500000.0, 131072, "llama3", None),
    "mistral-7b": (128, 10000.0, 32768, "default", None),
    "qwen2.5-7b-yarn": (128, 1e6, 32768, "yarn", None),
    "phi-3-mini-128k": (96, 10000.0, 131072, "longrope", 4096),
    "deepseek-v2-lite": (64, 10000.0, 163840, "yarn", None),
}


def test_presets_hold_the_published_numbers():
    assert set(PRESETS) == set(EXPECTED)
    for name, (d_head, theta, max_pos, rope_type, original) in EXPECTED.items():
        preset = PRESETS[name]
        assert preset.name == name and preset.label and "config.json" in preset.source
        assert (preset.d_head, preset.rope_theta, preset.max_position_embeddings) == (
            d_head, theta, max_pos)
        assert preset.rope_type == rope_type
        assert preset.original_max_position_embeddings == original
    assert PRESETS["llama-3.1-8b"].rope_scaling == {
        "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192, "rope_type": "llama3"}
    assert PRESETS["qwen2.5-7b-yarn"].rope_scaling == {
        "type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}
    assert PRESETS["deepseek-v2-lite"].rope_scaling == {
        "beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 0.707, "mscale_all_dim": 0.707,
        "original_max_position_embeddings": 4096, "type": "yarn"}
    phi = PRESETS["phi-3-mini-128k"].rope_scaling
    assert phi["type"] == "su" and len(phi["short_factor"]) == len(phi["long_factor"]) == 48
    assert phi["short_factor"][0] == 1.05 and phi["short_factor"][-1] == 2.9499999999999975
    assert phi["long_factor"][0] == 1.0299999713897705
    assert phi["long_factor"][-1] == 64.81001281738281
    assert PRESETS["llama-2-7b"].rope_scaling is None
    assert PRESETS["mistral-7b"].rope_scaling is None


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_preset_computes(name):
    preset = PRESETS[name]
    for seq_len in (None, 1, preset.max_position_embeddings, 10 * preset.max_position_embeddings):
        inv_freq, attention = preset.scaled_frequencies(seq_len=seq_len)
        assert inv_freq.shape == (preset.d_head // 2,)
        assert np.all(np.isfinite(inv_freq)) and np.all(inv_freq > 0)
        assert inv_freq[0] <= 1.0 and np.all(np.diff(inv_freq) < 0)  # slower pair by pair
        expected_attention = {
            "qwen2.5-7b-yarn": 0.1 * math.log(4.0) + 1,  # YaRN's sqrt(1/t)
            "phi-3-mini-128k": math.sqrt(1 + math.log(131072 / 4096) / math.log(4096)),
        }.get(name, 1.0)  # DeepSeek's mscale == mscale_all_dim: exactly 1
        assert attention == pytest.approx(expected_attention, rel=1e-15)


# --- against transformers' own model config classes ----------------------------------------------
@pytest.fixture(scope="module")
def hf() -> types.SimpleNamespace:
    from transformers import DeepseekV2Config, LlamaConfig, MistralConfig, Phi3Config, Qwen2Config
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    classes = {"llama-2-7b": LlamaConfig, "llama-3.1-8b": LlamaConfig,
               "mistral-7b": MistralConfig, "qwen2.5-7b-yarn": Qwen2Config,
               "phi-3-mini-128k": Phi3Config, "deepseek-v2-lite": DeepseekV2Config}
    return types.SimpleNamespace(classes=classes, init=ROPE_INIT_FUNCTIONS,
                                 default=LlamaRotaryEmbedding.compute_default_rope_parameters)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_preset_equals_transformers_model_config(hf, name):
    """The model's own config class (LlamaConfig, Phi3Config, DeepseekV2Config, ...) built from
    the published config.json fields, then transformers' rope function, at several lengths.

    Phi-3's first config.json says ``"type": "su"``: transformers 5.23's Phi3Config renames it to
    longrope only after filling in original_max_position_embeddings (done for longrope only), so
    constructing it raises KeyError there; the class is given "longrope" (the rename's intent)."""
    config_json = published_config(name)
    if config_json.get("rope_scaling", {}) and config_json["rope_scaling"].get("type") == "su":
        config_json["rope_scaling"]["type"] = "longrope"
    config = hf.classes[name](**config_json)
    rope_type = config.rope_parameters["rope_type"]
    preset = PRESETS[name]
    for seq_len in (None, 4096, 4097, preset.max_position_embeddings):
        if rope_type == "default":
            want, want_attention = hf.default(config)
        else:
            want, want_attention = hf.init[rope_type](config, device="cpu", seq_len=seq_len)
        got, attention = preset.scaled_frequencies(seq_len=seq_len)
        np.testing.assert_allclose(got, want.double().numpy(), rtol=1e-6, atol=0)
        assert attention == pytest.approx(float(want_attention), rel=1e-6)


# --- parse_config --------------------------------------------------------------------------------
def test_the_published_configs_file_names_every_preset_and_its_model():
    """tests/published_configs.json (the tests' copy of each model's config.json, apart from
    core's) has exactly the presets, and each preset names the model its file comes from."""
    models = published_models()
    assert set(models) == set(PRESETS)
    for name, model in models.items():
        assert re.fullmatch(r"[\w.-]+/[\w.-]+", model), model  # a Hub model id
        assert PRESETS[name].source.startswith(f"{model} config.json"), (name, model)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_published_config_json_parses_to_the_preset(name):
    """Each preset equals what parse_config reads from the published config.json's RoPE fields,
    as tests/published_configs.json holds them (not the text core parses its presets from)."""
    preset = PRESETS[name]
    text = json.dumps(published_config(name), indent=2)
    parsed = parse_config(text, name=preset.name, label=preset.label, source=preset.source)
    assert parsed == preset
    assert hash(parsed) == hash(preset)
    # and the minimal config.json the preset writes reads back to it too
    again = parse_config(json.dumps(preset.to_config_json()), name=preset.name,
                         label=preset.label, source=preset.source)
    assert again == preset
    np.testing.assert_array_equal(again.scaled_frequencies()[0], preset.scaled_frequencies()[0])


def test_a_whole_config_json_with_unrelated_fields():
    text = json.dumps({
        "_name_or_path": "Qwen/Qwen2.5-7B-Instruct", "architectures": ["Qwen2ForCausalLM"],
        "attention_dropout": 0.0, "hidden_act": "silu", "hidden_size": 3584,
        "max_position_embeddings": 32768, "model_type": "qwen2", "num_attention_heads": 28,
        "num_key_value_heads": 4, "rope_theta": 1000000.0, "sliding_window": 131072,
        "torch_dtype": "bfloat16", "vocab_size": 152064,
        "rope_scaling": {"factor": 4.0, "original_max_position_embeddings": 32768,
                         "type": "yarn"},
    })
    parsed = parse_config(text)
    assert parsed.name == "custom" and parsed.d_head == 128 and parsed.rope_type == "yarn"
    assert parsed == RopeConfig(**{**vars(PRESETS["qwen2.5-7b-yarn"]), "name": "custom",
                                   "label": parsed.label, "source": parsed.source})


def test_transformers_5_rope_parameters_and_partial_rotary():
    # transformers 5 files rope_theta (and partial_rotary_factor) inside rope_parameters.
    parsed = parse_config(json.dumps({
        "hidden_size": 3072, "num_attention_heads": 24, "max_position_embeddings": 131072,
        "rope_parameters": {"rope_type": "yarn", "rope_theta": 150000, "factor": 32.0,
                            "original_max_position_embeddings": 4096, "truncate": False,
                            "partial_rotary_factor": 0.75},
    }))
    assert parsed.rope_theta == 150000.0
    assert parsed.d_head == 96  # int(128 * 0.75), as transformers' int(head_dim * factor)
    assert "rope_theta" not in parsed.rope_scaling
    assert "partial_rotary_factor" not in parsed.rope_scaling
    plain = parse_config(json.dumps({
        "head_dim": 64, "max_position_embeddings": 2048,
        "rope_parameters": {"rope_type": "default", "rope_theta": 1e6},
    }))
    assert plain.rope_scaling is None and plain.rope_theta == 1e6
    no_theta = parse_config('{"head_dim": 64, "max_position_embeddings": 2048}')
    assert no_theta.rope_theta == 10000.0  # transformers' default_theta
    # DeepSeek: qk_rope_head_dim wins over head_dim, as DeepseekV2Config sets head_dim from it
    assert parse_config('{"head_dim": 192, "qk_rope_head_dim": 64, '
                        '"max_position_embeddings": 2048}').d_head == 64


@pytest.mark.parametrize("text, names", [
    ("[" * 30_000 + "]" * 30_000, ["nests deeper than 8"]),  # json.loads would recurse 30k deep
    ("[" * 100_000, ["100000 characters"]),
    ('{"a": ' * 9 + "1" + "}" * 9, ["nests deeper than 8"]),
    (" " * 70_000, ["70000 characters", "65536"]),
    ('{"head_dim": 64, "max_position_embeddings": NaN}', ["NaN"]),
    ('{"head_dim": 64, "max_position_embeddings": 64, "rope_theta": Infinity}', ["Infinity"]),
    ('{"head_dim": 64, "max_position_embeddings": 64, "rope_theta": -Infinity}', ["-Infinity"]),
    ('{"head_dim": 64, "max_position_embeddings": 64, "rope_theta": 1e400}', ["rope_theta=inf"]),
    ('{"head_dim": 64, "max_position_embeddings": 64, "rope_theta": 1' + "0" * 400 + "}",
     ["rope_theta=1000"]),
    ('{"head_dim": 64, "max_position_embeddings": 64, "rope_scaling": {"type": "linear", '
     '"factor": 1' + "0" * 400 + "}}", ["factor", "1000"]),
    ('{"head_dim": 64, "max_position_embeddings": 1' + "0" * 400 + "}",
     ["max_position_embeddings=1000"]),
    ('{"head_dim": 64, "max_position_embeddings": 64, "rope_theta": 1' + "0" * 5000 + "}",
     ["not valid JSON"]),  # Python's int-digits limit, raised by json.loads as ValueError
    ('{"head_dim": 64, "max_position_embeddings": 64, "rope_theta": "10000"}',
     ["rope_theta='10000'"]),
    ('{"head_dim": 64, "max_position_embeddings": 64, "rope_theta": "__import__(\'os\')"}',
     ["rope_theta=", "__import__"]),
    ('{"head_dim": 64, "max_position_embeddings": "__import__(\'os\').system(\'ls\')"}',
     ["max_position_embeddings=", "__import__"]),
    ('{"head_dim": 64, "max_position_embeddings": 64, "rope_scaling": '
     '{"type": "__import__(\'os\')"}}', ["type", "__import__"]),
    ('{"head_dim": 64, "max_position_embeddings": 64, "rope_scaling": '
     '{"type": "linear", "factor": "eval(1)"}}', ["factor", "eval(1)"]),
    ('{"head_dim": 64}', ["max_position_embeddings", "required"]),
    ('{"head_dim": 64, "max_position_embeddings": null}', ["max_position_embeddings=None"]),
    ('{"head_dim": 64, "max_position_embeddings": true}', ["max_position_embeddings=True"]),
    ('{"head_dim": 64, "max_position_embeddings": 4096.5}', ["max_position_embeddings=4096.5"]),
    ('{"head_dim": 64, "max_position_embeddings": 100000000}',
     ["max_position_embeddings=100000000", "10000000"]),
    ('{"max_position_embeddings": 64}', ["head_dim", "hidden_size"]),
    ('{"hidden_size": 100, "num_attention_heads": 3, "max_position_embeddings": 64}',
     ["hidden_size=100", "num_attention_heads=3"]),
    ('{"hidden_size": 100, "max_position_embeddings": 64}', ["num_attention_heads=None"]),
    ('{"head_dim": 63, "max_position_embeddings": 64}', ["63", "even"]),
    ('{"head_dim": 2048, "max_position_embeddings": 64}', ["head_dim=2048", "1024"]),
    ('{"head_dim": 64, "partial_rotary_factor": 0, "max_position_embeddings": 64}',
     ["partial_rotary_factor=0"]),
    ('{"head_dim": 64, "max_position_embeddings": 64, "rope_scaling": [1, 2]}',
     ["rope_scaling=[1, 2]"]),
    ('{"head_dim": 64, "max_position_embeddings": 64, "rope_scaling": {"factor": 2}}',
     ["rope_type"]),
    ('{"head_dim": 64, "max_position_embeddings": 64, "rope_parameters": '
     '{"full_attention": {"rope_type": "default"}}}', ["rope_type"]),
    ('{"head_dim": 64, "max_position_embeddings": 64, "rope_scaling": '
     '{"type": "longrope", "short_factor": [1], "long_factor": [1]}}',
     ["long_factor", "has 1 entries", "32"]),
    ('{"head_dim": 8, "max_position_embeddings": 64, "rope_scaling": '
     '{"type": "longrope", "short_factor": [1, 1, 1, 1], "long_factor": [1, 1, 1, -1]}}',
     ["long_factor'][3]=-1"]),
    ('{"head_dim": 64, "max_position_embeddings": 64, "head_dim": 32}', ["'head_dim' twice"]),
    ('{"head_dim": 64, "max_position_embeddings": 64', ["not valid JSON"]),
    ("[1, 2, 3]", ["JSON object"]),
    ('"a string"', ["JSON object"]),
    ("", ["not valid JSON"]),
])
def test_hostile_or_unusable_text_raises_value_error_naming_the_field(text, names):
    with pytest.raises(ValueError) as error:
        parse_config(text)
    for name in names:
        assert name in str(error.value), (name, str(error.value))


def test_parse_config_takes_text_only():
    with pytest.raises(ValueError, match="text"):
        parse_config({"head_dim": 64})  # type: ignore[arg-type]


def test_the_nesting_check_ignores_brackets_in_strings():
    text = json.dumps({"note": "[[[[[[[[[[{{{{{{{{{{ \\\" ]]", "head_dim": 64,
                       "max_position_embeddings": 128})
    assert parse_config(text).d_head == 64


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10**8) | st.floats(allow_nan=False,
                                                                     allow_infinity=False)
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["head_dim", "hidden_size", "num_attention_heads", "rope_theta",
                         "max_position_embeddings", "rope_scaling", "rope_parameters", "type",
                         "rope_type", "factor", "short_factor", "long_factor",
                         "original_max_position_embeddings", "qk_rope_head_dim", "x"]),
        inner, max_size=6),
    max_leaves=20,
)


@given(JSON)
def test_any_json_gives_a_config_or_a_value_error(value):
    try:
        config = parse_config(json.dumps(value))
    except ValueError:
        return
    inv_freq, attention = config.scaled_frequencies()
    assert np.all(np.isfinite(inv_freq)) and math.isfinite(attention)


@given(st.text(max_size=200))
def test_any_text_gives_a_config_or_a_value_error(text):
    with contextlib.suppress(ValueError):
        parse_config(text)


# --- RopeConfig and override ---------------------------------------------------------------------
def test_presets_cannot_be_changed_in_place():
    preset = PRESETS["llama-3.1-8b"]
    with pytest.raises(TypeError):
        preset.rope_scaling["factor"] = 16  # type: ignore[index]
    with pytest.raises(AttributeError):
        preset.rope_theta = 1.0  # type: ignore[misc]
    assert isinstance(PRESETS["phi-3-mini-128k"].rope_scaling["long_factor"], tuple)
    mutable = published_config("llama-3.1-8b")
    mutable["rope_scaling"]["factor"] = 99.0
    assert published_config("llama-3.1-8b")["rope_scaling"]["factor"] == 8.0


def test_override_replaces_values_and_checks_them():
    llama = PRESETS["llama-3.1-8b"]
    sixteen = override(llama, factor=16)
    assert sixteen.rope_scaling["factor"] == 16 and sixteen.rope_scaling["rope_type"] == "llama3"
    assert llama.rope_scaling["factor"] == 8.0  # the preset is untouched
    assert (sixteen.name, sixteen.label, sixteen.source) == (llama.name, llama.label,
                                                             llama.source)
    np.testing.assert_allclose(sixteen.scaled_frequencies()[0][-1],
                               llama.scaled_frequencies()[0][-1] / 2)  # the slowest pair
    assert override(llama, rope_theta=1e6).rope_theta == 1e6
    assert override(llama, max_position_embeddings=65536).max_position_embeddings == 65536
    inner = override(llama, original_max_position_embeddings=4096)
    assert inner.rope_scaling["original_max_position_embeddings"] == 4096
    assert inner.original_max_position_embeddings is None
    phi = override(PRESETS["phi-3-mini-128k"], original_max_position_embeddings=8192)
    assert phi.original_max_position_embeddings == 8192  # Phi-3 keeps it at the top level
    qwen = override(PRESETS["qwen2.5-7b-yarn"], beta_fast=16, attention_factor=1.5)
    assert qwen.scaled_frequencies()[1] == 1.5
    assert "attention_factor" not in override(qwen, attention_factor=None).rope_scaling
    linear = override(PRESETS["llama-2-7b"], rope_scaling={"rope_type": "linear", "factor": 2})
    assert linear.rope_type == "linear"
    assert override(linear, rope_scaling=None).rope_scaling is None


@pytest.mark.parametrize("changes, names", [
    ({"factor": 0.5}, ["factor", "0.5"]),
    ({"factor": "16"}, ["factor", "'16'"]),
    ({"rope_theta": 1.0}, ["rope_theta=1.0"]),
    ({"rope_theta": float("nan")}, ["rope_theta=nan"]),
    ({"max_position_embeddings": 0}, ["max_position_embeddings=0"]),
    ({"d_head": 7}, ["d_head=7"]),
    ({"d_head": 4096}, ["d_head=4096"]),
    ({"fctor": 2}, ["fctor=2", "factor"]),
    ({"name": "x"}, ["name='x'"]),
    ({"high_freq_factor": 0.5}, ["high_freq_factor", "greater"]),
    ({"rope_scaling": "yarn"}, ["rope_scaling='yarn'"]),
])
def test_override_rejects_bad_values(changes, names):
    with pytest.raises(ValueError) as error:
        override(PRESETS["llama-3.1-8b"], **changes)
    for name in names:
        assert name in str(error.value), (name, str(error.value))


def test_override_of_a_scaling_key_needs_a_rope_scaling():
    with pytest.raises(ValueError, match="no rope_scaling"):
        override(PRESETS["mistral-7b"], factor=2)


def test_rope_config_checks_its_fields():
    good = {"name": "n", "label": "l", "d_head": 8, "rope_theta": 1e4,
            "max_position_embeddings": 64, "rope_scaling": None, "source": "s"}
    assert RopeConfig(**good).scaled_frequencies()[0].shape == (4,)
    for key, value in [("name", ""), ("label", None), ("d_head", 3), ("rope_theta", "1e4"),
                       ("max_position_embeddings", -1), ("rope_scaling", [1]),
                       ("original_max_position_embeddings", 0)]:
        with pytest.raises(ValueError, match=key):
            RopeConfig(**{**good, key: value})
    assert rope_config.MAX_CONFIG_CHARS == 65536 and rope_config.MAX_JSON_DEPTH == 8


# --- the per-pair table (figures.rope_config.pair_columns) -------------------------------------
def test_the_per_pair_table_holds_each_configs_frequencies_as_transformers_computes_them(hf):
    """Llama 3.1 and Qwen2.5 + YaRN side by side: theta_i as the plain loop writes it,
    theta'_i as transformers' rope function for the model's own config class gives it, their
    ratio, the wavelength 2 pi / theta'_i, and one band per pair from the table's words."""
    from figures.rope_config import band_names, pair_columns

    names = ("llama-3.1-8b", "qwen2.5-7b-yarn")
    shown = [rope_config_curves(PRESETS[name]) for name in names]
    for lang in ("en", "zh"):
        columns = pair_columns(shown, lang)
        assert len(columns) == 1 + 5 * len(names)
        assert all(len(values) == 64 for values in columns.values())
        assert next(iter(columns.values())) == list(range(64))
    columns = pair_columns(shown, "en")
    for curves, name in zip(shown, names, strict=True):
        def column(heading, label=curves.label):
            return np.array(columns[f"{label} · {heading}"])

        config = hf.classes[name](**published_config(name))
        want, _ = hf.init[config.rope_parameters["rope_type"]](config, device="cpu")
        d, base = EXPECTED[name][0], EXPECTED[name][1]
        plain = np.array([base ** (-2 * i / d) for i in range(d // 2)])
        np.testing.assert_allclose(column("θᵢ"), plain, rtol=1e-12)
        np.testing.assert_allclose(column("θ′ᵢ (scaled)"), want.double().numpy(), rtol=1e-6)
        np.testing.assert_allclose(column("θ′ᵢ/θᵢ"), want.double().numpy() / plain, rtol=1e-6)
        np.testing.assert_allclose(column("wavelength 2π/θ′ᵢ"),
                                   2 * math.pi / want.double().numpy(), rtol=1e-6)
        bands = list(column("band"))
        assert set(bands) <= set(band_names("en").values())
        # the first pairs turn as trained, the last are interpolated by the factor
        assert bands[0] == band_names("en")["unchanged"]
        assert bands[-1] == band_names("en")["interpolated"]


# --- variants: a method and its rope_scaling fields, as the config view's controls set them -----
def _validated_keys() -> dict[str, set[str]]:
    """Per method, the rope_scaling keys transformers' `_validate_<method>_rope_parameters` takes
    (required and optional), read from its source."""
    import ast
    import inspect

    from transformers import modeling_rope_utils

    found = {}
    source = inspect.getsource(modeling_rope_utils)
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name.startswith("_validate_") and \
                node.name.endswith("_rope_parameters"):
            method = node.name[len("_validate_"):-len("_rope_parameters")]
            keys: set[str] = set()
            for assign in ast.walk(node):
                if isinstance(assign, ast.Assign) and any(
                        isinstance(target, ast.Name) and target.id in {"required_keys",
                                                                       "optional_keys"}
                        for target in assign.targets) and isinstance(assign.value, ast.Set):
                    keys |= {ast.literal_eval(element) for element in assign.value.elts}
            found[method] = keys
    return found


def test_each_methods_fields_are_the_ones_transformers_validates():
    validated = _validated_keys()
    not_controls = {"rope_type", "rope_theta", "short_factor", "long_factor"}
    for method, fields in METHOD_FIELDS.items():
        assert set(fields) == validated[method] - not_controls, method


@pytest.mark.parametrize("name, rope_type, fields, scaling", [
    ("llama-3.1-8b", "yarn", {"factor": 16, "beta_fast": 24},
     {"rope_type": "yarn", "factor": 16, "beta_fast": 24, "beta_slow": 1.0, "truncate": True,
      "original_max_position_embeddings": 8192}),
    ("llama-3.1-8b", "llama3", {"factor": 16},
     {"rope_type": "llama3", "factor": 16, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
      "original_max_position_embeddings": 8192}),
    ("qwen2.5-7b-yarn", "yarn", {"mscale": 0.707, "mscale_all_dim": 1.0},
     {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768,
      "mscale": 0.707, "mscale_all_dim": 1.0}),
    ("llama-2-7b", "dynamic", {"factor": 4},
     {"rope_type": "dynamic", "factor": 4, "original_max_position_embeddings": 4096}),
    ("deepseek-v2-lite", "linear", {"factor": 8},
     {"rope_type": "linear", "factor": 8, "original_max_position_embeddings": 4096}),
])
def test_a_variant_is_the_config_transformers_reads_with_those_fields(hf, name, rope_type,
                                                                      fields, scaling):
    """The config with its rope_scaling replaced as written out by hand, through transformers'
    model config class and rope function, against `variant`'s frequencies."""
    made = variant(PRESETS[name], rope_type, fields)
    assert dict(made.rope_scaling) == scaling
    config_json = {**published_config(name), "rope_scaling": scaling}
    config = hf.classes[name](**config_json)
    for seq_len in (None, made.max_position_embeddings, 4 * made.max_position_embeddings):
        want, want_attention = hf.init[rope_type](config, device="cpu", seq_len=seq_len)
        got, attention = made.scaled_frequencies(seq_len=seq_len)
        np.testing.assert_allclose(got, want.double().numpy(), rtol=1e-6, atol=0)
        assert attention == pytest.approx(float(want_attention), rel=1e-6)


def test_a_variant_without_scaling_is_still_trained_on_its_own_context():
    unscaled = variant(PRESETS["llama-3.1-8b"], "default", {})
    assert unscaled.rope_scaling is None
    assert config_contexts(unscaled) == (8192, 131072, 1.0)  # L as trained, T as asked
    np.testing.assert_allclose(unscaled.scaled_frequencies()[0],
                               500000.0 ** (-np.arange(0, 128, 2) / 128), rtol=1e-12)


@pytest.mark.parametrize("rope_type, fields, problem", [
    ("llama3", {"beta_fast": 3}, "beta_fast is not read by llama3"),
    ("longrope", {}, "rope_scaling has no 'short_factor'"),
    ("yarn", {"factor": 0.5}, "factor must be"),
    ("llama3", {"low_freq_factor": 4.0, "high_freq_factor": 1.0}, "greater than low_freq_factor"),
    ("rotary", {}, "rope_type='rotary' is not allowed"),
])
def test_a_variant_it_cannot_draw_is_refused_naming_the_field(rope_type, fields, problem):
    with pytest.raises(ValueError, match=re.escape(problem)):
        variant(PRESETS["llama-3.1-8b"], rope_type, fields)


def test_field_values_are_the_configs_own_else_transformers_defaults():
    deepseek = PRESETS["deepseek-v2-lite"]
    assert [field_value(deepseek, n) for n in METHOD_FIELDS["yarn"]] == [
        40.0, 4096, None, 32.0, 1.0, 0.707, 0.707, True]
    llama = PRESETS["llama-3.1-8b"]
    assert [field_value(llama, n) for n in METHOD_FIELDS["llama3"]] == [8.0, 8192, 1.0, 4.0]
    assert field_value(PRESETS["llama-2-7b"], "beta_fast") == 32.0  # YaRN's own default
