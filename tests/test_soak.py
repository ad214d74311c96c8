"""The soak test, short (benchmarks/soak.py --short): two minutes of the hour's mixed crowd on
serve.py as a host runs it (visitors on every page with new settings, live drags, slide files,
8K PNGs, 3-D slides, presenter windows, tabs closed mid-export, half-open sockets) and each of
issue 52's attacks, held to the hour's criteria where two minutes beside the rest of the suite
can be (the bystander's bound is looser here: its assertion says why). The run's numbers are
printed (shown when the test fails) and kept in test-artifacts/soak-short.json."""

from __future__ import annotations

import json

import pytest

from benchmarks import soak
from server.cache import TOTAL_CACHE_BYTES
from tests.conftest import ARTIFACTS, find_chromium

pytestmark = [pytest.mark.browser, pytest.mark.long]


def test_a_short_soak_keeps_the_budget_gives_memory_back_and_keeps_the_bystander_served():
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
    # Issue 52's flat curve, the hour's bound: with every session gone (server.sessions forgets
    # them past their TTL) and the server's Chromium closed, what may stay is cached results and
    # allocator slack (a short run beside the suite left +64 MB; +148 to +200 MB while departed
    # sessions were kept).
    assert out["idle_mb"] - out["warm_mb"] <= soak.IDLE_MARGIN_MB, (
        f"idle at the end {out['idle_mb']} MB against {out['warm_mb']} MB warm: over the "
        f"{soak.IDLE_MARGIN_MB} MB issue 52 allows (cached results are capped at "
        f"{TOTAL_CACHE_BYTES // 2**20} MB); more is memory the departed sessions kept")
    assert not out["error_boxes"], (
        f"{len(out['error_boxes'])} error boxes (a visitor shown an exception, not a notice): "
        f"{out['error_boxes'][:3]}")
    # In `make test` the suite's other workers share the machine's two cores with the crowd (a
    # full run measured 13-18 s at most, against 6.5 s alone): the bound here is three times
    # the hour's, which `make soak`, run alone, holds to BYSTANDER_S.
    assert out["bystander"]["max_s"] <= 3 * soak.BYSTANDER_S, (
        f"a visitor's small heatmap waited {out['bystander']['max_s']} s behind the crowd: "
        f"{3 * soak.BYSTANDER_S:.0f} s is generous for a page that takes under a second on an "
        f"idle server, even beside the rest of the suite")
