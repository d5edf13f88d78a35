"""`POST /submitters/{id}/two_factor_token` (an extension): an embedding server vouches for its signer, who then
skips the emailed code (`require_email_2fa`). The pass opens `/apiemb/{slug}` as `?two_factor_token=` or the
`X-Two-Factor-Token` header for `VOUCHED_LIFETIME`."""

from __future__ import annotations

from urllib.parse import urlencode

from aiohttp import web

from signsvc.http.appkeys import SETTINGS, SUBMITTERS, VERIFICATION_PASSES
from signsvc.http.middleware import principal
from signsvc.http.params import record_id
from signsvc.http.responses import json_response
from signsvc.http.web.email_verification import QUERY
from signsvc.submissions.verification_passes import VOUCHED_LIFETIME
from signsvc.wire.encoding import iso


async def issue(request: web.Request) -> web.Response:
    submitter = await request.app[SUBMITTERS].find(principal(request), record_id(request))
    token, expires_at = request.app[VERIFICATION_PASSES].issue(submitter, VOUCHED_LIFETIME)
    embedded = request.app[SETTINGS].urls.embedded_form(submitter.slug)
    return json_response(
        {
            "submitter_id": submitter.id,
            "two_factor_token": token,
            "expires_at": iso(expires_at),
            "embed_src": f"{embedded}?{urlencode({QUERY: token})}",
        }
    )
