"""The app's pages, in navigation order: `app.py` registers them, the home page lists them.

A page is registered only once its script exists, so the list can name pages still being built.
`url_path` values are a contract (shared links point at them).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class PageInfo:
    script: str  # path relative to the repository root
    title: str
    icon: str
    url_path: str  # "" is the root URL
    summary: str  # one line for the home page


HOME = PageInfo(
    "app_pages/home.py", "Home", ":material/home:", "", "What positional encoding is for."
)

_ALL_PAGES: tuple[PageInfo, ...] = (
    PageInfo(
        "app_pages/heatmap.py",
        "Sinusoid heatmap",
        ":material/grid_on:",
        "heatmap",
        "The whole PE table (interleaved or concatenated layout) with the formula worked for any "
        "(position, dimension), up to 8192 positions x 4096 dimensions.",
    ),
    PageInfo(
        "app_pages/wavelengths.py",
        "Wavelengths",
        ":material/waves:",
        "wavelengths",
        "Each dimension's sinusoid, the geometric progression of wavelengths from 2π, and the "
        "(sin, cos) pairs as clocks turning at their own speeds.",
    ),
    PageInfo(
        "app_pages/similarity.py",
        "Distance and dot product",
        ":material/compare_arrows:",
        "similarity",
        "PE·PE depends only on the offset and cannot tell before from after; a shift by k is a "
        "rotation matrix.",
    ),
    PageInfo(
        "app_pages/vit_grid.py",
        "2-D grids for ViT",
        ":material/apps:",
        "vit-grid",
        "MAE's 2-D sin-cos embedding of image patches, and the ViT paper's similarity tiles.",
    ),
    PageInfo(
        "app_pages/word_position.py",
        "Word + position",
        ":material/text_fields:",
        "word-position",
        "Real token embeddings plus position encodings for a sentence, projected with PCA.",
    ),
    PageInfo(
        "app_pages/learned_vs_sinusoidal.py",
        "Learned vs sinusoidal",
        ":material/school:",
        "learned-vs-sinusoidal",
        "MiniLM's learned 512-position table beside the sinusoid of the same shape.",
    ),
    PageInfo(
        "app_pages/rope.py",
        "RoPE",
        ":material/rotate_right:",
        "rope",
        "Rotary embeddings: the same sin/cos pairs as a rotation of queries and keys.",
    ),
    PageInfo(
        "app_pages/alibi.py",
        "ALiBi",
        ":material/trending_down:",
        "alibi",
        "Attention with linear biases: one slope per head, no position vectors at all.",
    ),
    PageInfo(
        "app_pages/extrapolation.py",
        "Extrapolation",
        ":material/open_in_full:",
        "extrapolation",
        "What each scheme does past its training length.",
    ),
)

PAGES: tuple[PageInfo, ...] = tuple(p for p in _ALL_PAGES if (ROOT / p.script).exists())
