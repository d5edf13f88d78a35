"""Webhook deliveries: throughput and delay from commit to receipt, and a backlog drained with flat memory.

For each backend (a fresh SQLite file, a fresh Postgres schema), one `python run.py --port 0`
server with limits lifted and the access log silenced, and a receiver in this process (an aiohttp
server on 127.0.0.1 answering 200 "ok" at once) with two endpoints: `/a` (SIGNSVC_WEBHOOK_URL,
every event type) and `/b` (template.created and template.updated, added through the API).

paced    one template is created, then `--paced` `PUT /api/templates/{id}` calls are made one
         after another at `--rate` a second: events the deliveries keep up with. The delay of a
         delivery is its receipt time here minus the event's `timestamp` (taken in the transaction
         that records it, just before the commit; millisecond precision): p50, p99, max.
burst    `--events` more PUTs as fast as `--clients` concurrent clients make them: deliveries/s is
         all deliveries over the time from the first event to the last receipt, so it is bounded by
         how fast the API makes events too (that rate is printed beside it); when events come
         faster than they are delivered the delays are time spent in the queue.
backlog  the server is stopped (SIGTERM). This process then records `--backlog` template.updated
         events with the service's own outbox code (`events.record`, which writes each event with
         its two deliveries and their jobs), in transactions of 1,000, as if they had piled up
         while deliveries could not go out. The server is started again and drains them: the time
         from its spawn to the last receipt, deliveries/s over that time and (sent/s) from the
         first receipt to the last (the server's start left out), server CPU per delivery, and
         the server's resident memory sampled every 0.5 s (first sample, peak, last).

Every delivery must arrive, once per endpoint (a repeat is counted and printed). The receiver, the
load generator and the server share the machine's cores with Postgres.

    python bench/webhooks.py [--paced 500] [--rate 20] [--events 10000] [--clients 8] [--backlog 100000]
                             [--skip-postgres]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import time
from datetime import datetime
from pathlib import Path

import aiohttp
from aiohttp import web
from harness import arguments, client, databases, report, servers, use_repo
from harness.samples import b64, one_page_pdf
from harness.usage import cpu_seconds, resident_mb

BATCH = 1000


class Receiver:
    """Records when each (path, event id) arrived and the event's own timestamp."""

    def __init__(self) -> None:
        self.arrivals: dict[tuple[str, str], tuple[float, float]] = {}
        self.repeats = 0
        self.expected = 0
        self.done = asyncio.Event()
        self.base = ""
        self._runner: web.AppRunner | None = None

    def expect(self, count: int) -> None:
        self.arrivals, self.repeats, self.expected = {}, 0, count
        self.done.clear()

    async def handle(self, request: web.Request) -> web.Response:
        received = time.time()
        body = await request.json()
        key = (request.path, body["event_id"])
        if key in self.arrivals:
            self.repeats += 1
        else:
            self.arrivals[key] = (received, datetime.fromisoformat(body["timestamp"]).timestamp())
            if len(self.arrivals) >= self.expected:
                self.done.set()
        return web.Response(text="ok")

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/{path}", self.handle)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        self.base = f"http://127.0.0.1:{self._runner.addresses[0][1]}"

    async def stop(self) -> None:
        await self._runner.cleanup()


async def start_server(database_url: str, workdir: Path, receiver: Receiver) -> servers.Server:
    env = servers.signsvc_env(
        database_url, SIGNSVC_WEBHOOK_URL=f"{receiver.base}/a", SIGNSVC_DATA_DIR=str(workdir / "data")
    )
    # In a thread: the receiver must answer while the server starts (a backlog drains at once).
    return await asyncio.to_thread(servers.spawn, servers.signsvc_argv(), env, workdir)


async def create_template(session: aiohttp.ClientSession, base_url: str, receiver: Receiver) -> int:
    """Endpoint `/b` added through the API, then the template whose updates make the events."""
    endpoint = {"url": f"{receiver.base}/b", "events": ["template.created", "template.updated"]}
    async with session.post(f"{base_url}/api/webhooks", json=endpoint) as r:
        assert r.status == 200, await r.text()
    body = {"name": "NDA", "documents": [{"name": "nda.pdf", "file": b64(one_page_pdf())}]}
    return (await client.create_template(session, base_url, body))["id"]


async def paced(
    session: aiohttp.ClientSession, api: str, receiver: Receiver, template_id: int, count: int, rate: float
) -> dict[str, float]:
    receiver.expect(2 * count)
    started = time.perf_counter()
    for n in range(count):
        await asyncio.sleep(max(0.0, started + n / rate - time.perf_counter()))
        async with session.put(f"{api}/templates/{template_id}", json={"name": f"p{n}"}) as reply:
            assert reply.status == 200, await reply.text()
    await asyncio.wait_for(receiver.done.wait(), 600)
    return figures(receiver, count / (time.perf_counter() - started))


async def burst(
    session: aiohttp.ClientSession, api: str, receiver: Receiver, template_id: int, count: int, clients: int
) -> dict[str, float]:
    receiver.expect(2 * count)
    queue, started = iter(range(count)), time.time()

    async def api_client() -> None:
        for n in queue:
            async with session.put(f"{api}/templates/{template_id}", json={"name": f"v{n}"}) as reply:
                assert reply.status == 200, await reply.text()

    await asyncio.gather(*(api_client() for _ in range(clients)))
    made = count / (time.time() - started)
    await asyncio.wait_for(receiver.done.wait(), 1800)
    return figures(receiver, made)


