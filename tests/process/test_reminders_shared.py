"""Reminders with real `python run.py` processes on one Postgres: when both processes' testing clocks pass the delay
at the same moment, both workers reach for the due reminders, and each signer still gets exactly one."""

import asyncio
from datetime import UTC, datetime, timedelta

import aiohttp
import pytest

from tests.support import service
from tests.support.databases import BACKENDS, NO_POSTGRES, POSTGRES_URL
from tests.support.documents import b64, pdf
from tests.support.signing import FIELDS

KEY = "reminders-test-key-00000000000000000000000"
SIGNERS = 40


def environment(database_url, tmp_path) -> dict[str, str]:
    return {
        "SIGNSVC_DATABASE_URL": database_url,
        "SIGNSVC_DATA_DIR": str(tmp_path / "data"),
        "SIGNSVC_API_KEY": KEY,
        "SIGNSVC_TESTING": "1",
        "SIGNSVC_RATE_LIMIT_PER_KEY": "0",
        "SIGNSVC_RATE_LIMIT_PER_IP": "0",
    }


async def call(session: aiohttp.ClientSession, method: str, url: str, body: dict | None = None) -> dict:
    async with session.request(method, url, json=body) as reply:
        assert reply.status in (200, 201), await reply.text()
        return await reply.json()


async def send_with_reminders(session: aiohttp.ClientSession, api: str) -> list[int]:
    """A template, then one submission per signer with a reminder an hour after the invitation; their ids."""
    body = {"name": "NDA", "documents": [{"name": "nda", "file": b64(pdf()), "fields": FIELDS}]}
    template_id = (await call(session, "POST", f"{api}/templates", body))["id"]
    ids = []
    for n in range(SIGNERS):
        submitters = [{"email": f"signer{n}@example.com"}]
        created = {"template_id": template_id, "submitters": submitters, "reminders": {"first_duration": "one_hour"}}
        ids.append((await call(session, "POST", f"{api}/submissions/init", created))["id"])
    return ids


@pytest.mark.skipif(not POSTGRES_URL, reason=NO_POSTGRES)
@pytest.mark.parametrize("backend", [b for b in BACKENDS if b != "sqlite"], indirect=True)
async def test_two_processes_on_one_postgres_send_each_due_reminder_once(database_url, tmp_path):
    env = environment(database_url, tmp_path)
    first = await service.start(**env)
    running = [first, await service.start(**env)]
    try:
        async with aiohttp.ClientSession(headers={"X-Auth-Token": KEY}) as session:
            ids = await send_with_reminders(session, first.api)
            # Without a mail server each invitation is kept in the outbox and counts as sent at once.
            later = (datetime.now(UTC) + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
            await asyncio.gather(
                *(call(session, "POST", f"{server.api}/_testing/clock/set", {"time": later}) for server in running)
            )
            await asyncio.gather(*(call(session, "POST", f"{server.api}/_testing/jobs/drain") for server in running))
            reminded = []
            for submission_id in ids:
                found = await call(session, "GET", f"{first.api}/submissions/{submission_id}")
                reminded.append([e["event_type"] for e in found["submission_events"]].count("send_reminder_email"))
            emails = await call(session, "GET", f"{first.api}/_testing/emails?limit=100")
    finally:
        await asyncio.gather(*(server.stop() for server in running))
    assert reminded == [1] * SIGNERS
    subjects = [email["subject"] for email in emails["data"]]
    assert subjects.count("Reminder: You are invited to sign a document") == SIGNERS
