"""The app's plotly figures: pure functions ``make_*_figure(...) -> go.Figure``.

The drawing layer between `core` (the numbers; it never imports plotly) and the app (`ui`,
`app_pages`, which show them): a figure takes numbers `core` computed and only lays them out, so
tests check its traces, axes and shapes directly. Nothing here imports Streamlit or starts a
browser, a thread or a queue. One submodule per topic; import from the submodule
(``from figures.heatmap import make_pe_heatmap_figure``) or from here.
"""

from figures.common import DIVERGING, FIGURE_HEIGHT, base_layout
from figures.heatmap import make_pe_heatmap_figure

__all__ = ["DIVERGING", "FIGURE_HEIGHT", "base_layout", "make_pe_heatmap_figure"]
