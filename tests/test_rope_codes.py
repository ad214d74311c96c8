"""The RoPE config view's configs in a link (ui/rope_codes.py): pinned variants and pasted
RoPE fields go through their codes unchanged, and any code that is not one of them, too long,
too many or inflating past its cap is refused with a message saying why."""

from __future__ import annotations

import base64
import json
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.rope_config import METHOD_FIELDS, PRESETS, parse_config, variant
from ui.codec import pack
from ui.params import ParamError
from ui.rope_codes import (
    MAX_OVERLAY_CODE,
    MAX_PINNED,
    CodeError,
    pack_overlay,
    pack_pasted,
    pasted_fields,
    pinned,
    unpack_overlay,
    unpack_pasted,
)

PHI3 = PRESETS["phi-3-mini-128k"]


def test_a_paste_without_a_head_width_travels_without_one():
    """RoPE's fields alone: the code leaves head_dim out (the link's `head_dim` gives it), and
    reads back at whichever width it is given, 128 by default."""
    fields = {"rope_theta": 1e6, "max_position_embeddings": 32768,
              "rope_scaling": {"type": "yarn", "factor": 4.0,
                               "original_max_position_embeddings": 32768}}
    config = parse_config(json.dumps(fields), default_head_dim=96)
    code = pack_pasted(config, head_width=False)
    assert "head_dim" not in pasted_fields(code)
    assert unpack_pasted(code).d_head == 128
    assert unpack_pasted(code, head_dim=96) == config
    assert pasted_fields(pack_pasted(config))["head_dim"] == 96  # a width of its own: kept


def test_pinned_variants_come_back_the_same_configs():
    llama = PRESETS["llama-3.1-8b"]
    pins = [pinned("unscaled", llama, "default", {}),
            pinned("llama3 ×16", llama, None, {"factor": 16}),
            pinned("YaRN ×16, beta_fast 24", llama, "yarn", {"factor": 16, "beta_fast": 24})]
    code = pack_overlay(pins)
    assert len(code) < 200  # a preset and its changed fields, not the config
    back = unpack_overlay(code)
    assert [p.name for p in back] == ["unscaled", "llama3 ×16", "YaRN ×16, beta_fast 24"]
    assert [p.config for p in back] == [
        variant(llama, "default", {}), variant(llama, "llama3", {"factor": 16}),
        variant(llama, "yarn", {"factor": 16, "beta_fast": 24})]


def test_a_pasted_config_travels_as_its_rope_fields_only():
    text = json.dumps({"_name_or_path": "someone/secret-model", "vocab_size": 32000,
                       **PHI3.to_config_json()})
    pasted = parse_config(text)
    code = pack_pasted(pasted)
    assert len(code) < 1500  # LongRoPE's 96 factors, deflated
    assert unpack_pasted(code).to_config_json() == PHI3.to_config_json()
    assert "secret" not in zlib.decompress(base64.urlsafe_b64decode(code + "==")).decode()
    # pinned, a pasted config carries its fields too (there is no preset to name)
    [back] = unpack_overlay(pack_overlay([pinned("mine", pasted, None, {"factor": 40})]))
    assert back.preset is None and back.config.rope_scaling["factor"] == 40


def bomb() -> str:
    return base64.urlsafe_b64encode(zlib.compress(b"[" + b" " * 200_000 + b"]")).decode()


@pytest.mark.parametrize("code, problem", [
    ("garbage", "not an overlay's code"),
    ("%00", "not an overlay's code"),
    (pack({"n": "x"}), "not an overlay's code"),
    (pack([]), "not an overlay's code"),
    (pack([{"n": "x", "p": "gpt-5"}]), "'gpt-5' is not a preset"),
    (pack([{"n": "x", "p": "llama-2-7b", "c": {}}]), 'each config must be'),
    (pack([{"n": "x", "p": "llama-2-7b", "t": "rotary"}]), "'rotary' is not a method"),
    (pack([{"n": "x", "p": "llama-2-7b", "t": "llama3", "f": {"beta_fast": 3}}]),
     "beta_fast is not read by llama3"),
    (pack([{"n": "x", "p": "llama-2-7b", "f": []}]), '"f" must be an object'),
    (pack([{"n": 7, "p": "llama-2-7b"}]), "name must be text"),
    (pack([{"n": "x", "c": {"head_dim": 64}}]), "no max_position_embeddings"),
    (pack([{"n": "x", "c": {"head_dim": 64, "max_position_embeddings": 8, "x": 1}}]),
     "fields must be an object of"),
    (pack([{"n": "x", "p": "llama-2-7b"}] * (MAX_PINNED + 1)), f"at most {MAX_PINNED}"),
    ("A" * (MAX_OVERLAY_CODE + 1), f"at most {MAX_OVERLAY_CODE}"),
    (bomb(), "not an overlay's code"),
])
def test_a_code_that_is_no_overlay_is_refused_saying_why(code, problem):
    with pytest.raises(CodeError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        unpack_overlay(code)


def test_the_url_parameters_refuse_what_their_codes_refuse():
    from ui.pages import params_of

    params = params_of("rope")
    with pytest.raises(ParamError) as raised:
        params["overlay"].parse("garbage")
    assert str(raised.value) == "overlay is not usable: it is not an overlay's code"
    with pytest.raises(ParamError, match="pasted is not usable"):
        params["pasted"].parse(pack({"head_dim": 63, "max_position_embeddings": 8}))
    assert params["overlay"].parse("") == ""


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(sorted(PRESETS)), st.sampled_from(sorted(METHOD_FIELDS)),
                          st.integers(1, 64), st.text(max_size=80)),
                min_size=1, max_size=MAX_PINNED))
def test_any_pins_of_presets_round_trip(pins):
    made = []
    for name, method, factor, label in pins:
        fields = {"factor": factor} if "factor" in METHOD_FIELDS[method] else {}
        try:
            made.append(pinned(label, PRESETS[name], method, fields))
        except CodeError:  # longrope without its lists: refused when pinned, never coded
            continue
    back = unpack_overlay(pack_overlay(made))
    assert [(p.name, p.config) for p in back] == [(p.name, p.config) for p in made]
    assert all(len(p.name) <= 60 and "\n" not in p.name for p in back)
