"""Checks of a figure's live states (figures.common.add_live_states): the picture the browser
draws while a slider is dragged must be the one the server draws when that value is released.

`assert_states_draw_the_servers_figures` applies each state to the figure at the value drawn, as
ui/chart/live.js does with `Plotly.update` (plotly.py's `plotly_update` follows the same rules:
a list value gives trace i its i-th entry; an array the browser makes, `scaled_array`, is made
here as there), and compares the result with the figure made at the
state's value, everything but the states themselves.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import plotly.graph_objects as go

from figures.common import symlog, with_arrays


def live_states(fig: go.Figure, name: str) -> dict:
    """The states figure `fig` carries for control `name` (values and updates)."""
    meta = fig.layout.meta
    assert isinstance(meta, dict) and name in meta.get("live", {}), f"no live states for {name}"
    return meta["live"][name]


def _without_states(fig: go.Figure) -> dict:
    plain = with_arrays(fig.to_dict())
    meta = plain.get("layout", {}).get("meta")
    if isinstance(meta, dict):
        meta.pop("live", None)
        if not meta:
            plain["layout"].pop("meta")
    return plain


def _numeric(value) -> bool:
    """An array or (nested) list of numbers and None: compared as floats."""
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "biuf" or (value.dtype == object and _numeric(value.tolist()))
    if not isinstance(value, (list, tuple)) or not value:
        return False
    flat = np.ravel(np.array(value, dtype=object))
    return all(v is None or (isinstance(v, (int, float, np.number)) and not isinstance(v, bool))
               for v in flat)


def _assert_close(got, want, path: str, rtol: float) -> None:
    if isinstance(want, dict):
        assert isinstance(got, dict), path
        assert set(got) == set(want), (path, sorted(set(got) ^ set(want)))
        for key in want:
            _assert_close(got[key], want[key], f"{path}.{key}", rtol)
    elif _numeric(want) and _numeric(got):
        g = np.array(got, dtype=float)
        w = np.array(want, dtype=float)
        assert g.shape == w.shape, (path, g.shape, w.shape)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol, equal_nan=True, err_msg=path)
    elif isinstance(want, (list, tuple, np.ndarray)):
        assert isinstance(got, (list, tuple, np.ndarray)) and len(got) == len(want), path
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _assert_close(g, w, f"{path}[{i}]", rtol)
    elif isinstance(want, float) or isinstance(got, float):
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol, err_msg=path)
    else:
        assert got == want, (path, got, want)


def previewed(base: go.Figure, name: str, text: str) -> go.Figure:
    """`base` as the browser draws it while control `name` is at the value `text`: the state
    of that value applied (ui/chart/live.js)."""
    states = live_states(base, name)
    data, layout, traces = states["updates"][states["values"].index(text)]
    data = {attribute: [_made(value, base.data[traces[j]]) if isinstance(value, dict) else value
                        for j, value in enumerate(values)] if isinstance(values, list) else values
            for attribute, values in data.items()}
    preview = go.Figure(base)
    preview.plotly_update(restyle_data=data, relayout_data=layout, trace_indexes=traces)
    return preview


def _made(value, trace):
    """A state's value for `trace` as the browser applies it: a `figures.common.scaled_array`
    made from the trace's own array as the figure sent it (ui/chart/live.js, scaledArray: in
    float64, stored as float32), anything else as it is."""
    if not (isinstance(value, dict) and "scaled" in value):
        return value
    scaled = np.asarray(trace[value["scaled"]], dtype=np.float64) * value["by"]
    if "symlog" in value:
        scaled = symlog(scaled, value["symlog"])
    return scaled.astype(np.float32)


def assert_state_draws(base: go.Figure, name: str, text: str, want: go.Figure, *,
                       rtol: float = 1e-3) -> None:
    """`base` with control `name`'s state of value `text` applied equals `want` (the server's
    figure at that value), states aside."""
    _assert_close(_without_states(previewed(base, name, text)), _without_states(want),
                  f"{name}={text}", rtol)


def assert_states_draw_the_servers_figures(
    make: Callable[[object], go.Figure], name: str, drawn: object, *, rtol: float = 1e-3,
    values: list | None = None,
) -> list[str]:
    """For each state of control `name` in ``make(drawn)`` (or those of `values`), the figure at
    `drawn` updated by the state equals ``make(value)``, states aside. `make` turns a control
    value into the server's figure. Returns the values the states carry."""
    base = make(drawn)
    states = live_states(base, name)
    assert len(states["values"]) == len(states["updates"]) >= 2, states["values"]
    wanted = states["values"] if values is None else [str(v) for v in values]
    for text in wanted:
        value = type(drawn)(float(text)) if isinstance(drawn, (int, float)) else text
        assert_state_draws(base, name, text, make(value), rtol=rtol)
    return states["values"]
