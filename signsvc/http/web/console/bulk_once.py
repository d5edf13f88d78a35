"""The mapping form's "Send" posted once: each mapping page carries a nonce issued for its address
(`signsvc.infra.form_nonces`), and the send it posts claims it (`storage.form_posts`) before any submission is
made, so a second post of the same form (a double click, a reload, the back button) makes nothing: it finds the
submissions the first one made, or, while the first is still sending, is refused."""

from __future__ import annotations

from dataclasses import dataclass

from aiohttp import web

import storage.form_posts as form_posts
from signsvc.http.appkeys import CLOCK, DB, FORM_NONCES
from storage.records import Submission

FIELD = "send_token"
FIRST = "bulk_send"  # the record the token names: the first submission made
LAST = "bulk_send_last"  # claimed as "<token>:last", naming the last one


@dataclass(frozen=True)
class Made:
    """The submissions an earlier post of the form made: ids `first` to `last`."""

    first: int
    last: int


class Busy(Exception):
    """The form's token was claimed by a post that has made nothing yet (it is still sending, or was refused)."""


async def issue(request: web.Request) -> str:
    """A new token for the mapping page being rendered."""
    return await request.app[FORM_NONCES].issue(request.path)


async def valid(request: web.Request, token: str) -> bool:
    """The token was issued for this address and has not expired."""
    return bool(token) and await request.app[FORM_NONCES].valid(token, request.path)


async def earlier(request: web.Request, token: str) -> Made | None:
    """What an earlier post of the token, issued for this address, made, if it made anything."""
    if not await valid(request, token):
        return None
    db = request.app[DB]
    first = await form_posts.made_by(db, token, FIRST)
    last = await form_posts.made_by(db, _last(token), LAST)
    return Made(first, last) if first is not None and last is not None else None


async def claim(request: web.Request, token: str) -> None:
    """Claims the token for this post before anything is made; Busy when another post has claimed it."""
    db, now = request.app[DB], request.app[CLOCK].now()
    try:
        async with db.transaction() as tx:
            await form_posts.claim(tx, token, FIRST, now)
    except form_posts.Taken:
        raise Busy() from None


async def settle(request: web.Request, token: str, made: list[Submission]) -> None:
    """Records what the post made, so a second post of the same form leads to it; a post that made nothing gives
    the token back, so that the form can be sent again."""
    db, now = request.app[DB], request.app[CLOCK].now()
    if not made:
        async with db.transaction() as tx:
            await form_posts.release(tx, token)
        return
    async with db.transaction() as tx:
        await form_posts.settle(tx, token, made[0].id)
        await form_posts.claim(tx, _last(token), LAST, now)
        await form_posts.settle(tx, _last(token), made[-1].id)


def _last(token: str) -> str:
    return f"{token}:last"
