"""ui.codec: what a link's code can be. Any text a stranger puts in a link decodes to its value
or raises ValueError (the pages turn that into their notice), never anything else: arbitrary
bytes, deflated or not, and JSON nested to any depth."""

from __future__ import annotations

import base64
import contextlib
import json
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core._checks import json_depth
from ui.codec import MAX_CODE_DEPTH, pack, unpack

CAP = 16 * 1024


def code_of(raw: bytes, *, deflate: bool = True) -> str:
    data = zlib.compress(raw, 9) if deflate else raw
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def decodes_or_refuses(code: str) -> None:
    with contextlib.suppress(ValueError):  # the documented refusal; anything else fails
        unpack(code, max_inflated=CAP)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20)


@given(json_values)
def test_a_packed_value_comes_back(value):
    if json_depth(json.dumps(value)) <= MAX_CODE_DEPTH:
        assert unpack(pack(value), max_inflated=10**6) == value


@given(st.binary(max_size=400), st.booleans())
def test_any_bytes_deflated_or_not_decode_or_are_refused(raw, deflate):
    decodes_or_refuses(code_of(raw, deflate=deflate))


@given(st.text(max_size=200))
def test_any_text_as_a_code_decodes_or_is_refused(text):
    decodes_or_refuses(text)


@given(st.integers(min_value=0, max_value=20_000), st.sampled_from("[{"),
       st.sampled_from(["", "]", "}", "0", '"a":', "[1,"]))
def test_json_nested_to_any_depth_is_refused_not_raised(depth, opening, tail):
    raw = (opening * depth + tail * depth).encode()
    decodes_or_refuses(code_of(raw))


@pytest.mark.parametrize("depth", [MAX_CODE_DEPTH + 1, 999, 5000, 100_000])
def test_a_deeply_nested_code_is_a_value_error(depth):
    code = code_of(b"[" * depth + b"]" * depth)
    with pytest.raises(ValueError, match="not a code"):
        unpack(code, max_inflated=10**6)


def test_nesting_up_to_the_cap_is_read():
    value = 1
    for _ in range(MAX_CODE_DEPTH):
        value = [value]
    assert unpack(pack(value), max_inflated=CAP) == value


@pytest.mark.parametrize(("text", "depth"), [
    ("1", 0), ("[]", 1), ('{"a": [1, {"b": []}]}', 4), ('["[[[[", "]"]', 1),
    ('["\\"[[["]', 1), ("[[[", 3),
])
def test_json_depth_counts_brackets_outside_strings(text, depth):
    assert json_depth(text) == depth
