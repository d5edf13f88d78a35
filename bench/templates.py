"""Creating templates: `POST /api/templates` with 8 concurrent clients, against the same parsing and
rendering done directly in one process; and `GET /api/user` latency while that runs.

Two documents, built here (the PDF written object by object with RawPdf), each made unique per
request so that the content-addressed file store really writes every file:
  - pdf    a 10-page Letter PDF, about 40 lines of Helvetica text a page and 2 AcroForm fields a
           page (20: 10 text, 5 signature, 5 checkbox); a per-request reference line on every page
  - image  a 1700x2200 RGB PNG that looks like a 200 dpi scan (paper noise, 50 lines of text,
           about 3 MB); a per-request reference stamped in a corner (the PNGs are encoded before
           any server starts, in a process pool, because each takes about 1.5 s)
Ceiling, measured in this process while no server runs, in rounds before, between and after the
targets (so drift on the machine hits both alike): per document, sequentially, what the pool does
for an upload (`signsvc.infra.pdf_calls.ingest` less the base64 decoding): `signsvc.pdf.kinds.sniff`,
for the image `signsvc.pdf.images.image_to_pdf`, then `signsvc.infra.pdf_calls.prepare` (inspect_pdf
+ render_pages + hashes); per round one uncounted run, then --ceiling-runs counted runs. The
per-document time is the median of all counted runs. No storage, no HTTP, no IPC: what the engines
alone cost. 2 workers (signsvc's pool size here: one per core) could at best do 2 / that documents
a second; also measured per round: the documents a second of 2 processes (forked from this one)
doing --ceiling-runs documents each at the same time, because on a small VM two at once do not
always get twice the work done.

Targets, one after another, each a separate `python run.py --port 0` on 127.0.0.1 in a temporary
working directory (files in its `data/` directory store): signsvc on a fresh SQLite file, and on a
fresh Postgres schema (`?search_path=`, dropped afterwards). Limits lifted
(SIGNSVC_RATE_LIMIT_PER_KEY=0, SIGNSVC_RATE_LIMIT_PER_IP=0), fixed live key, SIGNSVC_LOG_LEVEL=WARNING.
Per target: 2 concurrent uncounted warm-up creations (both pool workers loaded), 2 s of the
/api/user probe alone (the idle baseline, and the server's CPU per probe request), then per
document --single creations one at a time (latency without queueing), then --count creations from
--clients concurrent clients (closed loop, keep-alive, aiohttp in this process; request bodies are
encoded before the batch starts). Per creation: the time from send to the body read; every answer
must be 201 with one document and all the PDF's form fields. Templates/s = created / wall time of
the batch. Also: the CPU used by the server process (event loop and its threads; the probe's share
taken out), by its pool (every process below it: forkserver and workers), by the whole machine,
and stolen by the hypervisor.

Probe: a thread in this process with its own keep-alive connection (http.client) sends
`GET /api/user` every 20 ms (at once when the previous answer came later) during each loaded
batch. Requirement: p99 under 50 ms during every loaded batch (PASS/FAIL printed; exit status 1
on FAIL or on any failed creation).

Bounds: --count creations per batch, --max-seconds per batch (no new request after it),
REQUEST_TIMEOUT_SECONDS per request. Client, servers, pool workers and Postgres share the machine's
cores; the ceiling had them to itself.

    python bench/templates.py [--count 40] [--clients 8] [--single 5] [--ceiling-runs 5]
                              [--max-seconds 300] [--skip-postgres]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import multiprocessing
import os
import random
import statistics
import sys
import time
import zlib
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from harness import arguments, databases, probe, report, servers
from harness.ceilings import between_rounds, engines_as_in_a_worker
from harness.client import Sample, api_session, check_user, closed_loop
from harness.report import ms
from harness.samples import RawPdf, b64, refs, sentence
from harness.usage import CpuTimes, descendants

engines_as_in_a_worker()  # signsvc's engines, for the ceiling

REQUEST_TIMEOUT_SECONDS = 300
WARMUP_CREATIONS = 2
IDLE_PROBE_SECONDS = 2.0
PAGES, FIELDS_PER_PAGE = 10, 2
SCAN_SIZE = (1700, 2200)


# ---------------------------------------------------------------------------------------------
# The documents


def form_pdf(reference: str, pages: int = PAGES) -> bytes:
    """`pages` Letter pages of text, each with a text field and a signature (odd pages) or a
    checkbox (even pages); `reference` is written at the foot of every page."""
    rng = random.Random(1)
    pdf = RawPdf()
    catalog, root = pdf.reserve(), pdf.reserve()
    font = pdf.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    checked = pdf.stream(b"0 g 2 2 10 10 re f", "/Type /XObject /Subtype /Form /BBox [0 0 14 14]")
    unchecked = pdf.stream(b"", "/Type /XObject /Subtype /Form /BBox [0 0 14 14]")
    page_numbers, fields = [], []
    for page in range(pages):
        lines = [f"BT /F1 14 Tf 72 740 Td (Services Agreement - page {page + 1} of {pages}) Tj ET"]
        for row in range(40):
            text = sentence(rng, 11)
            lines.append(f"BT /F1 10 Tf 72 {712 - row * 12} Td ({text}) Tj ET")
        lines.append(f"BT /F1 8 Tf 72 40 Td (Reference {reference}) Tj ET")
        text_rect = (72, 200, 300, 224)
        if page % 2 == 0:
            other_rect, other = (72, 110, 272, 160), f"/FT /Sig /T (signature_{page + 1})"
        else:
            other_rect = (72, 140, 86, 154)
            other = (
                f"/FT /Btn /T (agree_{page + 1}) /V /Off /AS /Off "
                f"/AP << /N << /Yes {checked} 0 R /Off {unchecked} 0 R >> >>"
            )
        annots = []
        for rect, entries in [(text_rect, f"/FT /Tx /T (name_{page + 1}) /DA (/Helv 10 Tf 0 g)"), (other_rect, other)][
            :FIELDS_PER_PAGE
        ]:
            x0, y0, x1, y1 = rect
            lines.append(f"0.5 G 0.5 w {x0} {y0} {x1 - x0} {y1 - y0} re S")
            annots.append(pdf.add(f"<< /Type /Annot /Subtype /Widget /Rect [{x0} {y0} {x1} {y1}] /F 4 {entries} >>"))
        fields += annots
        content = pdf.stream(zlib.compress("\n".join(lines).encode("latin-1")), "/Filter /FlateDecode")
        page_numbers.append(
            pdf.add(
                f"<< /Type /Page /Parent {root} 0 R /MediaBox [0 0 612 792] "
                f"/Contents {content} 0 R /Resources << /Font << /F1 {font} 0 R >> >> "
                f"/Annots [{refs(annots)}] >>"
            )
        )
    pdf.put(root, f"<< /Type /Pages /Kids [{refs(page_numbers)}] /Count {pages} >>")
    pdf.put(catalog, f"<< /Type /Catalog /Pages {root} 0 R /AcroForm << /Fields [{refs(fields)}] >> >>")
    return pdf.output(catalog)


_SCAN = None  # the scan's pixels, made once before the pool that stamps and encodes the variants forks


def scan_pixels():
    from PIL import Image, ImageDraw, ImageFont

    rng = random.Random(1)
    paper = Image.effect_noise(SCAN_SIZE, 6).point(lambda v: 235 + (v - 128) // 4)
    image = Image.merge("RGB", (paper, paper, paper.point(lambda v: max(0, v - 6))))  # slightly yellow
    draw = ImageDraw.Draw(image)
    draw.text((150, 140), "SERVICES AGREEMENT", fill=(30, 30, 35), font=ImageFont.load_default(size=44))
    font = ImageFont.load_default(size=30)
    for row in range(50):
        text = sentence(rng, 9)
        draw.text((150, 240 + row * 36), text, fill=(40, 40, 45), font=font)
    draw.line((150, 2120, 700, 2120), fill=(20, 20, 20), width=3)
    return image


def scan_png(reference: str) -> bytes:
    from PIL import ImageDraw, ImageFont

    image = _SCAN.copy()
    ImageDraw.Draw(image).text(
        (1100, 2140), f"Ref {reference}", fill=(40, 40, 45), font=ImageFont.load_default(size=24)
    )
    output = io.BytesIO()
    image.save(output, "PNG")
    return output.getvalue()


@dataclass
class Document:
    label: str
    filename: str
    variants: list[bytes]  # one per creation (and variants[0] for the ceiling)
    pages: int
    fields: int

    def body(self, index: int) -> bytes:
        return json.dumps(
            {
                "name": f"bench {self.label} {index}",
                "documents": [{"name": self.filename, "file": b64(self.variants[index])}],
            }
        ).encode()


def documents(needed: int) -> list[Document]:
    global _SCAN
    pdfs = [form_pdf(f"BENCH-{index:05d}") for index in range(needed)]
    _SCAN = scan_pixels()
    with ProcessPoolExecutor(os.cpu_count(), mp_context=multiprocessing.get_context("fork")) as pool:
        pngs = list(pool.map(scan_png, [f"BENCH-{index:05d}" for index in range(needed)]))
    _SCAN = None
    return [
        Document("pdf", "agreement.pdf", pdfs, PAGES, PAGES * FIELDS_PER_PAGE),
        Document("image", "scan.png", pngs, 1, 0),
    ]


# ---------------------------------------------------------------------------------------------
# The ceiling: the engines called directly, one document after another


@dataclass
class Ceiling:
    steps: dict[str, list[float]] = field(default_factory=dict)  # step -> seconds, one per counted run
    cpu: list[float] = field(default_factory=list)  # this process's CPU seconds per counted run
    detail: dict[str, list[float]] = field(default_factory=lambda: {"inspect_pdf": [], "render_pages": []})
    rounds: list[float] = field(default_factory=list)  # median seconds per document of each round
    parallel: list[float] = field(default_factory=list)  # documents a second, one process per worker, per round
    sizes: dict[str, int] = field(default_factory=dict)
    wall: float = 0.0  # seconds the rounds took, and the CPU seconds stolen from the machine meanwhile
    steal: float = 0.0

    def totals(self, first: int = 0) -> list[float]:
        return [sum(values[run] for values in self.steps.values()) for run in range(first, len(self.cpu))]

    @property
    def total(self) -> float:
        """Seconds per document: the median of every counted run of every round."""
        return statistics.median(self.totals())


def engine_run(data: bytes, timings: dict[str, float] | None = None) -> Any:
    """What signsvc's pool does for one uploaded document, here and now (a `PreparedPdf`); `timings`
    gets each step's seconds."""
    from signsvc.infra import pdf_calls
    from signsvc.pdf import images, kinds

    timings = {} if timings is None else timings
    started = time.perf_counter()
    kind = kinds.sniff(data)
    timings["sniff"] = time.perf_counter() - started
    pdf = data
    if kind != "pdf":
        started = time.perf_counter()
        pdf = images.image_to_pdf(data)
        timings["image_to_pdf"] = time.perf_counter() - started
    started = time.perf_counter()
    prepared = pdf_calls.prepare(pdf)
    timings["prepare"] = time.perf_counter() - started
    return prepared


