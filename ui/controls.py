"""URL-bound controls with clear notices for bad values.

Every control is bound to a URL query parameter of the same name (its key is the parameter
name): numbers, switches and text with Streamlit's own ``bind="query-params"``, and choices by
this module (`PageControls.choice`: a bound radio writes the text it shows into the URL, and a
choice shows its options' labels in the visitor's language while its links keep the values).
Streamlit silently drops URL values it cannot parse and lets through some that the page cannot
use (an odd ``d_model``); this class reads the raw URL once per page visit, checks every value
against its `ui.params` spec, and

- shows a notice that names the parameter, the value and what is allowed, and
- when a widget ended up holding an unusable value, resets it to the default (one rerun, since a
  widget's value can only be set before the widget is created) so the page and the URL agree.

A usable value that Streamlit itself would drop (it reads only ``true``/``false`` for a toggle,
while ``present=1`` is the documented form) is handed to the widget through session state.
Notices are in the visitor's language (`ui.i18n`).

A page opens with `start_page` (its title, and its controls from the registry `ui.pages`); its
`finish` runs once the page has run (app.py, `page_run`), or before it stops early
(`PageControls.stop`). A control's label and help are the catalogue's ``<page>.<name>`` and
``<page>.<name>_help`` unless the page passes others.
"""

from __future__ import annotations

import contextlib
import functools
import math
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, NoReturn

import streamlit as st
from streamlit.errors import StreamlitAPIException

from locales import Lang, catalogue
from ui import follow, share
from ui.i18n import current_language, presenting, t
from ui.pages import PAGE_PARAMS, takeaway_key
from ui.params import (
    BoolParam,
    ChoiceParam,
    FloatParam,
    IntParam,
    Param,
    ParamError,
    TextParam,
    url_value,
)
from ui.text import markdown_text, on_slide, takeaway

# A control's help when the page passes none: the catalogue's `<page>.<name>_help`, if any.
CATALOGUE_HELP: Any = object()


