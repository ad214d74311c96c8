"""URL-bound controls with clear notices for bad values.

Every control is bound to a URL query parameter of the same name with Streamlit's own
``bind="query-params"`` (its key is the parameter name). Streamlit silently drops URL values it
cannot parse and lets through some that the page cannot use (an odd ``d_model``); this class reads
the raw URL once per page visit, checks every value against its `core.params` spec, and

- shows a notice that names the parameter, the value and what is allowed, and
- when a widget ended up holding an unusable value, resets it to the default (one rerun, since a
  widget's value can only be set before the widget is created) so the page and the URL agree.

A usable value that Streamlit itself would drop (it reads only ``true``/``false`` for a toggle,
while ``present=1`` is the documented form) is handed to the widget through session state.
Notices are in the visitor's language (`ui.i18n`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from core.params import BoolParam, ChoiceParam, FloatParam, IntParam, Param, ParamError, TextParam
from ui import share
from ui.i18n import current_language, t
from ui.text import escape_markdown


class PageControls:
    def __init__(self, page: str, params: Sequence[Param]) -> None:
        self.page = page
        self.params: dict[str, Param] = {p.name: p for p in params}
        self._to_reset: set[str] = set()
        self._notice_area = st.container()  # notices show here, above the page's content
        state = st.session_state
        for name in state.pop(f"_reset:{page}", ()):
            state[name] = self.params[name].default  # before the widget exists: allowed
        self.notices: list[str] = state.pop(f"_notices:{page}", None) or []
        checked = f"_url_checked:{page}"
        if checked not in state:  # first run of this page in this session: read the raw URL
            state[checked] = True
            found = {p.name: self._check_url(p) for p in params if p.name in st.query_params}
            unusable = [name for name, notice in found.items() if notice]
            spelled = [  # present=1, yes, on: usable, but Streamlit reads only true/false
                p for p in params
                if isinstance(p, BoolParam) and p.name in found and not found[p.name]
                and st.query_params[p.name] not in ("true", "false")
            ]
            for param in spelled:
                value = param.parse(st.query_params[param.name])
                st.query_params[param.name] = "true" if value else "false"
            if unusable or spelled:
                # Drop them from the URL and run again before any widget reads them: Streamlit
                # seeds bound widgets from the URL the run started with, and some values it
                # cannot parse at all (an int widget given "inf" raises OverflowError).
                for name in unusable:
                    del st.query_params[name]
                state[f"_notices:{page}"] = [found[name] for name in unusable]
                st.rerun()

    @staticmethod
    def _notice(param: Param, error: ParamError) -> str:
        error_text = error.in_language(current_language())
        return t("controls.url_notice", error=error_text, default=param.default)

    def _check_url(self, param: Param) -> str | None:
        try:
            param.parse(st.query_params.get_all(param.name))
        except ParamError as error:
            return self._notice(param, error)
        return None

    def _checked(self, name: str, value: Any) -> Any:
        param = self.params[name]
        try:
            value = param.validate(value)
        except ParamError as error:
            self._to_reset.add(name)
            message = self._notice(param, error)
            if message not in self.notices:
                self.notices.append(message)
            value = param.default
        share.record(param, value)
        return value

    # --- widgets, each bound to the URL parameter named like its key --------------------------
    def number(self, name: str, label: str, *, help: str | None = None, fmt: str | None = None):
        param = self.params[name]
        assert isinstance(param, IntParam | FloatParam)
        if isinstance(param, IntParam):
            step: int | float = param.multiple_of
        else:
            step = max(param.default / 10, 0.1)
        value = st.number_input(
            label,
            min_value=param.minimum,
            max_value=param.maximum,
            value=param.default,
            step=step,
            format=fmt,
            key=name,
            help=help,
            bind="query-params",
        )
        return self._checked(name, value)

    def slider(self, name: str, label: str, *, help: str | None = None) -> int:
        param = self.params[name]
        assert isinstance(param, IntParam)
        value = st.slider(
            label,
            min_value=param.minimum,
            max_value=param.maximum,
            value=param.default,
            step=param.multiple_of,
            key=name,
            help=help,
            bind="query-params",
        )
        return self._checked(name, value)

    def choice(
        self, name: str, label: str, *, help: str | None = None,
        captions: Sequence[str] | None = None,
    ) -> str:
        # No format_func: a bound radio writes the *formatted* label into the URL, so the option
        # shown must be the value itself for links to stay the documented contract.
        param = self.params[name]
        assert isinstance(param, ChoiceParam)
        value = st.radio(
            label,
            param.choices,
            index=param.choices.index(param.default),
            horizontal=True,
            key=name,
            help=help,
            captions=captions,
            bind="query-params",
        )
        return self._checked(name, value)

    def toggle(self, name: str, label: str, *, help: str | None = None) -> bool:
        param = self.params[name]
        assert isinstance(param, BoolParam)
        value = st.toggle(label, value=param.default, key=name, help=help, bind="query-params")
        return self._checked(name, value)

    def text(self, name: str, label: str, *, help: str | None = None) -> str:
        param = self.params[name]
        assert isinstance(param, TextParam)
        value = st.text_input(
            label,
            value=param.default,
            max_chars=param.max_length,
            key=name,
            help=help,
            bind="query-params",
        )
        return self._checked(name, value)

    def sections(self, sections: dict[str, Callable[[], None]], *, help: str) -> None:
        """One section of the page at a time: a `view` choice (in the URL like every control)
        and the chosen section's function. A rerun then redraws only what is on screen."""
        param = self.params["view"]
        assert isinstance(param, ChoiceParam) and tuple(sections) == param.choices
        sections[self.choice("view", t("controls.show"), help=help)]()

    def finish(self) -> None:
        """Call after the last control: reset unusable widget values, then show the notices
        (in the area reserved where the controls object was made)."""
        if self._to_reset:
            st.session_state[f"_reset:{self.page}"] = sorted(self._to_reset)
            st.session_state[f"_notices:{self.page}"] = self.notices
            st.rerun()
        for notice in self.notices:
            self._notice_area.warning(escape_markdown(notice), icon=":material/warning:")
