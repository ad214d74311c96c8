"""The app's pages, in navigation order, each with its URL parameters: `app.py` registers them,
the home page lists them, the pages build their controls from them (`ui.controls.start_page`),
and the tests (AppTest, fuzzing, browser) and benchmarks read them to know what each page
accepts.

Every page's script must exist: a mistyped path fails at import, naming it. `url_path` values
and parameter names are a contract (shared links use them). Titles and one-line summaries are
in the message catalogues (`pages.<url_path>.title`, `.summary`; the home page's under `home`).
Free of Streamlit: tests and benchmarks import it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from core import limits
from core.minilm_encoder import NUM_HEADS, NUM_LAYERS
from core.rope import ROPE_LAYOUTS, SCALINGS
from core.rope_2d import MIXED_HEADS as ROPE_2D_HEADS
from core.rope_config import DEFAULT_CONTEXT, DEFAULT_HEAD_DIM, METHODS, PRESETS
from core.rope_scaling import MAX_CONTEXT
from core.similarity import METRICS
from core.vit_grid import MAX_GRID_SIDE
from core.word_position import EMBEDDINGS, ENCODINGS
from locales import DEFAULT_LANGUAGE, LANGUAGES, Lang, catalogue, message
from ui.params import (
    BASE_PARAM,
    D_MODEL_PARAM,
    LAYOUT_PARAM,
    POSITIONS_PARAM,
    TIMESCALES_PARAM,
    BoolParam,
    ChoiceParam,
    FloatParam,
    IntParam,
    Param,
    TextParam,
)
from ui.rope_codes import MAX_NAME, MAX_OVERLAY_CODE, MAX_PASTED_CODE, unpack_overlay, unpack_pasted

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class PageInfo:
    script: str  # path relative to the repository root
    icon: str
    url_path: str  # "" is the root URL
    params: tuple[Param, ...] = ()  # the page's controls, each bound to the URL parameter named

    @property
    def slug(self) -> str:
        return self.url_path or "home"

    @property
    def views(self) -> tuple[str | None, ...]:
        """The page's views: its `view` choices, or (None,) for a page that has none."""
        view = next((p for p in self.params if isinstance(p, ChoiceParam) and p.name == "view"),
                    None)
        return view.choices if view is not None else (None,)

    @property
    def live(self) -> tuple[Param, ...]:
        """The parameters its charts follow in the browser (`live=True`): the sliders a drag
        previews, the patch the pointer previews."""
        return tuple(p for p in self.params if getattr(p, "live", False))

    def title_in(self, lang: Lang) -> str:
        return message(f"pages.{self.slug}.title", lang)

    def summary_in(self, lang: Lang) -> str:
        """One line for the home page."""
        return message(f"pages.{self.slug}.summary", lang)

    @property
    def title(self) -> str:
        return self.title_in(DEFAULT_LANGUAGE)


def checked(pages: Iterable[PageInfo], root: Path = ROOT) -> tuple[PageInfo, ...]:
    """`pages`, once every script is found under `root`: a mistyped path raises, naming it."""
    pages = tuple(pages)
    missing = [p.script for p in pages if not (root / p.script).is_file()]
    if missing:
        raise FileNotFoundError(
            f"ui/pages.py registers page scripts that do not exist under {root}: "
            + ", ".join(missing)
        )
    return pages


# The similarity page's caps: PE.PE^T costs positions^2 x d_model, and 4096^2 x 1024 is about
# 2 s of float32 BLAS, the most a hosted demo should spend on one rerun.
_SIMILARITY_D_MODEL = 1024
_SIMILARITY_POSITIONS = 4096
# MiniLM's learned position table: 512 rows. The lenses show up to 2048 positions of a table
# (an uploaded one may have 4096 rows): the (2048, 2048) similarity matrix is 32 MB.
_LEARNED_ROWS = 512
_LEARNED_POSITIONS = 2048
MAX_TABLE_NAME = 255  # characters of an uploaded file's (or tensor's) name in a link
# What a slide's settings add to its cost (ui.tour.slide_cost; a slide at its page's defaults
# costs 1), from benchmarks/slide_cost.py (docs/robustness.md): seconds per slide of a PDF on
# serve.py against the built-in tour's. A 3-D scene (WebGL on the server's CPU) took about twice
# a default slide; MiniLM's vectors ~0.3 more; a sentence of 62 or of 2,000 characters no more
# than one of six words, within the noise: each word past the default's still counts a little.
SCENE_WORK = 1.0
MODEL_WORK = 0.3
WORD_WORK = 0.002

