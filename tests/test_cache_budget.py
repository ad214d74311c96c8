"""Every page cache's worst case fits its byte budget, and all of them the process's.

Each cached function (`ui.cache.bounded_cache`, registered when its page runs) is called at the
caps of `core.limits` / `core.page_params`; what its result keeps alive and the peak while making
it are measured with tracemalloc (numpy reports its buffers to it), not with the cache's own size
estimate. Then: the worst entry fits the function's byte bound (else it would be recomputed on
every rerun), the bounds add up to the caches' total, and that total with two computations at
their peak (the compute slots) and the idle server stays under 700 MB.
"""

from __future__ import annotations

import gc
import json
import tracemalloc

import pytest

from core import limits
from core.rope_configs import PRESETS
from tests.apptest import open_page
from ui import cache
from ui.pages import PAGES

MB = 2**20
SERVER_BUDGET_MB = 700  # Streamlit Community Cloud's smallest box: about 690 MB
# The server after every page has run once at its defaults, MiniLM (torch) loaded: 191-215 MB
# measured by benchmarks/load_memory.py (README, Robustness); counted here with room.
IDLE_SERVER_MB = 230

LONG_SENTENCE = " ".join(chr(97 + i % 26) + str(i) for i in range(400))  # 2000 chars, 400 words
SIDE = limits.MAX_POSITIONS
BASE = limits.DEFAULT_BASE


def _config_json() -> str:
    return json.dumps(PRESETS["llama-3.1-8b"].to_config_json(), sort_keys=True)