def ceiling_round(document: Document, ceiling: Ceiling, runs: int, workers: int) -> None:
    """One uncounted run, `runs` counted ones (inspect_pdf and render_pages then timed apart as
    well), then the same work in `workers` processes at once."""
    from signsvc.pdf import forms, previews

    data = document.variants[0]
    began, before = time.perf_counter(), CpuTimes.now()
    first = len(ceiling.cpu)
    for run in range(runs + 1):
        timings: dict[str, float] = {}
        cpu = time.process_time()
        prepared = engine_run(data, timings)
        cpu = time.process_time() - cpu
        if len(prepared.pages) != document.pages or len(prepared.fields) != document.fields:
            raise RuntimeError(
                f"{document.label}: prepare found {len(prepared.pages)} pages and "
                f"{len(prepared.fields)} fields, expected {document.pages} and {document.fields}"
            )
        started = time.perf_counter()
        forms.inspect_pdf(prepared.pdf.data)
        middle = time.perf_counter()
        previews.render_pages(prepared.pdf.data)
        ended = time.perf_counter()
        if run:
            for step, seconds in timings.items():
                ceiling.steps.setdefault(step, []).append(seconds)
            ceiling.cpu.append(cpu)
            ceiling.detail["inspect_pdf"].append(middle - started)
            ceiling.detail["render_pages"].append(ended - middle)
        ceiling.sizes = {
            "input": len(data),
            "pdf": len(prepared.pdf.data),
            "previews": sum(len(preview.data) for preview in prepared.previews),
        }
    ceiling.rounds.append(statistics.median(ceiling.totals(first)))
    ceiling.parallel.append(parallel_rate(document, runs, workers))
    ceiling.wall += time.perf_counter() - began
    ceiling.steal += (CpuTimes.now() - before).steal