HOME = PageInfo("app_pages/home.py", ":material/home:", "")

PAGES: tuple[PageInfo, ...] = checked((
    # --- heatmap ------------------------------------------------------------------------------
    PageInfo("app_pages/heatmap.py", ":material/grid_on:", "heatmap", (
        D_MODEL_PARAM,
        POSITIONS_PARAM,
        BASE_PARAM,
        LAYOUT_PARAM,
        TIMESCALES_PARAM,
        IntParam("pos", 1, 0, 10**6),  # the worked example's position
        IntParam("dim", 2, 0, limits.MAX_D_MODEL - 1),  # ... and dimension
        # The exact zoom window's corner.
        IntParam("zoom_pos", 0, 0, limits.MAX_POSITIONS - 1, live=True),
        IntParam("zoom_dim", 0, 0, limits.MAX_D_MODEL - 1, live=True),
        IntParam("zoom_size", 32, 4, limits.MAX_ZOOM_SIZE),
    )),
    # --- wavelengths, similarity, vit-grid ----------------------------------------------------
    PageInfo("app_pages/wavelengths.py", ":material/waves:", "wavelengths", (
        D_MODEL_PARAM,
        POSITIONS_PARAM,
        BASE_PARAM,
        TIMESCALES_PARAM,
        # Interleaved columns to plot, e.g. "0,1,64,65"; empty: the fastest, a middle and the
        # slowest (sin, cos) pair. Parsed by core.wavelength_views.parse_dims.
        TextParam("dims", "", max_length=200),
        ChoiceParam("view", "curves", ("curves", "clocks")),  # the section shown
    )),
    PageInfo("app_pages/similarity.py", ":material/compare_arrows:", "similarity", (
        # 128 x 128: each diagonal of the matrix and the wiggles of the offset curve are a few
        # pixels wide on a laptop. The TF tutorial's 2048 positions x 512 (anchor 1000) drew the
        # matrix as a thin line and the curve as a band; a link names them to see that.
        IntParam("d_model", 128, limits.MIN_D_MODEL, _SIMILARITY_D_MODEL, multiple_of=2,
                 stops="size"),
        IntParam("positions", 128, 2, _SIMILARITY_POSITIONS, stops="count"),
        BASE_PARAM,
        # The middle of the default table (the TF tutorial's 1000 of 2048); < positions.
        IntParam("anchor", 64, 0, _SIMILARITY_POSITIONS - 1, live=True),
        # k of PE[p + k] = M_k PE[p].
        IntParam("offset", 3, -(_SIMILARITY_POSITIONS - 1), _SIMILARITY_POSITIONS - 1,
                 live=True),
        ChoiceParam("metric", "cosine", METRICS),
        # The frequency pair drawn as a rotating vector; < d/2.
        IntParam("pair", 0, 0, _SIMILARITY_D_MODEL // 2 - 1, live=True),
        # The section shown: one at a time, so a rerun redraws one or two charts.
        ChoiceParam("view", "matrix", ("matrix", "offset", "anchor", "distance", "rotation")),
    )),
    PageInfo("app_pages/vit_grid.py", ":material/apps:", "vit-grid", (
        IntParam("grid_h", 14, 1, MAX_GRID_SIDE, work=True),  # 14 = 224 px / 16 px
        IntParam("grid_w", 14, 1, MAX_GRID_SIDE, work=True),
        # ViT-B's 768 .. ViT-H's 1280.
        IntParam("d_model", 768, 4, 1280, multiple_of=4, stops="size"),
        BASE_PARAM,
        BoolParam("cls_token", True),  # ViT's (197, 768) = 1 cls + 14 x 14 patches
        # The selected patch "row,col"; empty: the centre. Parsed by core.vit_grid.parse_patch.
        TextParam("patch", "", max_length=40, live=True),
        # 2-D RoPE's head width (ViT-B: 768 / 12 heads) and the RoPE-Mixed head drawn.
        IntParam("d_head", 64, 4, 256, multiple_of=4, stops="size"),
        IntParam("head", 1, 1, ROPE_2D_HEADS, live=True),
        # M-RoPE's text around the image (the image: the page's grid, one frame).
        IntParam("text_before", 3, 1, 256),
        IntParam("text_after", 4, 1, 256),
        ChoiceParam("view", "tiles", ("tiles", "halves", "encoding", "rope", "mrope")),
    )),
    # --- word-position, learned-vs-sinusoidal -------------------------------------------------
    PageInfo("app_pages/word_position.py", ":material/text_fields:", "word-position", (
        # The article's sentence. What a slide costs (ui.tour.slide_cost) is measured in
        # benchmarks/slide_cost.py: a word more is within its noise, 3-D is WebGL drawn on the
        # server's CPU, the model is read and run.
        TextParam("sentence", "The cat sat on the mat", work_per_word=WORD_WORK),
        ChoiceParam("embedding", "article", EMBEDDINGS, work=(("minilm", MODEL_WORK),)),
        ChoiceParam("encoding", "learned", ENCODINGS),  # article: its own P
        LAYOUT_PARAM,
        D_MODEL_PARAM,  # the random preset's width (article: 2, MiniLM: 384)
        BoolParam("scale", False),  # x sqrt(d_model) before adding (the paper; not BERT)
        # The values are a contract (links).
        ChoiceParam("projection", "2-D", ("2-D", "3-D"), work=(("3-D", SCENE_WORK),)),
        IntParam("seed", 0, 0, 2**31 - 1),  # random word vectors and the PCA's random_state
        BoolParam("bert_input", False),  # MiniLM: LayerNorm(W + P + T_0) instead of W + P
        BoolParam("special_tokens", True),  # MiniLM: [CLS] ... [SEP], as BERT sees a sentence
    )),
    PageInfo("app_pages/order.py", ":material/swap_horiz:", "order", (
        # The articles' sentence, and the same words in another order: the model reads both.
        TextParam("text", "The cat sat on the mat", work_per_word=WORD_WORK),
        TextParam("other", "The mat sat on the cat", work_per_word=WORD_WORK),
        # The attention shown: layer and head, 1-based.
        IntParam("layer", 1, 1, NUM_LAYERS, live=True),
        IntParam("head", 1, 1, NUM_HEADS, live=True),
        # NoPE's random sentences (core.nope): their length and their vectors' width.
        IntParam("length", 256, 2, limits.MAX_NOPE_LENGTH, stops="count"),
        IntParam("width", 64, 1, limits.MAX_NOPE_WIDTH, stops="size"),
        ChoiceParam("view", "attention", ("attention", "facts", "nope")),  # the section shown
    )),
    PageInfo("app_pages/learned_vs_sinusoidal.py", ":material/school:", "learned-vs-sinusoidal", (
        # The learned rows; past them only the sinusoid.
        IntParam("positions", _LEARNED_ROWS, 2, _LEARNED_POSITIONS, stops="count"),
        ChoiceParam("metric", "cosine", METRICS[::-1]),  # cosine first: the default
        # A row of the learned table (clamped to its rows, with a note).
        IntParam("anchor", 100, 0, _LEARNED_POSITIONS - 1, live=True),
        ChoiceParam("view", "tables", ("tables", "similarity", "offset", "space", "wavelengths",
                                       "grid", "extent")),
        # The table: MiniLM's, or one the visitor uploads (ui/table_upload.py). A link carries
        # the file's name and tensor, never the table: the page asks for the file again.
        ChoiceParam("source", "minilm", ("minilm", "upload")),
        TextParam("file", "", MAX_TABLE_NAME),
        TextParam("tensor", "", MAX_TABLE_NAME),
        # The grid view's reading of the rows as a ViT's patches: "14x14+cls", "16x32"; one
        # the table cannot be is replaced by the squarest it can (core.vit_grid.grid_shapes).
        TextParam("grid", "", 20),
    )),
    # --- rope, alibi, extrapolation -----------------------------------------------------------
    PageInfo("app_pages/rope.py", ":material/rotate_right:", "rope", (
        # LLaMA's head width.
        IntParam("d_head", 128, 2, limits.MAX_D_HEAD, multiple_of=2, stops="size"),
        BASE_PARAM,  # 10000 (RoFormer, LLaMA 1-2); the page offers LLaMA-3's 500000 as a preset
        ChoiceParam("layout", "interleaved", ROPE_LAYOUTS),
        # Offsets and distances shown.
        IntParam("positions", 512, 2, limits.MAX_POSITIONS, stops="count"),
        ChoiceParam("scaling", "none", ("none", *SCALINGS)),
        # The context-extension factor s: 2048 -> 8192 by default. In the config view, the
        # config's rope_scaling factor: its default there is the config's own (app_pages/rope.py).
        IntParam("factor", 4, 1, limits.MAX_ROPE_FACTOR),
        ChoiceParam("view", "rotation", ("rotation", "relative", "decay", "extension", "config")),
        # The context extension's trained length L (LLaMA 1's 2048): the target is factor x L.
        IntParam("train_length", 2048, 1, limits.MAX_EXTENSION_TRAIN_LENGTH, stops="count"),
        # The config view's model (core.rope_config.PRESETS), and a second one beside it.
        ChoiceParam("config", "llama-3.1-8b", tuple(PRESETS)),
        ChoiceParam("compare", "none", ("none", *PRESETS)),
        # The config's method and each rope_scaling field it reads, as transformers' rope_utils
        # has them (core.rope_config.METHOD_FIELDS). Their defaults here are Llama 3.1's; on
        # the page each is the chosen config's own (ui/rope_workbench.py), so that a link carries
        # only the fields it overrides. 0 for attention_factor, mscale and mscale_all_dim:
        # not set (transformers computes the attention factor from the factor).
        ChoiceParam("rope_type", "llama3", METHODS),
        IntParam("original_max_position_embeddings", 8192, 1, MAX_CONTEXT),
        FloatParam("attention_factor", 0.0, 0.0, 1000.0),
        FloatParam("beta_fast", 32.0, 0.0, 1e6),
        FloatParam("beta_slow", 1.0, 0.0, 1e6),
        FloatParam("mscale", 0.0, 0.0, 1000.0),
        FloatParam("mscale_all_dim", 0.0, 0.0, 1000.0),
        BoolParam("truncate", True),
        FloatParam("low_freq_factor", 1.0, 0.0, 1e6, exclusive_minimum=True),
        FloatParam("high_freq_factor", 4.0, 0.0, 1e6, exclusive_minimum=True),
        # Configs pinned beside it (ui/rope_codes.py), all drawn on the same axes or side by
        # side; a pasted config's RoPE fields and its name.
        TextParam("overlay", "", MAX_OVERLAY_CODE, check=unpack_overlay),
        # On the same axes, side by side, or each config minus a baseline: the edited config,
        # the preset to compare or a pinned one (the page offers those drawn).
        ChoiceParam("arrange", "overlay", ("overlay", "side", "difference")),
        ChoiceParam("baseline", "edited", ("edited", "compare", "pin1", "pin2", "pin3")),
        TextParam("pasted", "", MAX_PASTED_CODE, check=unpack_pasted),
        TextParam("name", "", MAX_NAME),
        # The head width of a pasted config.json that gives none (RoPE's fields alone): a
        # control shown only then, its default Llama's, Qwen2.5's and Mistral's 128.
        IntParam("head_dim", DEFAULT_HEAD_DIM, 2, limits.MAX_D_HEAD, multiple_of=2),
        # Its context window when it gives none: plain RoPE draws without one (the distances
        # drawn reach it), a scaling method reads it. Llama 3's 8192.
        IntParam("max_position_embeddings", DEFAULT_CONTEXT, 1, MAX_CONTEXT),
    )),
    PageInfo("app_pages/alibi.py", ":material/trending_down:", "alibi", (
        # The paper's 8 heads: slopes 1/2 ... 1/256.
        IntParam("num_heads", 8, 1, limits.MAX_HEADS, work=True),
        IntParam("positions", 256, 1, limits.MAX_ALIBI_POSITIONS, stops="count"),
        BoolParam("causal", True),  # the paper's decoder; false: the symmetric -m|i - j|
        IntParam("head", 1, 1, limits.MAX_HEADS, live=True),  # numbered from 1, as in the paper
        # T5's buckets (T5's own settings) and xPos (torchscale's defaults; d_head 64).
        IntParam("num_buckets", 32, 4, 128, multiple_of=2),
        IntParam("max_distance", 128, 1, limits.MAX_ALIBI_POSITIONS, stops="count"),
        FloatParam("gamma", 0.4, 0.0, 4.0, exclusive_minimum=True),
        IntParam("scale_base", 512, 1, 8192, stops="count"),
        IntParam("d_head", 64, 2, 256, multiple_of=2, stops="size"),
        # The section shown: the slopes (table and chart), every head's bias, the enlarged
        # head, the attention reach; T5's buckets and xPos's decay beside them.
        ChoiceParam("view", "slopes", ("slopes", "heads", "head", "reach", "t5", "xpos")),
    )),
    PageInfo("app_pages/extrapolation.py", ":material/open_in_full:", "extrapolation", (
        # LLaMA-1's context.
        IntParam("train_length", 2048, 1, limits.MAX_POSITIONS, stops="count"),
        IntParam("target_length", 8192, 1, limits.MAX_POSITIONS, stops="count"),
        # The sinusoid's width, and RoPE's d_head.
        IntParam("d_model", 128, 2, limits.MAX_EXTRAPOLATION_D_MODEL, multiple_of=2,
                 stops="size"),
        # A model's config for the RoPE panel (none: d_model, train_length and target_length),
        # a second one beside it, and the config's rope_scaling factor (its default there is
        # the config's own: the link carries it only when overridden).
        ChoiceParam("config", "none", ("none", *PRESETS)),
        ChoiceParam("compare", "none", ("none", *PRESETS)),
        IntParam("factor", 4, 1, limits.MAX_ROPE_FACTOR),
    )),
))

# The slide player (app_pages/tour.py, ui/tour.py): the built-in tour, or a visitor's deck
# carried whole in `deck`. Not one of PAGES: it shows their views, it has none of its own.
MAX_DECK_SLIDES = 30  # a talk, not an archive
MAX_DECK_LENGTH = 3000  # characters of `deck`: a link stays well under browsers' 8 KB
TOUR_PAGE = PageInfo("app_pages/tour.py", ":material/slideshow:", "tour", (
    IntParam("slide", 1, 1, MAX_DECK_SLIDES),  # numbered from 1, as the counter says
    TextParam("deck", "", max_length=MAX_DECK_LENGTH),  # empty: the built-in tour
    BoolParam("presenter", False),  # the presenter's window: notes, the next slide, a clock
))

checked((HOME, TOUR_PAGE))

# Every page's URL parameters, by url_path (the home page has none).
PAGE_PARAMS: dict[str, tuple[Param, ...]] = {p.url_path: p.params for p in PAGES}


def params_of(page: str) -> dict[str, Param]:
    """The specs of one page (its url_path), by parameter name."""
    return {p.name: p for p in PAGE_PARAMS[page]}


def takeaway_key(page: str, view: str | None = None, source: str | None = None) -> str | None:
    """The catalogue key of a view's one-line takeaway (shown in presentation mode, the
    tour's slides included): the view's own for the page's data `source` where it has one
    (`takeaway.<page>.<source>.<view>`: an uploaded table is not MiniLM's), else the view's
    (`takeaway.<page>.<view>`), else the page's (`takeaway.<page>`, or `<page>.takeaway` for
    the home and order pages); None if none."""
    slug = page or HOME.slug
    words = catalogue(DEFAULT_LANGUAGE)
    keys = ([f"takeaway.{slug}.{source}.{view}"] if view and source else []) + (
        [f"takeaway.{slug}.{view}"] if view else []) + [f"takeaway.{slug}", f"{slug}.takeaway"]
    return next((key for key in keys if key in words), None)


def app_params(default_language: str = DEFAULT_LANGUAGE, *,
               language_carried: bool = False) -> tuple[Param, ...]:
    """The app-wide controls, on every page: the interface language (its default is the
    browser's, so a link without ``lang`` opens in the visitor's language; with
    `language_carried`, the tour's, the address says it always: a talk's link opens in the
    talk's language in any browser) and presentation mode."""
    return (
        ChoiceParam("lang", default_language, LANGUAGES, carried=language_carried),
        BoolParam("present", False),  # present=1: slides (ui.i18n.presenting)
    )