class PageControls:
    def __init__(self, page: str, params: Sequence[Param]) -> None:
        self.page = page
        self.params: dict[str, Param] = {p.name: p for p in params}
        self._to_reset: set[str] = set()
        self._groups = 0  # `shown` blocks made so far in this run
        self._choices_made: set[str] = set()  # the choices made in this run (`finish`)
        self._finished = False
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
            # Usable values spelled another way than the widget writes them: present=1 (a
            # toggle reads only true/false), base=1e4 or d_model=0768 (a slider of stops
            # matches the text of its options). Rewritten before any widget reads the URL.
            spelled = [
                p for p in params
                if p.name in found and not found[p.name]
                and isinstance(p, BoolParam | IntParam | FloatParam)
                and st.query_params[p.name] != _url_text(p, p.parse(st.query_params[p.name]))
            ]
            for param in spelled:
                value = param.parse(st.query_params[param.name])
                st.query_params[param.name] = _url_text(param, value)
            if unusable or spelled:
                # Drop them from the URL and run again before any widget reads them: Streamlit
                # seeds bound widgets from the URL the run started with, and some values it
                # cannot parse at all (an int widget given "inf" raises OverflowError).
                for name in unusable:
                    del st.query_params[name]
                state[f"_notices:{page}"] = [found[name] for name in unusable]
                st.rerun()
        choices = {p.name: {"values": list(p.choices),
                            "default": None if p.carried else p.default}
                   for p in params if isinstance(p, ChoiceParam)}
        if choices:
            _choice_address_bar(page, choices)

    @staticmethod
    def _notice(param: Param, error: ParamError) -> str:
        error_text = error.in_language(current_language())
        if isinstance(param, BoolParam):  # "It stays off", not "Using the default, False"
            state = t("controls.switch_on") if param.default else t("controls.switch_off")
            return t("controls.url_notice_switch", error=error_text, state=state)
        if isinstance(param, TextParam) and not param.default:  # a code: nothing instead
            return t("controls.url_notice_dropped", error=error_text)
        return t("controls.url_notice", error=error_text, default=param.default)

    def _check_url(self, param: Param) -> str | None:
        try:
            param.parse(st.query_params.get_all(param.name))
        except ParamError as error:
            return self._notice(param, error)
        return None

    def _label(self, name: str, label: str | None) -> str:
        return t(f"{self.page}.{name}") if label is None else label

    def _help(self, name: str, help: str | None) -> str | None:
        if help is not CATALOGUE_HELP:
            return help
        key = f"{self.page}.{name}_help"
        return t(key) if key in catalogue(current_language()) else None

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
        st.session_state.setdefault(f"{KEPT_PREFIX}{self.page}", {})[name] = value
        return value

    def _restore(self, name: str) -> None:
        """A control a view alone uses is made only while that view is shown (in the view's
        fragment), so Streamlit forgets it when another view is picked; back on its view it
        has the value it had, unless the URL says otherwise (before the widget: allowed)."""
        state = st.session_state
        kept = state.get(f"{KEPT_PREFIX}{self.page}", {})
        if name in kept and name not in state and name not in st.query_params:
            state[name] = kept[name]

    def _redraw_callback(self, name: str, redraws: Sequence[str]) -> Callable[[], None] | None:
        """The `on_change` of a control whose change reruns only the fragments keyed `redraws`
        (`@st.fragment(key=...)`: the parts of the page drawn with it), not the whole page or
        the whole view: the control itself and its neighbours are not sent again. None (the
        default rerun) without them, and in AppTest, whose tree after a fragment's rerun holds
        that fragment alone (its tests read the whole page after every change)."""
        if not redraws or st.config.get_option("global.appTest"):
            return None
        follow.register(self.page, name, redraws)  # a drag of it redraws them too (ui/follow.py)
        return functools.partial(_redraw, self.page, self.params[name], tuple(redraws))

    # --- widgets, each bound to the URL parameter named like its key --------------------------
    def number(self, name: str, label: str | None = None, *, help: str | None = CATALOGUE_HELP,
               fmt: str | None = None, redraws: Sequence[str] = ()):
        param = self.params[name]
        self._restore(name)
        assert isinstance(param, IntParam | FloatParam)
        if isinstance(param, IntParam):
            step: int | float = param.multiple_of
        else:
            step = max(param.default / 10, 0.1)
        value = st.number_input(
            self._label(name, label),
            min_value=param.minimum,
            max_value=param.maximum,
            value=param.default,
            step=step,
            format=fmt,
            key=name,
            help=self._help(name, help),
            on_change=self._redraw_callback(name, redraws),
            bind="query-params",
        )
        return self._checked(name, value)

    def slider(self, name: str, label: str | None = None, *,
               help: str | None = CATALOGUE_HELP, redraws: Sequence[str] = (),
               minimum: int | None = None, maximum: int | None = None) -> int:
        """A slider over the parameter's range, or over `minimum` .. `maximum` when the page
        knows which of its values it can use (the anchor: the table's positions): the whole
        track then means something, and a drag previews something at every point of it (live
        states). A value outside them (a link's, or one kept while the table shrank) widens
        the track to itself and is returned as it is: the page clamps it, with a note."""
        param = self.params[name]
        self._restore(name)
        assert isinstance(param, IntParam)
        low, high = self._slider_range(param, minimum, maximum)
        value = st.slider(
            self._label(name, label),
            min_value=low,
            max_value=high,
            value=param.default,
            step=param.multiple_of,
            key=name,
            help=self._help(name, help),
            on_change=self._redraw_callback(name, redraws),
            bind="query-params",
        )
        return self._checked(name, value)

    def _slider_range(self, param: IntParam, minimum: int | None,
                      maximum: int | None) -> tuple[int, int]:
        """Slider `param`'s track: `minimum` .. `maximum` (its parameter's range where not
        given), widened to the value the slider has, within the parameter's range.

        Streamlit 1.67 makes a slider whose track changed a new widget (min_value and
        max_value are part of its identity), which would start at its default, the value
        lost: when the track moves (the table grew or shrank), the value is set again before
        the widget is made. The URL's value then stays the slider's, as it does in a fresh
        load of the link (tests/test_app_similarity.py)."""
        value = self._truth(param.name)
        low = param.minimum if minimum is None else max(param.minimum, min(minimum, value))
        high = param.maximum if maximum is None else min(param.maximum, max(maximum, value))
        if high <= low:  # a track needs two ends (d_model = 2 has pair 0 alone)
            low, high = (low, low + 1) if low < param.maximum else (low - 1, low)
        state = st.session_state
        tracks = state.setdefault("_slider_tracks", {})  # "<page>:<name>" -> (low, high)
        key = f"{self.page}:{param.name}"
        was = tracks.get(key) if param.name in state else None  # a slider of this visit's
        outside = (minimum is not None and value < minimum) or (
            maximum is not None and value > maximum)
        if outside and was is not None and was[0] <= low and high <= was[1]:
            # Stepping back toward the table (arrow keys): the track holds until the value is
            # in it, not a new widget, and so a lost focus, at every step.
            low, high = was
        if was is not None and was != (low, high):
            state[param.name] = value  # before the widget: allowed
        tracks[key] = (low, high)
        return low, high

    def current(self, name: str) -> Any:
        """The value control `name` has in this run, before its widget is made: the widget's
        state, else the URL's value, else the default (unusable values count as the default).
        Pages read the view this way to leave out the controls it does not use. While its
        slider is dragged, the value under the pointer in the run that follows it
        (ui/follow.py); its widget keeps its own (`_truth`)."""
        value = follow.followed(self.page, name)
        return self._truth(name) if value is follow.NOT_FOLLOWED else value

    def _truth(self, name: str) -> Any:
        """`current` without a followed drag: what the control's widget and link hold."""
        param = self.params[name]
        state = st.session_state
        try:
            if history_navigation():  # back or forward: the URL decides (`_seed_choice`)
                return param.parse(st.query_params.get_all(name))
            if name in state:
                return param.validate(state[name])
            if name in st.query_params:
                return param.parse(st.query_params.get_all(name))
        except ParamError:
            pass
        return param.default

    def values(self, *names: str) -> tuple:
        """`current` of each control named: what a drawing fragment reads (a fragment rerun
        alone sees the page module's variables of the run that drew it)."""
        return tuple(self.current(name) for name in names)

    def stops(
        self, name: str, label: str | None = None, stops: Iterable[int | float] | None = None,
        *, help: str | None = CATALOGUE_HELP, exact: bool = True, redraws: Sequence[str] = (),
    ) -> Any:
        """A slider over `stops` (the usual values: powers of two, 1-2-5 steps, known bases)
        for a number people sweep; by default those its parameter names (`STOPS`). The URL's
        value and the current one are always among its options, so a link with d_model=768
        keeps working; with `exact` a small box beside it takes any allowed value typed in."""
        param = self.params[name]
        self._restore(name)
        assert isinstance(param, IntParam | FloatParam)
        if stops is None:
            assert param.stops is not None, f"{name} names no stops (ui.params)"
            stops = STOPS[param.stops](param)
        current = self._truth(name)
        options = sorted({*(param.validate(v) for v in stops if _allowed(param, v)),
                          param.default, current})
        if exact:  # one row (a block, not three: fewer elements per rerun)
            slider_column = exact_column = st.container(horizontal=True,
                                                        vertical_alignment="center", gap="small")
        else:
            slider_column = exact_column = contextlib.nullcontext()
        with slider_column:
            value = st.select_slider(
                self._label(name, label), options=options, value=param.default,
                format_func=lambda v: _url_text(param, v),  # the URL's text: links stay
                key=name, help=self._help(name, help), bind="query-params",
                on_change=self._redraw_callback(name, redraws),
            )
        if exact:
            exact_key = f"_exact_{name}"
            st.session_state[exact_key] = value  # the box shows the slider's value
            # The box exists only while its popover is open (opening it reruns the page or the
            # view): a change of any control does not redraw a hidden box per slider.
            with exact_column:
                box = st.popover("", icon=":material/edit:", type="tertiary",
                                 help=t("controls.exact_help"), key=f"_exact_box_{name}",
                                 on_change="rerun")
            if box.open:
                with box:
                    st.number_input(
                        t("controls.exact"), min_value=param.minimum,
                        max_value=param.maximum,
                        step=param.multiple_of if isinstance(param, IntParam) else None,
                        format="%g" if isinstance(param, FloatParam) else None,
                        key=exact_key, on_change=_take_exact,
                        args=(param, exact_key, self.page),
                    )
        return self._checked(name, value)

    def view_row(self, columns: int | Sequence[float], *, within=None) -> list:
        """A view's own controls, in a row above its chart (inside the view's fragment, so a
        change reruns that view alone): `columns` as `st.columns` takes them; on a phone they
        stack above the chart. In presentation mode the row is folded away under a small
        "Controls" heading (folded by default), so the slide stays clean and every control
        stays live on it. A view's second row names its first (`within`, the holder that row
        returned): presenting, both rows are under one fold."""
        if presenting() and within is not None:
            holder = within
        elif presenting():
            holder = st.expander(t("controls.view_controls"), icon=":material/tune:",
                                 expanded=False, type="compact")
        elif columns == 1:  # one control, where it stands: no block around it
            return [contextlib.nullcontext()]
        else:
            holder = st.container()
        if columns == 1:
            return [holder]
        with holder:
            return list(st.columns(columns, gap="medium", vertical_alignment="bottom"))

    @contextlib.contextmanager
    def shown(self, visible: bool, name: str | None = None) -> Iterator[None]:
        """Controls made inside are on the page only when `visible`: hidden, they stay
        (invisible) so that their values stay in the URL and the link, as Streamlit drops a
        bound widget's parameter when the widget is not made.

        The block is the same container either way (its key is its place among this page's
        blocks), hidden by a marker made after its controls: a widget moved from one container
        to another lost its place in the address bar in Streamlit 1.67's browser code (the RoPE
        config chosen in the config view after the extension view showed a new model while the
        URL, and so the link, kept the old one). Inside a fragment give the block a `name`: a
        fragment's reruns count on from the page's blocks, and a new key is a new container."""
        self._groups += 1
        with st.container(key=f"{GROUP_PREFIX}{self.page}-{name or self._groups}"):
            yield
            if not visible:
                _hide_css()
                st.html(f'<span class="{HIDDEN_MARKER}"></span>')

    def choice(
        self, name: str, label: str | None = None, *, help: str | None = CATALOGUE_HELP,
        captions: Sequence[str] | None = None, disabled: bool = False,
        redraws: Sequence[str] = (),
    ) -> str:
        """Options in a row, each shown by its label in the visitor's language (`option_label`),
        the URL holding the option's value (links stay the documented ones: view=clocks).

        Not bound with ``bind="query-params"`` (a bound radio writes the text it shows into the
        URL): the control keeps its parameter as Streamlit keeps a bound widget's. The URL's
        value when the widget is made afresh (a link, a view shown again, a slide) or on the
        browser's back and forward buttons (`_seed_choice`); the value written to the URL after
        each change, none when it is the default (`_write_choice`, also from `_redraw` when a
        change redraws parts only); the parameter dropped once the control is no longer made
        (`finish`). Hidden in a `shown` block, it is made, so it stays in the URL."""
        param = self.params[name]
        assert isinstance(param, ChoiceParam)
        self._seed_choice(param)
        lang = current_language()
        value = st.radio(
            self._label(name, label),
            param.choices,
            index=param.choices.index(param.default),
            format_func=functools.partial(option_label, lang=lang),
            horizontal=True,
            key=name,
            help=self._help(name, help),
            captions=captions,
            disabled=disabled,
            on_change=self._redraw_callback(name, redraws),
        )
        self._choices_made.add(name)
        value = self._checked(name, value)
        _write_choice(param, value)
        return value

    def _seed_choice(self, param: ChoiceParam) -> None:
        """A choice's value before its widget is made (allowed then), as Streamlit seeds a
        bound widget: on the browser's back or forward button (the tour's moves too) the URL's,
        or the default when it has none; made afresh, the URL's, else the value its view kept
        (`_restore`), else the default (said, so the browser shows what the page uses when the
        widget was dropped from the state while on screen: a slide's move, `start_page`).
        A widget that stays keeps its value, re-said when the language changed (the browser
        sends back the label it shows, which the widget reads only in the language it was
        drawn in) and when the last run did not make it: Streamlit keeps the value of a widget
        a stopped run did not reach, the browser forgets it (the learned-vs-sinusoidal page
        stopped at its upload notice and back: its view radio showed the first view, the
        page another, and choosing the first did nothing)."""
        state, name = st.session_state, param.name
        languages = state.setdefault(_LABELS_LANGUAGE, {})
        made_last_run = state.get(f"{_CHOICES_PREFIX}{self.page}")
        lang = current_language()
        if history_navigation():
            state[name] = _url_choice(param) or param.default
        elif name not in state:
            kept = state.get(f"{KEPT_PREFIX}{self.page}", {})
            state[name] = _url_choice(param) or kept.get(name, param.default)
        elif state[name] in param.choices and (
                languages.get(name, lang) != lang
                or (made_last_run is not None and name not in made_last_run)):
            state[name] = state[name]
        languages[name] = lang

    def carry(self, name: str, value: Any) -> Any:
        """A parameter the page sets itself, not a widget (the name of the file a table came
        from): checked like a control's value (an unusable one becomes the default, with a
        notice), in the link and the deck, and written into the URL, none when the default."""
        value = self._checked(name, value)
        _write_choice(self.params[name], value)
        return value

    def toggle(self, name: str, label: str | None = None, *,
               help: str | None = CATALOGUE_HELP, redraws: Sequence[str] = ()) -> bool:
        param = self.params[name]
        self._restore(name)
        assert isinstance(param, BoolParam)
        value = st.toggle(self._label(name, label), value=param.default, key=name,
                          help=self._help(name, help), bind="query-params",
                          on_change=self._redraw_callback(name, redraws))
        return self._checked(name, value)

    def text(self, name: str, label: str | None = None, *,
             help: str | None = CATALOGUE_HELP, placeholder: str | None = None,
             redraws: Sequence[str] = ()) -> str:
        """A text box; `placeholder` shows, greyed, what an empty box stands for."""
        param = self.params[name]
        self._restore(name)
        assert isinstance(param, TextParam)
        value = st.text_input(
            self._label(name, label),
            value=param.default,
            max_chars=param.max_length,
            key=name,
            help=self._help(name, help),
            placeholder=placeholder,
            on_change=self._redraw_callback(name, redraws),
            bind="query-params",
        )
        return self._checked(name, value)

    def sections(self, sections: dict[str, Callable[[], None]], *,
                 help: str | None = CATALOGUE_HELP) -> None:
        """One section of the page at a time: a `view` choice (in the URL like every control)
        and the chosen section's function. A rerun then redraws only what is on screen."""
        param = self.params["view"]
        assert isinstance(param, ChoiceParam) and tuple(sections) == param.choices
        chosen = self.choice("view", t("controls.show"), help=help)
        with st.container(key=VIEW_BLOCK):  # a slide lays out the view's charts (ui.player)
            sections[chosen]()

    def finish(self) -> None:
        """After the last control: reset unusable widget values, then show the notices (in the
        area reserved where the controls object was made). A page opened with `start_page` has
        it done once the page has run (`page_run`)."""
        self._finished = True
        if self._to_reset:
            st.session_state[f"_reset:{self.page}"] = sorted(self._to_reset)
            st.session_state[f"_notices:{self.page}"] = self.notices
            st.rerun()
        self._drop_choices_not_made()
        for notice in self.notices:
            self._notice_area.warning(markdown_text(notice), icon=":material/warning:")

    def _drop_choices_not_made(self) -> None:
        """A choice made in an earlier run and not in this one (another view's) leaves the URL,
        as Streamlit drops a bound widget's parameter once the widget is no longer made; one
        never made (a link's value for a view not shown) stays, as it does there. Its value is
        kept for its view's return (`_restore`)."""
        key = f"{_CHOICES_PREFIX}{self.page}"
        made_before = st.session_state.get(key, set())
        for name in sorted(made_before - self._choices_made):
            if name in st.query_params:
                del st.query_params[name]
        st.session_state[key] = set(self._choices_made)

    def stop(self) -> NoReturn:
        """End the page here (st.stop), its controls finished first."""
        self.finish()
        st.stop()


