"""Speed of `core.sinusoidal_encoding` against a floor, side by side in one run, at 8192 x 1024
and 8192 x 4096.

The floor is one vectorised float32 `np.sin` + `np.cos` pass over the table's own angles
(pos * w_i, float32, shape (8192, d/2)): the least work any table of that size can take. (Random
angles in [0, 1000) are slower for numpy's sin/cos than the table's, most of which are small,
and made an earlier floor look slow.) Target: ratio <= 1.5 with float32 output within
core.FLOAT32_ERROR_BOUND of the float64 formula. Also timed at 8192 x 1024: the three
implementations the source articles show, with each one's largest error against the float64
formula on the same table.

Timings alternate between the candidates (round-robin) and report each one's median, so a noisy,
shared machine slows all of them alike.
Run: `make bench` or `python benchmarks/bench_sinusoidal.py`.
"""

from __future__ import annotations

import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import core
from tests import reference

POSITIONS, D_MODEL = 8192, 1024
WIDE_D_MODEL = 4096
ROUNDS = 15


def table_angles(d_model: int) -> np.ndarray:
    """pos * w_i for the table's own positions and frequencies, float32 ``(POSITIONS, d/2)``."""
    return np.multiply.outer(np.arange(POSITIONS, dtype=np.float64),
                             core.frequencies(d_model)).astype(np.float32)


def floor() -> None:
    np.sin(FLOOR_INPUT)
    np.cos(FLOOR_INPUT)


def floor_wide() -> None:
    np.sin(FLOOR_INPUT_WIDE)
    np.cos(FLOOR_INPUT_WIDE)


def ours() -> np.ndarray:
    return core.sinusoidal_encoding(POSITIONS, D_MODEL)


def ours_wide() -> np.ndarray:
    return core.sinusoidal_encoding(POSITIONS, WIDE_D_MODEL)


def float64_direct() -> np.ndarray:
    return core.sinusoidal_encoding(POSITIONS, D_MODEL, dtype=np.float64).astype(np.float32)


def article_003_list_comprehension() -> np.ndarray:
    return reference.article_list_comprehension(POSITIONS, D_MODEL)


def article_002_tf_get_angles() -> np.ndarray:
    return reference.article_tf_get_angles(POSITIONS, D_MODEL)


def article_001_torch_div_term() -> np.ndarray:
    return reference.article_torch_div_term(POSITIONS, D_MODEL).numpy()


FLOOR_INPUT = table_angles(D_MODEL)
FLOOR_INPUT_WIDE = table_angles(WIDE_D_MODEL)


def time_round_robin(candidates, rounds: int) -> dict[str, float]:
    times: dict[str, list[float]] = {c.__name__: [] for c in candidates}
    for candidate in candidates:  # warm-up (imports, allocator)
        candidate()
    for _ in range(rounds):
        for candidate in candidates:
            start = time.perf_counter()
            candidate()
            times[candidate.__name__].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def accuracy() -> float:
    table = core.sinusoidal_encoding(100_000, 64)
    angles = np.arange(100_000, dtype=np.float64)[:, None] * core.frequencies(64)
    exact = np.empty((100_000, 64))
    exact[:, 0::2], exact[:, 1::2] = np.sin(angles), np.cos(angles)
    return float(np.abs(table - exact).max())


def main() -> None:
    fast = time_round_robin([floor, ours, float64_direct], ROUNDS)
    wide = time_round_robin([floor_wide, ours_wide], 7)
    slow = time_round_robin(
        [floor, article_001_torch_div_term, article_002_tf_get_angles], 3
    )
    # The list comprehension takes seconds: one run.
    start = time.perf_counter()
    list_comprehension_table = article_003_list_comprehension()
    list_comprehension = time.perf_counter() - start
    exact = core.sinusoidal_encoding(POSITIONS, D_MODEL, dtype=np.float64)
    errors = {
        "ours": ours(),
        "float64_direct": float64_direct(),
        "article_001_torch_div_term": article_001_torch_div_term(),
        "article_002_tf_get_angles": article_002_tf_get_angles(),
        "article_003_list_comprehension": list_comprehension_table,
    }
    errors = {name: float(np.abs(table - exact).max()) for name, table in errors.items()}
    errors["floor"] = float("nan")

    print(f"machine: {platform.machine()}, {platform.python_implementation()} "
          f"{platform.python_version()}, numpy {np.__version__}")
    print(f"table: {POSITIONS} positions x {D_MODEL} dims, float32; median of {ROUNDS} rounds")
    print(f"{'implementation':42} {'ms':>9} {'x floor':>9} {'max error':>10}")
    errors["ours_wide"] = errors["floor_wide"] = float("nan")
    rows = [
        ("floor: np.sin + np.cos, float32 (8192, 512)", "floor", fast["floor"], fast["floor"]),
        ("core.sinusoidal_encoding (ours)", "ours", fast["ours"], fast["floor"]),
        ("float64 sin/cos, cast to float32", "float64_direct", fast["float64_direct"],
         fast["floor"]),
        ("001 torch div_term module", "article_001_torch_div_term",
         slow["article_001_torch_div_term"], slow["floor"]),
        ("002 TF tutorial get_angles", "article_002_tf_get_angles",
         slow["article_002_tf_get_angles"], slow["floor"]),
        ("003 per-element list comprehension", "article_003_list_comprehension",
         list_comprehension, slow["floor"]),
        ("floor: np.sin + np.cos, float32 (8192, 2048)", "floor_wide", wide["floor_wide"],
         wide["floor_wide"]),
        ("core.sinusoidal_encoding, 8192 x 4096", "ours_wide", wide["ours_wide"],
         wide["floor_wide"]),
    ]
    for label, name, seconds, floor_seconds in rows:
        print(f"{label:42} {seconds * 1e3:9.1f} {seconds / floor_seconds:9.2f} "
              f"{errors[name]:10.1e}")
    ratio = fast["ours"] / fast["floor"]
    wide_ratio = wide["ours_wide"] / wide["floor_wide"]
    error = accuracy()
    print(f"max |float32 - float64 formula| over 100,000 positions: {error:.2e}")
    verdict = ("PASS" if max(ratio, wide_ratio) <= 1.5 and error <= core.FLOAT32_ERROR_BOUND
               else "MISS")
    print(f"target ratio <= 1.5 (both sizes) and error <= {core.FLOAT32_ERROR_BOUND:g}: "
          f"{verdict} (ratios {ratio:.2f} at 8192 x 1024, {wide_ratio:.2f} at 8192 x 4096)")


if __name__ == "__main__":
    main()
