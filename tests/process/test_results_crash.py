"""Result documents with real `python run.py` processes: the service killed (SIGKILL) while the completion
job of the last signer runs; after a restart on the same database every document exists exactly once,
and form.completed / submission.completed are emitted exactly once."""

import asyncio
import json
import signal
import time
from collections import Counter
from urllib.parse import urlsplit

import aiohttp
import aiosqlite
import asyncpg

from tests.support import service
from tests.support.documents import b64, pdf
from tests.support.signing import ANN_VALUES, BOB_VALUES, FIELDS

KEY = "service-test-key-0000000000000000000000000"
PAGES = 150
# The fields of tests/support/signing.py with an area on every page: drawing the values on each page makes the
# completion jobs take a couple of seconds, while the template is made in a few.
EVERY_PAGE = [
    {**field, "areas": [{**field["areas"][0], "page": page} for page in range(1, PAGES + 1)]} for field in FIELDS
]


def environment(database_url, tmp_path):
    return {
        "SIGNSVC_DATABASE_URL": database_url,
        "SIGNSVC_DATA_DIR": str(tmp_path / "data"),
        "SIGNSVC_API_KEY": KEY,
        "SIGNSVC_RATE_LIMIT_PER_KEY": "0",
        "SIGNSVC_RATE_LIMIT_PER_IP": "0",
    }


class Peek:
    """Reads the service's database directly, read-only, while the service runs."""

    def __init__(self, database_url: str) -> None:
        self.url = database_url

    async def rows(self, sql: str) -> list[dict]:
        if self.url.startswith("sqlite:///"):
            path = self.url.removeprefix("sqlite:///")
            async with aiosqlite.connect(f"file:{path}?mode=ro", uri=True, timeout=30) as conn:
                conn.row_factory = aiosqlite.Row
                async with conn.execute(sql) as cursor:
                    return [dict(row) for row in await cursor.fetchall()]
        conn = await asyncpg.connect(self.url, server_settings={"default_transaction_read_only": "on"})
        try:
            return [dict(row) for row in await conn.fetch(sql)]
        finally:
            await conn.close()

    async def jobs(self) -> list[dict]:
        found = await self.rows(
            "SELECT id, kind, payload, status, attempts, last_error FROM jobs "
            "WHERE kind = 'results.produce' ORDER BY id"
        )
        return [
            {**job, "payload": json.loads(job["payload"]) if isinstance(job["payload"], str) else job["payload"]}
            for job in found
        ]

    async def results(self) -> list[dict]:
        return await self.rows(
            "SELECT submission_id, submitter_id, kind, position, name, blob_id, sha256 "
            "FROM result_documents ORDER BY id"
        )

    async def events(self) -> list[dict]:
        return await self.rows(
            "SELECT event_type, record_type, record_id FROM events "
            "WHERE event_type IN ('form.completed', 'submission.completed') ORDER BY id"
        )


async def create_template(session: aiohttp.ClientSession, api: str) -> int:
    body = {
        "name": "NDA",
        "documents": [
            {"name": "nda", "file": b64(pdf(PAGES)), "fields": EVERY_PAGE},
            {"name": "annex", "file": b64(pdf(2, text="Annex"))},
        ],
    }
    async with session.post(f"{api}/templates", json=body) as reply:
        assert reply.status == 201, await reply.text()
        return (await reply.json())["id"]


async def create_completed_submission(
    session: aiohttp.ClientSession, api: str, template_id: int
) -> tuple[int, list[int]]:
    body = {
        "template_id": template_id,
        "submitters": [
            {"email": "ann@example.com", "name": "Ann", "values": ANN_VALUES, "completed": True},
            {"email": "bob@example.com", "name": "Bob", "values": BOB_VALUES, "completed": True},
        ],
    }
    async with session.post(f"{api}/submissions", json=body) as reply:
        assert reply.status == 200, await reply.text()
        submitters = await reply.json()
    return submitters[0]["submission_id"], [submitter["id"] for submitter in submitters]


