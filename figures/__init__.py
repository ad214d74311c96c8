"""Plotly figures: pure functions ``make_*_figure(...) -> go.Figure``.

The only part of `core` that imports plotly. Figures take ready numbers (computed elsewhere in
`core`) and only draw them, so tests check their traces, axes and shapes directly. One submodule
per topic; import from the submodule (``from figures.heatmap import make_pe_heatmap_figure``)
or from here.
"""

from figures.common import DIVERGING, FIGURE_HEIGHT, base_layout
from figures.heatmap import make_pe_heatmap_figure

__all__ = ["DIVERGING", "FIGURE_HEIGHT", "base_layout", "make_pe_heatmap_figure"]