# The block holding the view shown (`PageControls.sections`).
VIEW_BLOCK = "pe-view"

# The last value of each control of a page (PageControls._restore), and the page last opened.
KEPT_PREFIX = "_kept:"
_LAST_PAGE = "_controls_last_page"
# The choices a page's last full run made (PageControls.finish), and the language each choice's
# labels were last drawn in (PageControls._seed_choice).
_CHOICES_PREFIX = "_choices:"
_LABELS_LANGUAGE = "_choice_labels_language"

_open = threading.local()  # the page's controls in this script run (a run has its own thread)


def start_page(page: str) -> PageControls:
    """A page's opening: its title (`<page>.title`) and its controls, from its parameters in
    the registry (`ui.pages`, by url_path). They are finished once the page has run."""
    st.title(t(f"{page}.title"))
    line = st.empty() if presenting() else None  # the view's takeaway, under the title
    state = st.session_state
    previous = state.get(_LAST_PAGE)
    if previous != page:  # arrived from another page: its defaults and its URL
        state.pop(f"{KEPT_PREFIX}{page}", None)
        state.pop(f"{_CHOICES_PREFIX}{page}", None)
        state.pop(follow.FOLLOWABLE, None)  # the last page's sliders are not this one's
        state[_LAST_PAGE] = page
        if previous is not None and not on_slide():
            _forget_the_last_pages_values()
    controls = PageControls(page, PAGE_PARAMS[page])
    _open.controls = controls
    view = controls.current("view") if "view" in controls.params else None
    key = takeaway_key(page, view,
                       controls.current("source") if "source" in controls.params else None)
    if line is not None:
        with line.container():
            takeaway(t(key) if key else None)
    return controls