_PARALLEL_DOCUMENT: bytes = b""  # the document the forked processes of parallel_rate work on


def _engine_runs(runs: int) -> None:
    for _ in range(runs):
        engine_run(_PARALLEL_DOCUMENT)


def parallel_rate(document: Document, runs: int, workers: int) -> float:
    """Documents a second when `workers` processes each do `runs` documents at the same time (forked
    from this process once the engines are loaded; one uncounted run each first)."""
    global _PARALLEL_DOCUMENT
    _PARALLEL_DOCUMENT = document.variants[0]
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        list(pool.map(_engine_runs, [1] * workers))
        started = time.perf_counter()
        list(pool.map(_engine_runs, [runs] * workers))
        seconds = time.perf_counter() - started
    return workers * runs / seconds


def measure_ceilings(
    docs: list[Document], ceilings: dict[str, Ceiling], args: argparse.Namespace, workers: int
) -> None:
    for document in docs:
        ceiling_round(document, ceilings.setdefault(document.label, Ceiling()), args.ceiling_runs, workers)
    report.progress(f"ceiling round {len(next(iter(ceilings.values())).rounds)} done")


# ---------------------------------------------------------------------------------------------
# Creating templates


@dataclass
class Batch:
    target: str
    document: str
    clients: int
    latencies: list[float]
    failures: list[str]
    seconds: float
    server_cpu: float = 0.0  # the probe's share taken out
    pool_cpu: float = 0.0
    machine_cpu: float = 0.0
    steal: float = 0.0
    probe: list[float] = field(default_factory=list)  # sorted; empty when the batch ran without the probe
    probe_errors: list[str] = field(default_factory=list)

    @property
    def created(self) -> int:
        return len(self.latencies) - len(self.failures)

    @property
    def per_second(self) -> float:
        return self.created / self.seconds

    def latency(self, fraction: float) -> float:
        return report.percentile(sorted(self.latencies), fraction)


