"""Helpers for Streamlit's AppTest: open a page of the multipage app, read its notices."""

from __future__ import annotations

import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

from figures.common import array_of as decode  # noqa: F401  (the one decoder: tests import it)
from locales import message
from ui.text import WORD_JOINER

APP = str(Path(__file__).resolve().parent.parent / "app.py")
# Seconds a run may take before AppTest gives up ("AppTest script run timed out"): a bound for
# a hung script, not a claim about speed (benchmarks measure that). 60 s failed a working page at
# its largest sizes (the similarity page in tests/test_cache_budget.py) with the machine's load
# at 25-50 on 2 cores.
RUN_TIMEOUT_S = 180


def open_page(script: str, query: dict[str, str] | None = None,
              timeout: float = RUN_TIMEOUT_S) -> AppTest:
    """Run the app at `script` (e.g. "app_pages/heatmap.py") with URL query parameters `query`."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    # The URL first, as a browser opening a shared link has it: the app-wide controls (lang,
    # present) read it on the session's first run.
    for name, value in (query or {}).items():
        at.query_params[name] = value
    if Path(script).name == "home.py":  # the default page: the first run is the page
        return at.run()
    # One run first (the home page): until st.navigation has registered the pages, switch_page
    # matches a script by file name, which is not the url_path of e.g. vit_grid.py ("vit-grid").
    # (Notices about lang or present show on that run: test them on the home page.)
    at.run()
    at.switch_page(script)
    return at.run()


def unescape(markdown: str) -> str:
    """Visitor text in markdown is escaped (ui.text.markdown_text: backslashes, and invisible
    word joiners): the text a person reads."""
    return re.sub(r"\\(.)", r"\1", markdown).replace(WORD_JOINER, "")


def notices(at: AppTest) -> list[str]:
    return [unescape(w.value) for w in at.warning]


def plotly_figures(at: AppTest) -> list[dict]:
    """The figures as the browser receives them (AppTest sees plotly charts as JSON specs)."""
    import json

    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def has_cjk(text: str) -> bool:
    """True if `text` holds a Chinese character (CJK unified ideographs)."""
    return any("\u4e00" <= c <= "\u9fff" for c in text)


def figure_titles(at: AppTest) -> list[str]:
    return [figure["layout"]["title"]["text"] for figure in plotly_figures(at)]


def figure_by_title(at: AppTest, title: str) -> dict:
    """The figure (as JSON) whose title is `title`."""
    for figure in plotly_figures(at):
        if figure["layout"]["title"]["text"] == title:
            return figure
    raise AssertionError(f"no figure titled {title!r}: {figure_titles(at)}")


def axis_title(figure: dict, axis: str) -> str:
    return figure["layout"][axis]["title"]["text"]


def control(at: AppTest, key: str):
    """The widget of control `key`, whichever kind the page made it: a number box, a slider or
    a slider of stops (ui.controls.PageControls.stops)."""
    for kind in (at.number_input, at.slider, at.select_slider):
        found = [w for w in kind if w.key == key]
        if found:
            return found[0]
    raise KeyError(key)


def set_control(at: AppTest, key: str, value) -> AppTest:
    """Set control `key` as a person would and run: a value that is not one of a slider's stops
    is typed into the slider's exact box (the pencil beside it)."""
    widget = control(at, key)
    if widget.type == "select_slider" and str(value) not in widget.options and not (
        isinstance(value, float) and value.is_integer() and str(int(value)) in widget.options
    ):
        # The box exists only while its popover is open (ui.controls.PageControls.stops).
        if not [w for w in at.number_input if w.key == f"_exact_{key}"]:
            at.session_state[f"_exact_box_{key}"] = True
            at.run()
        exact = [w for w in at.number_input if w.key == f"_exact_{key}"]
        assert exact, f"{key}: {value} is not a stop and there is no exact box"
        return exact[0].set_value(value).run()
    if widget.type == "select_slider" and isinstance(value, float) and value.is_integer():
        value = type(widget.value)(value)
    return widget.set_value(value).run()


def figure_titled(at, words: str) -> dict:
    for figure in plotly_figures(at):
        if words in figure["layout"]["title"]["text"]:
            return figure
    raise AssertionError(f"no figure titled with {words!r}")


# --- sections: one at a time, in the URL as `view` -----------------------------------------------
SECTIONS = {  # page script -> its sections -> the charts each draws
    "app_pages/rope.py": {"rotation": ["rotation_chart"], "relative": ["logits_chart"],
           "decay": ["decay_chart"], "extension": ["extension_chart"],
           "config": ["config_wavelengths_chart", "config_angles_chart", "config_logits_chart"]},
    "app_pages/alibi.py": {"slopes": ["slopes_chart"], "heads": ["bias_grid_chart"],
                           "head": ["head_chart"], "reach": ["reach_chart"],
                           "t5": ["t5_buckets_chart", "t5_matrix_chart"],
                           "xpos": ["xpos_chart"]},
}


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def markdown(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def show_section(at, view: str):
    """Switch the page to the section `view` (the `view` radio, as a visitor does)."""
    at.radio(key="view").set_value(view).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def zh(key: str, **values: object) -> str:
    return message(key, "zh", **values)


# What `texts` reads: prose (the default), prose and notices, every text of the page.
PROSE = ("markdown", "caption")
WITH_NOTICES = ("markdown", "caption", "info", "subheader")
EVERY_TEXT = ("markdown", "caption", "info", "warning", "error", "subheader", "title")


def texts(at: AppTest, kinds: tuple[str, ...] = PROSE) -> str:
    """The page's texts of those kinds (main area and sidebar), one per line, kind by kind."""
    return "\n".join(el.value for kind in kinds for el in getattr(at, kind))


def open_with_one_bad_value(script: str, name: str, value: str) -> AppTest:
    """The page at `script` opened with one unusable URL value: no exception, and exactly one
    notice, naming the parameter and saying its default is used."""
    at = open_page(script, {name: value})
    assert not at.exception
    messages = notices(at)
    assert len(messages) == 1, messages
    assert messages[0].startswith(f"URL parameter {name}=")
    assert "Using the default" in messages[0] or "as by default" in messages[0]
    return at


def open_at_defaults(script: str, charts: int) -> AppTest:
    """The page at `script` opened at its defaults: no exception, no notice, `charts` charts."""
    at = open_page(script)
    assert not at.exception
    assert notices(at) == []
    assert len(plotly_figures(at)) == charts
    return at