# Every control name of every page (their widgets' keys, their URL parameters).
_CONTROL_NAMES = frozenset(p.name for params in PAGE_PARAMS.values() for p in params)


def _forget_the_last_pages_values() -> None:
    """A page opened from another page of the session starts at its own defaults: the controls
    two pages share a name with (d_model, positions, view) kept the other page's values, in
    the widgets and in the address bar Streamlit carried over (a deck made wavelengths ->
    similarity took positions=128 with it). A link opened afresh is a new session: its values
    are read as given. (The tour's slides forget theirs in ui.player.)"""
    state = st.session_state
    for name in _CONTROL_NAMES:
        state.pop(name, None)
        if name in st.query_params:
            del st.query_params[name]


@contextlib.contextmanager
def page_run() -> Iterator[None]:
    """Around the page's run (app.py): then the controls of the page opened in it are finished,
    unless the run ended otherwise (an error, a rerun, a stop: `PageControls.stop` finishes)."""
    _open.controls = None
    yield
    controls, _open.controls = _open.controls, None
    if controls is not None and not controls._finished:
        controls.finish()


# A `shown` block is a container keyed f"{GROUP_PREFIX}<page>-<n>"; hidden, it holds a
# HIDDEN_MARKER element after its controls, and this rule hides it.
GROUP_PREFIX = "pe-group-"
HIDDEN_MARKER = "pe-hidden-group"


