"""Reminders falling due for 10,000 signers at once: the p99 of `GET /api/user` while they are sent, next to the
same p99 with none due. Target: p99 under 50 ms.

Per database (a fresh SQLite file, then a fresh Postgres schema), one `python run.py --port 0` server with the
limits lifted, a fixed key, the access log silenced and no SMTP server (each email is kept in the outbox):

1. signers: a one-page template, then --signers submissions of one signer each, made by `POST
   /api/submissions/emails` with --chunk addresses a request and `"reminders": {"first_duration": "one_hour"}`.
   Each invitation is kept in the outbox and counts as sent at once, which queues the signer's reminder job,
   due an hour later.
2. idle: wrk (`-c --connections`, --seconds) on `GET /api/user`; no reminder is due.
3. due: this process sets every reminder job's `run_at` to its `created_at` (in the past: all due at once, as
   when a burst of invitations went out an hour earlier) straight in the database, and on Postgres notifies the
   jobs channel (SQLite's worker finds them at its next poll, within 5 s). Once the first reminder is sent, the
   same wrk run; the reminders still waiting are counted after it, so the window is known to have been under load
   throughout ("left after" above 0). Then the wait for the rest: reminders/s over the whole sending.

Every reminder must be sent once: the `send_reminder_email` events are counted at the end.

    python bench/reminders.py [--signers 10000] [--chunk 500] [--seconds 10] [--connections 4] [--skip-postgres]
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import time
from pathlib import Path
from typing import Any

from harness import arguments, client, databases, probe, report, servers, wrk
from harness.samples import one_page_template

JOB = "reminders.send"
SCHEDULE = {"first_duration": "one_hour"}


class Queue:
    """The server's jobs table, read and changed from this process (the reminders' `run_at`, how many are left)."""

    def __init__(self, url: str) -> None:
        self.url = url

    async def make_due(self) -> None:
        await self._run(f"UPDATE jobs SET run_at = created_at WHERE kind = '{JOB}'", notify=True)

    async def left(self) -> int:
        return int(await self._run(f"SELECT count(*) FROM jobs WHERE kind = '{JOB}'"))

    async def reminders_sent(self) -> int:
        query = "SELECT count(*) FROM submission_events WHERE event_type = 'send_reminder_email'"
        return int(await self._run(query))

    async def _run(self, sql: str, *, notify: bool = False) -> Any:
        if self.url.startswith("sqlite:///"):
            return await asyncio.to_thread(_sqlite, Path(self.url.removeprefix("sqlite:///")), sql)
        import asyncpg

        base, _, schema = self.url.partition("?search_path=")
        conn = await asyncpg.connect(base, server_settings={"search_path": schema}, timeout=5)
        try:
            found = await conn.fetchval(sql) if sql.startswith("SELECT") else await conn.execute(sql)
            if notify:
                await conn.execute("NOTIFY signsvc_jobs")
            return found
        finally:
            await conn.close()


def _sqlite(path: Path, sql: str) -> Any:
    conn = sqlite3.connect(path, timeout=30)
    try:
        with conn:
            row = conn.execute(sql).fetchone()
        return row[0] if row else None
    finally:
        conn.close()


async def make_signers(base_url: str, count: int, chunk: int) -> None:
    async with client.api_session(connections=2, timeout=600) as session:
        body = one_page_template("Bench NDA", "nda", [("Full Name", "Signer", 0.1)], height=0.05)
        template_id = (await client.create_template(session, base_url, body))["id"]
        for start in range(0, count, chunk):
            emails = ", ".join(f"signer{n}@example.com" for n in range(start, min(start + chunk, count)))
            request = {"template_id": template_id, "emails": emails, "reminders": SCHEDULE}
            async with session.post(f"{base_url}/api/submissions/emails", json=request) as response:
                if response.status != 200:
                    raise RuntimeError(f"POST /api/submissions/emails answered {response.status}")
            report.progress(f"  signers: {min(start + chunk, count)} of {count}")


def latency_row(label: str, run: wrk.Run, extra: list[str]) -> list[str]:
    out = run.output
    p99 = out.latency_ms[99]
    failed = ", ".join(f"{k} {n}" for k, n in out.errors.items())
    verdict = "FAILED: " + failed if failed else ("yes" if p99 < probe.LIMIT_MS else "NO")
    return [label, str(out.requests), f"{out.latency_ms[50]:.1f}", f"{p99:.1f}", *extra, verdict]


def measure(base_url: str, args: argparse.Namespace) -> wrk.Run:
    return wrk.run(
        f"{base_url}/api/user",
        seconds=args.seconds,
        connections=args.connections,
        headers={"X-Auth-Token": servers.BENCH_KEY},
    )


async def until(condition: Any, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not await condition():
        if time.monotonic() > deadline:
            raise RuntimeError("timed out")
        await asyncio.sleep(0.2)


def bench(kind: str, args: argparse.Namespace) -> list[list[str]]:
    with (
        servers.temp_dir() as workdir,
        databases.fresh_database(kind, workdir, "bench_reminders") as url,
        servers.running(kind, servers.signsvc_argv(), servers.signsvc_env(url), workdir) as server,
    ):
        queue = Queue(url)
        asyncio.run(make_signers(server.base_url, args.signers, args.chunk))
        asyncio.run(until(lambda: _equal(queue.left(), args.signers), 60))
        servers.settle(server)
        idle = measure(server.base_url, args)
        asyncio.run(queue.make_due())
        started = time.perf_counter()
        asyncio.run(until(lambda: _below(queue.left(), args.signers), 120))
        busy = measure(server.base_url, args)
        left_after = asyncio.run(queue.left())
        asyncio.run(until(lambda: _equal(queue.left(), 0), 1200))
        sending = time.perf_counter() - started
        sent = asyncio.run(queue.reminders_sent())
    rate = f"{sent / sending:.0f}/s"
    return [
        latency_row(f"{kind}: none due", idle, ["-", "-", "-"]),
        latency_row(f"{kind}: {args.signers:,} due", busy, [str(left_after), f"{sent:,}", rate]),
    ]


async def _equal(value: Any, expected: int) -> bool:
    return await value == expected


async def _below(value: Any, limit: int) -> bool:
    return await value < limit


def main() -> None:
    parser = arguments(__doc__ or "")
    parser.add_argument("--signers", type=int, default=10_000)
    parser.add_argument("--chunk", type=int, default=500)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--skip-postgres", action="store_true")
    args = parser.parse_args()
    if problem := wrk.missing():
        parser.error(problem)
    if not args.skip_postgres:
        databases.require_postgres(parser)
    headers = ["GET /api/user (wrk)", "requests", "p50 ms", "p99 ms", "left after", "reminders sent", "sent/s"]
    for kind in databases.kinds(args.skip_postgres):
        rows = bench(kind, args)
        print(report.machine_line())
        report.print_table([*headers, f"p99 < {probe.LIMIT_MS:.0f} ms"], rows)


if __name__ == "__main__":
    main()