def check(document: Document, status: int, payload: bytes) -> str | None:
    """None when the answer is a created template with the document and all its form fields."""
    if status != 201:
        return f"status {status}: {payload[:200]!r}"
    body = json.loads(payload)
    if len(body.get("documents", [])) != 1 or len(body.get("fields", [])) != document.fields:
        return f"201 with {len(body.get('documents', []))} documents and {len(body.get('fields', []))} fields"
    return None


async def create_batch(
    session: aiohttp.ClientSession, url: str, document: Document, bodies: list[bytes], clients: int, deadline: float
) -> tuple[list[float], list[str], float]:
    """Creations from `clients` workers, one per body; answers latencies, failures and the wall time."""

    async def create(body: bytes) -> list[Sample]:
        sent = time.perf_counter()
        try:
            async with session.post(url, data=body, headers={"Content-Type": "application/json"}) as response:
                payload = await response.read()
                failure = check(document, response.status, payload)
        except (TimeoutError, aiohttp.ClientError) as exc:
            failure = f"{type(exc).__name__}: {exc}"
        return [(time.perf_counter() - sent, failure)]

    return await closed_loop(clients, bodies, create, deadline)


class Target:
    """One running server: the creations and probes made against it."""

    def __init__(self, name: str, server: servers.Server, docs: list[Document], args: argparse.Namespace) -> None:
        self.name, self.server, self.docs, self.args = name, server, docs, args
        self.url = f"{server.base_url}/api/templates"
        self.idle_probe: list[float] = []
        self.idle_probe_errors: list[str] = []
        self.probe_cpu = 0.0  # the server's CPU seconds per probe request, measured while idle

    async def run(self) -> list[Batch]:
        batches = []
        async with api_session(connections=self.args.clients, timeout=REQUEST_TIMEOUT_SECONDS) as session:
            await check_user(session, self.server.base_url)
            pdf = self.docs[0]
            _, failures, _ = await create_batch(
                session,
                self.url,
                pdf,
                [pdf.body(i) for i in range(WARMUP_CREATIONS)],
                WARMUP_CREATIONS,
                time.perf_counter() + self.args.max_seconds,
            )
            if failures:
                raise RuntimeError(f"{self.name}: warm-up creation failed: {failures[0]}")
            await asyncio.sleep(0.5)  # let the warm-up's stragglers (file writes) finish
            before = CpuTimes.now(self.server.pid)
            with probe.probing(self.server.base_url) as idle:
                await asyncio.sleep(IDLE_PROBE_SECONDS)
            self.idle_probe, self.idle_probe_errors = idle.stop(), idle.errors
            self.probe_cpu = (CpuTimes.now(self.server.pid) - before).server / max(len(self.idle_probe), 1)
            first = WARMUP_CREATIONS
            if self.args.single:
                for document in self.docs:
                    batches.append(await self.batch(session, document, range(first, first + self.args.single), 1))
                first += self.args.single
            for document in self.docs:
                batches.append(
                    await self.batch(session, document, range(first, first + self.args.count), self.args.clients)
                )
        return batches

    async def batch(self, session: aiohttp.ClientSession, document: Document, indexes: range, clients: int) -> Batch:
        """Creations of document.variants[indexes]; the probe runs along when there is more than one client."""
        bodies = [document.body(index) for index in indexes]  # encoded before any clock starts
        pid = self.server.pid
        pool = descendants(pid)
        before = CpuTimes.now(pid, pool)
        with probe.probing(self.server.base_url) if clients > 1 else contextlib.nullcontext() as loaded:
            latencies, failures, seconds = await create_batch(
                session, self.url, document, bodies, clients, time.perf_counter() + self.args.max_seconds
            )
        used = CpuTimes.now(pid, pool) - before
        if sorted(descendants(pid)) != sorted(pool):
            self.server.notes.append("the pool's processes changed during a batch (pool CPU undercounted)")
        probed = loaded.stop() if loaded else []
        batch = Batch(
            self.name,
            document.label,
            clients,
            latencies,
            failures,
            seconds,
            used.server - len(probed) * self.probe_cpu,
            used.pool,
            used.machine,
            used.steal,
            probed,
            loaded.errors if loaded else [],
        )
        report.progress(
            f"{self.name}, {document.label}, {clients} client(s): {batch.created} created in "
            f"{seconds:.1f} s, {len(failures)} failed"
        )
        return batch