async def wait_for_last_job_running(peek: Peek, timeout: float = 30) -> dict:
    """The last signer's job once a worker runs it. The job is enqueued with the submission, so by now it
    is pending or running; gone means it ran to its end before it was seen running."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        last = [job for job in await peek.jobs() if job["payload"].get("last")]
        assert last, "the last signer's job finished before it was seen running: make the document longer"
        if last[0]["status"] == "running":
            return last[0]
        assert last[0]["status"] == "pending", f"the last signer's job is {last[0]} before the kill"
        await asyncio.sleep(0.02)
    raise AssertionError(f"the last signer's job never ran within {timeout} s: {await peek.jobs()}")


async def wait_for_audit_log(session: aiohttp.ClientSession, api: str, submission_id: int, timeout: float = 90) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        async with session.get(f"{api}/submissions/{submission_id}") as reply:
            assert reply.status == 200, await reply.text()
            found = await reply.json()
        if found.get("audit_log_url"):
            return found
        await asyncio.sleep(0.2)
    raise AssertionError(f"no audit log {timeout} s after the restart: {found}")


async def download(session: aiohttp.ClientSession, site: str, url: str) -> bytes:
    parts = urlsplit(url)
    async with session.get(site + parts.path + (f"?{parts.query}" if parts.query else "")) as reply:
        assert reply.status == 200, url
        return await reply.read()


async def test_documents_exist_exactly_once_after_the_service_is_killed_during_the_completion_job(
    database_url, tmp_path
):
    env = environment(database_url, tmp_path)
    peek = Peek(database_url)
    async with aiohttp.ClientSession(headers={"X-Auth-Token": KEY}) as session:
        first = await service.start(**env)
        try:
            template_id = await create_template(session, first.api)
            submission_id, (ann, bob) = await create_completed_submission(session, first.api, template_id)
            running = await wait_for_last_job_running(peek)
        finally:
            first.process.kill()
            await asyncio.wait_for(first.process.wait(), 30)
        assert first.process.returncode == -signal.SIGKILL
        # The kill came while the job ran, else this test proves nothing: the job is still there, running,
        # and nothing of the last submitter is recorded, the audit log above all.
        last = [job for job in await peek.jobs() if job["payload"].get("last")]
        assert [(job["id"], job["status"]) for job in last] == [(running["id"], "running")], (
            f"the last signer's job finished before the kill: make the document longer ({last})"
        )
        assert running["payload"]["submitter_id"] == bob
        before = await peek.results()
        assert {(r["kind"], r["submitter_id"]) for r in before} <= {("submitter", ann)}, before
        assert {(e["event_type"], e["record_id"]) for e in await peek.events()} <= {("form.completed", ann)}

        await service.expire_leases(database_url)
        second = await service.start(**env)
        try:
            found = await wait_for_audit_log(session, second.api, submission_id)
            assert found["status"] == "completed"
            assert found["combined_document_url"]
            assert [document["name"] for document in found["documents"]] == ["nda", "annex"]
            for url in [document["url"] for document in found["documents"]] + [
                found["audit_log_url"],
                found["combined_document_url"],
            ]:
                assert (await download(session, second.site, url)).startswith(b"%PDF-"), url
        finally:
            await second.stop()  # lets a job under way finish, so a duplicate would be counted below
        for name, server in (("killed", first), ("restarted", second)):  # shown on a failure
            print(f"stderr of the {name} service:", await server.stderr.rest())
    results, events, jobs = await peek.results(), await peek.events(), await peek.jobs()
    emails = await peek.rows("SELECT kind, submitter_id, to_address FROM emails WHERE kind = 'completed_copy'")

    slots = Counter((r["kind"], r["submitter_id"], r["position"]) for r in results)
    assert [slot for slot, count in slots.items() if count > 1] == []
    assert slots == Counter(
        {
            ("submitter", ann, 0): 1,
            ("submitter", ann, 1): 1,
            ("submitter", bob, 0): 1,
            ("submitter", bob, 1): 1,
            ("final", None, 0): 1,
            ("final", None, 1): 1,
            ("audit_log", None, 0): 1,
            ("combined", None, 0): 1,
        }
    )
    assert {r["submission_id"] for r in results} == {submission_id}
    assert Counter((e["event_type"], e["record_type"], e["record_id"]) for e in events) == Counter(
        {
            ("form.completed", "submitter", ann): 1,
            ("form.completed", "submitter", bob): 1,
            ("submission.completed", "submission", submission_id): 1,
        }
    )
    assert sorted((e["submitter_id"], e["to_address"]) for e in emails) == [
        (ann, "ann@example.com"),
        (bob, "bob@example.com"),
    ]
    stored = {path.name for path in (tmp_path / "data" / "files").rglob("*") if path.is_file()}
    assert {r["sha256"] for r in results} <= stored
    assert jobs == []  # both jobs done, none left failed or waiting for a retry
