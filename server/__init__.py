"""The host's plumbing: what keeps one server process within its memory and its visitors apart.

Memory (`memory_budget`: the one queue of heavy work; `cache`: bounded caches; `run_slots`: page
runs and computations at once; `allocator`: glibc's heap handed back), Streamlit's runtime
(`runtime`: the garbage collector; `sessions`: departed visitors' sessions forgotten; `guard`: the
doors a public demo closes), started by serve.py and app.py; `memory_probe`, off unless asked, to
measure. Nothing here draws: the widgets are in `ui/`, which may import this package, never
the reverse.
"""
