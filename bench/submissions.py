"""Submissions with two signers: creating them, then completing both signers, from 16 concurrent
clients, against the same writes executed directly through the database driver.

Per database (a fresh SQLite file in a temporary directory, then a fresh Postgres schema selected
with `?search_path=` and dropped afterwards), one after another:

1. signsvc: `python run.py --port 0` in a temporary working directory, limits lifted
   (SIGNSVC_RATE_LIMIT_PER_KEY=0, SIGNSVC_RATE_LIMIT_PER_IP=0), fixed live key,
   SIGNSVC_LOG_LEVEL=WARNING, no SMTP server (invitations are kept in the outbox and count as sent).
   A template is created through `POST /api/templates` (a one-page PDF, field "Full Name" for
   "First Party" and "Buyer" for "Second Party"). Then, from --clients workers (aiohttp in this
   process, keep-alive, closed loop):
   - warm-up, not counted: 2 creations per client, then the completions of all of them, then a wait (polled)
     until the server has produced their documents, so that its PDF pool is idle in the counted windows;
   - create: `POST /api/submissions` with two signers (a@example.com, b@example.com), back to back
     for --seconds; every answer must be 200 with two signers;
   - complete: every submission created in that window, each by one worker: `PUT
     /api/submitters/{id}` with `{"completed": true, "values": {...}}` for the first signer, then
     the second; every answer must be 200 with status "completed". No new request after
     --max-seconds.
   With invitations (the default; `--no-email` sends `"send_email": false`), creating invites the
   first signer and completing the first invites the second (default order `preserved`). Completing
   a signer also enqueues a `results.produce` job, which the server's worker runs during the
   completion phase: it has that signer's documents filled in the PDF pool and, for the second, the
   documents, audit log and combined document sealed, then records them (with `form.completed`,
   `submission.completed` and the completed emails). The worker's share is counted with the server;
   the pool's processes are not (they show in the machine column).
2. The ceiling, on the same database once the server has stopped, in this process: the writes one
   creation and one completion make, as signsvc executes them (traced from the server), each
   creation or completion in one transaction, from --clients concurrent tasks, with the same
   warm-up, window and counting. The SQL text is the server's own named queries
   (`storage/queries/`, `insert_*` and `update_*` with their RETURNING), sent through the raw
   driver with parameters that are ready (JSON already text, copied from rows the server wrote,
   so the rows are the same size):
   - SQLite (aiosqlite): one connection, WAL, synchronous NORMAL, foreign keys on, an asyncio lock
     held for each `BEGIN IMMEDIATE` ... `COMMIT`, as signsvc's driver does;
   - Postgres (asyncpg): a pool of 10 connections (signsvc's size) without the release reset, as
     signsvc's driver has; each unit of work in `conn.transaction()`.
   Per creation: insert_blob (the copy of the template's document), insert_submission, per signer
   insert_submitter and update_submitter, insert_event (submission.created); with invitations also
   insert_email, update_submitter twice (invited, sent) and insert_submission_event (send_email).
   Per completed signer: update_submitter twice (the values, then completed), insert_submission_event
   (api_complete_form), insert_event (form.completed); after the first signer, with invitations,
   the second's invitation as above; after the second, complete_submission, insert_event
   (submission.completed) and insert_job. (This list was traced before the completion job became one
   `results.produce` job per completed signer that itself records `form.completed`, and before
   signsvc wrote a creation's file copies and signers in one statement each (copy_blobs,
   insert_submitters), an invitation kept in the outbox and a completion's values with one
   update_submitter each; the ceiling still writes as listed, 11 writes per creation and 4 per
   completed signer where signsvc now makes 8 and 3.) No notification: signsvc's Postgres insert_job
   notifies the job's channel in the same statement (since 2026-11-29; before, in a statement of its
   own, which the ceiling never made either), so the ceiling's Postgres insert_job is the generic text,
   `storage/queries/jobs.sql`, which SQLite runs. Not in the ceiling: the reads signsvc makes around these
   writes (for a creation the template and its documents; for a completion the signer with their
   submission, the locked submission, its signers, its files), the background job run (its statements,
   and its PDF work in the pool, about 80 ms of CPU per completed signer, at a lower priority than the
   server since 2026-11-29), the domain code, JSON and HTTP. That is what the ratio measures.

With --rounds N the databases are measured N times in turns, each round on fresh databases with its own
ceiling; every round is printed, then the median ratio per database and phase (the machine's noise moves a
single round's ratio by a tenth or more).

Printed per database and phase: operations (a creation is one submission, a completion one signer),
failures, operations a second (completed in the wall time of the phase), p50/p99 latency from send
to body read (for the ceiling: from the task asking for the lock or pool connection to commit), the
ratio to the ceiling, and the CPU used in the phase by this process (the load generator, or the
ceiling's driver work), by the server process, by every `postgres` process on the machine (other
sessions included), by the whole machine, and stolen by the hypervisor. Client, server and
database share the machine's cores.

    python bench/submissions.py [--seconds 3] [--clients 16] [--max-seconds 120] [--no-email]
                                [--rounds 1] [--skip-postgres]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import secrets
import sys
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, ClassVar

import aiohttp
from harness import arguments, databases, report, servers, usage, use_repo
from harness.client import Sample, api_session, closed_loop, create_template, timed
from harness.samples import one_page_template
from harness.usage import CpuTimes

use_repo()  # the server's named queries

from storage.postgres import numbered  # noqa: E402
from storage.queries import QUERIES_DIR, Queries, parse  # noqa: E402

REQUEST_TIMEOUT_SECONDS = 60
WARMUP_PER_CLIENT = 2
POSTGRES_POOL_SIZE = 10  # signsvc's (storage/postgres.py)
SUBMITTERS = [("a@example.com", {"Full Name": "Ann"}), ("b@example.com", {"Buyer": "Bob"})]


@dataclass
class Phase:
    target: str
    phase: str
    round: int
    latencies: list[float]
    failures: list[str]
    seconds: float
    own_cpu: float  # this process: the load generator or the ceiling's driver work
    server_cpu: float | None
    machine_cpu: float
    steal: float
    database_cpu: float | None  # every postgres process; None on SQLite (the database works in-process)

    @property
    def done(self) -> int:
        return len(self.latencies) - len(self.failures)

    @property
    def rate(self) -> float:
        return self.done / self.seconds

    def latency_ms(self, fraction: float) -> float:
        return report.percentile(sorted(self.latencies), fraction) * 1000


class Subject:
    """What a phase is run against: signsvc over HTTP, or the ceiling through the driver.
    `create(index)` makes one submission; `complete(signers)` completes its two signers."""

    created: list[Any]

    async def create(self, index: int) -> list[Sample]:
        raise NotImplementedError

    async def complete(self, submitters: Any) -> list[Sample]:
        raise NotImplementedError

    async def settle(self, completed: list[Any]) -> None:
        """Returns once the work that completing `completed` started in the background is done."""


async def run_phases(
    name: str, subject: Subject, server_pid: int | None, args: argparse.Namespace, round_number: int
) -> list[Phase]:
    """Warm-up (not counted), then the counted creation window, then completing what it created."""
    await closed_loop(args.clients, range(args.clients * WARMUP_PER_CLIENT), subject.create, float("inf"))
    warm, subject.created = subject.created, []
    await closed_loop(args.clients, warm, subject.complete, float("inf"))
    await subject.settle(warm)  # the warm-up's documents are produced before the counted window
    create = await measured(
        name,
        "create",
        server_pid,
        closed_loop(args.clients, itertools.count(), subject.create, time.perf_counter() + args.seconds),
        round_number,
    )
    complete = await measured(
        name,
        "complete",
        server_pid,
        closed_loop(args.clients, list(subject.created), subject.complete, time.perf_counter() + args.max_seconds),
        round_number,
    )
    report.progress(
        f"{name}: {create.done} created ({len(create.failures)} failed), {complete.done} signers "
        f"completed ({len(complete.failures)} failed)"
    )
    return [create, complete]


async def measured(
    name: str,
    phase: str,
    server_pid: int | None,
    batch: Awaitable[tuple[list[float], list[str], float]],
    round_number: int,
) -> Phase:
    before, postgres = CpuTimes.now(server_pid), usage.postgres_cpu()
    latencies, failures, seconds = await batch
    used = CpuTimes.now(server_pid) - before
    database = usage.postgres_cpu_since(postgres)
    return Phase(
        name,
        phase,
        round_number,
        latencies,
        failures,
        seconds,
        used.own,
        used.server if server_pid else None,
        used.machine,
        used.steal,
        database if name.startswith("postgres") else None,
    )


# ---------------------------------------------------------------------------------------------
# signsvc over HTTP


class Http(Subject):
    def __init__(self, session: aiohttp.ClientSession, base_url: str, template_id: int, send_email: bool) -> None:
        self.session, self.base_url = session, base_url
        self.template_id, self.send_email = template_id, send_email
        self.created: list[list[int]] = []

    async def call(self, method: str, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        try:
            async with self.session.request(method, f"{self.base_url}{path}", json=body or None) as response:
                return response.status, await response.json(content_type=None)
        except (TimeoutError, aiohttp.ClientError, ValueError) as exc:
            return 0, f"{type(exc).__name__}: {exc}"

    async def create(self, index: int) -> list[Sample]:
        body = {
            "template_id": self.template_id,
            "send_email": self.send_email,
            "submitters": [{"email": email} for email, _ in SUBMITTERS],
        }
        latency, (status, answer) = await timed(self.call("POST", "/api/submissions", body))
        if status == 200 and isinstance(answer, list) and len(answer) == len(SUBMITTERS):
            self.created.append([answer[0]["submission_id"]] + [submitter["id"] for submitter in answer])
            return [(latency, None)]
        return [(latency, f"POST /api/submissions: {status} {str(answer)[:200]}")]

    async def complete(self, created: list[int]) -> list[Sample]:
        samples = []
        for submitter_id, (_, values) in zip(created[1:], SUBMITTERS, strict=True):
            latency, (status, answer) = await timed(
                self.call("PUT", f"/api/submitters/{submitter_id}", {"completed": True, "values": values})
            )
            ok = status == 200 and isinstance(answer, dict) and answer.get("status") == "completed"
            samples.append((latency, None if ok else f"PUT /api/submitters: {status} {str(answer)[:200]}"))
        return samples

    async def settle(self, completed: list[list[int]]) -> None:
        """Polls until the server's job worker has produced every completed submission's documents, so that
        its PDF pool does not share the cores with the next counted window."""
        waiting, deadline = [created[0] for created in completed], time.monotonic() + REQUEST_TIMEOUT_SECONDS
        while waiting and time.monotonic() < deadline:
            answers = [await self.call("GET", f"/api/submissions/{submission}", {}) for submission in waiting]
            waiting = [
                s
                for s, (status, answer) in zip(waiting, answers, strict=True)
                if not (status == 200 and answer.get("combined_document_url"))
            ]
            await asyncio.sleep(0.2)
        if waiting:
            report.progress(
                f"{len(waiting)} warm-up submissions still without documents after {REQUEST_TIMEOUT_SECONDS} s"
            )


def template_body() -> dict[str, Any]:
    fields = [("Full Name", "First Party", 0.1), ("Buyer", "Second Party", 0.3)]
    return one_page_template("Bench NDA", "nda", fields, height=0.05)


async def bench_signsvc(name: str, server: servers.Server, args: argparse.Namespace, round_number: int) -> list[Phase]:
    async with api_session(connections=args.clients, timeout=REQUEST_TIMEOUT_SECONDS) as session:
        template_id = (await create_template(session, server.base_url, template_body()))["id"]
        await asyncio.sleep(1.0)  # the PDF pool, warmed after the ready line and used by the template, settles
        http = Http(session, server.base_url, template_id, not args.no_email)
        return await run_phases(name, http, server.pid, args, round_number)


# ---------------------------------------------------------------------------------------------
# The ceiling: the same writes through the raw driver


class Raw(Subject):
    """The writes of one creation and one completion, in one transaction each; the dialect's
    driver comes from a subclass (`transaction()` yields a `run(query_name, **params)`)."""

    def __init__(self, sample: dict[str, Any], send_email: bool) -> None:
        self.sample, self.send_email = sample, send_email
        self.created: list[tuple[int, list[int]]] = []

    def now(self) -> Any:
        raise NotImplementedError

    def transaction(self) -> contextlib.AbstractAsyncContextManager[Callable[..., Awaitable[list[Any]]]]:
        raise NotImplementedError

    async def create(self, index: int) -> list[Sample]:
        latency, created = await timed(self._create())
        self.created.append(created)
        return [(latency, None)]

    async def _create(self) -> tuple[int, list[int]]:
        s, now = self.sample, self.now()
        async with self.transaction() as run:
            await run("insert_blob", uuid=uuid.uuid4().hex, created_at=now, **s["blob"])
            submission = (
                await run(
                    "insert_submission",
                    slug=secrets.token_urlsafe(10),
                    envelope_id=str(uuid.uuid4()),
                    now=now,
                    **s["submission"],
                )
            )[0]["id"]
            submitters = []
            for submitter in s["signers"]:
                row = (
                    await run(
                        "insert_submitter",
                        submission_id=submission,
                        uuid=str(uuid.uuid4()),
                        slug=secrets.token_urlsafe(10),
                        field_values="{}",
                        now=now,
                        **submitter["insert"],
                    )
                )[0]
                await run("update_submitter", id=row["id"], now=now, **state(submitter, field_values="{}"))
                submitters.append(row["id"])
            await self._event(run, "submission.created", "submission", submission, now)
            if self.send_email:
                await self._invite(run, submission, submitters[0], s["signers"][0], now)
        return submission, submitters

    async def complete(self, created: tuple[int, list[int]]) -> list[Sample]:
        submission, submitters = created
        samples = []
        for position in range(len(submitters)):
            latency, failure = await timed(self._complete(submission, submitters, position))
            samples.append((latency, failure))
        return samples

    async def _complete(self, submission: int, submitters: list[int], position: int) -> str | None:
        submitter, now = self.sample["signers"][position], self.now()
        async with self.transaction() as run:
            values = submitter["values"]
            await run("update_submitter", id=submitters[position], now=now, **state(submitter, field_values=values))
            await run(
                "update_submitter",
                id=submitters[position],
                now=now,
                **state(submitter, field_values=values, completed_at=now),
            )
            await run(
                "insert_submission_event",
                submission_id=submission,
                submitter_id=submitters[position],
                event_type="api_complete_form",
                data="{}",
                now=now,
            )
            await self._event(run, "form.completed", "submitter", submitters[position], now)
            if position + 1 < len(submitters):
                if self.send_email:
                    await self._invite(
                        run, submission, submitters[position + 1], self.sample["signers"][position + 1], now
                    )
                return None
            if not await run("complete_submission", id=submission, now=now):
                return f"complete_submission {submission}: no row"
            await self._event(run, "submission.completed", "submission", submission, now)
            await run(
                "insert_job",
                kind="submissions.completed",
                payload=json.dumps({"submission_id": submission}),
                run_at=now,
                dedupe_key=f"submission-completed:{submission}",
                created_at=now,
            )
        return None

    async def _invite(
        self,
        run: Callable[..., Awaitable[Any]],
        submission: int,
        submitter_id: int,
        submitter: dict[str, Any],
        now: Any,
    ) -> None:
        address = submitter["insert"]["email"]  # lower case, no +tag: its own recipient (storage.emails.recipient)
        await run(
            "insert_email",
            submitter_id=submitter_id,
            to_address=address,
            recipient=address,
            created_at=now,
            sent_at=now,
            **self.sample["email"],
        )
        await run("update_submitter", id=submitter_id, now=now, **state(submitter, field_values="{}", invited_at=now))
        await run(
            "update_submitter",
            id=submitter_id,
            now=now,
            **state(submitter, field_values="{}", invited_at=now, sent_at=now),
        )
        await run(
            "insert_submission_event",
            submission_id=submission,
            submitter_id=submitter_id,
            event_type="send_email",
            data="{}",
            now=now,
        )

    async def _event(
        self, run: Callable[..., Awaitable[Any]], event_type: str, record_type: str, record_id: int, now: Any
    ) -> None:
        await run(
            "insert_event",
            uuid=str(uuid.uuid4()),
            account_id=self.sample["account_id"],
            event_type=event_type,
            record_type=record_type,
            record_id=record_id,
            created_at=now,
        )


def state(
    submitter: dict[str, Any],
    *,
    field_values: str,
    invited_at: Any = None,
    sent_at: Any = None,
    completed_at: Any = None,
) -> dict[str, Any]:
    """update_submitter's parameters: the signer's fixed columns and the state given."""
    return {
        **submitter["fixed"],
        "field_values": field_values,
        "ip": None,
        "ua": None,
        "decline_reason": None,
        "invited_at": invited_at,
        "sent_at": sent_at,
        "opened_at": None,
        "started_at": None,
        "completed_at": completed_at,
        "declined_at": None,
    }


SAMPLE_SQL = {
    "submission": "SELECT * FROM submissions WHERE completed_at IS NOT NULL ORDER BY id DESC LIMIT 1",
    "signers": "SELECT * FROM submitters WHERE submission_id = {id} ORDER BY position",
    "blob": "SELECT * FROM blobs WHERE id = {blob_id}",
    "email": "SELECT * FROM emails WHERE kind = 'invitation' ORDER BY id DESC LIMIT 1",
}


def sample_of(rows: dict[str, Any]) -> dict[str, Any]:
    """The parameters the ceiling writes, copied from rows the server wrote (JSON columns as text)."""
    sub = rows["submission"]
    columns = (
        "account_id",
        "template_id",
        "created_by_user_id",
        "name",
        "template_name",
        "source",
        "submitters_order",
        "send_email",
        "roles",
        "fields",
        "documents",
        "preferences",
        "variables",
        "expire_at",
    )
    fixed = ("name", "email", "phone", "external_id", "metadata", "preferences")
    email = rows["email"] or {}
    return {
        "account_id": sub["account_id"],
        "submission": {c: sub[c] for c in columns},
        "blob": {c: rows["blob"][c] for c in ("account_id", "sha256", "filename", "content_type", "byte_size")},
        "signers": [
            {
                "insert": {c: s[c] for c in ("account_id", "role_uuid", "role", "position", *fixed)},
                "fixed": {c: s[c] for c in fixed},
                "values": s["field_values"],
            }
            for s in rows["signers"]
        ],
        "email": {
            c: email.get(c)
            for c in (
                "account_id",
                "kind",
                "reply_to",
                "subject",
                "text_body",
                "html_body",
                "status",
                "attachments",
                "last_error",
            )
        },
    }


class SqliteRaw(Raw):
    QUERIES = Queries.load("sqlite")

    def __init__(self, conn: Any, sample: dict[str, Any], send_email: bool) -> None:
        super().__init__(sample, send_email)
        self.conn = conn
        self.lock = asyncio.Lock()  # one connection: transactions take turns, as in signsvc's driver

    @classmethod
    async def open(cls, path: str, send_email: bool) -> SqliteRaw:
        import sqlite3

        import aiosqlite

        conn = await aiosqlite.connect(path, isolation_level=None)
        conn.row_factory = sqlite3.Row
        for pragma in ("journal_mode = WAL", "synchronous = NORMAL", "foreign_keys = ON", "busy_timeout = 5000"):
            await conn.execute(f"PRAGMA {pragma}")
        rows = {"submission": dict((await conn.execute_fetchall(SAMPLE_SQL["submission"]))[0])}
        submitters = await conn.execute_fetchall(SAMPLE_SQL["signers"].format(**rows["submission"]))
        rows["signers"] = [dict(r) for r in submitters]
        blob_id = json.loads(rows["submission"]["documents"])[0]["blob_id"]
        rows["blob"] = dict((await conn.execute_fetchall(SAMPLE_SQL["blob"].format(blob_id=blob_id)))[0])
        rows["email"] = next((dict(r) for r in await conn.execute_fetchall(SAMPLE_SQL["email"])), None)
        return cls(conn, sample_of(rows), send_email)

    def now(self) -> str:
        return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[Callable[..., Awaitable[list[Any]]]]:
        async with self.lock:
            await self.conn.execute_fetchall("BEGIN IMMEDIATE")
            try:
                yield self.run
            except BaseException:
                await self.conn.execute_fetchall("ROLLBACK")
                raise
            await self.conn.execute_fetchall("COMMIT")

    async def run(self, query: str, **params: Any) -> list[Any]:
        return await self.conn.execute_fetchall(self.QUERIES[query], params)

    async def close(self) -> None:
        await self.conn.close()


async def _no_reset(conn: Any) -> None:
    """As signsvc's pool: no reset query when a connection goes back."""


