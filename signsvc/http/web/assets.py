"""The pages' static files (`pages/static/`), served under a path holding a hash of their content, so a
browser may keep them for a year: a changed file gives every file a new path. One hash for all of them,
so the scripts can import each other by relative paths."""

from __future__ import annotations

import functools
import hashlib
import mimetypes

from aiohttp import web

import pages

LONG_CACHE = "public, max-age=31536000, immutable"
# Named here: the system's table may say application/javascript, or nothing for a font.
CONTENT_TYPES = {".css": "text/css", ".js": "text/javascript", ".ttf": "font/ttf", ".woff2": "font/woff2"}


@functools.cache
def _files() -> tuple[str, dict[str, bytes]]:
    """The hash of every static file together, and each file's content by name, read once."""
    found = {path.name: path.read_bytes() for path in sorted(pages.STATIC_DIR.iterdir()) if path.is_file()}
    digest = hashlib.sha256()
    for name, data in found.items():
        digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    return digest.hexdigest()[:16], found


def url(name: str) -> str:
    """The path of a static file, with the files' hash."""
    digest, found = _files()
    if name not in found:
        raise LookupError(f"no static file {name}")
    return f"/static/{digest}/{name}"


async def show(request: web.Request) -> web.Response:
    """GET /static/{hash}/{name}: the file, cached for a year. Under another hash (a page of another
    release, during a rolling update) the file as it is now, which the browser must not keep."""
    digest, found = _files()
    data = found.get(request.match_info["name"])
    if data is None:
        raise web.HTTPNotFound()
    content_type = _content_type(request.match_info["name"])
    caching = LONG_CACHE if request.match_info["hash"] == digest else "no-cache"
    return web.Response(
        body=data, content_type=content_type, headers={"Cache-Control": caching, "X-Content-Type-Options": "nosniff"}
    )


def _content_type(name: str) -> str:
    suffix = name[name.rfind(".") :]
    return CONTENT_TYPES.get(suffix) or mimetypes.guess_type(name)[0] or "application/octet-stream"


async def embed_script(request: web.Request) -> web.Response:
    """GET /js/embed.js: the embedding script at the address integrators use (kept only briefly by
    browsers: its address does not change with its content)."""
    data = _files()[1].get("embed.js")
    if data is None:
        raise web.HTTPNotFound()
    return web.Response(
        body=data,
        content_type="text/javascript",
        headers={
            "Cache-Control": "public, max-age=300",
            "X-Content-Type-Options": "nosniff",
            "Access-Control-Allow-Origin": "*",
        },
    )