def _hide_css() -> None:
    st.html(f"<style>[class*='st-key-{GROUP_PREFIX}']:has(.{HIDDEN_MARKER}) "
            "{ display: none !important; }</style>")


def _url_text(param: Param, value: Any) -> str:
    """A value as the URL writes it (and a slider of stops labels it): 768, 10000, 0.5."""
    if isinstance(param, BoolParam):
        return "true" if value else "false"
    if isinstance(param, FloatParam):
        text = repr(float(value))  # shortest exact form, as ui.params.url_value writes it
        return text[:-2] if text.endswith(".0") else text
    return str(value)


def _allowed(param: IntParam | FloatParam, value: float) -> bool:
    try:
        param.validate(value)
    except ParamError:
        return False
    return True


def _take_exact(param: IntParam | FloatParam, exact_key: str, page: str) -> None:
    """The exact box's value becomes the slider's (a callback runs before the widgets); one it
    cannot take (7 for an even d_model, or NaN sent over the websocket) leaves the slider as it
    is, with a notice saying why."""
    value = st.session_state.get(exact_key)
    if value is None:
        return
    try:
        st.session_state[param.name] = param.validate(value)
    except ParamError as error:
        notices = st.session_state.setdefault(f"_notices:{page}", [])
        notices.append(error.in_language(current_language()))