class PostgresRaw(Raw):
    QUERIES: ClassVar[dict[str, tuple[str, tuple[str, ...]]]] = {
        **{name: numbered(sql) for name, sql in Queries.load("postgres").items()},
        # Without the notification Postgres' own makes (the module's docstring says why).
        "insert_job": numbered(parse((QUERIES_DIR / "jobs.sql").read_text())["insert_job"]),
    }

    def __init__(self, pool: Any, sample: dict[str, Any], send_email: bool) -> None:
        super().__init__(sample, send_email)
        self.pool = pool

    @classmethod
    async def open(cls, url: str, send_email: bool) -> PostgresRaw:
        import asyncpg

        pool = await asyncpg.create_pool(url, min_size=1, max_size=POSTGRES_POOL_SIZE, reset=_no_reset)
        async with pool.acquire() as conn:  # no jsonb codec: JSON columns come and go as text
            rows = {"submission": dict(await conn.fetchrow(SAMPLE_SQL["submission"]))}
            rows["signers"] = [dict(r) for r in await conn.fetch(SAMPLE_SQL["signers"].format(**rows["submission"]))]
            blob_id = json.loads(rows["submission"]["documents"])[0]["blob_id"]
            rows["blob"] = dict(await conn.fetchrow(SAMPLE_SQL["blob"].format(blob_id=blob_id)))
            email = await conn.fetchrow(SAMPLE_SQL["email"])
            rows["email"] = dict(email) if email else None
        return cls(pool, sample_of(rows), send_email)

    def now(self) -> datetime:
        return datetime.now(UTC)

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[Callable[..., Awaitable[list[Any]]]]:
        async with self.pool.acquire() as conn, conn.transaction():

            async def run(query: str, **params: Any) -> list[Any]:
                sql, names = self.QUERIES[query]
                return await conn.fetch(sql, *(params[name] for name in names))

            yield run

    async def close(self) -> None:
        await self.pool.close()


