"""The similarity page's work per change, the old way against the new, side by side in one run,
at the page's maximum (4096 positions x 1024) and at its defaults (2048 x 512).

Old: the page cached the float32 sinusoid and random tables and, per (size, base, metric), their
Gram matrices reduced by `pairwise_similarity` (n^2 d / 2 multiply-adds each); an anchor's
profile, the offset curves and the exact export multiplied the table again, and the shift check
applied the dense (d, d) M_k. New: the sinusoid's matrix is its offset function f(k) =
sum_i cos(w_i k) and an overview from the frequencies (`sinusoid_similarity`, per size and base,
both metrics); the random contrast is one product for both metrics, per size
(`random_contrast`); the shift check applies M_k's 2x2 blocks.

Each scenario is what one change costs on a page whose caches hold everything from before the
change (a cache hit costs nothing here; in the app a cache_data hit unpickles its entry, well
under a millisecond for these). Timings alternate old and new (round-robin) and report each
one's median, so a noisy, shared machine slows both alike. Cached memory: what the page's
caches hold after a visit to every view at one size (arrays' bytes for cache_resource, pickled
bytes for cache_data).
Run: `python benchmarks/bench_similarity.py [--rounds 5]`.
"""

from __future__ import annotations

import argparse
import pickle
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import core
from core import similarity
from core.learned_vs_sinusoidal import full_similarity_matrix
from core.overview import Overview, bin_edges, resampler

SIZES = {"max": (4096, 1024), "default": (2048, 512)}
BASE, OTHER_BASE = 10000.0, 500.0
SIDE = 200  # app_pages/similarity.MATRIX_SIDE
SAMPLE_PAIRS = 2000  # app_pages/similarity.SAMPLE_PAIRS
ANCHOR, OFFSET = 1000, 3  # the page's defaults


# --- the old page's cached functions, as they were (core/similarity.py before this change) ------
def old_pairwise(table: np.ndarray, metric: str) -> similarity.PairwiseSimilarity:
    """`pairwise_similarity` as it was: one metric per pass, the whole skew block refilled."""
    n = table.shape[0]
    scale = similarity._scale(table, metric).astype(np.float32)  # (n,)
    scaled = table.astype(np.float32) * scale[:, None]  # (n, d), unit rows for the cosine
    left = resampler(n, SIDE).apply(scaled, axis=0)  # (R, d) W_r X
    right = left
    lowest = np.full(n, np.inf)  # (n,) by offset k = 0 .. n - 1
    highest = np.full(n, -np.inf)
    chunk = similarity._CHUNK
    buffer = np.empty(chunk * (n + chunk), dtype=np.float32)  # skewed rows, reused
    for start in range(0, n, chunk):
        stop = min(start + chunk, n)
        c, m = stop - start, n - start
        gram = scaled[start:stop] @ scaled[start:].T  # (c, m)
        width = m + c - 1
        flat = buffer[: c * width]
        block = flat.reshape(c, width)
        diagonal_view = np.lib.stride_tricks.as_strided(
            flat[c - 1 :], shape=(c, m), strides=((width - 1) * flat.itemsize, flat.itemsize),
            writeable=True,
        )
        block.fill(np.inf)
        diagonal_view[...] = gram
        lowest[:m] = np.minimum(lowest[:m], block.min(axis=0)[c - 1 :])
        block.fill(-np.inf)
        diagonal_view[...] = gram
        highest[:m] = np.maximum(highest[:m], block.max(axis=0)[c - 1 :])
    edges = bin_edges(n, SIDE)
    return similarity.PairwiseSimilarity(
        overview=Overview(values=(left @ right.T).astype(np.float32), row_edges=edges,
                          col_edges=edges, exact=edges.size - 1 == n),
        offsets=np.arange(-(n - 1), n),
        lowest=np.concatenate([lowest[:0:-1], lowest]),
        highest=np.concatenate([highest[:0:-1], highest]),
    )