def _redraw(page: str, param: Param, keys: tuple[str, ...]) -> None:
    """A control's change (`PageControls._redraw_callback`): its value kept for the link and
    for its view's return (what its widget's own run would have kept), then only the fragments
    keyed `keys` rerun. They read the value from session state (`PageControls.current`): a
    fragment rerun alone sees the page's variables of the run that drew it.
    An unusable value (a crafted message) or a part not on the page (a run that stopped early)
    gets the rerun the change has without this (its notice shown by the control's own run)."""
    state = st.session_state
    follow.on_release(param.name)
    try:
        value = param.validate(state[param.name])
    except (KeyError, ParamError):
        return
    share.record(param, value)
    state.setdefault(f"{KEPT_PREFIX}{page}", {})[param.name] = value
    if isinstance(param, ChoiceParam):  # its widget's run, which writes it, is left out
        _write_choice(param, value)
    try:
        st.rerun(scope=list(keys))
    except StreamlitAPIException:  # no fragment by that key was drawn
        return


# --- the usual values of a swept number -----------------------------------------------------
# Widths that real models use besides powers of two (ViT-S 384, BERT-base and ViT-B 768,
# ViT-H 1280, GPT-2 XL 1600, GPT-3 2.7B 2560, LLaMA 3072 ...), and head widths (80, 96, 160).
MODEL_WIDTHS = (80, 96, 160, 192, 384, 768, 1280, 1536, 2560, 3072)
BASE_STOPS = (10, 100, 500, 1000, 5000, 10000, 50000, 100000, 500000, 1e6, 1e7, 1e8)


