"""The extrapolation page's figures: what each panel's axes span and what they name."""

from __future__ import annotations

import numpy as np
import pytest

from core import extrapolation
from figures.extrapolation import make_learned_reach_figure


@pytest.mark.parametrize(("rows", "train", "target"), [(512, 2048, 8192), (512, 600, 700),
                                                       (512, 100, 400), (64, 4096, 8192)])
def test_learned_panel_spans_the_table_not_the_target(rows, train, target):
    """A 512-row table on an 8192-wide axis was 94% empty: the panel spans at most 1.5 times
    the table, and names L and T at its edge when they lie further right."""
    table = np.random.default_rng(0).normal(size=(rows, 8))
    learned = extrapolation.learned_reach(table, target)
    fig = make_learned_reach_figure(learned, train)
    low, high = fig.layout.xaxis.range
    assert low == 0 and high == min(target - 1, 1.5 * rows)
    empty = max(high - rows, 0) / high
    assert empty <= 1 / 3
    # Every row drawn, nothing past them (NaN) sent.
    np.testing.assert_allclose(fig.data[0].y, np.linalg.norm(table, axis=1)[:target],
                               rtol=1e-6)
    texts = " ".join(a.text or "" for a in fig.layout.annotations)
    if train > high:
        assert f"L = {train}" in texts and f"T = {target}" in texts
    else:
        assert f"L = {train}" in texts  # the training length marked at its place
        assert any(shape.x0 == train for shape in fig.layout.shapes)
