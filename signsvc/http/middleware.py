"""The middleware every request passes first: /api requests are keyed and counted; errors become JSON (a browser
asking for a page that does not exist gets a page). Every response outside the API carries the pages'
protective headers. One middleware, not two: each is a coroutine more on every request."""

from __future__ import annotations

import asyncio
import logging
import re
from typing import TYPE_CHECKING

from aiohttp import web
from aiohttp.typedefs import Handler

from signsvc.accounts import auth
from signsvc.http.appkeys import ACCOUNTS, RATE_LIMITS, SETTINGS
from signsvc.http.responses import error_response
from signsvc.http.web import rendering
from signsvc.infra import errors
from storage import StorageError
from storage.account_records import Principal

if TYPE_CHECKING:  # its module, with the job machinery, is the second half's (signsvc/assembly.py)
    from signsvc.accounts.rate_limits import Quota

log = logging.getLogger(__name__)

TOKEN_HEADER = "X-Auth-Token"
_PRINCIPAL = web.RequestKey("principal", Principal)
_QUOTA: web.RequestKey[Quota] = web.RequestKey("quota")
CUT_OFF = "The connection was closed before the request arrived whole"
_HTTP_MESSAGES = {404: "Not found", 405: "Method not allowed"}
# Paths whose last fixed segment is followed by a credential: a signing, clickwrap or public template link's
# slug, a signed link's token, a console setup or password reset link's token.
_CREDENTIAL_PATH = re.compile(r"^/(s|apiemb|e|file|c|d|console/setup|console/reset)/([^/]{4})[^/]*")


def is_api(request: web.Request) -> bool:
    return request.path == "/api" or request.path.startswith("/api/")


def loggable_path(path: str) -> str:
    """The path as logs show it: a slug or token cut to its first four characters."""
    return _CREDENTIAL_PATH.sub(r"/\1/\2…", path)


def principal(request: web.Request) -> Principal:
    return request[_PRINCIPAL]


def holder(request: web.Request) -> tuple[int | None, str]:
    """Who holds a request's body in the body budget: its key, once accepted, and its client's address."""
    found = request.get(_PRINCIPAL)
    return found.key_id if found else None, client_address(request)


def account_id(request: web.Request) -> int | None:
    """The account a request acted on, once its key was accepted (for the access log)."""
    found = request.get(_PRINCIPAL)
    return found.account_id if found else None


@web.middleware
async def edge_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Authenticates and counts /api requests; turns every failure into `{"error": message}`, never HTML, never
    a stack trace."""
    api = is_api(request)
    try:
        if api:
            await _keyed(request)
        response = await handler(request)
    except errors.ServiceError as exc:
        response = error_response(
            exc.status, exc.message, {"Retry-After": str(exc.retry_after)} if exc.retry_after else None
        )
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        response = (
            rendering.not_found(request) if exc.status == 404 and _wants_page(request) else _http_error(request, exc)
        )
    except StorageError as exc:
        log.error("database failure on %s %s: %s", request.method, loggable_path(request.path), exc)
        response = error_response(503, errors.Unavailable.message)
    except asyncio.CancelledError:
        raise
    except ConnectionError as exc:
        if not _client_gone(request):
            log.exception("unhandled error on %s %s", request.method, loggable_path(request.path))
            response = error_response(500, errors.ServiceError.message)
        else:  # nobody to answer: the access log shows the 400, this line why
            log.info(
                "%s %s: the client closed the connection before its request was read (%s)",
                request.method,
                loggable_path(request.path),
                exc,
            )
            response = error_response(400, CUT_OFF)
    except Exception:
        log.exception("unhandled error on %s %s", request.method, loggable_path(request.path))
        response = error_response(500, errors.ServiceError.message)
    if not api:
        rendering.protect(request.path, response)
    quota = request.get(_QUOTA)
    if quota is not None:
        response.headers.update(quota.headers())
        if response.status == 429:
            response.headers["Retry-After"] = str(quota.retry_after)
    return response


def _client_gone(request: web.Request) -> bool:
    """Whether the request's connection has closed (the client went away, or was cut for sending too slowly)."""
    transport = request.transport
    return transport is None or transport.is_closing()


def _wants_page(request: web.Request) -> bool:
    return request.method == "GET" and not is_api(request) and "text/html" in request.headers.get("Accept", "")


def _http_error(request: web.Request, exc: web.HTTPException) -> web.Response:
    if exc.status == 413:
        message = f"Request body is too large: the limit is {request.app[SETTINGS].max_body_bytes} bytes"
    else:
        message = _HTTP_MESSAGES.get(exc.status, exc.reason)
    headers = {"Allow": exc.headers["Allow"]} if "Allow" in exc.headers else None
    return error_response(exc.status, message, headers)


async def _keyed(request: web.Request) -> None:
    """Finds who the key acts as and counts the request against the rate limits; raises when it goes no further."""
    app = request.app
    found = await app[ACCOUNTS].find_principal(request.headers.get(TOKEN_HEADER))
    quota = await app[RATE_LIMITS].take(key_id=found.key_id if found else None, client=client_address(request))
    request[_QUOTA] = quota
    if quota.exceeded:
        raise errors.TooManyRequests()
    request[_PRINCIPAL] = auth.require_access(found)


async def within_page_limits(request: web.Request, submitter_id: int | None = None) -> bool:
    """Counts an action of the hosted pages (a signer's form action, a public form's post) against the
    caller's address and, when known, the signer; False over a limit, which the 429 answer's Retry-After
    then tells."""
    quota = await request.app[RATE_LIMITS].take_page_action(client=client_address(request), submitter_id=submitter_id)
    if quota.exceeded:
        request[_QUOTA] = quota
    return not quota.exceeded


async def within_public_caps(request: web.Request, *, consent: bool, slug: str) -> bool:
    """Counts a new submission of a template's public link (or, `consent`, a consent on a clickwrap's page)
    against the page's and the caller's address's caps; False over one, which the 429 answer's Retry-After then
    tells."""
    limits, client = request.app[RATE_LIMITS], client_address(request)
    take = limits.take_consent if consent else limits.take_public_start
    quota = await take(client=client, slug=slug)
    if quota.exceeded:
        request[_QUOTA] = quota
    return not quota.exceeded


def client_address(request: web.Request) -> str:
    """The caller's address; behind a trusted proxy, the nearest untrusted X-Forwarded-For entry."""
    trusted_proxies = request.app[SETTINGS].trusted_proxies
    address = request.remote or "unknown"
    if address not in trusted_proxies:
        return address
    for hop in reversed(request.headers.get("X-Forwarded-For", "").split(",")):
        hop = hop.strip()
        if hop and hop not in trusted_proxies:
            return hop
    return address
