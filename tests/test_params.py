"""URL/control parameter specs: parsing accepts exactly the allowed values, messages name them."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core import limits
from tests.apptest import open_page
from ui.pages import PAGE_PARAMS
from ui.params import BASE_PARAM, D_MODEL_PARAM, LAYOUT_PARAM, POSITIONS_PARAM, BoolParam, TextParam


@given(st.integers(-10**6, 10**6))
def test_d_model_accepts_exactly_even_values_in_range(value):
    ok = 2 <= value <= limits.MAX_D_MODEL and value % 2 == 0
    if ok:
        assert D_MODEL_PARAM.parse(str(value)) == value
    else:
        with pytest.raises(ValueError, match=f"d_model={value} is not allowed"):
            D_MODEL_PARAM.parse(str(value))


@given(st.text(max_size=60))
def test_any_text_either_parses_or_names_the_parameter(text):
    for spec in (D_MODEL_PARAM, POSITIONS_PARAM, BASE_PARAM, LAYOUT_PARAM):
        try:
            value = spec.parse(text)
        except ValueError as error:
            assert str(error).startswith(f"{spec.name}")
        else:
            assert spec.validate(value) == value


@pytest.mark.parametrize("raw", ["nan", "inf", "-inf", "1e308", "1", "0.5", "", "ten"])
def test_base_refuses(raw):
    with pytest.raises(ValueError, match=r"base=.* must be a number > 1"):
        BASE_PARAM.parse(raw)


def test_base_accepts_float_text():
    assert BASE_PARAM.parse("500000") == 500000.0
    assert math.isclose(BASE_PARAM.parse("1.0001"), 1.0001)


def test_repeated_parameter_is_refused():
    with pytest.raises(ValueError, match="given 2 times"):
        POSITIONS_PARAM.parse(["3", "4"])


def test_long_values_are_shortened_in_messages():
    with pytest.raises(ValueError) as error:
        LAYOUT_PARAM.parse("x" * 10_000)
    assert len(str(error.value)) < 200


def test_bool_and_text():
    flag = BoolParam("cls_token", False)
    assert flag.parse("true") is True and flag.parse("0") is False
    with pytest.raises(ValueError, match="cls_token=maybe"):
        flag.parse("maybe")
    text = TextParam("sentence", "x", max_length=5)
    with pytest.raises(ValueError, match="6 characters"):
        text.parse("abcdef")


def test_every_page_default_is_valid():
    for page, specs in PAGE_PARAMS.items():
        names = [spec.name for spec in specs]
        assert len(names) == len(set(names)), page
        for spec in specs:
            assert spec.validate(spec.default) == spec.default, (page, spec.name)


# --- the link to a view (ui.share): url_value writes what parse reads back ----------------------
def _all_specs():
    from ui.pages import app_params

    return [spec for specs in (*PAGE_PARAMS.values(), app_params()) for spec in specs]


@pytest.mark.parametrize("spec", _all_specs(), ids=lambda s: s.name)
def test_url_value_round_trips_through_parse(spec):
    from hypothesis import settings

    from ui.params import ChoiceParam, FloatParam, IntParam, url_value

    if isinstance(spec, IntParam):
        values = st.integers(spec.minimum, spec.maximum).map(
            lambda v: max(spec.minimum, v - v % spec.multiple_of))
    elif isinstance(spec, FloatParam):
        values = st.floats(spec.minimum, spec.maximum, exclude_min=spec.exclusive_minimum)
    elif isinstance(spec, ChoiceParam):
        values = st.sampled_from(spec.choices)
    elif isinstance(spec, BoolParam):
        values = st.booleans()
    elif spec.check is not None:  # a code (the RoPE view's configs): codes it makes
        from core.rope_config import PRESETS
        from ui.rope_codes import pack_overlay, pack_pasted, pinned

        codes = {"overlay": pack_overlay([pinned("x", PRESETS["llama-2-7b"], "yarn",
                                                 {"factor": 4})]),
                 "pasted": pack_pasted(PRESETS["phi-3-mini-128k"])}
        values = st.sampled_from(["", codes[spec.name]])
    else:
        values = st.text(max_size=spec.max_length)

    @settings(max_examples=30)
    @given(values)
    def run(value):
        text = url_value(spec, value)
        if value == spec.default:
            assert text is None  # a link carries only what differs from the default
        else:
            assert spec.parse(text) == value

    run()


def test_present_accepts_the_documented_spellings():
    from ui.pages import app_params

    present = {p.name: p for p in app_params()}["present"]
    for raw in ("1", "true", "yes", "on", "TRUE"):
        assert present.parse(raw) is True
    for raw in ("0", "false", "no", "off"):
        assert present.parse(raw) is False
    with pytest.raises(ValueError, match="present=maybe is not allowed"):
        present.parse("maybe")


VIT_GRID = "app_pages/vit_grid.py"


def test_every_url_parameter_of_the_contract_is_a_control():
    expected = {
        "wavelengths": {"d_model", "positions", "base", "dims"},
        "similarity": {"d_model", "positions", "base", "anchor", "offset", "metric"},
        "vit-grid": {"grid_h", "grid_w", "d_model", "base", "cls_token", "patch"},
    }
    for page, names in expected.items():
        assert names <= {p.name for p in PAGE_PARAMS[page]}
    at = open_page(VIT_GRID)
    keys = {w.key for w in at.number_input} | {w.key for w in at.text_input}
    keys |= {w.key for w in at.toggle} | {w.key for w in at.slider}
    keys |= {w.key for w in at.select_slider}
    assert {"grid_h", "grid_w", "d_model", "base", "cls_token", "patch"} <= keys
