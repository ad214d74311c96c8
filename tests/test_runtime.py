"""`server.runtime`: the server's long-lived objects are frozen out of Streamlit's per-rerun full
garbage collection, again after new imports, and never twice for nothing."""

from __future__ import annotations

import gc
import subprocess
import sys
import textwrap

from tests.browser_support import ROOT


def run(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT,
                            capture_output=True, text=True, check=True, timeout=120)
    return result.stdout.strip()


def test_freeze_happens_once_per_new_imports():
    # A fresh interpreter: this test process's own freeze state must not leak in.
    out = run("""
        import gc, json
        from server.runtime import freeze_long_lived_objects
        first = freeze_long_lived_objects()
        frozen = gc.get_freeze_count()
        again = freeze_long_lived_objects()  # nothing new imported: nothing to do
        import plotly.graph_objects  # a lazy import, as a page's first run does
        after_import = freeze_long_lived_objects()
        print(json.dumps([first, frozen > 0, again, after_import,
                          gc.get_freeze_count() > frozen]))
    """)
    assert out == "[true, true, false, true, true]"


def test_frozen_objects_are_not_walked_by_a_full_collection():
    """What makes Streamlit's gc.collect(2) after each rerun cheap: after the freeze, a full
    collection visits only objects made since (counted by gc's own statistics)."""
    out = run("""
        import gc, json
        import numpy, plotly.graph_objects, streamlit
        from server.runtime import freeze_long_lived_objects
        tracked_before = len(gc.get_objects())
        freeze_long_lived_objects()
        tracked_after = len(gc.get_objects())
        print(json.dumps([tracked_before, tracked_after]))
    """)
    before, after = (int(n) for n in out.strip("[]").split(","))
    assert before > 50_000 and after < before / 100
    assert gc.isenabled()  # collections stay on for what reruns make


def test_a_session_frozen_with_the_libraries_is_collected_once_none_is_left():
    """A freeze in a run also freezes the sessions alive then: cycles, never collected once
    frozen. refreeze_when_idle, with no session left, collects them and freezes the rest again;
    without a freeze since, it does nothing."""
    out = run("""
        import gc, json, weakref
        import plotly.graph_objects
        from server.runtime import freeze_long_lived_objects, refreeze_when_idle

        class Session:  # a departed visitor's session: a cycle, as Streamlit's are
            pass

        session = Session()
        session.itself = session
        gone = weakref.ref(session)
        freeze_long_lived_objects()  # a page's first run, the session alive
        del session
        gc.collect()
        kept_after_a_collection = gone() is not None
        frozen = gc.get_freeze_count()
        refrozen = refreeze_when_idle()
        print(json.dumps([kept_after_a_collection, refrozen, gone() is None,
                          gc.get_freeze_count() > frozen / 2, refreeze_when_idle()]))
    """)
    assert out == "[true, true, true, true, false]"