def run_target(kind: str, docs: list[Document], args: argparse.Namespace) -> tuple[Target, list[Batch]]:
    """signsvc on a fresh database of `kind`."""
    name = f"signsvc {kind}"
    with servers.signsvc_on(kind, "bench_templates", name) as server:
        target = Target(name, server, docs, args)
        return target, asyncio.run(target.run())


# ---------------------------------------------------------------------------------------------
# Report


def report_ceiling(docs: list[Document], ceilings: dict[str, Ceiling], workers: int) -> None:
    rows = []
    for document in docs:
        c = ceilings[document.label]
        steps = " + ".join(f"{name} {ms(statistics.median(values))}" for name, values in c.steps.items())
        detail = ", ".join(f"{name} {ms(statistics.median(values))}" for name, values in c.detail.items())
        rows.append(
            [
                document.label,
                ms(c.total),
                f"{ms(min(c.rounds))}-{ms(max(c.rounds))}",
                ms(statistics.median(c.cpu)),
                f"{workers / c.total:.2f}",
                f"{statistics.median(c.parallel):.2f}",
                f"{min(c.parallel):.2f}-{max(c.parallel):.2f}",
                steps,
                detail,
                f"{c.sizes['input'] / 1e6:.2f} / {c.sizes['pdf'] / 1e6:.2f} / {c.sizes['previews'] / 1e6:.2f}",
            ]
        )
    report.print_table(
        [
            "in-process ceiling",
            "ms/doc",
            "rounds",
            "CPU ms/doc",
            f"{workers}/(ms/doc)/s",
            f"{workers} procs/s",
            "rounds",
            "steps, median ms",
            "of prepare, timed apart",
            "MB in / pdf / previews",
        ],
        rows,
    )
    wall = sum(c.wall for c in ceilings.values())
    steal = sum(c.steal for c in ceilings.values())
    print(
        f"\nms/doc: median of all counted runs of all rounds (rounds: range of the round medians). "
        f"{workers} procs/s: documents a second\nwith {workers} processes working at once "
        f"(median, range over rounds). Steal during the ceiling rounds: {100 * steal / wall:.0f}% of one core.\n"
    )


