"""Positional Encoding Explorer: the numeric core.

Pure numpy (torch only for `PositionalEncoding`, imported on first use; plotly only in
`figures`; never streamlit). Sources: Vaswani et al. 2017 §3.5 (the sinusoid), MAE's
``util/pos_embed.py`` (the concatenated and 2-D layouts), tensor2tensor's ``get_timing_signal_1d``
(the paper's authors' own timescales), and the worked examples of the five articles in
``shared/seeds``.
"""

from __future__ import annotations

from typing import Any

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
    sinusoidal_rows,
    wavelengths,
    worked_entry,
)
from core.vit_grid import sincos_2d_encoding

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
    "sinusoidal_rows",
    "wavelengths",
    "worked_entry",
]


from core.alibi import alibi_bias, alibi_slopes
from core.minilm import bert_input_embeddings, load_minilm
from core.minilm_encoder import minilm_forward
from core.mrope import mrope_pair_axes, mrope_position_ids
from core.relative_bias import t5_relative_bucket, xpos_scale
from core.rope import RotationSettings, rope_frequencies, rope_rotate, rope_scores
from core.rope_config import RopeConfig, parse_config
from core.rope_scaling import critical_pair, rope_scaled_frequencies, scaling_bands

__all__ += [
    "PositionalEncoding",
    "RopeConfig",
    "RotationSettings",
    "alibi_bias",
    "alibi_slopes",
    "bert_input_embeddings",
    "critical_pair",
    "load_minilm",
    "minilm_forward",
    "mrope_pair_axes",
    "mrope_position_ids",
    "parse_config",
    "rope_frequencies",
    "rope_rotate",
    "rope_scaled_frequencies",
    "rope_scores",
    "scaling_bands",
    "t5_relative_bucket",
    "xpos_scale",
]


def __getattr__(name: str) -> Any:
    """`PositionalEncoding` (``core.torch_modules``) imports torch, which takes seconds: only on
    first use. The model's files (``load_minilm``) are likewise read on the first call."""
    if name == "PositionalEncoding":
        from core.torch_modules import PositionalEncoding

        return PositionalEncoding
    raise AttributeError(f"module 'core' has no attribute {name!r}")
