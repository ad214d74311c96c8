"""Speed of `core.sinusoidal_encoding(8192, 1024)` against a floor, side by side in one run.

The floor is one vectorised float32 `np.sin` + `np.cos` pass over a (8192, 512) array: the least
work any table of that size can take. Target: ratio <= 1.5 with float32 output within 1e-6 of the
float64 formula. Also timed: the three implementations the source articles show, with each
one's largest error against the float64 formula on the same table.

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
ROUNDS = 15


def floor() -> None:
    angles = FLOOR_INPUT
    np.sin(angles)
    np.cos(angles)


def ours() -> np.ndarray:
    return core.sinusoidal_encoding(POSITIONS, D_MODEL)


def float64_direct() -> np.ndarray:
    return core.sinusoidal_encoding(POSITIONS, D_MODEL, dtype=np.float64).astype(np.float32)


def article_003_list_comprehension() -> np.ndarray:
    return reference.article_list_comprehension(POSITIONS, D_MODEL)


def article_002_tf_get_angles() -> np.ndarray:
    return reference.article_tf_get_angles(POSITIONS, D_MODEL)


def article_001_torch_div_term() -> np.ndarray:
    return reference.article_torch_div_term(POSITIONS, D_MODEL).numpy()


FLOOR_INPUT = np.random.default_rng(0).uniform(0, 1000, (POSITIONS, D_MODEL // 2)).astype(
    np.float32
)


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
    ]
    for label, name, seconds, floor_seconds in rows:
        print(f"{label:42} {seconds * 1e3:9.1f} {seconds / floor_seconds:9.2f} "
              f"{errors[name]:10.1e}")
    ratio = fast["ours"] / fast["floor"]
    error = accuracy()
    print(f"max |float32 - float64 formula| over 100,000 positions: {error:.2e}")
    verdict = "PASS" if ratio <= 1.5 and error <= 1e-6 else "MISS"
    print(f"target ratio <= 1.5 and error <= 1e-6: {verdict} (ratio {ratio:.2f})")


if __name__ == "__main__":
    main()
