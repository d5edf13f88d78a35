"""Tokens of the public pages' forms (the clickwrap page, a template's public link): each form carries a
token bound to the browser's form cookie and to the page's path, so a post made by another site's page,
or with a token of another page, is refused; and the token names the post, so a second post of the same
form (a double click, a reload) finds what the first made.

The token is `nonce.signature`: the nonce is issued by the service with the page view and remembered for that
page (`signsvc.infra.form_nonces`), so no form can be posted without loading its page, nor after the nonce
expired; the signature is an HMAC of the path and the nonce keyed with the cookie's value: no other site can
read the cookie (HttpOnly, SameSite=Lax), hence none can make a token that matches it, nor use one it has seen
from another browser.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Mapping

from aiohttp import web

from signsvc.http.appkeys import FORM_NONCES
from signsvc.infra import tokens

COOKIE = "signsvc_form"
FIELD = "form_token"


async def issue(request: web.Request) -> tuple[str, str]:
    """A new token for the form of this page, and the value of the form cookie it is bound to (kept, or new)."""
    key = request.cookies.get(COOKIE) or tokens.generate(32)
    nonce = await request.app[FORM_NONCES].issue(request.path)
    return f"{nonce}.{_sign(key, request.path, nonce)}", key


def keep(response: web.Response, key: str, *, secure: bool) -> None:
    response.set_cookie(COOKIE, key, httponly=True, samesite="Lax", secure=secure, path="/")


async def posted(request: web.Request, form: Mapping[str, str]) -> str | None:
    """The posted form's token when the service issued it for this page, to this browser, and it has not
    expired; else None."""
    token = form.get(FIELD, "")
    nonce, _, signature = token.partition(".")
    key = request.cookies.get(COOKIE)
    if not key or not nonce or not hmac.compare_digest(signature.encode(), _sign(key, request.path, nonce).encode()):
        return None
    return token if await request.app[FORM_NONCES].valid(nonce, request.path) else None


def _sign(key: str, path: str, nonce: str) -> str:
    digest = hmac.new(key.encode(), f"{path}|{nonce}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