def figures(receiver: Receiver, made: float) -> dict[str, float]:
    delays = sorted((got - stamped) * 1000 for got, stamped in receiver.arrivals.values())
    first_event = min(stamped for _, stamped in receiver.arrivals.values())
    last_receipt = max(got for got, _ in receiver.arrivals.values())
    return {
        "events/s made": made,
        "deliveries/s": len(delays) / (last_receipt - first_event),
        "p50 ms": report.percentile(delays, 0.50),
        "p99 ms": report.percentile(delays, 0.99),
        "max ms": delays[-1],
        "repeats": receiver.repeats,
    }


async def pile_up(database_url: str, template_id: int, count: int) -> float:
    """Records `count` events with the outbox code while no server runs; answers the seconds it took."""
    use_repo()
    from signsvc.infra.clock import SystemClock
    from signsvc.webhooks import events
    from storage import open_database

    db, clock, started = await open_database(database_url), SystemClock(), time.perf_counter()
    try:
        for first in range(0, count, BATCH):
            async with db.transaction() as tx:
                for _ in range(min(BATCH, count - first)):
                    await events.record(
                        tx,
                        clock,
                        account_id=1,
                        event_type="template.updated",
                        record_type="template",
                        record_id=template_id,
                    )
    finally:
        await db.close()
    return time.perf_counter() - started


async def backlog(
    database_url: str, workdir: Path, receiver: Receiver, template_id: int, count: int
) -> dict[str, float]:
    recorded = await pile_up(database_url, template_id, count)
    receiver.expect(2 * count)
    spawned = time.time()
    server = await start_server(database_url, workdir, receiver)
    rss, cpu_before = [], cpu_seconds(server.pid)
    try:
        while not receiver.done.is_set():
            rss.append(resident_mb(server.pid))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(receiver.done.wait(), 0.5)
        cpu = cpu_seconds(server.pid) - cpu_before
        rss.append(resident_mb(server.pid))
    finally:
        notes = await asyncio.to_thread(servers.stop, server)
    receipts = [got for got, _ in receiver.arrivals.values()]
    drain, sending = max(receipts) - spawned, max(receipts) - min(receipts)
    return {
        "recorded/s": count / recorded,
        "drain s": drain,
        "deliveries/s": 2 * count / drain,
        "sent/s": 2 * count / sending,
        "CPU ms/delivery": cpu * 1000 / (2 * count),
        "RSS first MB": rss[0],
        "RSS peak MB": max(rss),
        "RSS last MB": rss[-1],
        "repeats": receiver.repeats,
        "notes": notes,
    }


async def run_target(name: str, database_url: str, workdir: Path, args: argparse.Namespace) -> dict[str, dict]:
    receiver = Receiver()
    await receiver.start()
    results: dict[str, dict] = {}
    try:
        server = await start_server(database_url, workdir, receiver)
        try:
            api = server.base_url + "/api"
            async with client.api_session(connections=args.clients) as session:
                template_id = await create_template(session, server.base_url, receiver)
                results["paced"] = await paced(session, api, receiver, template_id, args.paced, args.rate)
                results["burst"] = await burst(session, api, receiver, template_id, args.events, args.clients)
        finally:
            results.setdefault("burst", {})["notes"] = await asyncio.to_thread(servers.stop, server)
        if args.backlog:
            results["backlog"] = await backlog(database_url, workdir, receiver, template_id, args.backlog)
    finally:
        await receiver.stop()
    report.progress(f"{name}: done")
    return results


def main() -> int:
    parser = arguments(__doc__)
    parser.add_argument("--paced", type=int, default=500, help="paced events (default 500)")
    parser.add_argument("--rate", type=float, default=20.0, help="paced events a second (default 20)")
    parser.add_argument("--events", type=int, default=10_000, help="events in the burst (default 10,000)")
    parser.add_argument("--clients", type=int, default=8, help="concurrent API clients making them (default 8)")
    parser.add_argument("--backlog", type=int, default=100_000, help="events piled up, 0 to skip (default 100,000)")
    parser.add_argument("--skip-postgres", action="store_true", help="leave out the Postgres target")
    args = parser.parse_args()
    if not args.skip_postgres:
        databases.require_postgres(parser)
    results = {}
    for kind, name in zip(databases.kinds(args.skip_postgres), ("SQLite", "Postgres"), strict=False):
        with servers.temp_dir() as workdir, databases.fresh_database(kind, workdir, "bench_webhooks") as url:
            results[name] = asyncio.run(run_target(name, url, workdir, args))
    print_report(results, args)
    return 0


def print_report(results: dict[str, dict], args: argparse.Namespace) -> None:
    keys = ("events/s made", "deliveries/s", "p50 ms", "p99 ms", "max ms", "repeats")
    for phase, title in (
        ("paced", f"paced: {args.paced:,} events at {args.rate:g}/s x 2 endpoints"),
        ("burst", f"burst: {args.events:,} events x 2 endpoints, {args.clients} API clients"),
    ):
        print(f"\n{title}")
        report.print_table(
            ["backend", *keys], [[name, *(f"{r[phase][k]:.1f}" for k in keys)] for name, r in results.items()]
        )
    if args.backlog:
        print(f"\nbacklog: {args.backlog:,} events x 2 endpoints, drained after a start")
        keys = (
            "recorded/s",
            "drain s",
            "deliveries/s",
            "sent/s",
            "CPU ms/delivery",
            "RSS first MB",
            "RSS peak MB",
            "RSS last MB",
            "repeats",
        )
        report.print_table(
            ["backend", *keys],
            [[name, *(f"{r['backlog'][k]:.{2 if 'CPU' in k else 1}f}" for k in keys)] for name, r in results.items()],
        )
    for name, r in results.items():
        for phase, figures_of_phase in r.items():
            servers.print_notes(f"{name}, {phase}", figures_of_phase.get("notes", []))


if __name__ == "__main__":
    sys.exit(main())
