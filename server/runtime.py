"""The server process's garbage collector, made cheap for a served app.

Streamlit runs ``gc.collect(2)`` after every script run (``runner.postScriptGC``, on by default,
in ``streamlit/runtime/scriptrunner/script_runner.py``), and the rerun's last messages wait for
it. A full collection walks every object the process holds: measured on this project's machines,
~60 ms with streamlit + plotly + numpy imported, ~140 ms once scikit-learn is, ~150 ms with torch.
Almost all of those objects are modules, classes and functions that live as long as the process.

``gc.freeze()`` moves every object alive now into a permanent generation that collections skip
(the CPython docs recommend it for exactly this: a server after its imports). The collection
after each rerun then walks only what the reruns made: ~0 ms. We freeze again whenever modules
were imported since the last freeze (the first run of a page, a lazy torch or scikit-learn
import), so the heavy libraries are frozen once they are loaded. Objects frozen are never
collected as cyclic garbage, but they are still freed by reference counting, which is how
module-level data and cached numpy arrays go; Streamlit's post-run collection stays on for
everything made after the freeze.

A freeze happens in a script run, so it also freezes the sessions alive then: their state,
fragments and figures, which are cycles, and frozen cycles are never collected. A crowd on a
fresh server (its pages' first lazy imports among its runs) kept 20 visitors' sessions that way,
~30 MB of objects for good. `refreeze_when_idle` (server/sessions.py, when no session is left)
unfreezes, collects what has become garbage, and freezes again what is left: the libraries.
"""

from __future__ import annotations

import gc
import sys

_modules_at_last_freeze = 0
_frozen_with_sessions = False  # a freeze since the last one made with no session alive


def freeze_long_lived_objects() -> bool:
    """Freeze what is alive if modules were imported since the last freeze. Cheap otherwise
    (one length check). Returns True when it froze."""
    global _modules_at_last_freeze, _frozen_with_sessions
    count = len(sys.modules)
    if count <= _modules_at_last_freeze:
        return False
    gc.collect()  # what is garbage now must not be frozen
    gc.freeze()
    _modules_at_last_freeze = count
    _frozen_with_sessions = True  # in a run: this session, and any other alive, are frozen too
    return True


def refreeze_when_idle() -> bool:
    """With no session left (the caller knows): if a freeze was made while sessions were
    alive, unfreeze everything, collect the garbage among it (those sessions, once departed)
    and freeze what is left. One full collection (~0.1 s), once per freeze. Returns whether
    it did."""
    global _frozen_with_sessions
    if not _frozen_with_sessions:
        return False
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    _frozen_with_sessions = False
    return True
