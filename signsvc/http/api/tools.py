"""Tools: merge PDFs, verify signed ones. The PDF work runs in the process pool."""

from __future__ import annotations

from aiohttp import web

from signsvc.http.appkeys import INGEST, RESULTS
from signsvc.http.params import read_json
from signsvc.http.responses import json_response
from signsvc.wire import result_json


async def merge(request: web.Request) -> web.Response:
    """`files`: two or more base64 PDFs; answers `{data}`, one base64 PDF of all their pages in order."""
    merged = await request.app[INGEST].merge((await read_json(request)).get("files"))
    return json_response({"data": merged})


async def verify(request: web.Request) -> web.Response:
    """`file`: a base64 PDF; answers whether the service issued it, and a report per signature."""
    verification = await request.app[RESULTS].verify((await read_json(request)).get("file"))
    return json_response(result_json.verification_json(verification))
