"""The public entry's doors at the HTTP layer: an ASGI middleware (serve.py) that sees every
request before Streamlit's routes.

`PublicDoors`:

- answers 404 to ``/_stcore/metrics`` (no option turns it off: it lists every cached function's
  name with its hit counts) and to ``/_stcore/upload_file`` (the app has no uploader);
- sends a two-part address such as ``/heatmap/x`` to its first part, ``/heatmap``: Streamlit
  answers any unknown path with its page, whose scripts are relative (``./static/js/...``), so
  at ``/heatmap/x`` the browser asked ``/heatmap/static/js/...``, got the page's HTML as a module
  script and stayed blank. ``/heatmap`` is the page; ``/a`` gets Streamlit's "Page not found"
  and the home page.
"""

from __future__ import annotations

from urllib.parse import quote

from starlette.responses import PlainTextResponse, RedirectResponse

# Streamlit's own routes with more than one part (its assets, media, components, the app's
# static folder, login), served as they are; so is any path through _stcore: at /heatmap the
# browser first looks for the server at /heatmap/_stcore/health (a 404 sends it to the root).
STREAMLIT_PREFIXES = ("_stcore", "static", "media", "component", "app", "auth")
CLOSED = ("_stcore/metrics", "_stcore/upload_file")


class PublicDoors:
    """ASGI middleware (see the module docstring)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            parts = scope["path"].strip("/").split("/")
            path = "/".join(parts)
            if any(path == door or path.startswith(door + "/") for door in CLOSED):
                await PlainTextResponse("Not found", status_code=404)(scope, receive, send)
                return
            if len(parts) > 1 and parts[0] not in STREAMLIT_PREFIXES and "_stcore" not in parts:
                query = scope.get("query_string", b"").decode("latin-1")
                target = "/" + quote(parts[0]) + ("?" + query if query else "")
                await RedirectResponse(target, status_code=302)(scope, receive, send)
                return
        await self.app(scope, receive, send)
