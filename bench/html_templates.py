"""Templates from HTML: `POST /api/templates/html` of a 10-page contract with 20 field tags, one request at a
time, against WeasyPrint alone rendering the same HTML to PDF in this process (the ceiling).

The document, built here: a Letter contract of 10 sections, each starting a page (a heading, paragraphs of
contract wording, two field tags of a role "Client": text, date, signature and checkbox fields in turns), made
unique per request by a reference line, so that the content-addressed file store really writes every file.

Ceiling, measured in this process while no server runs, in rounds before, between and after the targets (so
drift on the machine hits both alike): per round one uncounted run, then --ceiling-runs counted runs of
`weasyprint.HTML(string=html).write_pdf()` with a Letter `@page` of 0.5 in margins (what WeasyPrint alone
costs: no field tags read, the system's fonts). In the same rounds, for where the time goes, the service's pool
call is timed the same way, in its steps: `signsvc.pdf.html_render.render` (the layout, the field tags' boxes
and the PDF, with the packaged fonts), then what `signsvc.infra.pdf_calls.prepare` does with the PDF
(`forms.inspect_pdf`, then the first page's image and text: `previews.render_pages`, `previews.page_texts`); and,
apart, what the `templates.page_images` job does after the answer (the same for the other pages). The
figure per step is the median of all counted runs.

Targets, one after another, each a separate `python run.py --port 0` on 127.0.0.1 in a temporary working
directory (files in its `data/` directory): signsvc on a fresh SQLite file, and on a fresh Postgres schema
(`?search_path=`, dropped afterwards). Limits lifted, fixed live key, SIGNSVC_LOG_LEVEL=WARNING, and
SIGNSVC_METRICS_TOKEN set, so that `/metrics` tells how long the server waited for each render_html pool call
(from submission to answer: the request's time less the HTTP, the database and the files), and the job's
page_images pool call. Per target: 2 uncounted creations at once (both pool workers loaded, WeasyPrint imported),
the server left to settle, then --rounds rounds of --count creations one after another (keep-alive, aiohttp in
this process; request bodies encoded before the clock starts). Per creation: the time from send to the body read;
every answer must be 201 with one document and 20 fields, two on each of the 10 pages. After the answer, `/metrics`
is read every PAGE_IMAGES_POLL_SECONDS until no `templates.page_images` job is due or running (their images made):
the time from send to then is the "images" figure, and the next creation waits for it, so each is measured on a
server done with the one before (--back-to-back: sent at once, the job of one running beside the next, and no
images figure). The figure is the median of all creations (rounds: the range of the round medians); also the CPU
used by the server process (the polls' scrapes included) and by its pool (every process below it: the job's page
images included) per creation, and their sum over the ceiling's CPU (on a busy machine the times mostly measure
the neighbours). Target: the median at most 1.3x the ceiling (PASS/FAIL printed; exit status 1 on FAIL or on any
failed creation).

    python bench/html_templates.py [--count 10] [--rounds 3] [--ceiling-runs 5] [--skip-postgres] [--back-to-back]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import aiohttp
from harness import arguments, databases, parsed_rounds, report, rounds_arguments, servers
from harness.ceilings import between_rounds, engines_as_in_a_worker
from harness.client import api_session, check_user
from harness.report import ms
from harness.samples import sentence
from harness.usage import CpuTimes, descendants

engines_as_in_a_worker()  # signsvc's engines, for the breakdown of the pool call

REQUEST_TIMEOUT_SECONDS = 120
METRICS_TOKEN = "bench-metrics"  # /metrics on: the pool call's time as the server sees it
POOL_CALL = 'signsvc_pdf_pool_task_duration_seconds_{}{{call="{}"}}'
PAGE_IMAGES_JOBS = [f'signsvc_jobs{{kind="templates.page_images",state="{state}"}}' for state in ("due", "running")]
PAGE_IMAGES_POLL_SECONDS = 0.02
WARMUP_CREATIONS = 2
PAGES, TAGS_PER_PAGE = 10, 2
FIELDS = PAGES * TAGS_PER_PAGE
PARAGRAPHS_PER_PAGE = 5
TAG_KINDS = ["text-field", "date-field", "signature-field", "checkbox-field"]
TARGET_RATIO = 1.3
PAGE_SIZE, MAX_PAGES, RENDER_SECONDS = "8.5in 11in", 100, 30.0  # Letter, and the service's bounds
PLAIN_PAGE = "@page { size: 8.5in 11in; margin: 0.5in }"  # the service's page for a document without header


# ---------------------------------------------------------------------------------------------
# The document


def contract_html(reference: str) -> str:
    """PAGES sections of contract wording, each on a page of its own, with TAGS_PER_PAGE field tags each;
    `reference` closes every section."""
    rng = random.Random(1)
    parts = ["<html><head><style>body { font-size: 11pt } h2 { margin: 0 0 8pt }</style></head><body>"]
    number = 0
    for page in range(PAGES):
        breaking = ' style="break-before: page"' if page else ""
        parts.append(f"<section{breaking}><h2>Services Agreement, section {page + 1}</h2>")
        parts += ["<p>" + " ".join(sentence(rng, 12) for _ in range(4)) + "</p>" for _ in range(PARAGRAPHS_PER_PAGE)]
        for _ in range(TAGS_PER_PAGE):
            number += 1
            tag = TAG_KINDS[number % len(TAG_KINDS)]
            parts.append(f'<p>Field {number}: <{tag} name="Field {number}" role="Client"></{tag}></p>')
        parts.append(f"<p>Reference {reference}</p></section>")
    parts.append("</body></html>")
    return "".join(parts)


def request_body(index: int) -> bytes:
    html = contract_html(f"BENCH-{index:05d}")
    return json.dumps({"name": f"bench html {index}", "html": html, "size": "Letter"}).encode()


# ---------------------------------------------------------------------------------------------
# The ceiling: WeasyPrint alone; and the service's pool call, step by step

STEPS = ["html_render", "inspect_pdf", "first_page_image_and_text"]  # the pool call, in the request
LATER = "other_pages_images_and_texts"  # the templates.page_images job, after the answer


@dataclass
class Ceiling:
    weasyprint: list[float] = field(default_factory=list)  # seconds, one per counted run
    cpu: list[float] = field(default_factory=list)  # this process's CPU seconds, one per counted run
    rounds: list[float] = field(default_factory=list)  # median seconds of each round
    steps: dict[str, list[float]] = field(default_factory=lambda: {step: [] for step in [*STEPS, LATER]})
    pages: int = 0

    @property
    def total(self) -> float:
        return statistics.median(self.weasyprint)

    def step(self, name: str) -> float:
        return statistics.median(self.steps[name])

    @property
    def total_cpu(self) -> float:
        return statistics.median(self.cpu)

    @property
    def pool_call(self) -> float:
        return sum(self.step(name) for name in STEPS)


def weasyprint_alone(html: str) -> bytes:
    import weasyprint

    return weasyprint.HTML(string=html).write_pdf(stylesheets=[weasyprint.CSS(string=PLAIN_PAGE)])


def pool_call_steps(html: str, timings: dict[str, float]) -> int:
    """The steps of `pdf_calls.render_html` called one by one, each timed; answers the pages of the PDF."""
    from signsvc.pdf import forms, html_render, previews

    started = time.perf_counter()
    rendering = html_render.render(html, page_size=PAGE_SIZE, max_pages=MAX_PAGES, seconds=RENDER_SECONDS)
    assert rendering.pdf is not None
    timings["html_render"] = time.perf_counter() - started
    for name, step in [
        ("inspect_pdf", lambda pdf: forms.inspect_pdf(pdf, max_pages=previews.MAX_PAGES)),
        (
            "first_page_image_and_text",
            lambda pdf: (previews.render_pages(pdf, pages=[0]), previews.page_texts(pdf, pages=[0])),
        ),
        (
            LATER,
            lambda pdf: (
                previews.render_pages(pdf, pages=range(1, PAGES)),
                previews.page_texts(pdf, pages=range(1, PAGES)),
            ),
        ),
    ]:
        started = time.perf_counter()
        step(rendering.pdf)
        timings[name] = time.perf_counter() - started
    if sum(len(tag.boxes) for tag in rendering.tags) != FIELDS:
        raise RuntimeError(f"html_render drew {sum(len(tag.boxes) for tag in rendering.tags)} field tags")
    return len(forms.inspect_pdf(rendering.pdf)["pages"])


def ceiling_round(ceiling: Ceiling, runs: int) -> None:
    html = contract_html("BENCH-00000")
    first = len(ceiling.weasyprint)
    for run in range(runs + 1):
        started, cpu = time.perf_counter(), time.process_time()
        weasyprint_alone(html)
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        timings: dict[str, float] = {}
        ceiling.pages = pool_call_steps(html, timings)
        if run:
            ceiling.weasyprint.append(seconds)
            ceiling.cpu.append(cpu)
            for name, value in timings.items():
                ceiling.steps[name].append(value)
    if ceiling.pages != PAGES:
        raise RuntimeError(f"the contract has {ceiling.pages} pages, not {PAGES}")
    ceiling.rounds.append(statistics.median(ceiling.weasyprint[first:]))
    report.progress(f"ceiling round {len(ceiling.rounds)}: WeasyPrint alone {ms(ceiling.rounds[-1])} ms")


# ---------------------------------------------------------------------------------------------
# The service


@dataclass
class Target:
    name: str
    rounds: list[list[float]] = field(default_factory=list)  # seconds per creation, per round
    images: list[float] = field(default_factory=list)  # seconds from send to every page image made, per creation
    failures: list[str] = field(default_factory=list)
    server_cpu: float = 0.0
    pool_cpu: float = 0.0
    pool_call: float = 0.0  # mean seconds of the render_html pool call, from submission to answer
    images_call: float = 0.0  # mean seconds of the job's page_images pool call
    load: float = 0.0  # the load average when its rounds began

    @property
    def latencies(self) -> list[float]:
        return [seconds for round in self.rounds for seconds in round]


def check(status: int, payload: bytes) -> str | None:
    """None when the answer is a created template of one document with the 20 fields of its tags, on its 10 pages."""
    if status != 201:
        return f"status {status}: {payload[:200]!r}"
    body = json.loads(payload)
    documents, fields = body.get("documents", []), body.get("fields", [])
    pages = {area["page"] for found in fields for area in found.get("areas", [])}
    if len(documents) != 1 or len(fields) != FIELDS or pages != set(range(PAGES)):
        return f"201 with {len(documents)} documents, {len(fields)} fields on {len(pages)} pages"
    return None


async def create(session: aiohttp.ClientSession, url: str, body: bytes) -> tuple[float, float, str | None]:
    """The time the creation was sent (perf_counter), its seconds to the body read, and what was wrong."""
    sent = time.perf_counter()
    try:
        async with session.post(url, data=body, headers={"Content-Type": "application/json"}) as response:
            failure = check(response.status, await response.read())
    except (TimeoutError, aiohttp.ClientError) as exc:
        failure = f"{type(exc).__name__}: {exc}"
    return sent, time.perf_counter() - sent, failure


async def metrics(session: aiohttp.ClientSession, base_url: str) -> dict[str, float]:
    headers = {"Authorization": f"Bearer {METRICS_TOKEN}"}
    async with session.get(f"{base_url}/metrics", headers=headers) as response:
        text = await response.text()
    return {
        name: float(value)
        for name, value in (line.rsplit(" ", 1) for line in text.splitlines() if line and not line.startswith("#"))
    }


def pool_call_totals(values: dict[str, float], call: str) -> tuple[float, float]:
    """The seconds spent in a pool call so far, and the number of calls (from /metrics)."""
    return values.get(POOL_CALL.format("sum", call), 0.0), values.get(POOL_CALL.format("count", call), 0.0)


async def images_made(session: aiohttp.ClientSession, base_url: str) -> float:
    """Waits until no page image job is due or running; answers when that was seen (perf_counter)."""
    while True:
        values = await metrics(session, base_url)
        if not any(values.get(name, 0.0) for name in PAGE_IMAGES_JOBS):
            return time.perf_counter()
        await asyncio.sleep(PAGE_IMAGES_POLL_SECONDS)


async def measure(target: Target, server: servers.Server, args: argparse.Namespace) -> None:
    url = f"{server.base_url}/api/templates/html"
    async with api_session(connections=WARMUP_CREATIONS, timeout=REQUEST_TIMEOUT_SECONDS) as session:
        await check_user(session, server.base_url)
        warm = await asyncio.gather(*(create(session, url, request_body(i)) for i in range(WARMUP_CREATIONS)))
        if failed := [failure for _, _, failure in warm if failure]:
            raise RuntimeError(f"{target.name}: warm-up creation failed: {failed[0]}")
        await images_made(session, server.base_url)
        await asyncio.to_thread(servers.settle, server)
        target.load = os.getloadavg()[0]
        pool = descendants(server.pid)
        calls_before = await metrics(session, server.base_url)
        before = CpuTimes.now(server.pid, pool)
        index = WARMUP_CREATIONS
        for _ in range(args.rounds):
            bodies = [request_body(index + i) for i in range(args.count)]  # encoded before the clock starts
            index += args.count
            latencies = []
            for body in bodies:
                sent, seconds, failure = await create(session, url, body)
                latencies.append(seconds)
                if failure:
                    target.failures.append(failure)
                elif not args.back_to_back:
                    target.images.append(await images_made(session, server.base_url) - sent)
            target.rounds.append(latencies)
            report.progress(f"{target.name}: round of {args.count}, median {ms(statistics.median(latencies))} ms")
        await images_made(session, server.base_url)  # the CPU per creation counts its page images
        used = CpuTimes.now(server.pid, pool) - before
        if sorted(descendants(server.pid)) != sorted(pool):
            server.notes.append("the pool's processes changed during the rounds (pool CPU undercounted)")
        after = await metrics(session, server.base_url)
        target.pool_call, target.images_call = (
            _mean_call(after, calls_before, call) for call in ("render_html", "page_images")
        )
        created = max(len(target.latencies), 1)
        target.server_cpu, target.pool_cpu = used.server / created, used.pool / created


def _mean_call(after: dict[str, float], before: dict[str, float], call: str) -> float:
    seconds, calls = (a - b for a, b in zip(pool_call_totals(after, call), pool_call_totals(before, call), strict=True))
    return seconds / max(calls, 1)


def run_target(kind: str, args: argparse.Namespace) -> Target:
    target = Target(f"signsvc {kind}")
    with servers.signsvc_on(kind, "bench_html", target.name, SIGNSVC_METRICS_TOKEN=METRICS_TOKEN) as server:
        asyncio.run(measure(target, server, args))
    return target


# ---------------------------------------------------------------------------------------------
# Report


def print_report(ceiling: Ceiling, targets: list[Target]) -> bool:
    report.print_table(
        ["in-process", "ms", "rounds", "CPU ms"],
        [
            [
                "WeasyPrint alone (ceiling)",
                ms(ceiling.total),
                f"{ms(min(ceiling.rounds))}-{ms(max(ceiling.rounds))}",
                ms(ceiling.total_cpu),
            ],
            ["the pool call, step by step", ms(ceiling.pool_call), "", ""],
            *[[f"  {name}", ms(ceiling.step(name)), "", ""] for name in STEPS],
            [f"after the answer: {LATER} (the job)", ms(ceiling.step(LATER)), "", ""],
        ],
    )
    print(
        f"\nms: median of all counted runs of all rounds (rounds: range of the round medians). The pool call: "
        f"what\n`pdf_calls.render_html` does for this document, its steps timed one by one ({PAGES} pages); after "
        f"the answer,\nthe templates.page_images job renders the other {PAGES - 1} pages' images.\n"
    )
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
                ms(target.pool_call),
                ms(statistics.median(target.images)) if target.images else "-",
                ms(target.images_call),
                f"{TARGET_RATIO}x",
                "PASS" if ok else "FAIL",
                ms(target.server_cpu),
                ms(target.pool_cpu),
                report.ratio(target.server_cpu + target.pool_cpu, ceiling.total_cpu),
                f"{target.load:.1f}",
            ]
        )
    report.print_table(
        [
            "POST /api/templates/html",
            "created",
            "failed",
            "p50 ms",
            "rounds",
            "ceiling ms",
            "ratio",
            "pool call ms",
            "images ms",
            "job call ms",
            "target",
            "",
            "server CPU ms",
            "pool CPU ms",
            "CPU ratio",
            "load avg",
        ],
        rows,
    )
    print(
        "\np50: median time per creation, one at a time (rounds: range of the round medians); ratio: p50 over "
        "WeasyPrint alone.\npool call: the mean time of the render_html pool call from submission to answer, as the "
        "server's /metrics\ntell (on for this bench). images: median time from send until the job had made every page "
        "image\n(polled; - with --back-to-back); job call: the mean time of the job's page_images pool call.\n"
        "server CPU: the server process (event loop and its threads, the polls' scrapes); pool CPU: every process "
        "below it\n(the job's page images too); both per creation. CPU ratio: their sum over WeasyPrint alone's CPU "
        "(less sensitive to the\nmachine's other work than the times). load avg: the machine's 1-minute load "
        "average when the rounds began."
    )
    for target in targets:
        report.print_counted("failure", target.name, target.failures)
    return passed


def main() -> int:
    parser = arguments(__doc__)
    rounds_arguments(parser, count=10, ceiling_runs=5, ceiling_unit="in-process runs")
    parser.add_argument(
        "--back-to-back",
        action="store_true",
        help="send each creation right after the answer before, not once its page images are made",
    )
    args = parsed_rounds(parser)
    print(
        f"POST /api/templates/html, a {PAGES}-page contract with {FIELDS} field tags, {args.rounds} rounds of "
        f"{args.count} creations one at a time per target, loopback; {report.machine_line()}.\n",
        flush=True,
    )
    started = time.perf_counter()
    ceiling = Ceiling()
    chosen: list[Callable[[], Target]] = [
        lambda kind=kind: run_target(kind, args) for kind in databases.kinds(args.skip_postgres)
    ]
    targets = between_rounds(lambda: ceiling_round(ceiling, args.ceiling_runs), chosen)
    passed = print_report(ceiling, targets)
    print(f"\nTotal {time.perf_counter() - started:.0f} s; load average at the end {os.getloadavg()[0]:.2f}.")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
