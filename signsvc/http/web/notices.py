"""Whether the service's emails leave the machine, for the pages that would otherwise say one went out. With no
SMTP server configured (SIGNSVC_SMTP_URL unset, the default start) every email is kept in the outbox
(/console/outbox) and nobody receives it: the pages say so instead."""

from __future__ import annotations

from aiohttp import web

from signsvc.http.appkeys import OUTBOX

OUTBOX_PAGE = "/console/outbox"
# The console's notices after an action that emails someone: each has a wording for an email kept instead.
MAILED = frozenset({"submission_sent", "signer_invited", "user_invited", "invitation_sent"})
KEPT_PREFIX = "console.done.kept."


def mail_kept(app: web.Application) -> bool:
    """Whether emails stay in the outbox: the service has no SMTP server."""
    outbox = app.get(OUTBOX)
    return outbox is not None and outbox.smtp_server is None


def done_key(app: web.Application, done: str) -> str:
    """The catalogue key of the console's notice `done`: the kept wording when it says an email went out and
    none can."""
    if done in MAILED and mail_kept(app):
        return KEPT_PREFIX + done
    return f"console.done.{done}"


def links_outbox(key: str | None) -> bool:
    """Whether the notice `key` says an email is kept, and so links to the outbox."""
    return bool(key and key.startswith(KEPT_PREFIX))
