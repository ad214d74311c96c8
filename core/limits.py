"""Every size limit of the app, in one place.

The controls (their min/max), the URL parsing (`ui.params`) and the callers of `core` read these
numbers from here, so a limit changed here is changed everywhere. They exist so that one visitor of
a hosted demo cannot make the server allocate unbounded memory: the largest sinusoid table the
heatmap page may touch is MAX_POSITIONS x MAX_D_MODEL (it is never materialised whole, see
`core.overview`), and everything a browser receives is capped at screen resolution.
"""

from __future__ import annotations

# Sinusoidal tables (heatmap page and friends).
MAX_POSITIONS = 8192  # the longest context the heatmap page shows (8k, a modern LLM's order)
MAX_D_MODEL = 4096  # LLaMA-7B's width; wider tables add nothing visible
MIN_D_MODEL = 2  # one (sin, cos) pair
MAX_BASE = 1e8  # LLaMA-3 uses 5e5; 1e8 leaves room to explore without float64 trouble
DEFAULT_BASE = 10000.0  # the paper's value

# What a heatmap sends to the browser: about a screen's worth of cells. Every dimension keeps its
# own column up to 1024 (a column never mixes a sine with a cosine); the rows then share a budget of
# 131,072 cells (512 x 256): ~0.7 MB as plotly 7's base64 float32, which leaves room for the zoom
# window's 256 x 256 exact cells inside the 1.5 MB-per-rerun budget (measured: 163,840 cells put
# the heatmap page at its maximum over it, 1508 KB).
MAX_HEATMAP_ROWS = 512
MAX_HEATMAP_COLS = 1024
MAX_HEATMAP_CELLS = 2**17
# A heatmap alone in its view may use 512 x 320 cells (~0.87 MB): the 2-D grid's table then shows
# ViT-B/16's (197, 768) exactly.
SOLE_HEATMAP_CELLS = 512 * 320
# A wider table is drawn as 512 columns (about a screen's width), each resampling neighbouring
# columns of one kind; its rows then get 256 cells.
WIDE_HEATMAP_COLS = 512
# Square matrices (similarity between positions): 400 x 400 cells.
MAX_SQUARE_SIDE = 400

# The exact-values zoom window of the heatmap page (a side of the square window).
MAX_ZOOM_SIZE = 256

# The torch module's buffer: 5000 is the default of the paper's reference code; the cap keeps a
# (1, max_len, d_model) float32 buffer under 1 GiB.
MAX_TORCH_ELEMENTS = 2**28

# Text inputs (URL parameters included) are cut at this many characters.
MAX_TEXT_LENGTH = 2000

# RoPE page (core.rope).
MAX_D_HEAD = 1024  # LLaMA and most LLMs use 128; wider heads add nothing visible
MAX_ROPE_FACTOR = 64  # context extension 2k -> 128k tokens; Chen et al. go to s = 16
MAX_EXTENSION_TRAIN_LENGTH = 131072  # the RoPE page's L for a context extension (x64: 8.4M < 10**7)

# ALiBi page (core.alibi).
MAX_HEADS = 64  # BLOOM-176B has 112 heads; 64 is enough to see the geometric pattern
MAX_ALIBI_POSITIONS = 2048  # a (2048, 2048) distance matrix is 32 MB

# T5's buckets and xPos (core.relative_bias): relative positions (key - query) per call, and how
# far apart (T5 saw 512 tokens; xPos's decay is drawn over a page's positions).
MAX_RELATIVE_POSITIONS = 2**20  # a (1024, 1024) matrix of offsets: 8 MB as int64
MAX_RELATIVE_DISTANCE = 2**16
MAX_XPOS_SCALE_BASE = 8192  # torchscale uses 512

# 2-D RoPE (core.rope_2d): patches per side (a 1024 px image in 16 px patches has 64).
MAX_ROPE_2D_SIDE = 64

# M-RoPE (core.mrope): tokens of a text + image sequence (a 1024-token image is 32 x 32 patches).
MAX_MROPE_TOKENS = 16384

# Extrapolation page (core.extrapolation): the novelty scan costs (T - L) x L + T x d/2.
MAX_EXTRAPOLATION_D_MODEL = 1024  # keeps one rerun under a second

# The order page (core.minilm_forward): the whole model runs on the sentence, twice (with and
# without positions); 64 tokens take ~0.1 s each and a (6, 12, 64, 64) attention is 1.2 MB.
MAX_ORDER_TOKENS = 64

# NoPE's causal mean (core.nope): draws x length x width normal numbers, made a draw at a time
# (16 MB at most as float64).
MAX_NOPE_LENGTH = 2048
MAX_NOPE_WIDTH = 1024

# Position tables a visitor brings (core.learned_tables, the learned-vs-sinusoidal page): BERT's
# table is 512 x 768, GPT-2's wpe 1024 x 768, ViT-L/16's pos_embed 577 x 1024. The largest,
# 4096 x 1024 float32, is 16 MiB of numbers; a file may be 1 MiB more for its header (and a
# text file's digits). Streamlit's upload limit (server.maxUploadSize, in MiB) is the same.
MAX_TABLE_POSITIONS = 4096
MAX_TABLE_WIDTH = 1024
MAX_TABLE_FILE_MB = 17
MAX_TABLE_FILE_BYTES = MAX_TABLE_FILE_MB * 2**20
