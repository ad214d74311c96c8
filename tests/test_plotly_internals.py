"""The plotly.py the app is built on: the release requirements.txt pins is the one installed (the
one this suite ran on), and every private part of it that `ui.plotly_react.figure_json` reads is
there and behaves as figure_json assumes (`ui.charts.KeptFigure` pickles the same dicts).

figure_json writes a figure's JSON from the figure's own dicts (`_data`, `_layout`, the frames'
`_props`) with plotly.py's own encoder and typed-array converter, instead of `to_dict`'s deep
copy: it must write what `pio.to_json(fig.to_dict())` writes, to the byte
(tests/test_chart_paths.py checks that on every page and view). A release that renames one of
these, or changes what `to_dict` does with them, breaks the charts without an error at import:
each check here names the internal and why figure_json needs it, so a failure after an upgrade
says what to port."""

from __future__ import annotations

import ast
import copy
import importlib.util
import inspect
import json
import re
import string
from importlib.metadata import version
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from _plotly_utils import utils as plotly_utils
from plotly.basedatatypes import BaseFigure

from ui import plotly_react

ROOT = Path(__file__).resolve().parent.parent


def test_requirements_pin_the_plotly_minor_release_installed():
    """Hosting installs requirements.txt alone: a range would let it take a release no test ran
    on, and figure_json reads plotly.py's private attributes."""
    pins = re.findall(r"^plotly==(\d+)\.(\d+)\.\*\s*$",
                      (ROOT / "requirements.txt").read_text(), flags=re.M)
    assert len(pins) == 1, "requirements.txt must pin plotly==<major>.<minor>.*"
    major, minor, *_ = version("plotly").split(".")
    assert pins[0] == (major, minor), (pins[0], version("plotly"))


def _figure() -> go.Figure:
    """Two traces, a layout and two frames, with numpy arrays where the app's figures have them."""
    fig = go.Figure([go.Scatter(x=np.arange(4), y=np.linspace(0, 1, 4), uid="a"),
                     go.Heatmap(z=np.ones((2, 3), dtype=np.float32))],
                    frames=[go.Frame(data=[go.Scatter(y=np.zeros(4))], name="f0"),
                            go.Frame(name="f1")])
    fig.update_layout(title_text="t", xaxis={"range": np.array([0.0, 3.0])})
    return fig


def _trace_dicts_are_the_traces_own() -> bool:
    fig = _figure()
    fig.data[0].name = "changed later"  # an assignment lands in the same dict
    return (isinstance(fig._data, list)
            and all(raw is trace._props for raw, trace in zip(fig._data, fig.data, strict=True))
            and [raw["type"] for raw in fig._data] == ["scatter", "heatmap"]
            and fig._data[0]["name"] == "changed later")


def _layout_dict_is_the_layouts_own() -> bool:
    fig = _figure()
    fig.update_layout(height=321)
    return fig._layout is fig.layout._props and fig._layout["height"] == 321


def _frames_and_their_dicts() -> bool:
    fig = _figure()
    return (list(fig._frame_objs) == list(fig.frames)
            and all(isinstance(frame, go.Frame) for frame in fig._frame_objs)
            and [frame._props["name"] for frame in fig._frame_objs] == ["f0", "f1"]
            and list(go.Figure()._frame_objs) == [])


def _to_dict_is_built_from_them() -> bool:
    """to_dict is deepcopy(_data), deepcopy(_layout) and the frames' _props (the key only when
    there are frames), then convert_to_base64: the same dicts figure_json walks."""
    source = inspect.getsource(BaseFigure.to_dict)
    fig = _figure()
    expected = {"data": copy.deepcopy(fig._data), "layout": copy.deepcopy(fig._layout),
                "frames": copy.deepcopy([frame._props for frame in fig._frame_objs])}
    plotly_utils.convert_to_base64(expected)
    return (all(part in source for part in (
        "deepcopy(self._data)", "deepcopy(self._layout)",
        "frame._props for frame in self._frame_objs", "convert_to_base64(res)"))
        and json.dumps(fig.to_dict(), cls=plotly_utils.PlotlyJSONEncoder, sort_keys=True)
        == json.dumps(expected, cls=plotly_utils.PlotlyJSONEncoder, sort_keys=True)
        and "frames" not in go.Figure().to_dict())


def _typed_array_spec_is_what_to_dict_writes() -> bool:
    arrays = [np.arange(5), np.arange(300, dtype=np.int64), np.linspace(0, 1, 7),
              np.ones((3, 4), dtype=np.float32), np.array([1.0, np.nan, np.inf])]
    written = {f"a{i}": array.copy() for i, array in enumerate(arrays)}
    plotly_utils.convert_to_base64(written)
    return all(written[f"a{i}"] == plotly_utils.to_typed_array_spec(array)
               for i, array in enumerate(arrays))


