"""Qwen2-VL's multimodal RoPE (M-RoPE; Wang et al., 2024): every token has three positions
(time, height, width), and each frequency pair of a head turns with one of them.

- `mrope_pair_axes`: which axis drives each pair. Qwen2-VL splits the d_head/2 frequencies into
  `mrope_section` consecutive chunks, chunk k taking axis k % 3 (``(16, 24, 24)`` for d_head
  128: the fastest 16 pairs follow time, the next 24 height, the slowest 24 width), as
  ``Qwen2VLRotaryEmbedding.recomposition_frequencies`` in transformers.
- `mrope_position_ids`: the (t, h, w) ids of a text + image sequence, as
  ``Qwen2VLModel.get_rope_index``: a text token has t = h = w = a running index; an image's
  tokens (its grid after merging, t x h x w) get their grid indices plus the next free index,
  and the text after it resumes max(h, w) later (the largest id so far + 1 for an image, whose t
  is 1).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from core import limits
from core._checks import check_base, check_int

AXES = ("time", "height", "width")
QWEN2_VL_SECTION = (16, 24, 24)  # d_head 128


def mrope_pair_axes(d_head: int, mrope_section: Sequence[int] = QWEN2_VL_SECTION) -> np.ndarray:
    """(d_head/2,) int: 0 (time), 1 (height) or 2 (width) for each frequency pair i (pair i
    turns at base^(-2i/d_head): the first pairs are the fastest)."""
    d_head = check_int("d_head", d_head, minimum=2, maximum=limits.MAX_D_HEAD)
    if d_head % 2:
        raise ValueError(f"d_head must be even (pairs of dimensions), got {d_head}")
    if isinstance(mrope_section, str | bytes) or not isinstance(mrope_section, Sequence) or not (
            1 <= len(mrope_section) <= d_head // 2):
        raise ValueError(f"mrope_section must be a list of chunk sizes, got {mrope_section!r}")
    sizes = [check_int("mrope_section", size, minimum=1, maximum=d_head // 2)
             for size in mrope_section]
    if sum(sizes) != d_head // 2:
        raise ValueError(f"mrope_section must add up to d_head / 2 = {d_head // 2} pairs, got "
                         f"{sizes} (sum {sum(sizes)})")
    return np.concatenate([np.full(size, k % 3, dtype=np.int64)
                           for k, size in enumerate(sizes)])


def _segment(segment: object) -> tuple[str, int | tuple[int, int, int]]:
    if not (isinstance(segment, tuple | list) and len(segment) == 2
            and segment[0] in ("text", "image")):
        raise ValueError(f"segments: each is ('text', n) or ('image', (t, h, w)), got "
                         f"{segment!r}")
    kind, size = segment
    if kind == "text":
        return kind, check_int("segments (text length)", size, minimum=1,
                               maximum=limits.MAX_MROPE_TOKENS)
    if not (isinstance(size, tuple | list) and len(size) == 3):
        raise ValueError(f"segments: an image's grid is (t, h, w), got {size!r}")
    grid = tuple(check_int("segments (image grid)", side, minimum=1,
                           maximum=limits.MAX_MROPE_TOKENS) for side in size)
    return kind, grid  # type: ignore[return-value]


def mrope_position_ids(segments: Sequence[tuple[str, object]]) -> np.ndarray:
    """(3, N) int64: the (t, h, w) ids of every token of `segments` in order, e.g.
    ``[("text", 3), ("image", (1, 2, 3)), ("text", 4)]`` (an image as its merged grid)."""
    if isinstance(segments, str | bytes) or not isinstance(segments, Sequence) or not segments:
        raise ValueError(f"segments must be a non-empty list, got {segments!r}")
    parsed = [_segment(segment) for segment in segments]
    total = sum(size if kind == "text" else int(np.prod(size)) for kind, size in parsed)
    if total > limits.MAX_MROPE_TOKENS:
        raise ValueError(f"segments have {total} tokens: at most {limits.MAX_MROPE_TOKENS} "
                         f"are allowed")
    parts = []
    start = 0
    for kind, size in parsed:
        if kind == "text":
            parts.append(np.broadcast_to(np.arange(start, start + size), (3, size)))
            start += size
        else:
            t, h, w = size
            grid = np.stack(np.meshgrid(np.arange(t), np.arange(h), np.arange(w),
                                        indexing="ij")).reshape(3, -1)
            parts.append(grid + start)
            start += max(h, w)
    return np.concatenate(parts, axis=1).astype(np.int64)


QWEN2_VL_BASE = 1_000_000.0  # Qwen2-VL's rope_theta


def mrope_relative_logits(offsets: object, d_head: int = 128,
                          mrope_section: Sequence[int] = QWEN2_VL_SECTION, *,
                          base: float = QWEN2_VL_BASE) -> np.ndarray:
    """(4, len(offsets)) float64: q.k / (d_head/2) of a query and a key whose pairs all point
    the same way, `offset` apart along time only, height only, width only (two tokens of one
    image), and along all three at once (two text tokens): the mean over pairs of
    cos(theta_i * offset) over the pairs that axis drives (the others do not turn)."""
    axes = mrope_pair_axes(d_head, mrope_section)
    base = check_base(base)
    values = np.asarray(offsets)
    if values.ndim != 1 or not np.issubdtype(values.dtype, np.integer) or values.size > (
            limits.MAX_MROPE_TOKENS) or (values.size and np.abs(values).max() > (
            limits.MAX_MROPE_TOKENS)):
        raise ValueError(f"offsets must be a 1-D array of at most {limits.MAX_MROPE_TOKENS} "
                         f"whole numbers within ±{limits.MAX_MROPE_TOKENS}")
    theta = base ** (-np.arange(0, d_head, 2) / d_head)  # (d_head/2,)
    turned = np.cos(np.multiply.outer(values.astype(np.float64), theta))  # (n, d_head/2)
    rows = [np.where(axes == axis, turned, 1.0).mean(axis=1) for axis in range(3)]
    return np.stack([*rows, turned.mean(axis=1)])
