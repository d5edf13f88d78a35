"""GET /file/{token}/{filename}: a stored file through its signed link, with HEAD and byte ranges, or a redirect to
the object store when files live there and links are to be presigned."""

from __future__ import annotations

import re
from urllib.parse import quote

from aiohttp import web

from signsvc.http.appkeys import FILES

_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")
# An uploaded file is its uploader's content on the site's origin: whatever its type says, it must never run
# script or load anything there. A PDF is spared the sandbox: Chrome and Safari then refuse to show it, and their
# viewers (and Firefox's) run no script of the file on the site's origin. The link is a credential: not kept,
# not passed on.
_FILE_POLICY, _PDF_POLICY = "default-src 'none'; sandbox", "default-src 'none'"
_FILE_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "private, no-store",
}


async def show(request: web.Request) -> web.Response:
    """The file, or the part of it a Range asks for (read from the store alone); with presigned links, a redirect to
    the object store, which then serves the bytes itself."""
    files = request.app[FILES]
    token = request.match_info["token"]
    blob = await files.open_link(token)
    if presigned := await files.presigned_link(token, blob, _disposition(blob.filename)):
        raise web.HTTPFound(presigned, headers=_FILE_HEADERS)
    headers = {
        "Content-Disposition": _disposition(blob.filename),
        "Accept-Ranges": "bytes",
        **_FILE_HEADERS,
        "Content-Security-Policy": _PDF_POLICY if blob.content_type == "application/pdf" else _FILE_POLICY,
    }
    wanted = _range(request.headers.get("Range", ""), blob.byte_size)
    if wanted is None:
        status, start, end = 200, 0, blob.byte_size - 1
    elif wanted:
        (start, end), status = wanted, 206
        headers["Content-Range"] = f"bytes {start}-{end}/{blob.byte_size}"
    else:
        return web.Response(status=416, headers={"Content-Range": f"bytes */{blob.byte_size}"})
    if request.method == "HEAD":  # the size is known from the record: the contents are not read
        headers["Content-Length"] = str(end - start + 1)
        return web.Response(status=status, content_type=blob.content_type, headers=headers)
    body = await files.read(blob) if wanted is None else await files.read_range(blob, start, end)
    return web.Response(status=status, body=body, content_type=blob.content_type, headers=headers)


def _range(header: str, size: int) -> tuple[int, int] | tuple[()] | None:
    """The one byte range asked for: None for the whole file, () when it cannot be satisfied."""
    match = _RANGE.match(header.strip())
    if not match or match.groups() == ("", ""):
        return None
    first, last = match.groups()
    if first == "":
        start, end = max(size - int(last), 0), size - 1
    else:
        start, end = int(first), min(int(last), size - 1) if last else size - 1
    return (start, end) if start <= end and start < size else ()


def _disposition(filename: str) -> str:
    ascii_name = filename.encode("ascii", "replace").decode().replace('"', "'").replace("?", "_")
    return f"inline; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(filename)}"
