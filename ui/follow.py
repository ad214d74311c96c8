"""A drag the server follows: the pictures of a slider whose values need new numbers.

A slider with live states (`figures.common.add_live_states`) moves its charts in the browser.
Any other slider sends its value on release only, so its charts would stand still while it is
dragged. Instead, while its thumb is dragged, the browser (ui/chart/follow.js)
sends the value under the pointer as a chart element's "follow" trigger. It sends one value at a
time: the next goes when the run the last one started has finished, and it is the newest value
then, so stale values never queue.

`on_follow`, the element's callback, reruns the parts of the page the control redraws (its
`redraws=` fragments, as a release does) at that value. `PageControls.current` gives them the
value for that run alone. The control's widget, its URL parameter, the link and the session keep
their value, and the release then draws its own value as before.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitAPIException

from ui.pages import PAGE_PARAMS
from ui.params import ParamError

# The page's controls a drag can be followed for: {"page": page, "controls": {name: fragments}}.
FOLLOWABLE = "_pe_followable"
# The value being followed: {"page", "name", "value", "run"} ("run": the run that draws it).
FOLLOWING = "_pe_following"
# The control whose release this run draws, and the run: a follow sent just before the release
# and handled in the same run (Streamlit merges waiting requests) is not drawn over it.
RELEASED = "_pe_released"
# The longest value text taken (a slider's value as its URL writes it).
MAX_TEXT = 40


def register(page: str, name: str, redraws: Sequence[str]) -> None:
    """Control `name` of `page` redraws the fragments keyed `redraws`: its drag can be
    followed there."""
    state = st.session_state
    table = state.get(FOLLOWABLE)
    if not table or table["page"] != page:
        table = state[FOLLOWABLE] = {"page": page, "controls": {}}
    table["controls"][name] = tuple(redraws)


def followable() -> list[str]:
    """The controls of the current page whose drags can be followed (sent to each chart)."""
    table = st.session_state.get(FOLLOWABLE)
    return sorted(table["controls"]) if table else []


def _this_run() -> Any:
    """An object that is this script run's own: Streamlit makes a new parallel-fragment
    coordinator in each run's `ScriptRunContext.reset` (tests/test_streamlit_internals.py)."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    return getattr(ctx, "parallel_coordinator", None)


def _is_this_run(ref: weakref.ref | None) -> bool:
    run = _this_run()
    return ref is not None and run is not None and ref() is run


def on_follow(key: str) -> None:
    """Chart `key`'s "follow" trigger ({"name", "value"}): rerun what the control redraws, at
    that value. Anything else (a crafted message: an unknown control, an unusable value) is
    ignored, leaving the element's own rerun."""
    state = st.session_state
    follow = getattr(state.get(key), "follow", None)
    table = state.get(FOLLOWABLE)
    if not isinstance(follow, dict) or not table:
        return
    name, text = follow.get("name"), follow.get("value")
    if not isinstance(name, str) or name not in table["controls"] \
            or not isinstance(text, str) or len(text) > MAX_TEXT:
        return
    param = next(p for p in PAGE_PARAMS[table["page"]] if p.name == name)
    try:
        value = param.parse([text])
    except ParamError:
        return
    released = state.get(RELEASED)
    if released and released[0] == name and _is_this_run(released[1]):
        return  # its release is drawn in this run
    state[FOLLOWING] = {"page": table["page"], "name": name, "value": value, "run": None}
    try:
        st.rerun(scope=list(table["controls"][name]))
    except StreamlitAPIException:  # no fragment by that key was drawn
        state.pop(FOLLOWING, None)


def on_release(name: str) -> None:
    """Control `name`'s value changed in this run: what is followed for it is over."""
    state = st.session_state
    run = _this_run()
    state[RELEASED] = (name, weakref.ref(run) if run is not None else None)
    following = state.get(FOLLOWING)
    if following and following["name"] == name:
        state.pop(FOLLOWING, None)


NOT_FOLLOWED = object()


def followed(page: str, name: str) -> Any:
    """The value control `name` of `page` is drawn at in this run while its drag is followed,
    else NOT_FOLLOWED. The first run to read a followed value draws it (the run `on_follow`
    started); any later run forgets it."""
    state = st.session_state
    following = state.get(FOLLOWING)
    if not following or following["page"] != page or following["name"] != name:
        return NOT_FOLLOWED
    run = _this_run()
    if run is None:
        return NOT_FOLLOWED
    if following["run"] is None:
        following["run"] = weakref.ref(run)
    elif following["run"]() is not run:
        state.pop(FOLLOWING, None)
        return NOT_FOLLOWED
    return following["value"]
