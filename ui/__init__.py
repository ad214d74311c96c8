"""Streamlit glue shared by the pages: URL-bound controls with notices, the page list, text."""