async def bench_ceiling(name: str, opened: Awaitable[Raw], args: argparse.Namespace, round_number: int) -> list[Phase]:
    raw = await opened
    try:
        return await run_phases(name, raw, None, args, round_number)
    finally:
        await raw.close()


# ---------------------------------------------------------------------------------------------
# Targets


def run_database(kind: str, args: argparse.Namespace, round_number: int) -> list[Phase]:
    """signsvc on a fresh database, then, once it has stopped, the ceiling on the same database."""
    with servers.temp_dir() as workdir, databases.fresh_database(kind, workdir, "bench_submissions") as url:
        with servers.running(f"{kind} signsvc", servers.signsvc_argv(), servers.signsvc_env(url), workdir) as server:
            phases = asyncio.run(bench_signsvc(f"{kind} signsvc", server, args, round_number))
        raw = (
            SqliteRaw.open(url.removeprefix("sqlite:///"), not args.no_email)
            if kind == "sqlite"
            else PostgresRaw.open(url, not args.no_email)
        )
        return asyncio.run(bench_ceiling(f"{kind} ceiling", raw, args, round_number)) + phases


# ---------------------------------------------------------------------------------------------
# Report


def print_report(phases: list[Phase], rounds: int) -> None:
    rows = []
    for phase in ("create", "complete"):
        for p in (p for p in phases if p.phase == phase):
            ceiling = ceiling_of(phases, p)
            shown = f"{p.target}, {phase}" + (f", round {p.round}" if rounds > 1 else "")
            rows.append(
                [
                    shown,
                    str(p.done),
                    str(len(p.failures)),
                    f"{p.rate:.0f}",
                    f"{p.latency_ms(0.50):.1f}",
                    f"{p.latency_ms(0.99):.1f}",
                    report.ratio(p.rate, ceiling.rate),
                    *(
                        report.percent(cpu, p.seconds)
                        for cpu in (p.own_cpu, p.server_cpu, p.database_cpu, p.machine_cpu, p.steal)
                    ),
                    per_op(p.own_cpu if p.server_cpu is None else p.server_cpu, p),
                    per_op(p.database_cpu, p),
                ]
            )
    report.print_table(
        [
            "target, phase",
            "ops",
            "failed",
            "ops/s",
            "p50 ms",
            "p99 ms",
            "vs ceiling",
            "this process",
            "server",
            "postgres",
            "machine",
            "steal",
            "CPU ms/op",
            "postgres ms/op",
        ],
        rows,
    )
    print(
        "\nops: create = one submission with two signers (one request, or one transaction); complete = one signer\n"
        "(one request, or one transaction). ops/s: done / wall time of the phase. CPU columns: percent of one core\n"
        "over the phase; this process = the load generator (signsvc rows) or the driver work (ceiling rows);\n"
        "postgres = every postgres process on the machine; machine = all cores, everything running included.\n"
        "CPU ms/op: the server process's CPU (signsvc rows) or this process's (ceiling rows) per operation;\n"
        "on SQLite it includes the database's work, on Postgres that is the last column."
    )
    for p in phases:
        report.print_counted("failure", f"{p.target}, {p.phase}", p.failures)
    if rounds > 1:
        print_medians(phases)


