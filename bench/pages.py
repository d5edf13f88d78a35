"""A public page: its weight, its time to first byte, the server's CPU per view, and what 20 visitors
loading pages do to the API's p99.

`--page signing` (the default): a 10-page PDF with a field on each page, sent to one signer; the page
measured is their signing link, `/s/{slug}`. `--page clickwrap`: a published clickwrap of plain text
with two checkboxes, its page `/c/{slug}`. Each is asked for as a browser asks (Accept: text/html). Targets, each a
separate server process on 127.0.0.1:
  - bare aiohttp      serves the same HTML bytes at /page and the same JSON at /api/user (the ceiling)
  - signsvc sqlite    `python run.py --port 0` on a fresh SQLite file
  - signsvc postgres  the same on a fresh Postgres schema
Load comes from wrk (a Python client would saturate the cores before the server does):
  - time to first byte: one connection, requests back to back; wrk's p50 and p99 latency (on
    loopback, the body follows the first byte within microseconds);
  - views per second and server CPU per view: 20 connections;
  - GET /api/user p99 at 4 connections alone, then while 20 more connections load pages.
Page weight: the HTML, the scripts it loads (with their imports), the stylesheet and the first page
image, as served, without compression. Goal: under 300 KB before page images.

    python bench/pages.py [--page signing|clickwrap] [--seconds 5] [--skip-postgres]
"""

from __future__ import annotations

import asyncio
import base64
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass

import aiohttp
from harness import arguments, report, servers
from harness.usage import cpu_seconds

PAGES = 10
SIGNERS = 20
API_CONNECTIONS = 4
BARE_PAGE = """
import asyncio, sys
from aiohttp import web

HTML = open(sys.argv[1], "rb").read()
USER = {"id": 1, "first_name": "Admin", "last_name": "User", "email": "admin@example.com"}

async def page(request):
    return web.Response(body=HTML, content_type="text/html")

async def user(request):
    return web.json_response(USER)

async def main():
    app = web.Application()
    app.router.add_get("/page", page)
    app.router.add_get("/api/user", user)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    print(f"bare ready: http://127.0.0.1:{runner.addresses[0][1]}", flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
"""


@dataclass
class Wrk:
    requests_per_second: float
    requests: int
    p50_ms: float
    p99_ms: float
    errors: int


@dataclass
class Figures:
    ttfb: Wrk
    views: Wrk
    cpu_ms_per_view: float
    api_alone: Wrk
    api_loaded: Wrk


