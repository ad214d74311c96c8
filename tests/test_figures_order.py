"""Live states (figures.common.add_live_states): each state a figure carries for a slider, applied
as the browser applies it, draws the figure the server makes at that value. One test per chart
whose slider is live; the browser side is tested by dragging
(tests/test_browser_live_controls.py)."""

from __future__ import annotations

import numpy as np
import pytest

from figures.order import (
    add_attention_pair_states,
    add_head_outline_states,
    attention_top,
    make_attention_pair_figure,
    make_head_change_figure,
)
from tests.live_states import assert_states_draw_the_servers_figures

RNG = np.random.default_rng(7)
TOKENS = ["[CLS]", "the", "cat", "sat", "[SEP]"]
LEARNED = RNG.dirichlet(np.ones(5), size=(6, 12, 5))  # (layers, heads, T, T), rows sum to 1
BLIND = RNG.dirichlet(np.ones(5), size=(6, 12, 5))


@pytest.mark.parametrize(("name", "layer", "head"), [("head", 2, 5), ("layer", 3, 7)])
def test_order_attention_pair_states_draw_each_head(name, layer, head):
    def make(value):
        at = {"layer": layer, "head": head, name: value}
        # On the page's colour scale: every layer's and head's largest weight.
        fig = make_attention_pair_figure(TOKENS, LEARNED[at["layer"] - 1, at["head"] - 1],
                                         BLIND[at["layer"] - 1, at["head"] - 1],
                                         top=attention_top(LEARNED, BLIND), **at)
        return add_attention_pair_states(fig, LEARNED, BLIND, **at)

    values = assert_states_draw_the_servers_figures(make, name, {"layer": layer,
                                                                  "head": head}[name])
    assert values == [str(v) for v in range(1, (12 if name == "head" else 6) + 1)]


@pytest.mark.parametrize("name", ["head", "layer"])
def test_order_head_map_outline_follows_each_head(name):
    change = RNG.random((6, 12))

    def make(value):
        at = {"layer": 2, "head": 3, name: value}
        fig = make_head_change_figure(change, marked=[(1, 1)], **at)
        return add_head_outline_states(fig, layers=6, heads=12, **at)

    assert_states_draw_the_servers_figures(make, name, 2 if name == "layer" else 3)
    outline = make(5).data[-1]  # around the cell of (head, layer), the slider at 5
    at = {"head": (5, 2), "layer": (3, 5)}[name]
    assert (min(outline.x), max(outline.x)) == (at[0] - 0.5, at[0] + 0.5)
    assert (min(outline.y), max(outline.y)) == (at[1] - 0.5, at[1] + 0.5)