def pair_distances(table: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Euclidean distances |table[p[j]] - table[q[j]]|: ``(len(p),)``, float64."""
    diff = table[p].astype(np.float64) - table[q].astype(np.float64)  # (m, d)
    return np.linalg.norm(diff, axis=1)


def old_sample(table: np.ndarray, metric: str) -> similarity.PairSample:
    """`pair_sample` as it was: the rows gathered once for the similarity, once for the
    distance."""
    p, q = similarity.sample_pairs(table.shape[0], SAMPLE_PAIRS, seed=1)
    return similarity.PairSample(
        p=p, q=q, offsets=q - p,
        similarity=similarity.pair_similarities(table, p, q, metric=metric),
        distance=pair_distances(table, p, q),
    )


def old_offset_curves(n: int, d_model: int, base: float, metric: str) -> similarity.OffsetCurves:
    offsets, gaps = np.arange(-(n - 1), n), np.arange(n)
    return similarity.OffsetCurves(
        offsets=offsets,
        similarity=similarity.offset_similarity(offsets, d_model, base=base, metric=metric),
        gaps=gaps,
        distance=similarity.offset_distance(gaps, d_model, base=base),
    )


def old_shift(table: np.ndarray, offset: int, base: float) -> np.ndarray:
    n, d_model = table.shape
    m = core.shift_matrix(offset, d_model, base=base)  # (d, d), applied densely
    positions = np.arange(max(0, -offset), min(n, n - offset))
    moved = table[positions].astype(np.float64) @ m.T
    return np.abs(table[positions + offset].astype(np.float64) - moved).max(axis=1)


def sample(table: np.ndarray, metric: str) -> similarity.PairSample:
    return similarity.pair_sample(table, count=SAMPLE_PAIRS, seed=1, metric=metric)


def scenarios(n: int, d_model: int) -> list[tuple[str, Callable[[], object], Callable[[], object]]]:
    """(change, old work, new work): what the page recomputes on that change."""
    table = core.sinusoidal_encoding(n, d_model, base=BASE)
    toeplitz = similarity.sinusoid_similarity(n, d_model, base=BASE, max_rows=SIDE, max_cols=SIDE)

    def old_open():  # a new size, matrix view: both tables and both Gram reductions
        sinusoid = core.sinusoidal_encoding(n, d_model, base=BASE)
        random = similarity.random_table(n, d_model, seed=0)
        return old_pairwise(sinusoid, "cosine"), old_pairwise(random, "cosine")

    def new_open():
        return (similarity.sinusoid_similarity(n, d_model, base=BASE, max_rows=SIDE,
                                               max_cols=SIDE).pairwise("cosine"),
                similarity.random_contrast(n, d_model, seed=0, count=SAMPLE_PAIRS, sample_seed=1,
                                           max_rows=SIDE, max_cols=SIDE).pairwise["cosine"])

    random = similarity.random_table(n, d_model, seed=0)

    def old_metric():  # matrix view, cosine -> dot: both Gram reductions again
        return old_pairwise(table, "dot"), old_pairwise(random, "dot")

    def new_metric():  # f and the contrast hold both metrics: a rescale of 200 x 200 cells
        return toeplitz.pairwise("dot")

    def old_base():
        return old_pairwise(core.sinusoidal_encoding(n, d_model, base=OTHER_BASE), "cosine")

    def new_base():
        return similarity.sinusoid_similarity(n, d_model, base=OTHER_BASE, max_rows=SIDE,
                                              max_cols=SIDE).pairwise("cosine")

    def old_anchor():
        return similarity.anchor_profile(table, ANCHOR + 1, metric="cosine")

    def new_anchor():
        return toeplitz.row(ANCHOR + 1, "cosine")

    def old_offset_metric():  # offset view, cosine -> dot: envelope, curves, both samples
        return (old_pairwise(random, "dot"), old_offset_curves(n, d_model, BASE, "dot"),
                old_sample(table, "dot"), old_sample(random, "dot"))

    def new_offset_metric():  # the contrast holds both metrics; the sinusoid's sample is new
        return toeplitz.curves("dot"), sample(table, "dot")

    def old_rotation_offset():
        return old_shift(table, OFFSET + 1, BASE)

    def new_rotation_offset():
        return similarity.shift_residuals(table, OFFSET + 1, base=BASE)

    def old_export():  # the exact matrix behind the .npy download
        return np.asarray(full_similarity_matrix(table, "cosine"), dtype=np.float32)

    def new_export():
        return np.asarray(toeplitz.matrix("cosine"), dtype=np.float32)

    return [
        ("open / new size (matrix view)", old_open, new_open),
        ("metric (matrix view)", old_metric, new_metric),
        ("base (matrix view)", old_base, new_base),
        ("anchor (anchor view)", old_anchor, new_anchor),
        ("metric (offset view)", old_offset_metric, new_offset_metric),
        ("offset (rotation view)", old_rotation_offset, new_rotation_offset),
        ("exact .npy export (matrix view)", old_export, new_export),
    ]


def time_round_robin(pairs, rounds: int) -> list[tuple[str, float, float]]:
    times = {label: ([], []) for label, _, _ in pairs}
    for _, old, new in pairs:  # warm-up
        old(), new()
    for _ in range(rounds):
        for label, old, new in pairs:
            for slot, candidate in enumerate((old, new)):
                start = time.perf_counter()
                candidate()
                times[label][slot].append(time.perf_counter() - start)
    return [(label, statistics.median(old), statistics.median(new))
            for label, (old, new) in times.items()]


def cached_bytes(n: int, d_model: int) -> dict[str, tuple[int, int]]:
    """(old, new) bytes the page's caches hold after the matrix view alone, and after every view
    at one size (metric cosine, the page's defaults otherwise)."""
    table = core.sinusoidal_encoding(n, d_model, base=BASE)
    random = similarity.random_table(n, d_model, seed=0)

    def pickled(*values: object) -> int:
        return sum(len(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)) for value in values)

    old_matrix = table.nbytes + random.nbytes + pickled(
        old_pairwise(table, "cosine"), old_pairwise(random, "cosine"))
    new_matrix = pickled(
        similarity.sinusoid_similarity(n, d_model, base=BASE, max_rows=SIDE, max_cols=SIDE),
        similarity.random_contrast(n, d_model, seed=0, count=SAMPLE_PAIRS, sample_seed=1,
                                   max_rows=SIDE, max_cols=SIDE),
    )
    views = pickled(sample(table, "cosine"), similarity.shift_residuals(table, OFFSET, base=BASE))
    old_all = old_matrix + views + pickled(
        sample(random, "cosine"), old_offset_curves(n, d_model, BASE, "cosine"),
        similarity.anchor_profile(table, ANCHOR, metric="cosine"))
    new_all = new_matrix + views + table.nbytes  # the table: the sample and the shift check
    return {"matrix view": (old_matrix, new_matrix), "every view": (old_all, new_all)}


def agreement(n: int, d_model: int) -> dict[str, float]:
    """The largest |new - old| of what the page shows (cosine): the old numbers came from the
    float32 table, the new sinusoid's from f in float64."""
    table = core.sinusoidal_encoding(n, d_model, base=BASE)
    random = similarity.random_table(n, d_model, seed=0)
    toeplitz = similarity.sinusoid_similarity(n, d_model, base=BASE, max_rows=SIDE, max_cols=SIDE)
    contrast = similarity.random_contrast(n, d_model, seed=0, count=SAMPLE_PAIRS, sample_seed=1,
                                          max_rows=SIDE, max_cols=SIDE)
    old_sinusoid, old_random = old_pairwise(table, "cosine"), old_pairwise(random, "cosine")
    new_random = contrast.pairwise["cosine"]
    return {
        "matrix overview": float(np.abs(toeplitz.pairwise("cosine").overview.values
                                        - old_sinusoid.overview.values).max()),
        "random envelope": float(max(np.abs(new_random.lowest - old_random.lowest).max(),
                                     np.abs(new_random.highest - old_random.highest).max())),
        "anchor profile": float(np.abs(toeplitz.row(ANCHOR, "cosine") - similarity.anchor_profile(
            table, ANCHOR, metric="cosine")).max()),
        "exact matrix": float(np.abs(toeplitz.matrix("cosine")
                                     - full_similarity_matrix(table, "cosine")).max()),
        "shift residuals": float(np.abs(similarity.shift_residuals(table, OFFSET, base=BASE)
                                        .residuals - old_shift(table, OFFSET, BASE)).max()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {platform.python_implementation()} "
          f"{platform.python_version()}, numpy {np.__version__}; median of {args.rounds} rounds")
    for name, (n, d_model) in SIZES.items():
        print(f"\n{name}: {n} positions x d_model {d_model}")
        print(f"{'change':34} {'old ms':>9} {'new ms':>9} {'new/old':>9}")
        for label, old, new in time_round_robin(scenarios(n, d_model), args.rounds):
            print(f"{label:34} {old * 1e3:9.1f} {new * 1e3:9.2f} {new / old:9.4f}")
        for view, (old_bytes, new_bytes) in cached_bytes(n, d_model).items():
            print(f"{'cached MB after the ' + view:34} {old_bytes / 2**20:9.1f} "
                  f"{new_bytes / 2**20:9.2f} {new_bytes / old_bytes:9.4f}")
        print("largest |new - old| (cosine): " + ", ".join(
            f"{name} {value:.1e}" for name, value in agreement(n, d_model).items()))


if __name__ == "__main__":
    main()