def size_stops(param: IntParam) -> list[int]:
    """Powers of two and real models' widths within the parameter's range."""
    powers = [2**k for k in range(0, int(math.log2(max(param.maximum, 1))) + 1)]
    return [v for v in (*powers, *MODEL_WIDTHS) if _allowed(param, v)]


def count_stops(param: IntParam) -> list[int]:
    """1-2-5 steps and powers of two within the parameter's range (positions, lengths)."""
    values = {m * 10**k for k in range(0, 8) for m in (1, 2, 5)}
    values |= {2**k for k in range(0, 24)}
    values |= {param.minimum, param.maximum}
    return sorted(v for v in values if _allowed(param, v))


def base_stops(param: FloatParam) -> list[float]:
    """Bases people use: 10000 (the paper, RoFormer, LLaMA 2), 500000 (LLaMA 3), 1e6 ..."""
    return [float(v) for v in BASE_STOPS if _allowed(param, v)]


STOPS: dict[str, Callable[[Any], list]] = {
    "size": size_stops, "count": count_stops, "base": base_stops,
}


def option_label(choice: str, lang: Lang | None = None) -> str:
    """An option's label in `lang` (the visitor's language by default): the catalogue's
    `options.<value>` ("position interpolation" for `position_interpolation`), or the value."""
    lang = lang or current_language()
    return catalogue(lang).get(f"options.{choice}", choice)


def _url_choice(param: ChoiceParam) -> str | None:
    """The URL's value of choice `param`; None when it has none (an unusable one was dropped
    with a notice when the page opened, `PageControls.__init__`)."""
    try:
        return param.parse(st.query_params.get_all(param.name))
    except ParamError:
        return None


def _write_choice(param: Param, value: Any) -> None:
    """Choice `param`'s value (or a carried one's, `PageControls.carry`) into the URL, as
    Streamlit writes a bound widget's: none when it is the default (a link carries what
    differs), and only when the URL says otherwise (each write is a message to the browser)."""
    text = url_value(param, value)
    if text is None:
        if param.name in st.query_params:
            del st.query_params[param.name]
    elif st.query_params.get_all(param.name) != [text]:
        st.query_params[param.name] = text