def ceiling_of(phases: list[Phase], p: Phase) -> Phase:
    """The ceiling measured on the same database in the same round."""
    kind = p.target.split()[0]
    return next(c for c in phases if c.target == f"{kind} ceiling" and (c.phase, c.round) == (p.phase, p.round))


def print_medians(phases: list[Phase]) -> None:
    rows, rounds = [], max(p.round for p in phases)
    for phase in ("create", "complete"):
        for kind in dict.fromkeys(p.target.split()[0] for p in phases):
            ratios = sorted(
                p.rate / max(ceiling_of(phases, p).rate, 1e-9)
                for p in phases
                if p.target == f"{kind} signsvc" and p.phase == phase
            )
            rows.append([f"{kind}, {phase}", f"{report.median(ratios):.2f}x", f"{ratios[0]:.2f}-{ratios[-1]:.2f}"])
    print()
    report.print_table(["signsvc vs ceiling", "median", f"range ({rounds} rounds)"], rows)


def per_op(cpu: float | None, p: Phase) -> str:
    return "-" if cpu is None else f"{1000 * cpu / max(p.done, 1):.2f}"


def main() -> int:
    parser = arguments(__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="counted creation window per target (default 3)")
    parser.add_argument("--clients", type=int, default=16, help="concurrent clients (default 16)")
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=120.0,
        help="no new completion after this many seconds of the completion phase (default 120)",
    )
    parser.add_argument("--no-email", action="store_true", help='create with "send_email": false (no invitations)')
    parser.add_argument("--rounds", type=int, default=1, help="rounds over the databases, in turns (default 1)")
    parser.add_argument("--skip-postgres", action="store_true", help="leave out Postgres")
    args = parser.parse_args()
    if args.clients < 1 or args.seconds <= 0 or args.rounds < 1:
        parser.error("--clients and --rounds must be at least 1 and --seconds positive")
    if not args.skip_postgres:
        databases.require_postgres(parser)
    print(
        f"Submissions with two signers, {args.clients} concurrent clients, {args.seconds:g} s of creations per "
        f"target, then their completions; invitations {'off' if args.no_email else 'on (kept in the outbox)'}; "
        f"{report.machine_line()}.\n",
        flush=True,
    )
    started = time.perf_counter()
    phases = [
        phase
        for round_number in range(1, args.rounds + 1)
        for kind in databases.kinds(args.skip_postgres)
        for phase in run_database(kind, args, round_number)
    ]
    print_report(phases, args.rounds)
    print(f"\nTotal {time.perf_counter() - started:.0f} s.")
    return 1 if any(p.failures for p in phases) else 0


if __name__ == "__main__":
    sys.exit(main())