# Each cached function's worst case: the arguments the pages pass at their caps (the largest
# tables; where a view or mode adds work, the heaviest one).
WORST_CASES: dict[str, list[tuple]] = {
    "home.cached_picture": [(100, 128)],
    "heatmap.cached_overview": [(SIDE, limits.MAX_D_MODEL, BASE, "interleaved", "paper")],
    "heatmap.cached_window": [(SIDE - limits.MAX_ZOOM_SIZE, limits.MAX_ZOOM_SIZE,
                               limits.MAX_D_MODEL - limits.MAX_ZOOM_SIZE, limits.MAX_ZOOM_SIZE,
                               limits.MAX_D_MODEL, BASE, "interleaved", "paper")],
    "wavelengths.cached_curves": [(SIDE, limits.MAX_D_MODEL, tuple(range(0, 4096, 342)), BASE,
                                   "paper")],
    "wavelengths.cached_spectrum": [(limits.MAX_D_MODEL, SIDE, BASE, "paper")],
    "wavelengths.cached_clocks": [(SIDE, limits.MAX_D_MODEL, tuple(range(0, 4096, 342)), BASE,
                                   "paper")],
    "similarity.cached_sinusoid": [(4096, 1024, BASE)],
    "similarity.cached_random_contrast": [(4096, 1024)],
    "similarity.cached_table": [(4096, 1024, BASE)],
    "similarity.cached_sample": [(4096, 1024, BASE, "cosine")],
    "similarity.cached_shift": [(4096, 1024, BASE, 4095)],
    "vit_grid.cached_embedding": [(64, 64, 1280, BASE, True)],
    "vit_grid.cached_tiles": [(64, 64, 1280, BASE)],
    "vit_grid.cached_overview": [(64, 64, 1280, BASE, True)],
    "word_position.cached_word_view": [
        ("random", LONG_SENTENCE, "sinusoidal", "interleaved", limits.MAX_D_MODEL, True, 7,
         True, False, 3),
        ("minilm", LONG_SENTENCE, "learned", "interleaved", 384, False, 0, True, True, 3),
    ],
    "learned_vs_sinusoidal.cached_tables": [(2048,)],
    "learned_vs_sinusoidal.cached_similarity": [(2048, "cosine", "sinusoidal")],
    "learned_vs_sinusoidal.cached_entry": [
        (2048, "cosine", 511, name, key)
        for name in ("learned", "sinusoidal")
        for key in ("summary", "table", "similarity", "curves", "projection", "norms")
    ],
    "rope.cached_trajectories": [((0, 255, 511), SIDE, limits.MAX_D_HEAD, BASE, "interleaved",
                                  "ntk_aware", limits.MAX_ROPE_FACTOR)],
    "rope.cached_offset_logits": [(limits.MAX_D_HEAD, SIDE, (7191.0, 8191.0), BASE,
                                   "interleaved", "ntk_aware", limits.MAX_ROPE_FACTOR)],
    "rope.cached_decay": [(SIDE, limits.MAX_D_HEAD, (BASE, 500000.0))],
    "rope.cached_extension": [(limits.MAX_D_HEAD, BASE, limits.MAX_ROPE_FACTOR)],
    "alibi.cached_overview": [(limits.MAX_HEADS, limits.MAX_ALIBI_POSITIONS, False, 256)],
    "alibi.cached_reach": [(limits.MAX_HEADS, limits.MAX_ALIBI_POSITIONS)],
    "extrapolation.cached_novelty": [(SIDE // 2, SIDE, limits.MAX_EXTRAPOLATION_D_MODEL)],
    "extrapolation.cached_learned": [(SIDE,)],
    "extrapolation.cached_rope": [(SIDE // 2, SIDE, limits.MAX_EXTRAPOLATION_D_MODEL)],
    "extrapolation.cached_alibi": [(SIDE // 2, SIDE)],
    "rope_config.cached_curves": [(_config_json(), "llama-3.1-8b", "Llama 3.1 8B", "hf",
                                   "Llama 3.1 8B")],
}


def measure(func, args) -> tuple[int, int]:
    """(bytes the result keeps alive, peak bytes while making it), by tracemalloc."""
    func(*args)  # once first: what a first call loads for good (a lazy import) is not the entry's
    cache.clear_all()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        result = func(*args)
        cache.clear_all()  # what nested cached calls kept is theirs, not this result's
        gc.collect()
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del result
    return kept - before, peak - before


@pytest.fixture(scope="module")
def stores():
    """Every page run once (registers its caches; loads MiniLM outside the measurements)."""
    for page in PAGES:
        at = open_page(page.script, {"view": "config"} if page.url_path == "rope" else None)
        assert not at.exception, page.url_path
    yield dict(cache.STORES)
    cache.clear_all()


@pytest.fixture(scope="module")
def worst(stores):
    sizes = {}
    for name, store in stores.items():
        measured = [measure(store.func, args) for args in WORST_CASES.get(name, [])]
        sizes[name] = (max(m[0] for m in measured), max(m[1] for m in measured)) \
            if measured else (None, None)
    print("\n".join(f"{name}: kept {kept / MB:.1f} MB, peak {peak / MB:.1f} MB, "
                    f"bound {stores[name].max_entries} x / {stores[name].max_bytes / MB:.0f} MB"
                    for name, (kept, peak) in sorted(sizes.items()) if kept is not None))
    return sizes


def test_every_cached_function_has_a_worst_case(stores):
    assert len(stores) >= 25  # every page's caches registered
    assert sorted(stores) == sorted(WORST_CASES)


def test_each_worst_entry_fits_its_functions_byte_bound(stores, worst):
    for name, (kept, _) in worst.items():
        assert kept <= stores[name].max_bytes, (name, kept / MB, stores[name].max_bytes / MB)


def test_the_caches_together_stay_within_the_total(stores, worst):
    """What the caches can keep: per function the smaller of entries x worst entry and its
    byte bound (the bound is exact: eviction runs before an entry is added)."""
    declared = sum(store.max_bytes for store in stores.values())
    reachable = sum(min(store.max_entries * worst[name][0], store.max_bytes)
                    for name, store in stores.items())
    assert reachable <= declared <= cache.TOTAL_CACHE_BYTES, (reachable / MB, declared / MB)


def test_the_server_stays_under_700_mb(worst):
    """Idle server + every cache full + the largest computations in every compute slot."""
    peak = max(p for _, p in worst.values())
    total = IDLE_SERVER_MB * MB + cache.TOTAL_CACHE_BYTES + cache.COMPUTE_SLOTS * peak
    assert total <= SERVER_BUDGET_MB * MB, (total / MB, peak / MB)
