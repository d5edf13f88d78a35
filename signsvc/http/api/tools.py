"""Tools (SPEC section 4, Tools): merge PDFs, verify signed ones. PDF work runs in the process pool."""

from __future__ import annotations

from aiohttp import web

from signsvc.infra import errors

from signsvc.infra import pdf_calls
from signsvc.http.params import read_json
from signsvc.http.responses import json_response
from signsvc.http.appkeys import INGEST, RESULTS

MAX_FILES = 50


async def merge(request: web.Request) -> web.Response:
    """`files`: two or more base64 PDFs; answers `{data}`, one base64 PDF of all their pages in order."""
    files = (await read_json(request)).get("files")
    if not files:
        raise errors.Invalid("Files are required: files must be an array of base64 PDFs")
    if not isinstance(files, list) or not all(isinstance(file, str) for file in files):
        raise errors.Invalid("files must be an array of base64 PDFs (strings)")
    if not 2 <= len(files) <= MAX_FILES:
        raise errors.Invalid(f"At least 2 files are required, and at most {MAX_FILES}")
    try:
        merged = await request.app[INGEST].pool.run(pdf_calls.merge_base64, files)
    except pdf_calls.EngineError as exc:
        raise errors.Invalid(str(exc)) from None
    return json_response({"data": merged})


async def verify(request: web.Request) -> web.Response:
    """`file`: a base64 PDF; answers whether the service issued it, and a report per signature."""
    file = (await read_json(request)).get("file")
    if not isinstance(file, str) or not file:
        raise errors.Invalid("file is required: a PDF as base64")
    try:
        return json_response(await request.app[RESULTS].verify(file))
    except pdf_calls.EngineError as exc:
        raise errors.Invalid(str(exc)) from None
