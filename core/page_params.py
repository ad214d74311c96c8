"""Every page's URL parameters, by page url_path: the controls' specs, in one place.

The pages build their controls from these specs, and the tests (AppTest, fuzzing, browser) read
them to know what each page accepts. A parameter's name is a contract: shared links use it.
"""

from __future__ import annotations

from core import limits
from core.params import BASE, D_MODEL, LAYOUT, POSITIONS, IntParam, Param

PAGE_PARAMS: dict[str, tuple[Param, ...]] = {
    # --- heatmap ------------------------------------------------------------------------------
    "heatmap": (
        D_MODEL,
        POSITIONS,
        BASE,
        LAYOUT,
        IntParam("pos", 1, 0, 10**6),  # the worked example's position
        IntParam("dim", 2, 0, limits.MAX_D_MODEL - 1),  # ... and dimension
        IntParam("zoom_pos", 0, 0, limits.MAX_POSITIONS - 1),  # the exact zoom window's corner
        IntParam("zoom_dim", 0, 0, limits.MAX_D_MODEL - 1),
        IntParam("zoom_size", 32, 4, limits.MAX_ZOOM_SIZE),
    ),
    # --- wavelengths, similarity, vit-grid ----------------------------------------------------
    # --- word-position, learned-vs-sinusoidal -------------------------------------------------
    # --- rope, alibi, extrapolation -----------------------------------------------------------
}


def params_of(page: str) -> dict[str, Param]:
    """The specs of one page, by parameter name."""
    return {p.name: p for p in PAGE_PARAMS[page]}
