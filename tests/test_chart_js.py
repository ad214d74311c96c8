"""The chart element's browser code (ui/chart/, ES modules by job) under Node's own test runner:
the unit tests in tests/js/ of its pure parts (fit arithmetic, typed arrays, live states,
following a drag, the theme, diffing draws, sizing), as core's are tested here. Node is required,
as Chromium is for the browser tests: `make test` installs it when missing
(scripts/ensure-node.sh), and without it this test fails, never skips."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
JS_TESTS = ROOT / "tests" / "js"


def test_the_chart_modules_pass_their_node_tests():
    node = shutil.which("node")
    assert node, "node is missing: run `make test` (scripts/ensure-node.sh installs it) " \
                 "or install Node.js 18 or newer"
    files = sorted(str(p.relative_to(ROOT)) for p in JS_TESTS.glob("*.test.mjs"))
    assert files, f"no *.test.mjs in {JS_TESTS}"
    result = subprocess.run([node, "--test", "--test-reporter=spec", *files], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, (f"node --test failed ({result.returncode}):\n"
                                    f"{result.stdout[-20_000:]}\n{result.stderr[-5_000:]}")


def test_a_slide_is_found_by_the_key_the_player_gives_it():
    """slide.js finds a slide by ui/player.py's SLIDE (its container's key), which it cannot
    import: the two must say the same."""
    from ui.player import SLIDE
    from ui.plotly_react import CHART_DIR

    source = (CHART_DIR / "slide.js").read_text(encoding="utf-8")
    assert f'export const SLIDE_KEY = "{SLIDE}";' in source
