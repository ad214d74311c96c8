"""Every page's URL parameters, by page url_path: the controls' specs, in one place.

The pages build their controls from these specs, and the tests (AppTest, fuzzing, browser) read
them to know what each page accepts. A parameter's name is a contract: shared links use it.
"""

from __future__ import annotations

from core import limits
from core import similarity as similarity_core
from core import word_position as word_position_core
from core.rope import ROPE_LAYOUTS, SCALINGS
from core.rope_configs import PRESETS
from ui.locales import DEFAULT_LANGUAGE, LANGUAGES
from ui.params import (
    BASE,
    D_MODEL,
    LAYOUT,
    POSITIONS,
    TIMESCALES,
    BoolParam,
    ChoiceParam,
    IntParam,
    Param,
    TextParam,
)

PAGE_PARAMS: dict[str, tuple[Param, ...]] = {
    # --- heatmap ------------------------------------------------------------------------------
    "heatmap": (
        D_MODEL,
        POSITIONS,
        BASE,
        LAYOUT,
        TIMESCALES,
        IntParam("pos", 1, 0, 10**6),  # the worked example's position
        IntParam("dim", 2, 0, limits.MAX_D_MODEL - 1),  # ... and dimension
        IntParam("zoom_pos", 0, 0, limits.MAX_POSITIONS - 1),  # the exact zoom window's corner
        IntParam("zoom_dim", 0, 0, limits.MAX_D_MODEL - 1),
        IntParam("zoom_size", 32, 4, limits.MAX_ZOOM_SIZE),
    ),
    # --- wavelengths, similarity, vit-grid ----------------------------------------------------
    "wavelengths": (
        D_MODEL,
        POSITIONS,
        BASE,
        TIMESCALES,
        # Interleaved columns to plot, e.g. "0,1,64,65"; empty: the fastest, a middle and the
        # slowest (sin, cos) pair. Parsed by core.wavelength_views.parse_dims.
        TextParam("dims", "", max_length=200),
        ChoiceParam("view", "curves", ("curves", "clocks")),  # the section shown
    ),
    "similarity": (
        # PE.PE^T costs positions^2 x d_model: 4096^2 x 1024 is about 2 s of float32 BLAS,
        # the most a hosted demo should spend on one rerun.
        IntParam("d_model", 512, limits.MIN_D_MODEL, 1024, multiple_of=2),
        IntParam("positions", 2048, 2, 4096),  # the TF tutorial's 2048 by default
        BASE,
        IntParam("anchor", 1000, 0, 4095),  # the TF tutorial's position 1000; < positions
        IntParam("offset", 3, -4095, 4095),  # k of PE[p + k] = M_k PE[p]
        ChoiceParam("metric", "cosine", similarity_core.METRICS),
        IntParam("pair", 0, 0, 511),  # the frequency pair drawn as a rotating vector; < d/2
        # The section shown: one at a time, so a rerun redraws one or two charts.
        ChoiceParam("view", "matrix", ("matrix", "offset", "anchor", "distance", "rotation")),
    ),
    "vit-grid": (
        IntParam("grid_h", 14, 1, 64),  # 64 = core.vit_grid.MAX_GRID_SIDE; 14 = 224 px / 16 px
        IntParam("grid_w", 14, 1, 64),
        IntParam("d_model", 768, 4, 1280, multiple_of=4),  # ViT-B's 768 .. ViT-H's 1280
        BASE,
        BoolParam("cls_token", True),  # ViT's (197, 768) = 1 cls + 14 x 14 patches
        # The selected patch "row,col"; empty: the centre. Parsed by core.vit_grid.parse_patch.
        TextParam("patch", "", max_length=40),
        ChoiceParam("view", "tiles", ("tiles", "halves", "encoding")),  # the section shown
    ),
    # --- word-position, learned-vs-sinusoidal -------------------------------------------------
    "word-position": (
        TextParam("sentence", "The cat sat on the mat"),  # the article's sentence
        ChoiceParam("embedding", "article", word_position_core.EMBEDDINGS),
        ChoiceParam("encoding", "learned", word_position_core.ENCODINGS),  # article: its own P
        LAYOUT,
        D_MODEL,  # the random preset's width (article: 2, MiniLM: 384)
        BoolParam("scale", False),  # x sqrt(d_model) before adding (the paper; not BERT)
        ChoiceParam("projection", "2-D", ("2-D", "3-D")),  # the values are a contract (links)
        IntParam("seed", 0, 0, 2**31 - 1),  # random word vectors and the PCA's random_state
        BoolParam("bert_input", False),  # MiniLM: LayerNorm(W + P + T_0) instead of W + P
        BoolParam("special_tokens", True),  # MiniLM: [CLS] ... [SEP], as BERT sees a sentence
    ),
    "learned-vs-sinusoidal": (
        IntParam("positions", 512, 2, 2048),  # 512 learned rows; past them only the sinusoid
        ChoiceParam("metric", "cosine", similarity_core.METRICS),
        IntParam("anchor", 100, 0, 511),  # a row of the learned table
        ChoiceParam("view", "tables", ("tables", "similarity", "offset", "space", "extent")),
    ),
    # --- rope, alibi, extrapolation -----------------------------------------------------------
    "rope": (
        IntParam("d_head", 128, 2, limits.MAX_D_HEAD, multiple_of=2),  # LLaMA's head width
        BASE,  # 10000 (RoFormer, LLaMA 1-2); the page offers LLaMA-3's 500000 as a preset
        ChoiceParam("layout", "interleaved", ROPE_LAYOUTS),
        IntParam("positions", 512, 2, limits.MAX_POSITIONS),  # offsets and distances shown
        ChoiceParam("scaling", "none", ("none", *SCALINGS)),
        # The context-extension factor s: 2048 -> 8192 by default. In the config view, the
        # config's rope_scaling factor: its default there is the config's own (app_pages/rope.py).
        IntParam("factor", 4, 1, limits.MAX_ROPE_FACTOR),
        ChoiceParam("view", "rotation", ("rotation", "relative", "decay", "extension", "config")),
        # The config view's model (core.rope_configs.PRESETS), and a second one beside it.
        ChoiceParam("config", "llama-3.1-8b", tuple(PRESETS)),
        ChoiceParam("compare", "none", ("none", *PRESETS)),
    ),
    "alibi": (
        IntParam("num_heads", 8, 1, limits.MAX_HEADS),  # the paper's 8 heads: slopes 1/2 ... 1/256
        IntParam("positions", 256, 1, limits.MAX_ALIBI_POSITIONS),
        BoolParam("causal", True),  # the paper's decoder; false: the symmetric -m|i - j|
        IntParam("head", 1, 1, limits.MAX_HEADS),  # numbered from 1, as in the paper
        # The section shown: the slopes (table and chart), every head's bias, the enlarged
        # head, the attention reach.
        ChoiceParam("view", "slopes", ("slopes", "heads", "head", "reach")),
    ),
    "extrapolation": (
        IntParam("train_length", 2048, 1, limits.MAX_POSITIONS),  # LLaMA-1's context
        IntParam("target_length", 8192, 1, limits.MAX_POSITIONS),
        # The sinusoid's width, and RoPE's d_head.
        IntParam("d_model", 128, 2, limits.MAX_EXTRAPOLATION_D_MODEL, multiple_of=2),
        # A model's config for the RoPE panel (none: d_model, train_length and target_length),
        # a second one beside it, and the config's rope_scaling factor (its default there is
        # the config's own: the link carries it only when overridden).
        ChoiceParam("config", "none", ("none", *PRESETS)),
        ChoiceParam("compare", "none", ("none", *PRESETS)),
        IntParam("factor", 4, 1, limits.MAX_ROPE_FACTOR),
    ),
}


def app_params(default_language: str = DEFAULT_LANGUAGE) -> tuple[Param, ...]:
    """The app-wide controls, on every page: the interface language (its default is the
    browser's, so a link without ``lang`` opens in the visitor's language) and presentation
    mode."""
    return (
        ChoiceParam("lang", default_language, LANGUAGES),
        BoolParam("present", False),  # present=1: slides (ui.i18n.presenting)
    )


def params_of(page: str) -> dict[str, Param]:
    """The specs of one page, by parameter name."""
    return {p.name: p for p in PAGE_PARAMS[page]}
