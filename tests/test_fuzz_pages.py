"""Fuzzing every page: generated URL parameters and control values never give a traceback.

For every page and every URL parameter it accepts (ui.pages), hypothesis sets values in
range, out of range, negative, zero, NaN, inf, 1e308, empty, 10,000 characters, unicode, emoji,
right-to-left text, HTML and markdown. The page must show its figures or a clear notice, and
every unusable value must get a notice that names its parameter. Bounded: a few examples a page.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.apptest import notices, open_page
from ui.pages import PAGE_PARAMS, PAGES
from ui.params import BoolParam, ChoiceParam, FloatParam, IntParam, Param, TextParam

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = {page.url_path: page.script for page in PAGES}
FUZZED_PAGES = [name for name in PAGE_PARAMS if name in SCRIPTS]

HOSTILE = [
    "", "0", "-1", "-0", "NaN", "nan", "inf", "-inf", "1e308", "-1e308", "1e-320", "3.5",
    "x" * 10_000, "ünïcödé", "😀🙃", "مرحبا بالعالم", "\u202eevil", "位置编码",
    "<img src=x onerror=alert(1)>", "<script>alert(1)</script>", "**x**",
    "[a](javascript:alert(1))", "$x$", "1,2", " 12 ", "0x10", "true",
]


def valid_value(spec: Param) -> st.SearchStrategy[str]:
    if isinstance(spec, IntParam):
        return st.integers(spec.minimum, spec.maximum).map(
            lambda v: str(v - v % spec.multiple_of if v - v % spec.multiple_of >= spec.minimum
                          else spec.minimum)
        )
    if isinstance(spec, FloatParam):
        return st.floats(spec.minimum, spec.maximum, exclude_min=spec.exclusive_minimum).map(repr)
    if isinstance(spec, ChoiceParam):
        return st.sampled_from(spec.choices)
    if isinstance(spec, BoolParam):
        return st.sampled_from(["true", "false"])
    assert isinstance(spec, TextParam)
    return st.text(max_size=40)


def any_value(spec: Param) -> st.SearchStrategy[str]:
    out_of_range: list[str] = []
    if isinstance(spec, IntParam | FloatParam):
        out_of_range = [str(spec.minimum - 1), str(spec.maximum + 1), str(spec.maximum * 1000)]
    return st.one_of(valid_value(spec), st.sampled_from(HOSTILE + out_of_range), st.text())


def is_usable(spec: Param, raw: str) -> bool:
    try:
        spec.parse(raw)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("page", FUZZED_PAGES)
def test_generated_url_parameters(page):
    specs = PAGE_PARAMS[page]

    @settings(max_examples=8, database=None)
    @given(st.data())
    def run(data):
        chosen = data.draw(st.lists(st.sampled_from(specs), unique_by=lambda s: s.name,
                                    min_size=1, max_size=4))
        query = {spec.name: data.draw(any_value(spec), label=spec.name) for spec in chosen}
        at = open_page(SCRIPTS[page], query)
        assert not at.exception, [e.value for e in at.exception]
        shown = notices(at)
        for spec in chosen:
            if not is_usable(spec, query[spec.name]):
                assert any(f"{spec.name}=" in n or f"{spec.name} " in n for n in shown), (
                    spec.name, query[spec.name][:50], shown)
        drawn = len(at.get("plotly_chart")) > 0
        informed = bool(shown) or len(at.info) > 0 or len(at.error) > 0
        assert drawn or informed

    run()


@pytest.mark.parametrize("page", FUZZED_PAGES)
def test_generated_control_values(page):
    """Every control set through its widget to generated allowed values: no exception."""
    specs = [s for s in PAGE_PARAMS[page] if not isinstance(s, TextParam)]

    @settings(max_examples=5, database=None)
    @given(st.data())
    def run(data):
        at = open_page(SCRIPTS[page])
        for _ in range(3):
            # the controls on the page in this state (a view shows its own; `view` switches),
            # but not a disabled one (no one can change it)
            shown = {getattr(w, "key", None): w
                     for kind in ("number_input", "slider", "radio", "toggle", "selectbox",
                                  "select_slider", "checkbox", "multiselect", "segmented_control")
                     for w in at.get(kind) if not getattr(w, "disabled", False)}
            available = [spec for spec in specs if spec.name in shown]
            assert available, "no control of this page was found by its key"
            spec = data.draw(st.sampled_from(available), label="control")
            value = spec.parse(data.draw(valid_value(spec), label=spec.name))
            shown[spec.name].set_value(value).run()
            assert not at.exception, (spec.name, value, [e.value for e in at.exception])

    run()


def _cache_decorators(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for decorator in node.decorator_list:
                text = ast.unparse(decorator)
                if any(name in text for name in ("cache_data", "cache_resource", "bounded_cache",
                                                 "lru_cache", "functools.cache")):
                    yield node.name, decorator


def test_every_page_cache_is_bounded_in_entries_and_bytes():
    """A long-running demo's memory cannot grow without limit: every page and ui cache is a
    `server.cache.bounded_cache` with max_entries and max_bytes (the model is read once, by
    ui.model.cached_minilm, which is no decorated cache)."""
    found = 0
    for path in sorted([*ROOT.glob("app_pages/*.py"), *ROOT.glob("ui/*.py")]):
        for name, decorator in _cache_decorators(path):
            found += 1
            keywords = {k.arg: k.value for k in getattr(decorator, "keywords", [])}
            assert ast.unparse(decorator.func) == "bounded_cache", f"{path.name}: {name}"
            assert {"max_entries", "max_bytes"} <= set(keywords), f"{path.name}: {name}"
    assert found >= 25


def test_cached_values_shared_between_sessions_are_read_only():
    """bounded_cache hands every session the same object (cache_data would hand each a pickled
    copy): the arrays in a cached value refuse changes in place."""
    import numpy as np

    from server.cache import bounded_cache

    @bounded_cache(max_entries=2, max_bytes=2**20)
    def table(n: int):
        return {"rows": [np.zeros(n)], "view": np.arange(n)[::2]}

    value = table(4)
    assert table(4) is value  # the same object, not a copy
    for array in (value["rows"][0], value["view"]):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 1.0


def test_generated_app_wide_url_parameters():
    """lang and present (on every page) take any URL value: a notice, never a traceback."""
    from ui.pages import app_params

    specs = app_params()

    @settings(max_examples=8, database=None)
    @given(st.data())
    def run(data):
        query = {spec.name: data.draw(any_value(spec), label=spec.name) for spec in specs}
        at = open_page("app_pages/home.py", query)
        assert not at.exception, [e.value for e in at.exception]
        shown = notices(at)
        for spec in specs:
            if not is_usable(spec, query[spec.name]):
                assert any(f"{spec.name}=" in n for n in shown), (spec.name, shown)

    run()
