"""The controls (ui.controls) through Streamlit's AppTest: sliders for the numbers people sweep,
links in the form they have always had, controls a view does not use left out of sight, choices
shown by their labels while their links keep the values."""

from __future__ import annotations

import pytest

from tests.apptest import control, notices, open_page, set_control
from ui import controls
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
    # One pair turns the same in either layout: the rotation view keeps it but does not show it.
    ("app_pages/rope.py", "rotation", {"factor", "layout"}, {"scaling", "positions"},
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


# --- choices: labels on screen, values in the URL (ui.controls.PageControls.choice) ----------
def test_a_choice_shows_labels_and_writes_values_into_the_url():
    at = open_page("app_pages/wavelengths.py", {"lang": "zh"})
    view = at.radio(key="view")
    assert view.options == ["曲线", "时钟"] and view.value == "curves"
    at = view.set_value("clocks").run()
    assert at.radio(key="view").value == "clocks"
    assert dict(at.query_params) == {"lang": "zh", "view": "clocks"}
    at = at.radio(key="view").set_value("curves").run()  # the default: left out, as Streamlit's
    assert dict(at.query_params) == {"lang": "zh"}       # bound widgets leave it


def test_a_choice_stays_when_the_language_changes():
    """The browser sends back the label it shows; the choice reads it in the language it was
    drawn in."""
    at = open_page("app_pages/wavelengths.py", {"lang": "zh", "view": "clocks",
                                                "timescales": "tensor2tensor"})
    at = at.radio(key="lang").set_value("en").run()
    assert at.radio(key="view").options == ["curves", "clocks"]
    assert at.radio(key="view").value == "clocks"
    assert at.radio(key="timescales").value == "tensor2tensor"
    assert dict(at.query_params) == {"view": "clocks", "timescales": "tensor2tensor"}


def test_another_views_choice_leaves_the_url_and_comes_back_with_its_value():
    """As a bound widget's parameter: dropped once its control is no longer made, written again
    when its view is back; a link's value for a view not shown waits in the URL."""
    at = open_page("app_pages/rope.py", {"view": "decay", "layout": "half_split"})
    assert dict(at.query_params) == {"view": "decay", "layout": "half_split"}
    at = at.radio(key="view").set_value("rotation").run()
    assert at.radio(key="layout").value == "half_split"
    assert dict(at.query_params) == {"layout": "half_split"}
    at = at.radio(key="view").set_value("decay").run()
    assert dict(at.query_params) == {"view": "decay"}
    at = at.radio(key="view").set_value("rotation").run()
    assert at.radio(key="layout").value == "half_split"
    assert dict(at.query_params) == {"layout": "half_split"}


def test_back_and_forward_give_the_choices_the_urls_values(monkeypatch):
    """The browser's back button: the URL decides, its missing parameters the defaults."""
    at = open_page("app_pages/rope.py", {"layout": "half_split", "scaling": "ntk_aware"})
    at.query_params.clear()
    at.query_params["scaling"] = "position_interpolation"
    monkeypatch.setattr(controls, "history_navigation", lambda: True)
    at.run()
    assert at.radio(key="layout").value == "interleaved"
    assert at.radio(key="scaling").value == "position_interpolation"
    assert dict(at.query_params) == {"scaling": "position_interpolation"}


def test_streamlit_still_says_when_a_run_is_a_history_navigation():
    """`ui.controls.history_navigation` reads this field of Streamlit's run context."""
    from dataclasses import fields

    from streamlit.runtime.scriptrunner_utils.script_run_context import ScriptRunContext

    assert "is_history_navigation" in {f.name for f in fields(ScriptRunContext)}
