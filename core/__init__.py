"""Positional Encoding Explorer: the numeric core.

Pure numpy (torch only for `PositionalEncoding`, imported on first use; plotly only in
`core.figures`; never streamlit). Sources: Vaswani et al. 2017 §3.5 (the sinusoid), MAE's
``util/pos_embed.py`` (the concatenated and 2-D layouts), tensor2tensor's ``get_timing_signal_1d``
(the paper's authors' own timescales), and the worked examples of the five articles in
``shared/seeds``.
"""

from __future__ import annotations

from typing import Any

from core.grid2d import sincos_2d_encoding
from core.overview import (
    Overview,
    bin_centers,
    bin_edges,
    resample,
    sinusoid_overview,
    sinusoid_window,
)
from core.sinusoidal import (
    FLOAT32_ERROR_BOUND,
    LAYOUTS,
    TIMESCALES,
    Layout,
    Timescales,
    WorkedEntry,
    encode_positions,
    frequencies,
    offset_dot_product,
    offset_dot_products,
    shift_matrix,
    sinusoidal_encoding,
    wavelengths,
    worked_entry,
)

__all__: list[str] = [
    "FLOAT32_ERROR_BOUND",
    "LAYOUTS",
    "TIMESCALES",
    "Layout",
    "Overview",
    "Timescales",
    "WorkedEntry",
    "bin_centers",
    "bin_edges",
    "encode_positions",
    "frequencies",
    "offset_dot_product",
    "offset_dot_products",
    "resample",
    "shift_matrix",
    "sincos_2d_encoding",
    "sinusoid_overview",
    "sinusoid_window",
    "sinusoidal_encoding",
    "wavelengths",
    "worked_entry",
]


# Names whose modules are imported on first use: torch and the model files take seconds to load,
# so only the code that asks for them pays. name -> module. One section per topic.
_LAZY: dict[str, str] = {
    # torch
    "PositionalEncoding": "core.torch_modules",
    # word + position, learned vs sinusoidal (MiniLM)
    "load_minilm": "core.minilm",
    "bert_input_embeddings": "core.minilm",
    # RoPE and ALiBi
    "rope_frequencies": "core.rope",
    "rope_rotate": "core.rope",
    "rope_scores": "core.rope",
    "alibi_slopes": "core.alibi",
    "alibi_bias": "core.alibi",
    # RoPE context extension: a config.json's rope_scaling, and published models' settings
    "rope_scaled_frequencies": "core.rope_scaling",
    "scaling_bands": "core.rope_scaling",
    "critical_pair": "core.rope_scaling",
    "RopeConfig": "core.rope_configs",
    "parse_config": "core.rope_configs",
}


__all__ += sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'core' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