def print_report(
    docs: list[Document], ceilings: dict[str, Ceiling], batches: list[Batch], targets: list[Target], workers: int
) -> bool:
    rows = []
    for b in batches:
        per_doc = ceilings[b.document].total
        ceiling_rate = min(workers, b.clients) / per_doc
        created = max(b.created, 1)
        rows.append(
            [
                f"{b.target}, {b.document}",
                str(b.clients),
                f"{b.created}",
                str(len(b.failures)),
                ms(b.latency(0.50)),
                ms(b.latency(0.99)),
                report.ratio(b.latency(0.50), per_doc),
                f"{b.per_second:.2f}",
                f"{ceiling_rate:.2f}",
                report.ratio(b.per_second, ceiling_rate),
                ms(b.server_cpu / created),
                ms(b.pool_cpu / created),
                report.percent(b.machine_cpu, b.seconds),
                report.percent(b.steal, b.seconds),
            ]
        )
    report.print_table(
        [
            "POST /api/templates",
            "clients",
            "created",
            "failed",
            "p50 ms",
            "p99 ms",
            "p50/ceiling",
            "tmpl/s",
            "ceiling/s",
            "of ceiling",
            "server CPU ms/t",
            "pool CPU ms/t",
            "machine CPU",
            "steal",
        ],
        rows,
    )
    print(
        f"\np50/ceiling: median time per template over the in-process ms/doc; with {workers} workers and more "
        f"clients,\nmost of it is queueing (p50 ~ clients / tmpl/s). ceiling/s: min(clients, {workers} workers) / "
        f"ms/doc.\nserver CPU: the server process (event loop and its threads), the probe's share taken out "
        f"(its CPU per\n/api/user request measured while idle); pool CPU: every process below the server "
        f"(forkserver, workers);\nboth per created template. machine CPU and steal: percent of one core over the "
        f"batch.\n"
    )
    rows, passed = [], True
    for target in targets:
        rows.append(probe.row(f"{target.name}, idle", target.idle_probe, target.idle_probe_errors))
    for b in batches:
        if not b.probe:
            continue
        ok = probe.passes(b.probe, b.probe_errors)
        passed &= ok
        rows.append(
            probe.row(
                f"{b.target}, during {b.document} x{b.clients}", b.probe, b.probe_errors, "PASS" if ok else "FAIL"
            )
        )
    report.print_table(probe.HEADERS, rows)
    print(f"\n/api/user p99 under template load: {'PASS' if passed else 'FAIL'} (limit {probe.LIMIT_MS:.0f} ms)")
    for b in batches:
        report.print_counted("failure", f"{b.target}, {b.document} x{b.clients}", b.failures)
        report.print_counted("probe error", f"{b.target}, {b.document}", b.probe_errors)
    for target in targets:
        report.print_counted("probe error", f"{target.name}, idle", target.idle_probe_errors)
    return passed