def _skipped_keys_are_list_keys() -> bool:
    source = inspect.getsource(plotly_utils.is_skipped_key)
    found = re.search(r"skipped_keys = (\[[^\]]*\])", source)
    return (found is not None
            and set(ast.literal_eval(found.group(1))) == plotly_react._LIST_KEYS
            and all(plotly_utils.is_skipped_key(key) for key in plotly_react._LIST_KEYS)
            and not plotly_utils.is_skipped_key("x"))


def _only_a_dicts_arrays_are_converted() -> bool:
    """An array in a list stays an array (the encoder writes it as a list: a slider step's
    arguments); a list of numbers stays a list; an array that is a dict's value is converted."""
    value = {"args": [np.arange(2), {"y": np.arange(3)}], "numbers": [1, 2.5], "z": np.arange(2)}
    plotly_utils.convert_to_base64(value)
    return (isinstance(value["args"][0], np.ndarray) and isinstance(value["args"][1]["y"], dict)
            and value["numbers"] == [1, 2.5] and isinstance(value["z"], dict)
            and not plotly_utils.is_homogeneous_array([1, 2.5]))


def _encoder_writes_what_figure_json_expects() -> bool:
    """NaN and infinities as null, numpy numbers as numbers, an array as a list."""
    text = json.dumps([np.nan, np.inf, -np.inf, np.float32(1.5), np.int64(2), np.arange(2)],
                      cls=plotly_utils.PlotlyJSONEncoder, separators=(",", ":"))
    return text == "[null,null,null,1.5,2,[0,1]]"


def _to_json_escapes_what_figure_json_escapes() -> bool:
    """pio.to_json drops trace uids and escapes exactly <, > and / (plotly_react._UNSAFE) in
    what the json module writes."""
    text = string.printable + "é位"
    written = pio.to_json({"data": [{"uid": "a", "text": text}], "layout": {}}, validate=False)
    expected = json.dumps({"data": [{"text": text}], "layout": {}}, separators=(",", ":"))
    for unsafe, safe in plotly_react._UNSAFE:
        expected = expected.replace(unsafe, safe)
    return written == expected


def _json_engine_is_the_json_module() -> bool:
    """With orjson installed, plotly.io would write with it (non-ASCII unescaped, its own float
    format): figure_json writes the json module's JSON, as plotly.io does without orjson."""
    return (pio.json.config.default_engine in ("auto", "json")
            and (pio.json.config.default_engine == "json"
                 or importlib.util.find_spec("orjson") is None))


# (internal, what relies on it, check)
INTERNALS = [
    ("BaseFigure._data",
     "ui.plotly_react.figure_json reads each trace's own property dict from it, in order, "
     "instead of to_dict's deep copy; ui.charts.KeptFigure pickles them",
     _trace_dicts_are_the_traces_own),
    ("BaseFigure._layout",
     "ui.plotly_react.figure_json and plotly_react_chart's height read the layout's own dict; "
     "ui.charts.KeptFigure pickles it",
     _layout_dict_is_the_layouts_own),
    ("BaseFigure._frame_objs and BasePlotlyType._props",
     "ui.plotly_react.figure_json writes each frame's own property dict; ui.charts.KeptFigure "
     "pickles them",
     _frames_and_their_dicts),
    ("BaseFigure.to_dict built from _data, _layout, the frames' _props, then convert_to_base64",
     "ui.plotly_react.figure_json walks the same dicts to_dict copies, so it writes the same",
     _to_dict_is_built_from_them),
    ("_plotly_utils.utils.to_typed_array_spec(array)",
     "figures.common.typed_array (the one encoder, ui.plotly_react._typed_arrays's) writes "
     "each numpy array as the typed array to_dict makes",
     _typed_array_spec_is_what_to_dict_writes),
    ("_plotly_utils.utils.is_skipped_key",
     "ui.plotly_react._LIST_KEYS: the keys convert_to_base64 does not look under",
     _skipped_keys_are_list_keys),
    ("_plotly_utils.utils.convert_to_base64 converts only a dict's numpy arrays",
     "ui.plotly_react._typed_arrays and _LEAVES: an array in a list stays an array",
     _only_a_dicts_arrays_are_converted),
    ("_plotly_utils.utils.PlotlyJSONEncoder",
     "ui.plotly_react.figure_json encodes with it: NaN as null, numpy values as JSON",
     _encoder_writes_what_figure_json_expects),
    ("plotly.io.to_json: uids dropped, <, > and / escaped",
     "ui.plotly_react.figure_json drops uids and escapes the same (_UNSAFE)",
     _to_json_escapes_what_figure_json_escapes),
    ("plotly.io's JSON engine: the json module (orjson not installed)",
     "ui.plotly_react.figure_json writes the json module's JSON, as plotly.io then does",
     _json_engine_is_the_json_module),
]


@pytest.mark.parametrize(("internal", "user", "check"), INTERNALS,
                         ids=[internal.split("(")[0].split(":")[0] for internal, *_ in INTERNALS])
def test_each_private_plotly_internal_figure_json_relies_on_is_there(internal, user, check):
    assert check(), (f"plotly {version('plotly')} changed {internal}, which {user}: port it "
                     "before upgrading")