# A choice clicked writes its value into the address bar in the browser at once, in place (the
# history API's replaceState), as Streamlit's browser code does for a bound widget: the run's
# own write (`_write_choice`), which the browser would add as a new history entry (pushState,
# one Back per click), then finds the address bar already saying it and adds none. The address
# is written as the server writes it (Python's parse_qs, then urlencode with quote_plus), so the
# two agree character for character; when they do not, the run's write wins, as a new entry.
# One listener per window; each page's choices (`data.slot`: the app's, the page's) by name,
# their values in the order of the radio's options (an option's input has its index as value).
_CHOICE_ADDRESS_JS = """
const decode = s => { try { return decodeURIComponent(s.replace(/\\+/g, " ")); }
                      catch (error) { return s; } };
const encode = s => encodeURIComponent(s).replace(/[!'()*]/g,
    c => "%" + c.charCodeAt(0).toString(16).toUpperCase()).replace(/%20/g, "+");

function written(search, name, value) {
  const fields = new Map();
  for (const field of search.replace(/^\\?/, "").split("&")) {
    if (!field) continue;
    const at = field.indexOf("=");
    const key = decode(at < 0 ? field : field.slice(0, at));
    if (!fields.has(key)) fields.set(key, []);
    fields.get(key).push(at < 0 ? "" : decode(field.slice(at + 1)));
  }
  if (value === null) fields.delete(name); else fields.set(name, [value]);
  return [...fields].flatMap(([key, values]) =>
      values.map(v => encode(key) + "=" + encode(v))).join("&");
}

// The radio's option as it stands once the click or key has been handled (the radio changes
// its state in script: no "change" event is fired).
function writeChoice(group) {
  const input = group.querySelector('input[type="radio"]:checked');
  const box = group.closest('[class*="st-key-"]');
  const keyClass = box && [...box.classList].find(c => c.startsWith("st-key-"));
  if (!input || !keyClass) return;
  const name = keyClass.slice("st-key-".length);
  const slots = window.__peChoices || {};
  const spec = (slots.page || {})[name] || (slots.app || {})[name];
  const value = spec && spec.values[Number(input.value)];
  if (value === undefined) return;
  const search = written(window.location.search, name, value === spec.default ? null : value);
  if (search === window.location.search.replace(/^\\?/, "")) return;
  const url = new URL(window.location.href);
  url.search = search;
  window.history.replaceState(window.history.state, "", url.toString());
}

function onPress(event) {
  const group = event.target instanceof Element && event.target.closest('[role="radiogroup"]');
  if (group) window.setTimeout(() => writeChoice(group), 0);
}

export default function ({ data }) {
  window.__peChoices = window.__peChoices || {};
  window.__peChoices[data.slot] = data.choices;
  if (!window.__peChoiceListener) {
    window.__peChoiceListener = true;
    document.addEventListener("click", onPress, true);
    document.addEventListener("keydown", onPress, true);
  }
}
"""
_CHOICE_ADDRESS = "pe-choice-address-"  # the element's key
_CHOICE_ADDRESS_CSS = f"""
/* Nothing to see: out of the layout (the page's, as the element's styles are not isolated). */
[class*="st-key-{_CHOICE_ADDRESS}"] {{ display: none !important; }}
"""
_choice_address_element = None


def _choice_address_bar(page: str, choices: dict[str, dict[str, Any]]) -> None:
    """The browser's side of the choices' URL (_CHOICE_ADDRESS_JS), for this page's `choices`."""
    global _choice_address_element
    if _choice_address_element is None:  # registered once per process
        _choice_address_element = st.components.v2.component(
            "pe_choice_address", js=_CHOICE_ADDRESS_JS, css=_CHOICE_ADDRESS_CSS,
            isolate_styles=False)
    _choice_address_element(key=f"{_CHOICE_ADDRESS}{page}",
                            data={"slot": "app" if page == "app" else "page",
                                  "choices": choices})


def history_navigation() -> bool:
    """Whether this run answers the browser's back or forward button (or a move of the tour's
    player, which goes through the browser's history): then the URL decides every control, as
    it does for Streamlit's bound widgets. Streamlit's run context says so
    (`ScriptRunContext.is_history_navigation`, tests/test_controls.py names it)."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    return bool(getattr(ctx, "is_history_navigation", False))
