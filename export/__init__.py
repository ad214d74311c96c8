"""Hosting work that draws files on the server with a browser: a tour or a deck as a PDF or a
ZIP of slide images (`export.slides`). Imported by `ui` only; `figures` draws, `core`
computes."""