def wrk(url: str, connections: int, seconds: int, *headers: str) -> subprocess.Popen:
    argv = [
        "wrk",
        "-t",
        str(min(connections, 2)),
        "-c",
        str(connections),
        "-d",
        f"{seconds}s",
        "--latency",
        "-H",
        "Accept: text/html",
    ]
    for header in headers:
        argv += ["-H", header]
    return subprocess.Popen([*argv, url], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def result(run: subprocess.Popen) -> Wrk:
    out, _ = run.communicate()
    if run.returncode != 0:
        raise RuntimeError(f"wrk failed: {out}")
    latency = {p: _ms(value, unit) for p, value, unit in re.findall(r"^\s+(50|99)%\s+([\d.]+)(us|ms|s)\s*$", out, re.M)}
    errors = sum(int(n) for n in re.findall(r"(?:Non-2xx or 3xx responses|Socket errors:.*?timeout)\s*:?\s*(\d+)", out))
    return Wrk(
        float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
        int(re.search(r"(\d+) requests in", out).group(1)),
        latency["50"],
        latency["99"],
        errors,
    )


def _ms(value: str, unit: str) -> float:
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def measure(page_url: str, api_url: str, pid: int, seconds: int) -> Figures:
    key = f"X-Auth-Token: {servers.BENCH_KEY}"
    ttfb = result(wrk(page_url, 1, seconds))
    before = cpu_seconds(pid)
    views = result(wrk(page_url, SIGNERS, seconds))
    cpu_ms = (cpu_seconds(pid) - before) * 1000 / max(views.requests, 1)
    api_alone = result(wrk(api_url, API_CONNECTIONS, seconds, key))
    pages_run = wrk(page_url, SIGNERS, seconds + 1)
    api_loaded = result(wrk(api_url, API_CONNECTIONS, seconds, key))
    result(pages_run)
    return Figures(ttfb, views, cpu_ms, api_alone, api_loaded)


CLICKWRAP = {
    "name": "Bench terms",
    "kind": "no_document",
    "content": "A clause of the bench terms.\n" * 40,
    "require_name": True,
    "require_email": True,
    "publish": True,
    "checkboxes": [{"text": "I read the terms", "required": True}, {"text": "Send me news", "required": False}],
}


async def prepare(base_url: str, page: str) -> tuple[str, dict[str, int]]:
    async with aiohttp.ClientSession(headers={"X-Auth-Token": servers.BENCH_KEY}) as session:
        if page == "clickwrap":
            async with session.post(f"{base_url}/api/clickwraps", json=CLICKWRAP) as r:
                path = f"/c/{(await r.json())['slug']}"
        else:
            path = await signing_page(session, base_url)
        return path, await weigh(session, base_url, path)


async def signing_page(session: aiohttp.ClientSession, base_url: str) -> str:
    """A 10-page template sent to one signer; answers the signing page's path."""
    fields = [
        {
            "name": f"Field {n}",
            "type": "text",
            "role": "Signer",
            "areas": [{"x": 0.1, "y": 0.2, "w": 0.3, "h": 0.04, "page": n}],
        }
        for n in range(1, PAGES + 1)
    ]
    async with session.post(
        f"{base_url}/api/templates",
        json={"name": "Bench", "documents": [{"name": "bench", "file": document(), "fields": fields}]},
    ) as r:
        template = await r.json()
    async with session.post(
        f"{base_url}/api/submissions",
        json={"template_id": template["id"], "send_email": False, "submitters": [{"email": "s@example.com"}]},
    ) as r:
        return f"/s/{(await r.json())[0]['slug']}"


def document() -> str:
    """A PDF of PAGES pages with a line of text on each, as base64."""
    from fpdf import FPDF

    pdf = FPDF(unit="pt", format="A4")
    pdf.set_font("helvetica", size=14)
    for number in range(1, PAGES + 1):
        pdf.add_page()
        pdf.cell(text=f"A page of the bench document, page {number}")
    return base64.b64encode(bytes(pdf.output())).decode()


async def weigh(session: aiohttp.ClientSession, base_url: str, path: str) -> dict[str, int]:
    async def size(url: str) -> tuple[int, str]:
        async with session.get(base_url + url, headers={"Accept": "text/html"}) as response:
            body = await response.read()
            if response.status != 200:
                raise RuntimeError(f"GET {url} answered {response.status}")
            return len(body), body.decode(errors="replace")

    html_bytes, html = await size(path)
    weights = {"HTML": html_bytes, "JS": 0, "CSS": 0}
    scripts = re.findall(r'<script type="module" src="([^"]+)"', html)
    seen: set[str] = set()
    while scripts:
        script = scripts.pop()
        if script in seen:
            continue
        seen.add(script)
        length, text = await size(script)
        weights["JS"] += length
        scripts += [script.rsplit("/", 1)[0] + "/" + name for name in re.findall(r'from "\./([\w.-]+)"', text)]
    for sheet in re.findall(r'<link rel="stylesheet" href="([^"]+)"', html):
        weights["CSS"] += (await size(sheet))[0]
    if image := re.search(r'<img src="(/file/[^"]+)"', html):
        weights["first page image"] = (await size(image.group(1)))[0]
    return weights


def bare(html: bytes, seconds: int) -> Figures:
    with servers.temp_dir() as workdir:
        (workdir / "page.html").write_bytes(html)
        with servers.running(
            "bare", [sys.executable, "-c", BARE_PAGE, str(workdir / "page.html")], servers.server_env(None), workdir
        ) as server:
            return measure(f"{server.base_url}/page", f"{server.base_url}/api/user", server.pid, seconds)


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--page", choices=("signing", "clickwrap"), default="signing")
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--skip-postgres", action="store_true")
    options = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed (Debian: apt-get install wrk)")
    print(report.machine_line())
    rows: dict[str, Figures] = {}
    html = b""
    for kind in ["sqlite"] + ([] if options.skip_postgres else ["postgres"]):
        with servers.signsvc_on(kind, "bench_pages", f"signsvc {kind}") as server:
            path, weights = asyncio.run(prepare(server.base_url, options.page))
            if not html:
                html = asyncio.run(_fetch(server.base_url + path))
                print_weights(options.page, weights)
            report.progress(f"measuring signsvc {kind}")
            rows[f"signsvc {kind}"] = measure(
                server.base_url + path, f"{server.base_url}/api/user", server.pid, options.seconds
            )
    report.progress("measuring bare aiohttp")
    ceiling = bare(html, options.seconds)
    print_figures(options.page, {"bare aiohttp": ceiling, **rows}, ceiling)


async def _fetch(url: str) -> bytes:
    async with aiohttp.ClientSession() as session, session.get(url, headers={"Accept": "text/html"}) as response:
        return await response.read()


def print_weights(page: str, weights: dict[str, int]) -> None:
    before_images = weights["HTML"] + weights["JS"] + weights["CSS"]
    what = f"a {PAGES}-page document's signing page" if page == "signing" else "the clickwrap page"
    print(f"\nPage weight of {what} (bytes as served, uncompressed):")
    totals = [["before page images (goal < 300)", f"{before_images / 1024:.1f}"]]
    if "first page image" in weights:
        totals.append(["with the first page image", f"{(before_images + weights['first page image']) / 1024:.1f}"])
    report.print_table(["part", "KB"], [[name, f"{size / 1024:.1f}"] for name, size in weights.items()] + totals)


def print_figures(page: str, rows: dict[str, Figures], ceiling: Figures) -> None:
    print(
        f"\n{page.capitalize()} page: time to first byte at 1 connection, views at {SIGNERS} connections; "
        f"GET /api/user at {API_CONNECTIONS} connections, alone and while {SIGNERS} connections load pages"
    )
    report.print_table(
        [
            "target",
            "TTFB p50 ms",
            "p99 ms",
            "views/s",
            "x ceiling",
            "CPU ms/view",
            "x ceiling",
            "api p99 alone ms",
            "api p99 loaded ms",
            "errors",
        ],
        [
            [
                name,
                f"{f.ttfb.p50_ms:.2f}",
                f"{f.ttfb.p99_ms:.2f}",
                f"{f.views.requests_per_second:.0f}",
                report.ratio(f.views.requests_per_second, ceiling.views.requests_per_second),
                f"{f.cpu_ms_per_view:.2f}",
                report.ratio(f.cpu_ms_per_view, ceiling.cpu_ms_per_view),
                f"{f.api_alone.p99_ms:.2f}",
                f"{f.api_loaded.p99_ms:.2f}",
                str(f.ttfb.errors + f.views.errors + f.api_alone.errors + f.api_loaded.errors),
            ]
            for name, f in rows.items()
        ],
    )


if __name__ == "__main__":
    main()
