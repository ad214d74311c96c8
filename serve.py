"""The public entry: `streamlit run serve.py` serves app.py as `streamlit run app.py` does, with
the doors a public demo closes shut by the server itself, before the first visitor.

Streamlit runs a file defining an ``st.App`` as an ASGI app (uvicorn):
`server.doors.PublicDoors` sees every request before Streamlit's routes and closes what the app
does not use; `ui.unexpected.show_unexpected` turns any exception of a page or a fragment into a
notice (the one boundary for the unexpected); `server.guard.close_doors` and
`server.allocator.tune_allocator` run here, at import, so that the first session is covered too,
after `server.allocator.python_objects_in_glibc_heap` has started the process again with Python's
objects in glibc's heap (the same pid and command line; its port bound again).
"""

from __future__ import annotations

import streamlit as st
from starlette.middleware import Middleware

from export.slides import import_libraries
from server.allocator import python_objects_in_glibc_heap, tune_allocator
from server.doors import PublicDoors
from server.guard import close_doors
from server.memory_probe import start_if_asked
from server.sessions import forget_departed_sessions
from ui.unexpected import show_unexpected

python_objects_in_glibc_heap()  # the server started again with PYTHONMALLOC=malloc, unless set
start_if_asked()  # a look inside the memory, only when PE_MEMORY_PROBE is set (measuring)
tune_allocator()  # glibc's arenas and mmap threshold, before any session's thread allocates
close_doors()
import_libraries()  # the exports' libraries now, not in a session: a floor that does not creep
# What the public entry adds to the app (tests/apps/unexpected_serve.py serves a script of its
# own with the same). `streamlit run` finds the app by reading this file: `app = st.App(...)`
# must stay a plain assignment of that call (streamlit/web/server/app_discovery.py).
# Its lifespan forgets departed visitors' sessions once past their TTL (server/sessions.py).
PUBLIC = {"middleware": [Middleware(PublicDoors)], "on_script_error": show_unexpected,
          "lifespan": forget_departed_sessions}
app = st.App("app.py", **PUBLIC)
