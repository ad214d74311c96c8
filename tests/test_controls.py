"""The controls (ui.controls) through Streamlit's AppTest: sliders for the numbers people sweep,
links in the form they have always had, controls a view does not use left out of sight."""

from __future__ import annotations

import pytest

from tests.apptest import control, notices, open_page, set_control
from ui.controls import GROUP_PREFIX, HIDDEN_MARKER, base_stops, count_stops, size_stops
from ui.pages import PAGE_PARAMS

# Links as they have been shared, with values that are not a slider's stops (768, 96, 300,
# 1e4 written the short way, a leading zero).
OLD_LINKS = [
    ("app_pages/heatmap.py", {"d_model": "768", "positions": "100", "base": "500000"}),
    ("app_pages/heatmap.py", {"d_model": "0130", "positions": "77", "base": "1e4"}),
    ("app_pages/wavelengths.py", {"d_model": "96", "positions": "300", "base": "2345.5"}),
    ("app_pages/rope.py", {"d_head": "96", "base": "500000", "positions": "300",
                           "factor": "8", "view": "extension"}),
    ("app_pages/alibi.py", {"num_heads": "12", "positions": "100", "head": "3",
                            "view": "head"}),
    ("app_pages/vit_grid.py", {"grid_h": "6", "grid_w": "10", "d_model": "192",
                               "base": "100"}),
    ("app_pages/extrapolation.py", {"train_length": "1000", "target_length": "3000",
                                    "d_model": "96"}),
    ("app_pages/word_position.py", {"embedding": "random", "encoding": "sinusoidal",
                                    "d_model": "24"}),
]


@pytest.mark.parametrize(("script", "query"), OLD_LINKS,
                         ids=[f"{s.split('/')[-1][:-3]}-{i}" for i, (s, _) in
                              enumerate(OLD_LINKS)])
def test_links_in_todays_form_set_every_control(script, query):
    at = open_page(script, query)
    assert not at.exception, [e.value for e in at.exception]
    assert notices(at) == []
    for name, text in query.items():
        if name in ("view", "embedding", "encoding"):
            continue
        widget = control(at, name)
        assert float(widget.value) == float(text), (name, widget.value, text)


def test_stops_are_the_usual_values_within_the_limits():
    params = {p.name: p for p in PAGE_PARAMS["heatmap"]}
    widths = size_stops(params["d_model"])
    assert {2, 64, 128, 512, 768, 1024, 4096} <= set(widths)
    assert all(w % 2 == 0 and 2 <= w <= 4096 for w in widths)
    vit = {p.name: p for p in PAGE_PARAMS["vit-grid"]}["d_model"]
    assert all(w % 4 == 0 for w in size_stops(vit)) and 768 in size_stops(vit)
    counts = count_stops(params["positions"])
    assert counts[0] == 1 and counts[-1] == 8192 and {50, 100, 128, 2048} <= set(counts)
    assert base_stops(params["base"])[:3] == [10.0, 100.0, 500.0]
    assert 10000.0 in base_stops(params["base"]) and 500000.0 in base_stops(params["base"])


def test_a_sliders_exact_box_is_built_only_while_its_popover_is_open():
    """A change of any control does not re-send a hidden box per slider."""
    at = open_page("app_pages/heatmap.py", {"d_model": "64", "positions": "20"})
    assert not [w for w in at.number_input if w.key.startswith("_exact_")]
    at.session_state["_exact_box_d_model"] = True
    at.run()
    assert [w.key for w in at.number_input if w.key.startswith("_exact_")] == ["_exact_d_model"]


def test_a_value_typed_into_the_exact_box_becomes_the_sliders():
    at = open_page("app_pages/heatmap.py", {"d_model": "64", "positions": "20"})
    assert control(at, "d_model").type == "select_slider"
    at = set_control(at, "d_model", 130)  # not a stop: typed into the box
    assert not at.exception
    assert control(at, "d_model").value == 130
    assert "130" in control(at, "d_model").options
    # The figure follows: 130 columns.
    assert "130 dimensions" in " ".join(m.value for m in at.markdown)


@pytest.mark.parametrize(("script", "view", "hidden", "shown", "absent"), [
    ("app_pages/rope.py", "extension", {"positions"}, {"factor"}, {"layout", "scaling"}),
    ("app_pages/rope.py", "decay", set(), {"positions"}, {"layout", "scaling", "factor"}),
    ("app_pages/rope.py", "rotation", {"factor"}, {"layout", "scaling", "positions"},
     {"config", "compare"}),
])
def test_a_view_hides_the_page_controls_it_does_not_use_and_keeps_their_values(
    script, view, hidden, shown, absent
):
    """Page controls a view does not use are still made (in a container the page's CSS hides),
    so Streamlit keeps their URL values and the link carries them; shown ones are outside any
    hidden block; other views' own controls are not made (they live in those views)."""
    at = open_page(script, {"view": view})
    assert not at.exception, [e.value for e in at.exception]
    hidden_keys = _keys_in_hidden_blocks(at)
    assert hidden <= hidden_keys, hidden_keys
    assert not (shown & hidden_keys), shown & hidden_keys
    made = {w.key for w in at.main.radio} | {w.key for w in at.sidebar.radio} | {
        w.key for w in [*at.slider, *at.select_slider]}
    assert shown <= made and not (absent & made), (made, absent)


def _keys_in_hidden_blocks(at) -> set[str]:
    """Keys of the widgets inside `shown` blocks that hold the hidden marker (ui.controls)."""
    found: set[str] = set()

    def key_of(node) -> str:
        return str(getattr(node, "key", None) or getattr(getattr(node, "proto", None), "key", "")
                   or "")

    def hidden(node) -> bool:
        return key_of(node).startswith(GROUP_PREFIX) and any(
            HIDDEN_MARKER in str(getattr(child, "proto", "")) for child in
            getattr(node, "children", {}).values())

    def walk(node, inside: bool) -> None:
        here = inside or hidden(node)
        widget_key = getattr(node, "key", None)
        if here and widget_key and not str(widget_key).startswith(GROUP_PREFIX):
            found.add(widget_key)
        for child in getattr(node, "children", {}).values():
            walk(child, here)

    walk(at._tree, False)
    return found


def test_a_bad_switch_value_is_explained_as_a_person_would():
    """Not "Using the default, False": the switch stays off (or on)."""
    at = open_page("app_pages/home.py", {"present": "2"})
    [notice] = notices(at)
    assert notice.startswith("URL parameter present=2 is not allowed")
    assert notice.endswith("It stays off, as by default.") and "False" not in notice
    at = open_page("app_pages/alibi.py", {"causal": "maybe", "lang": "zh"})
    assert notices(at) == ["URL 参数 causal=maybe 不可用：请用 true 或 false。保持默认的开启状态。"]
