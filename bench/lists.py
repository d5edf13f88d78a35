"""The list endpoints under load: `GET /api/submitters?limit=100` and `GET /api/submissions?limit=100`, next to
the same response bytes served by a bare aiohttp handler in the same run.

Per database (a fresh SQLite file, then a fresh Postgres schema, dropped afterwards):
  - signsvc: `python run.py --port 0`, limits lifted, fixed live key, SIGNSVC_LOG_LEVEL=WARNING, no SMTP
    server (invitations are kept in the outbox). A template (a one-page PDF, three text fields for "First
    Party" and two for "Second Party") and SUBMISSIONS submissions of two signers each, with the values a
    real sender gives: names, addresses, external ids, metadata, prefilled values; every other submission has
    its first signer completed (their values, a completion time, the second signer invited). Then the
    server's processes are left to settle (its PDF pool fills the completed signers' documents), and each
    list is asked for once: it must answer 200 with 100 items; its bytes are kept.
  - the ceiling: a bare aiohttp process answering both paths with those bytes (the same body, as
    application/json), nothing else: the cost of HTTP alone for the same response.
Load: wrk (`bench/harness/wrk.py`), --connections keep-alive connections from one thread, the key as a header,
a --warmup run (not counted), then a --seconds run (counted); any socket error or status of 400 and above
fails the target (shown as FAILED, never with a figure). Printed per database and endpoint: the body size,
requests/s, p50/p99 latency, the ratio to the ceiling (target: at least 0.25), and the server's CPU per
request (signsvc's process; Postgres's own work not included). Client, server and Postgres share the cores.

    python bench/lists.py [--seconds 5] [--warmup 1] [--connections 16] [--skip-postgres]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
from harness import arguments, databases, report, servers, wrk
from harness.client import api_session, create_template
from harness.samples import one_page_template
from harness.usage import cpu_seconds

SUBMISSIONS = 100
PATHS = ("/api/submitters?limit=100", "/api/submissions?limit=100")
REQUEST_TIMEOUT_SECONDS = 60
BARE_LISTS = """
import asyncio, json, sys
from aiohttp import web

BODIES = {path.split("?")[0]: open(file, "rb").read() for path, file in json.loads(sys.argv[1]).items()}

def answer(body):
    async def handler(request):
        return web.Response(body=body, content_type="application/json")
    return handler

