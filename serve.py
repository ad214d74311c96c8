"""The public entry: `streamlit run serve.py` serves app.py as `streamlit run app.py` does, with
the doors a public demo closes shut by the server itself, before the first visitor.

Streamlit runs a file defining an ``st.App`` as an ASGI app (uvicorn):
`server.doors.PublicDoors` sees every request before Streamlit's routes and closes what the app
does not use; `server.guard.close_doors` and `server.allocator.tune_allocator` run here, at
import, so that the first session is covered too.
"""

from __future__ import annotations

import streamlit as st
from starlette.middleware import Middleware

from server.allocator import tune_allocator
from server.doors import PublicDoors
from server.guard import close_doors

tune_allocator()  # glibc's arenas and mmap threshold, before any session's thread allocates
close_doors()
app = st.App("app.py", middleware=[Middleware(PublicDoors)])
