"""The CRL of the service's own signing CA, public (no key): the address its signing certificates name as their
CRL distribution point, for validators that check revocation online. The same CRL is embedded in every file the
service signs."""

from __future__ import annotations

from aiohttp import web

from signsvc.http.appkeys import RESULTS
from signsvc.infra.errors import NotFound

CONTENT_TYPE = "application/pkix-crl"


async def show(request: web.Request) -> web.Response:
    crl = await request.app[RESULTS].identity.published_crl(request.match_info["sha256"])
    if crl is None:
        raise NotFound("No CRL is published under this name")
    return web.Response(body=crl, content_type=CONTENT_TYPE, headers={"Cache-Control": "public, max-age=3600"})