def main() -> int:
    parser = arguments(__doc__)
    parser.add_argument(
        "--count", type=int, default=40, help="creations per document and target under load (default 40)"
    )
    parser.add_argument("--clients", type=int, default=8, help="concurrent clients creating (default 8)")
    parser.add_argument(
        "--single",
        type=int,
        default=5,
        help="creations one at a time before the load, per document and target (default 5; 0 leaves them out)",
    )
    parser.add_argument(
        "--ceiling-runs", type=int, default=5, help="in-process runs per document and ceiling round (default 5)"
    )
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=300.0,
        help="no new creation after this many seconds of a batch (default 300)",
    )
    parser.add_argument("--skip-postgres", action="store_true", help="leave out the Postgres target")
    args = parser.parse_args()
    if min(args.count, args.clients, args.ceiling_runs) < 1 or args.single < 0:
        parser.error("--count, --clients and --ceiling-runs must be at least 1, --single at least 0")
    if not args.skip_postgres:
        databases.require_postgres(parser)
    workers = os.cpu_count() or 1  # signsvc's pool: one worker per core
    print(
        f"POST /api/templates, {args.clients} concurrent clients x {args.count} creations per document and "
        f"target (+{args.single} one at a time), loopback; signsvc pool of {workers} workers; "
        f"{report.machine_line()}."
    )
    started = time.perf_counter()
    docs = documents(WARMUP_CREATIONS + args.single + args.count)
    print(
        f"Documents built in {time.perf_counter() - started:.0f} s: pdf {PAGES} pages, "
        f"{PAGES * FIELDS_PER_PAGE} form fields, {len(docs[0].variants[0]) / 1e3:.0f} KB; image "
        f"{SCAN_SIZE[0]}x{SCAN_SIZE[1]} PNG, {len(docs[1].variants[0]) / 1e6:.2f} MB.\n",
        flush=True,
    )
    chosen: list[Callable[[], tuple[Target, list[Batch]]]] = [
        lambda kind=kind: run_target(kind, docs, args) for kind in databases.kinds(args.skip_postgres)
    ]
    ceilings: dict[str, Ceiling] = {}
    measured = between_rounds(lambda: measure_ceilings(docs, ceilings, args, workers), chosen)
    targets = [target for target, _ in measured]
    batches = [batch for _, found in measured for batch in found]
    report_ceiling(docs, ceilings, workers)
    passed = print_report(docs, ceilings, batches, targets, workers)
    print(f"\nTotal {time.perf_counter() - started:.0f} s.")
    return 0 if passed and not any(b.failures for b in batches) else 1


if __name__ == "__main__":
    sys.exit(main())
