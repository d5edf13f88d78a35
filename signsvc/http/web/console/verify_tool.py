"""The console's verify page: a signed PDF uploaded in a plain multipart form (it works without script), and
what `POST /api/tools/verify` reports for it, per signature: its PAdES level, signing time and where that
time comes from, whether its chain validates offline, whether the service issued it, and what it lacks."""

from __future__ import annotations

import base64

from aiohttp import web

from signsvc.http.appkeys import RESULTS
from signsvc.http.web.console import shell
from signsvc.http.web.console.badges import Badge
from signsvc.infra import errors
from signsvc.infra.pdf_calls import SignatureReport
from signsvc.results.answers import Verification

HOME = "/console/verify"
MISSING_KEYS = {
    "pades_signature": "console.verify.missing.pades_signature",
    "signature_timestamp": "console.verify.missing.signature_timestamp",
    "trusted_timestamp": "console.verify.missing.trusted_timestamp",
    "revocation_information": "console.verify.missing.revocation_information",
    "document_timestamp": "console.verify.missing.document_timestamp",
    "trusted_chain": "console.verify.missing.trusted_chain",
    "validation_data_too_large": "console.verify.missing.validation_data_too_large",
}
LEVEL_KEYS = {
    "B-B": "console.verify.level.b_b",
    "B-T": "console.verify.level.b_t",
    "B-LT": "console.verify.level.b_lt",
    "B-LTA": "console.verify.level.b_lta",
}
SOURCE_KEYS = {"timestamp": "console.verify.source.timestamp", "claimed": "console.verify.source.claimed"}
KIND_KEYS = {
    "certification": "console.verify.kind.certification",
    "approval": "console.verify.kind.approval",
    "timestamp": "console.verify.kind.timestamp",
}


async def page(request: web.Request) -> web.Response:
    """GET /console/verify: the upload form."""
    console = await shell.signed_in(request)
    return _page(request, console)


async def check(request: web.Request) -> web.Response:
    """POST /console/verify: the form again, with the report of the uploaded PDF or the reason it has none."""
    console = await shell.signed_in(request)
    try:
        posted = await shell.posted(request, console.session)
    except shell.FormUnreadable as unreadable:
        if unreadable.status != 413:
            raise
        return _page(request, console, status=413, problem="console.verify.too_large")
    file = posted.get("file")
    if not isinstance(file, web.FileField) or not (data := file.file.read()):
        return _page(request, console, status=422, problem="console.verify.no_file")
    try:
        verification = await request.app[RESULTS].verify(base64.b64encode(data).decode())
    except errors.Invalid as refused:
        return _page(request, console, status=422, problem_text=refused.message)
    return _page(request, console, verification=verification, filename=file.filename or "")


def level_badge(signature: SignatureReport) -> Badge:
    """The level as a badge: good at B-LTA, waiting below it, none for no level."""
    if signature.pades_level is None:
        return Badge("console.verify.level.none")
    return Badge(LEVEL_KEYS[signature.pades_level], _tone(signature))


def shown_time(iso: str) -> str:
    """An API time (`2026-01-02T09:30:17.000Z`) as people read it: `2026-01-02 09:30:17 UTC`."""
    return f"{iso[:10]} {iso[11:19]} UTC"


def _tone(signature: SignatureReport) -> str:
    if not signature.missing_for_long_term:
        return "good"
    failing = {"trusted_chain", "validation_data_too_large"}
    return "bad" if failing & set(signature.missing_for_long_term) else "wait"


def _page(
    request: web.Request,
    console: shell.Console,
    *,
    status: int = 200,
    verification: Verification | None = None,
    filename: str = "",
    problem: str | None = None,
    problem_text: str | None = None,
) -> web.Response:
    return shell.render(
        request,
        "console/verify.html",
        console.session,
        console=console,
        status=status,
        verification=verification,
        filename=filename,
        problem=problem,
        problem_text=problem_text,
        level_badge=level_badge,
        shown_time=shown_time,
        missing_keys=MISSING_KEYS,
        source_keys=SOURCE_KEYS,
        kind_keys=KIND_KEYS,
    )


ROUTES: list[web.RouteDef] = [web.get(HOME, page), web.post(HOME, check)]
