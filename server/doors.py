"""The public entry's doors at the HTTP layer: an ASGI middleware (serve.py) that sees every
request before Streamlit's routes.

`PublicDoors`:

- answers 404 to ``/_stcore/metrics`` (no option turns it off: it lists every cached function's
  name with its hit counts);
- opens ``/_stcore/upload_file/<session>/<file>`` to what the page's one uploader sends (the
  learned-vs-sinusoidal page's table, ui/table_upload.py): PUT, DELETE and OPTIONS, a body of at
  most `UPLOAD_BODY_BYTES` by its Content-Length (413 before a byte is read; Streamlit counts the
  bytes as they come, to server.maxUploadSize, for a body that does not say); anything else
  there is 404;
- sends a two-part address such as ``/heatmap/x`` to its first part, ``/heatmap``: Streamlit
  answers any unknown path with its page, whose scripts are relative (``./static/js/...``), so
  at ``/heatmap/x`` the browser asked ``/heatmap/static/js/...``, got the page's HTML as a module
  script and stayed blank. ``/heatmap`` is the page; ``/a`` gets Streamlit's "Page not found"
  and the home page.
"""

from __future__ import annotations

from urllib.parse import quote

from starlette.responses import PlainTextResponse, RedirectResponse

from core import limits

# Streamlit's own routes with more than one part (its assets, media, components, the app's
# static folder, login), served as they are; so is any path through _stcore: at /heatmap the
# browser first looks for the server at /heatmap/_stcore/health (a 404 sends it to the root).
STREAMLIT_PREFIXES = ("_stcore", "static", "media", "component", "app", "auth")
CLOSED = ("_stcore/metrics",)
UPLOAD = "_stcore/upload_file"
UPLOAD_METHODS = ("PUT", "DELETE", "OPTIONS")
# The largest table file (core.limits, the same as .streamlit/config.toml's maxUploadSize) and
# the multipart framing around it (Streamlit allows 1 MiB of it).
UPLOAD_BODY_BYTES = limits.MAX_TABLE_FILE_BYTES + 2**20


class PublicDoors:
    """ASGI middleware (see the module docstring)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            parts = scope["path"].strip("/").split("/")
            path = "/".join(parts)
            if any(path == door or path.startswith(door + "/") for door in CLOSED) or (
                    (path == UPLOAD or path.startswith(UPLOAD + "/"))
                    and not _an_upload(parts, scope)):
                await PlainTextResponse("Not found", status_code=404)(scope, receive, send)
                return
            if path.startswith(UPLOAD + "/") and _declared_length(scope) > UPLOAD_BODY_BYTES:
                await PlainTextResponse("File too large", status_code=413)(scope, receive, send)
                return
            if len(parts) > 1 and parts[0] not in STREAMLIT_PREFIXES and "_stcore" not in parts:
                query = scope.get("query_string", b"").decode("latin-1")
                target = "/" + quote(parts[0]) + ("?" + query if query else "")
                await RedirectResponse(target, status_code=302)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _an_upload(parts: list[str], scope) -> bool:
    """A request the uploader sends: /_stcore/upload_file/<session>/<file>, PUT, DELETE or
    OPTIONS."""
    return len(parts) == 4 and all(parts[2:]) and scope.get("method") in UPLOAD_METHODS


def _declared_length(scope) -> int:
    """The request's Content-Length (0 when it says none or nonsense: Streamlit counts)."""
    for name, value in scope.get("headers", ()):
        if name.lower() == b"content-length":
            text = value.decode("latin-1").strip()
            return int(text) if text.isdigit() else 0
    return 0
