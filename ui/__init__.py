"""Streamlit widgets shared by the pages: URL-bound controls with notices, the page list, text,
the chart element, the tour player. The host's plumbing is in `server/`."""
