"""What the public pages' forms share (the clickwrap page, a template's public link): reading a posted
form, rendering the form with its token and cookie, and the message pages they answer with."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from signsvc.http.appkeys import SETTINGS
from signsvc.http.middleware import within_page_limits, within_public_caps
from signsvc.http.web import form_tokens, rendering

FORM_LIMIT = 64 * 1024  # far above what the forms' inputs can hold
FORM_TYPE = "application/x-www-form-urlencoded"
ISSUED = web.RequestKey("form_token", str)  # the token `render` issued for the page's form


class Unreadable(Exception):
    """A post that is no form of ours, or one too many from its address; `status` is the answer: 415, 413,
    400 or 429 (with Retry-After)."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


async def read(request: web.Request, keys: tuple[str, ...]) -> dict[str, str]:
    """The posted form's values of `keys` and its token (empty when missing); raises Unreadable. Posts count
    against the pages' rate limit of the caller's address."""
    if not await within_page_limits(request):
        raise Unreadable(429)
    if request.content_type != FORM_TYPE:
        raise Unreadable(415)
    limit = min(FORM_LIMIT, request.app[SETTINGS].max_body_bytes or FORM_LIMIT)
    if (request.content_length or 0) > limit:
        raise Unreadable(413)
    try:
        form = await request.clone(client_max_size=limit).post()  # a chunked body is bounded as it is read
    except web.HTTPRequestEntityTooLarge:
        raise Unreadable(413) from None
    except ValueError:  # text that is not UTF-8
        raise Unreadable(400) from None
    return {key: str(form.get(key, "")) for key in (*keys, form_tokens.FIELD)}


async def viewed(request: web.Request) -> bool:
    """Counts a view of a public page against the pages' rate limit of the caller's address: each view stores
    its form's nonce. False over the limit (answer with `refusal(request, Unreadable(429))`)."""
    return await within_page_limits(request)


async def within_caps(request: web.Request, *, consent: bool, slug: str) -> web.Response | None:
    """None when the post may make a new submission (`consent`: a consent) on the page of `slug`; else the 429
    page saying that the page, or the caller's address, made too many in a short time."""
    if await within_public_caps(request, consent=consent, slug=slug):
        return None
    return message(request, "public.capped.title", "public.capped.body", 429)


async def render(request: web.Request, template: str, *, status: int = 200, **context: Any) -> web.Response:
    """The page with its form, the form carrying a new token bound to the browser's form cookie."""
    request[ISSUED], cookie = await form_tokens.issue(request)
    response = rendering.render(request, template, status=status, **context)
    form_tokens.keep(response, cookie, secure=request.app[SETTINGS].urls.secure)
    return response


def context(request: web.Request) -> dict[str, str]:
    """Context processor: on a page with a form, the form's `token` and the name of its field."""
    token = request.get(ISSUED)
    return {"token": token, "token_field": form_tokens.FIELD} if token else {}


def refusal(request: web.Request, unreadable: Unreadable) -> web.Response:
    """The page for a post that was not read: too many from the address, or no form of ours."""
    if unreadable.status == 429:
        return message(request, "public.too_many.title", "public.too_many.body", 429)
    return message(request, "public.bad_post.title", "public.bad_post.body", unreadable.status)


def message(request: web.Request, title_key: str, body_key: str, status: int) -> web.Response:
    return rendering.render(
        request,
        "message.html",
        status=status,
        title_key=title_key,
        body_key=body_key,
    )
