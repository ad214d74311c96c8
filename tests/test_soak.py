"""The soak test, short (benchmarks/soak.py --short): two minutes of the hour's mixed crowd on
serve.py as a host runs it (visitors on every page with new settings, live drags, slide files,
8K PNGs, 3-D slides, presenter windows, tabs closed mid-export, half-open sockets) and each of
issue 52's attacks, held to the hour's criteria where two minutes beside the rest of the suite
can be (the bystander's bound and the memory left behind are looser here: each assertion says
why). The run's numbers are
printed (shown when the test fails) and kept in test-artifacts/soak-short.json."""

from __future__ import annotations

import json

import pytest

from benchmarks import soak
from server.cache import IDLE_CACHE_BYTES
from tests.conftest import ARTIFACTS, find_chromium

pytestmark = [pytest.mark.browser, pytest.mark.long]

IDLE_RESIDUE_MB = 200  # what the short run may leave (see the assertion)


def test_a_short_soak_keeps_the_budget_gives_memory_back_and_serves_the_bystander():
    find_chromium()  # its visitors' Chromium and the server's, Debian's as the tests'
    ARTIFACTS.mkdir(exist_ok=True)
    out = soak.run(soak.SHORT, log_path=ARTIFACTS / "soak-server.log")
    (ARTIFACTS / "soak-short.json").write_text(json.dumps(out, indent=1) + "\n")
    print(soak.summary(out))
    print(soak.verdicts(out))

    # The harness did what it says: otherwise the criteria below would pass on an empty run.
    not_started = [name for name, cell in out["moves"].items() if cell["done"] < cell["planned"]]
    assert not not_started, f"moves planned but never started (not the soak's load): {not_started}"
    pages = {f"/{page.url_path}" for page in soak.visitor_pages()}
    assert set(out["visitors"]["by_page"]) == pages, \
        "visitors reach every page of the registry (new settings on each), or pages went unseen"
    assert out["bystander"]["pages"] >= 5, \
        "the bystander opens a page every second: a handful at least in two minutes"
    assert out["live_drags"] >= 1, "Chromium dragged no live slider between its other moves"

    # Issue 52's criteria, as the hour's run has them.
    assert out["peak_mb"] <= soak.BUDGET_MB, (
        f"the tree's unique memory reached {out['peak_mb']} MB, over the {soak.BUDGET_MB} MB "
        f"budget (the smallest host's box): the budget is the bound, no margin on it")
    # What the crowd may leave once every session is gone: server.sessions forgets them past
    # their TTL and, once the last has gone, trims the caches to what a warm server holds; the
    # app's PCA imports no scikit-learn; serve.py runs with Python's objects in glibc's heap
    # (trimmed page by page, where pymalloc's fragmented arenas stayed) and imports the
    # exports' libraries at its start. Short runs left +99 to +165 MB before those two, +68 MB
    # after (alone on the machine); sessions kept past their TTL left +148 to +240 MB more
    # (tests/test_serve_memory.py holds that to 50 MB). The hour's bound, 150 MB, is `make soak`'s.
    assert out["idle_mb"] - out["warm_mb"] <= IDLE_RESIDUE_MB, (
        f"idle at the end {out['idle_mb']} MB against {out['warm_mb']} MB warm: with every "
        f"session gone and the server's Chromium closed, what stays is the trimmed caches "
        f"({IDLE_CACHE_BYTES // 2**20} MB at most), first-use imports and allocator slack "
        f"(+68 MB measured alone); more is memory the departed sessions kept")
    assert not out["error_boxes"], (
        f"{len(out['error_boxes'])} error boxes (a visitor shown an exception, not a notice): "
        f"{out['error_boxes'][:3]}")
    assert not out["tracebacks_in_server_log"], (
        f"{out['tracebacks_in_server_log']} tracebacks in the server's log "
        f"(test-artifacts/soak-server.log): an exception nobody anticipated, on a page or in the "
        f"server's own work (forgetting sessions, exports)")
    # How long the bystander waits is the hour's measure: `make soak`, alone on the machine,
    # holds it to BYSTANDER_S. Here the suite's other workers share the two cores with the crowd
    # (6.5 s at most alone, 13-31 s in full runs), so what is held is that the server kept
    # serving it: a stall for good (two sessions deadlocked on the caches, as they once could)
    # leaves every page after it unanswered. A single page unanswered for VISIT_TIMEOUT_S is
    # issue 52's open stall (the hour's run on 2026-11-29 saw one, the server idle meanwhile;
    # CI saw one), measured by `make soak`, not held here.
    waits = [seconds for _, seconds in out["bystander_waits"]]
    unserved = [p for p in out["problems"] if p["move"] == "bystander"]
    assert len(unserved) <= 1 and waits and waits[-1] < soak.VISIT_TIMEOUT_S, (
        f"the bystander's small heatmap went unserved: {unserved[:3]} (its waits: "
        f"{sorted(waits)[-5:]} s at most): the server stopped serving new pages")