async def main():
    app = web.Application()
    for path, body in BODIES.items():
        app.router.add_get(path, answer(body))
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    print(f"bare ready: http://127.0.0.1:{runner.addresses[0][1]}", flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
"""
FIRST_NAMES = ["Ann", "Bob", "Chloé", "Dmitri", "Eun-ji", "Farid", "Grace", "Hiroshi", "Inès", "José"]
LAST_NAMES = ["Andersen", "Baker", "Castillo", "Dubois", "Eriksson", "Fujita", "García", "Hoffmann"]


@dataclass
class Figures:
    requests_per_second: float
    p50_ms: float
    p99_ms: float
    errors: dict[str, int]
    cpu_ms_per_request: float


def template_body() -> dict[str, Any]:
    fields = [
        ("Full Name", "First Party", 0.1),
        ("Company", "First Party", 0.2),
        ("Title", "First Party", 0.3),
        ("Buyer", "Second Party", 0.5),
        ("Address", "Second Party", 0.6),
    ]
    return one_page_template("Bench services agreement", "agreement", fields, height=0.04)


def person(n: int) -> tuple[str, str]:
    first, last = FIRST_NAMES[n % len(FIRST_NAMES)], LAST_NAMES[n % len(LAST_NAMES)]
    return f"{first} {last}", f"{first.lower().replace('é', 'e').replace('è', 'e')}.{last.lower()}{n}@example.com"


def submission_body(template_id: int, n: int) -> dict[str, Any]:
    (first_name, first_email), (second_name, second_email) = person(2 * n), person(2 * n + 1)
    return {
        "template_id": template_id,
        "submitters": [
            {
                "role": "First Party",
                "name": first_name,
                "email": first_email,
                "external_id": f"crm-{n:05}-a",
                "metadata": {"account": f"ACME-{n:04}", "region": "EMEA"},
                "values": {"Full Name": first_name, "Company": f"Acme Holdings {n}"},
            },
            {
                "role": "Second Party",
                "name": second_name,
                "email": second_email,
                "external_id": f"crm-{n:05}-b",
                "metadata": {"account": f"GLOBEX-{n:04}"},
                "values": {"Buyer": second_name},
            },
        ],
    }


async def seed(base_url: str) -> None:
    """The template and SUBMISSIONS submissions; the first signer of every other one completed."""
    async with api_session(connections=8, timeout=REQUEST_TIMEOUT_SECONDS) as session:
        template_id = (await create_template(session, base_url, template_body()))["id"]
        created = await asyncio.gather(
            *(
                _post(session, f"{base_url}/api/submissions", submission_body(template_id, n))
                for n in range(SUBMISSIONS)
            )
        )
        firsts = [signers[0]["id"] for signers in created[::2]]
        await asyncio.gather(
            *(
                _put(
                    session,
                    f"{base_url}/api/submitters/{submitter}",
                    {"completed": True, "values": {"Title": "Director of Operations"}},
                )
                for submitter in firsts
            )
        )


async def _post(session: aiohttp.ClientSession, url: str, body: dict[str, Any]) -> Any:
    async with session.post(url, json=body) as response:
        answer = await response.json(content_type=None)
        if response.status != 200:
            raise RuntimeError(f"POST {url} answered {response.status}: {str(answer)[:300]}")
        return answer


async def _put(session: aiohttp.ClientSession, url: str, body: dict[str, Any]) -> None:
    async with session.put(url, json=body) as response:
        if response.status != 200:
            raise RuntimeError(f"PUT {url} answered {response.status}: {(await response.text())[:300]}")


async def bodies(base_url: str) -> dict[str, bytes]:
    """Each list's answer, which must be 200 with SUBMISSIONS items."""
    found = {}
    async with api_session(connections=1, timeout=REQUEST_TIMEOUT_SECONDS) as session:
        for path in PATHS:
            async with session.get(base_url + path) as response:
                body = await response.read()
            items = json.loads(body).get("data", []) if response.status == 200 else []
            if response.status != 200 or len(items) != SUBMISSIONS:
                raise RuntimeError(f"GET {path} answered {response.status} with {len(items)} items")
            found[path] = body
    return found


def load(base_url: str, pid: int, args: argparse.Namespace) -> dict[str, Figures]:
    options = {
        "connections": args.connections,
        "headers": {"X-Auth-Token": servers.BENCH_KEY},
        "timeout_seconds": REQUEST_TIMEOUT_SECONDS,
    }
    figures = {}
    for path in PATHS:
        errors = {}
        if args.warmup:
            errors = {
                f"warm-up {k}": n
                for k, n in wrk.run(base_url + path, seconds=args.warmup, **options).output.errors.items()
            }
        before = cpu_seconds(pid)
        out = wrk.run(base_url + path, seconds=args.seconds, **options).output
        cpu = cpu_seconds(pid) - before
        figures[path] = Figures(
            out.requests_per_second,
            out.latency_ms[50],
            out.latency_ms[99],
            {**errors, **out.errors},
            1000 * cpu / max(out.requests, 1),
        )
    return figures


def bench_database(
    kind: str, args: argparse.Namespace
) -> tuple[dict[str, Figures], dict[str, Figures], dict[str, bytes]]:
    """signsvc on a fresh database of `kind`, then the bare ceiling serving the bytes signsvc answered."""
    with servers.signsvc_on(kind, "bench_lists", f"signsvc {kind}") as server:
        report.progress(f"{kind}: seeding {SUBMISSIONS} submissions")
        asyncio.run(seed(server.base_url))
        servers.settle(server)
        answered = asyncio.run(bodies(server.base_url))
        report.progress(f"{kind}: measuring signsvc")
        signsvc = load(server.base_url, server.pid, args)
    report.progress(f"{kind}: measuring the bare ceiling")
    with servers.temp_dir() as workdir:
        files = {}
        for n, (path, body) in enumerate(answered.items()):
            files[path] = str(Path(workdir) / f"list-{n}.json")
            Path(files[path]).write_bytes(body)
        with servers.running(
            f"bare {kind}", [sys.executable, "-c", BARE_LISTS, json.dumps(files)], servers.server_env(None), workdir
        ) as bare:
            ceiling = load(bare.base_url, bare.pid, args)
    return signsvc, ceiling, answered


def print_report(results: dict[str, tuple[dict[str, Figures], dict[str, Figures], dict[str, bytes]]]) -> None:
    rows = []
    for kind, (signsvc, ceiling, answered) in results.items():
        for path in PATHS:
            for name, figures in (("bare aiohttp", ceiling[path]), (f"signsvc {kind}", signsvc[path])):
                failed = bool(figures.errors) or bool(ceiling[path].errors)
                ratio = "-" if failed else report.ratio(figures.requests_per_second, ceiling[path].requests_per_second)
                if figures.errors:
                    rows.append(
                        [
                            kind,
                            path,
                            name,
                            f"{len(answered[path]) / 1024:.1f}",
                            "FAILED",
                            "-",
                            "-",
                            "-",
                            "-",
                            ", ".join(f"{what} {n}" for what, n in figures.errors.items()),
                        ]
                    )
                    continue
                rows.append(
                    [
                        kind,
                        path,
                        name,
                        f"{len(answered[path]) / 1024:.1f}",
                        f"{figures.requests_per_second:.0f}",
                        f"{figures.p50_ms:.1f}",
                        f"{figures.p99_ms:.1f}",
                        ratio,
                        f"{figures.cpu_ms_per_request:.3f}",
                        "0",
                    ]
                )
    report.print_table(
        [
            "database",
            "endpoint",
            "target",
            "body KB",
            "req/s",
            "p50 ms",
            "p99 ms",
            "vs bare",
            "server CPU ms/req",
            "errors",
        ],
        rows,
    )
    print(
        "\nvs bare: signsvc's requests/s over the bare aiohttp process serving the same bytes, measured right\n"
        "after it (target: at least 0.25). server CPU ms/req: the server process's CPU per counted request\n"
        "(Postgres's own work not included)."
    )


def main() -> int:
    parser = arguments(__doc__)
    parser.add_argument("--seconds", type=int, default=5, help="counted wrk run per target and endpoint (default 5)")
    parser.add_argument("--warmup", type=int, default=1, help="uncounted wrk run before it (default 1)")
    parser.add_argument("--connections", type=int, default=16, help="wrk's keep-alive connections (default 16)")
    parser.add_argument("--skip-postgres", action="store_true", help="leave out Postgres")
    args = parser.parse_args()
    if why := wrk.missing():
        parser.error(why)
    if not args.skip_postgres:
        databases.require_postgres(parser)
    print(
        f"GET {' and GET '.join(PATHS)}: {SUBMISSIONS} submissions of two signers; wrk -t1 "
        f"-c{args.connections}, {args.warmup} s warm-up + {args.seconds} s counted per target and endpoint."
    )
    print(f"Before the first target: {report.machine_line()}.\n")
    results = {kind: bench_database(kind, args) for kind in databases.kinds(args.skip_postgres)}
    print_report(results)
    failed = any(
        figures.errors for signsvc, ceiling, _ in results.values() for figures in [*signsvc.values(), *ceiling.values()]
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
