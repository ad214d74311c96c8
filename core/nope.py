"""NoPE: no positional encoding, and what a causal mask alone tells a model about position.

Without position vectors, a decoder's first attention layer still sees a causal mask: token p
attends to tokens 0..p only. With nothing yet to tell the tokens apart, its weights are uniform
there, and its output at p is the mean of p + 1 token vectors. For independent random vectors of
unit expected squared norm that mean has E|m_p|^2 = 1 / (p + 1): its norm shrinks like
1 / sqrt(p + 1), so position can be read back from it, p ~ 1 / |m_p|^2 - 1, the sharper the
wider the vectors (the squared norm's relative spread is ~sqrt(2 / width)).

Haviv, Ram, Press, Izsak and Levy, "Transformer Language Models without Positional Encodings
Still Learn Positional Information" (Findings of EMNLP 2022, arXiv:2203.16634), section 5;
Kazemnejad et al., "The Impact of Positional Encoding on Length Generalization in Transformers"
(NeurIPS 2023, arXiv:2305.19466) find such decoders generalise to longer inputs as well as or
better than RoPE and ALiBi on their tasks.
"""

from __future__ import annotations

import numpy as np

from core import limits
from core._checks import check_int

DRAWS = 8  # random sentences drawn at once (each a line on the page)


def causal_mean_norms(length: int, width: int, *, draws: int = DRAWS,
                      seed: int = 0) -> np.ndarray:
    """|m_p| for p = 0 .. length - 1, shape (draws, length): m_p is the mean of the first p + 1
    of `length` vectors drawn from N(0, I / width) (unit expected squared norm), what uniform
    causal attention outputs at position p. Draw d uses the d-th `(length, width)` block of
    ``numpy.random.default_rng(seed)``'s standard normals."""
    length = check_int("length", length, minimum=1, maximum=limits.MAX_NOPE_LENGTH)
    width = check_int("width", width, minimum=1, maximum=limits.MAX_NOPE_WIDTH)
    draws = check_int("draws", draws, minimum=1, maximum=64)
    rng = np.random.default_rng(seed)
    counts = np.arange(1, length + 1, dtype=np.float64)[:, None]  # (length, 1)
    norms = np.empty((draws, length))
    for draw in range(draws):  # one (length, width) block at a time: 16 MB at most
        vectors = rng.standard_normal((length, width)) / np.sqrt(width)
        norms[draw] = np.linalg.norm(np.cumsum(vectors, axis=0) / counts, axis=1)
    return norms


def expected_norm(length: int) -> np.ndarray:
    """1 / sqrt(p + 1) for p = 0 .. length - 1: the root of E|m_p|^2, shape (length,)."""
    length = check_int("length", length, minimum=1, maximum=limits.MAX_NOPE_LENGTH)
    return 1.0 / np.sqrt(np.arange(1, length + 1, dtype=np.float64))


def read_position(norms: np.ndarray) -> np.ndarray:
    """The position each norm says, 1 / |m|^2 - 1 (same shape as `norms`)."""
    norms = np.asarray(norms, dtype=np.float64)
    return 1.0 / np.square(norms) - 1.0


def read_position_spread(norms: np.ndarray) -> np.ndarray:
    """The positions `norms` ``(draws, length)`` say, across the draws: their 10th, 50th and
    90th percentiles at each position, shape (3, length)."""
    return np.percentile(read_position(norms), [10, 50, 90], axis=0)
