"""Templates from DOCX: `POST /api/templates/docx` of a contract with 20 `[[variables]]`, one request at a time,
against LibreOffice's conversion alone of the same DOCX in this process (the ceiling).

The document, built here with python-docx: a 3-page contract (a heading and paragraphs of contract wording a page)
whose paragraphs read 20 variables (`[[party_1]]` ... `[[party_20]]`), sent with `"dynamic": true` (the DOCX is
kept, to be filled by a submission's `variables`), made unique per request by a reference line.

Ceiling, measured in this process while no server runs, in rounds before, between and after the targets: per round
one uncounted conversion, then --ceiling-runs counted ones, through `signsvc.infra.office.OfficeConverter` (the
service's converter: `soffice --headless --convert-to pdf` in a profile of its own, in a temporary directory), one
parallel slot. The figure is the median of all counted runs.

Targets, one after another, each a separate `python run.py --port 0` in a temporary working directory: signsvc on a
fresh SQLite file, and on a fresh Postgres schema (dropped afterwards). Limits lifted, fixed live key,
SIGNSVC_LOG_LEVEL=WARNING. Per target: 2 uncounted creations at once (both LibreOffice profiles and both pool
workers warm), the server left to settle, then --rounds rounds of --count creations one after another. Every
answer must be 201 with one document and a `variables_schema` of the 20 variables. The figure is the median of all
creations; also the CPU used per creation by the server process, by its pool and by LibreOffice (the server's
reaped children), and LibreOffice's CPU in the ceiling. Target: the median at most 1.5x the ceiling
(PASS/FAIL printed; exit status 1 on FAIL or on any failed creation).

With --one-off: one-off submissions (`POST /api/submissions/docx`) instead of templates. The contract also carries
a signature text tag for its one submitter (`"send_email": false`), the request gives the 20 variables a value
each, and every answer must be 200 with one document and the signature field. The ceiling then converts the same
DOCX filled with those values (filled before the clock starts, by the service's own filling), so that the ratio is
the service's cost on top of converting the document it ends up converting.

    python bench/docx_templates.py [--one-off] [--count 5] [--rounds 3] [--ceiling-runs 3] [--skip-postgres]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import io
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import aiohttp
from harness import arguments, databases, parsed_rounds, report, rounds_arguments, servers
from harness.ceilings import between_rounds, engines_as_in_a_worker
from harness.client import api_session, check_user
from harness.report import ms
from harness.samples import sentence
from harness.usage import CpuTimes, descendants, reaped_cpu_seconds

engines_as_in_a_worker()  # signsvc's office converter, for the ceiling

REQUEST_TIMEOUT_SECONDS = 300
WARMUP_CREATIONS = 2
PAGES, PARAGRAPHS_PER_PAGE, VARIABLES = 3, 9, 20
TARGET_RATIO = 1.5
SIGNATURE_TAG = "{{Signature;type=signature;role=Buyer}}"
VALUES = {f"party_{number}": f"Party Number {number} Limited" for number in range(1, VARIABLES + 1)}


# ---------------------------------------------------------------------------------------------
# The document


def contract_docx(reference: str, one_off: bool = False) -> bytes:
    """PAGES pages of contract wording whose paragraphs read VARIABLES variables; `reference` closes it, after a
    signature text tag when `one_off`."""
    import docx

    rng = random.Random(1)
    document = docx.Document()
    number = 0
    for page in range(PAGES):
        if page:
            document.add_page_break()
        document.add_heading(f"Services Agreement, section {page + 1}", level=1)
        for _ in range(PARAGRAPHS_PER_PAGE):
            text = " ".join(sentence(rng, 12) for _ in range(4))
            if number < VARIABLES:
                number += 1
                text = f"{text} Party {number}: [[party_{number}]]."
            document.add_paragraph(text)
    if one_off:
        document.add_paragraph(f"Signature: {SIGNATURE_TAG}")
    document.add_paragraph(f"Reference {reference}")
    if number != VARIABLES:
        raise RuntimeError(f"the contract reads {number} variables, not {VARIABLES}")
    output = io.BytesIO()
    document.save(output)
    return output.getvalue()


def request_body(data: bytes, index: int, one_off: bool) -> bytes:
    file = base64.b64encode(data).decode()
    if not one_off:
        return json.dumps(
            {"name": f"bench docx {index}", "documents": [{"name": "contract", "file": file, "dynamic": True}]}
        ).encode()
    return json.dumps(
        {
            "name": f"bench docx {index}",
            "documents": [{"name": "contract", "file": file}],
            "variables": VALUES,
            "submitters": [{"role": "Buyer", "email": "buyer@example.com"}],
            "send_email": False,
        }
    ).encode()


def url_of(base_url: str, one_off: bool) -> str:
    return f"{base_url}/api/submissions/docx" if one_off else f"{base_url}/api/templates/docx"


# ---------------------------------------------------------------------------------------------
# The ceiling: LibreOffice's conversion alone


@dataclass
class Ceiling:
    conversions: list[float] = field(default_factory=list)  # seconds, one per counted run
    rounds: list[float] = field(default_factory=list)  # median seconds of each round
    cpu: list[float] = field(default_factory=list)  # CPU seconds of the conversion's processes, per counted run

    @property
    def total(self) -> float:
        return statistics.median(self.conversions)


async def conversions(data: bytes, runs: int, ceiling: Ceiling) -> None:
    from signsvc.infra.office import OfficeConverter

    with tempfile.TemporaryDirectory(prefix="signsvc-bench-office-") as workdir:
        async with OfficeConverter(max_parallel=1, workdir=workdir) as converter:
            for run in range(runs + 1):
                started, before = time.perf_counter(), os.times()
                pdf = await converter.to_pdf(data, "docx")
                seconds, after = time.perf_counter() - started, os.times()
                if not pdf.startswith(b"%PDF"):
                    raise RuntimeError("LibreOffice made no PDF of the contract")
                if run:
                    ceiling.conversions.append(seconds)
                    ceiling.cpu.append(
                        after.children_user + after.children_system - before.children_user - before.children_system
                    )


def ceiling_round(ceiling: Ceiling, runs: int, one_off: bool) -> None:
    from signsvc.templates import docx_variables

    first = len(ceiling.conversions)
    data = contract_docx("BENCH-00000", one_off)
    if one_off:
        data = docx_variables.render(data, VALUES)
    asyncio.run(conversions(data, runs, ceiling))
    ceiling.rounds.append(statistics.median(ceiling.conversions[first:]))
    report.progress(f"ceiling round {len(ceiling.rounds)}: LibreOffice alone {ms(ceiling.rounds[-1])} ms")


# ---------------------------------------------------------------------------------------------
# The service


@dataclass
class Target:
    name: str
    rounds: list[list[float]] = field(default_factory=list)  # seconds per creation, per round
    failures: list[str] = field(default_factory=list)
    server_cpu: float = 0.0
    pool_cpu: float = 0.0  # pool workers and forkserver
    office_cpu: float = 0.0  # LibreOffice's processes, reaped by the server
    load: float = 0.0

    @property
    def latencies(self) -> list[float]:
        return [seconds for round in self.rounds for seconds in round]


def check(status: int, payload: bytes, one_off: bool) -> str | None:
    """None when the answer is a created template of one document reading the 20 variables, or with `one_off` a
    submission of one document with its signature field."""
    if one_off:
        if status != 200:
            return f"status {status}: {payload[:200]!r}"
        body = json.loads(payload)
        schema, fields = body.get("schema", []), body.get("fields", [])
        if len(schema) != 1 or [field.get("name") for field in fields] != ["Signature"]:
            return f"200 with {len(schema)} documents and {len(fields)} fields"
        return None
    if status != 201:
        return f"status {status}: {payload[:200]!r}"
    body = json.loads(payload)
    documents, variables = body.get("documents", []), body.get("variables_schema") or {}
    if len(documents) != 1 or len(variables) != VARIABLES:
        return f"201 with {len(documents)} documents and {len(variables)} variables"
    return None


async def create(session: aiohttp.ClientSession, url: str, body: bytes, one_off: bool) -> tuple[float, str | None]:
    sent = time.perf_counter()
    try:
        async with session.post(url, data=body, headers={"Content-Type": "application/json"}) as response:
            failure = check(response.status, await response.read(), one_off)
    except (TimeoutError, aiohttp.ClientError) as exc:
        failure = f"{type(exc).__name__}: {exc}"
    return time.perf_counter() - sent, failure


async def measure(target: Target, server: servers.Server, args: argparse.Namespace) -> None:
    url, one_off = url_of(server.base_url, args.one_off), args.one_off
    async with api_session(connections=WARMUP_CREATIONS, timeout=REQUEST_TIMEOUT_SECONDS) as session:
        await check_user(session, server.base_url)
        warm = [request_body(contract_docx(f"WARM-{i}", one_off), i, one_off) for i in range(WARMUP_CREATIONS)]
        answers = await asyncio.gather(*(create(session, url, body, one_off) for body in warm))
        if failed := [failure for _, failure in answers if failure]:
            raise RuntimeError(f"{target.name}: warm-up creation failed: {failed[0]}")
        await asyncio.to_thread(servers.settle, server)
        target.load = os.getloadavg()[0]
        index = WARMUP_CREATIONS
        cpu_server = cpu_pool = cpu_office = 0.0
        for _ in range(args.rounds):
            bodies = [
                request_body(contract_docx(f"BENCH-{index + i:05d}", one_off), index + i, one_off)
                for i in range(args.count)
            ]
            index += args.count
            latencies = []
            for body in bodies:
                pool = descendants(server.pid)
                before, reaped = CpuTimes.now(server.pid, pool), reaped_cpu_seconds(server.pid)
                seconds, failure = await create(session, url, body, one_off)
                used = CpuTimes.now(server.pid, pool) - before
                # LibreOffice has left by now: its CPU is in the server's times of reaped children.
                cpu_office += reaped_cpu_seconds(server.pid) - reaped
                cpu_server, cpu_pool = cpu_server + used.server, cpu_pool + used.pool
                latencies.append(seconds)
                if failure:
                    target.failures.append(failure)
            target.rounds.append(latencies)
            report.progress(f"{target.name}: round of {args.count}, median {ms(statistics.median(latencies))} ms")
        created = max(len(target.latencies), 1)
        target.server_cpu, target.pool_cpu, target.office_cpu = (
            cpu / created for cpu in (cpu_server, cpu_pool, cpu_office)
        )


def run_target(kind: str, args: argparse.Namespace) -> Target:
    target = Target(f"signsvc {kind}")
    with servers.signsvc_on(kind, "bench_docx", target.name) as server:
        asyncio.run(measure(target, server, args))
    return target


# ---------------------------------------------------------------------------------------------
# Report


def print_report(ceiling: Ceiling, targets: list[Target], operation: str) -> bool:
    rounds = f"{ms(min(ceiling.rounds))}-{ms(max(ceiling.rounds))}"
    report.print_table(
        ["in-process", "ms", "rounds", "LibreOffice CPU ms"],
        [["LibreOffice alone (ceiling)", ms(ceiling.total), rounds, ms(statistics.median(ceiling.cpu))]],
    )
    print("\nms: median of all counted runs of all rounds (rounds: range of the round medians).\n")
    rows, passed = [], True
    for target in targets:
        latency = statistics.median(target.latencies)
        medians = [statistics.median(round) for round in target.rounds]
        ok = not target.failures and latency <= TARGET_RATIO * ceiling.total
        passed &= ok
        rows.append(
            [
                target.name,
                str(len(target.latencies)),
                str(len(target.failures)),
                ms(latency),
                f"{ms(min(medians))}-{ms(max(medians))}",
                ms(ceiling.total),
                report.ratio(latency, ceiling.total),
                f"{TARGET_RATIO}x",
                "PASS" if ok else "FAIL",
                ms(target.server_cpu),
                ms(target.pool_cpu),
                ms(target.office_cpu),
                report.ratio(target.server_cpu + target.pool_cpu + target.office_cpu, statistics.median(ceiling.cpu)),
                f"{target.load:.1f}",
            ]
        )
    report.print_table(
        [
            operation,
            "created",
            "failed",
            "p50 ms",
            "rounds",
            "ceiling ms",
            "ratio",
            "target",
            "",
            "server CPU ms",
            "pool CPU ms",
            "LibreOffice CPU ms",
            "CPU ratio",
            "load avg",
        ],
        rows,
    )
    print(
        "\np50: median time per creation, one at a time (rounds: range of the round medians); ratio: p50 over "
        "LibreOffice alone.\nserver CPU: the server process (event loop and its threads); pool CPU: the pool's "
        "processes;\nLibreOffice CPU: the conversion's processes; all per creation. CPU ratio: their sum over "
        "LibreOffice's CPU in the ceiling.\nload avg: the machine's 1-minute "
        "load average when the rounds began."
    )
    for target in targets:
        report.print_counted("failure", target.name, target.failures)
    return passed


def main() -> int:
    parser = arguments(__doc__)
    rounds_arguments(parser, count=5, ceiling_runs=3, ceiling_unit="conversions")
    parser.add_argument(
        "--one-off", action="store_true", help="one-off submissions (POST /api/submissions/docx), not templates"
    )
    args = parsed_rounds(parser)
    operation = "POST /api/submissions/docx" if args.one_off else "POST /api/templates/docx"
    print(
        f"{operation}, a {PAGES}-page contract with {VARIABLES} variables, {args.rounds} rounds of "
        f"{args.count} creations one at a time per target, loopback; {report.machine_line()}.\n",
        flush=True,
    )
    started = time.perf_counter()
    ceiling = Ceiling()
    chosen: list[Callable[[], Target]] = [
        lambda kind=kind: run_target(kind, args) for kind in databases.kinds(args.skip_postgres)
    ]
    targets = between_rounds(lambda: ceiling_round(ceiling, args.ceiling_runs, args.one_off), chosen)
    passed = print_report(ceiling, targets, operation)
    print(f"\nTotal {time.perf_counter() - started:.0f} s; load average at the end {os.getloadavg()[0]:.2f}.")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
