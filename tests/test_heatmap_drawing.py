"""Every heatmap the app shows with zsmooth="fast" is drawn by plotly as one image.

plotly.js draws a "fast" heatmap as one image only when its x and y coordinates are evenly
spaced (to 1% of a step); otherwise it warns in the console and paints a rectangle per cell,
which made an 8192 x 4096 overview repaint in about 1 s instead of 0.3 s. Checked on every page
and section at its largest sizes, where the block-averaged overviews are.
"""

from __future__ import annotations

import json

import pytest

from tests.apptest import decode, open_page
from tests.test_overview import plotly_draws_as_one_image
from ui.pages import PAGE_PARAMS, PAGES
from ui.params import IntParam

SIZES = {"d_model", "positions", "grid_h", "grid_w", "train_length", "target_length",
         "zoom_size", "num_heads"}


def largest_views():
    for page in PAGES:
        specs = {spec.name: spec for spec in PAGE_PARAMS.get(page.url_path, ())}
        sizes = {name: str(spec.maximum) for name, spec in specs.items()
                 if isinstance(spec, IntParam) and name in SIZES}
        if not sizes:
            continue
        for view in specs["view"].choices if "view" in specs else (None,):
            query = sizes | ({"view": view} if view else {})
            yield pytest.param(page, query, id=f"{page.url_path}-{view or 'page'}")


@pytest.mark.parametrize(("page", "query"), list(largest_views()))
def test_fast_heatmaps_have_evenly_spaced_coordinates(page, query):
    at = open_page(page.script, query, timeout=120)
    assert not at.exception
    fast = [
        trace
        for chart in at.get("plotly_chart")
        for trace in json.loads(chart.proto.spec)["data"]
        if trace.get("type") == "heatmap" and trace.get("zsmooth") == "fast"
    ]
    if (page.url_path, query.get("view")) in (("heatmap", None), ("similarity", "matrix")):
        assert fast  # 8192 x 4096 and 4096 x 4096 tables: block-averaged, drawn as images
    for trace in fast:
        for axis in ("x", "y"):
            if axis in trace:  # else x0/dx: evenly spaced by construction
                assert plotly_draws_as_one_image(decode(trace[axis]).astype(float)), axis
