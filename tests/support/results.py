"""Completed submissions and the files behind their signed links, as the result-document tests fetch them."""

from __future__ import annotations

from urllib.parse import urlsplit

from tests.support.signing import ANN_VALUES, BOB_VALUES, send, submission, template

# Two submitters who complete at creation; Bob's name needs the CJK fallback font in the audit log.
BOTH_COMPLETED = (
    {"email": "ann@example.com", "name": "Zoë Łukasz", "values": ANN_VALUES, "completed": True},
    {"email": "bob@example.com", "name": "山田 太郎", "values": BOB_VALUES, "completed": True},
)


async def fetch(api, url: str) -> bytes:
    """A file behind one of the service's signed links."""
    parts = urlsplit(url)
    reply = await api.with_key(None).get(parts.path + (f"?{parts.query}" if parts.query else ""))
    assert reply.status == 200, url
    return reply.body


async def completed_submission(api, worker, *submitters, **body) -> dict:
    """A submission of `signing.template()` (changed by `template=`) completed by `submitters` (by default
    BOTH_COMPLETED), once the worker has run its jobs."""
    sent = await send(api, await template(api, **body.pop("template", {})), *(submitters or BOTH_COMPLETED), **body)
    await worker.drain()
    return await submission(api, sent[0]["submission_id"])
