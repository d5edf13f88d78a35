"""Bulk send against one request each: creating --rows submissions from one CSV file through the console, and
the same number through `POST /api/submissions`, one request after another from a local client, on the same
server in the same run.

Per database (a fresh SQLite file, then a fresh Postgres schema unless --skip-postgres), one after another:
signsvc (`python run.py --port 0`, limits lifted, no SMTP server: invitations are kept in the outbox, which both
ways do alike) gets a template of one role ("Signer", a text field "Full Name"). Then:

1. one each: --rows `POST /api/submissions` with one signer (an address and a name) and the field's value, back
   to back from one aiohttp client with a keep-alive connection; every answer must be 200;
2. bulk: the console, signed in as the admin user (a setup link from `run.py users setup-link`, a password
   set), posts a CSV of --rows rows (Email, Name, Full Name) from the template's send page, then posts the mapping
   page back with "Send"; the first must answer 200 (every row checked, none refused), the second 303 (every
   submission made). Counted from the upload to the second answer; the send alone is printed too.

Printed per database: each way's seconds and submissions a second, and the ratio bulk / one each (the target is
at most 2). Both ways make the same rows: one submission, one signer with a value, one invitation each.

    python bench/bulk.py [--rows 1000] [--skip-postgres]
"""

from __future__ import annotations

import argparse
import asyncio
import html
import re
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
from harness import servers
from harness.client import api_session, create_template
from harness.databases import fresh_database, kinds, require_postgres
from harness.samples import one_page_template

ADMIN = "admin@example.com"
PASSWORD = "bench password, long enough"
CSRF = re.compile(r'name="csrf" value="([^"]+)"')


async def one_each(session: aiohttp.ClientSession, base_url: str, template_id: int, rows: int) -> float:
    """Seconds for `rows` POST /api/submissions, one after another."""
    started = time.perf_counter()
    for row in range(rows):
        body = {
            "template_id": template_id,
            "submitters": [{"email": f"one{row}@example.com", "name": f"One {row}", "values": {"Full Name": "N"}}],
        }
        async with session.post(f"{base_url}/api/submissions", json=body) as response:
            if response.status != 200:
                raise RuntimeError(f"POST /api/submissions answered {response.status}: {await response.text()}")
    return time.perf_counter() - started


async def bulk(console: aiohttp.ClientSession, base_url: str, template_id: int, rows: int) -> tuple[float, float]:
    """Seconds for the upload and the send of a file of `rows` rows, and for the send alone."""
    csv = "Email,Name,Full Name\n" + "".join(f"bulk{row}@example.com,Bulk {row},N\n" for row in range(rows))
    csrf = await csrf_of(console, f"{base_url}/console/templates/{template_id}/send")
    started = time.perf_counter()
    upload = aiohttp.FormData()
    upload.add_field("csrf", csrf)
    upload.add_field("file", csv.encode(), filename="signers.csv", content_type="text/csv")
    async with console.post(f"{base_url}/console/templates/{template_id}/bulk", data=upload) as response:
        page = await response.text()
        if response.status != 200:
            raise RuntimeError(f"the upload answered {response.status}: {page[:500]}")
    sending = time.perf_counter()
    posted = aiohttp.FormData(default_to_multipart=True)
    for name, value in {**mapping_of(page), "csrf": CSRF.search(page).group(1), "send": "1"}.items():
        posted.add_field(name, value)
    url = f"{base_url}/console/templates/{template_id}/bulk"
    async with console.post(url, data=posted, allow_redirects=False) as response:
        if response.status != 303:
            raise RuntimeError(f"the send answered {response.status}: {(await response.text())[:500]}")
    done = time.perf_counter()
    return done - started, done - sending


def mapping_of(page: str) -> dict[str, str]:
    """The mapping page's table and each column's chosen target, as a browser posts them back."""
    found = {"table": html.unescape(re.search(r'name="table" value="([^"]*)"', page).group(1))}
    for column, options in re.findall(r'<select id="(column-\d+)"[^>]*>(.*?)</select>', page, re.DOTALL):
        chosen = re.search(r'<option value="([^"]*)" selected>', options)
        found[column] = html.unescape(chosen.group(1)) if chosen else ""
    return found


async def csrf_of(console: aiohttp.ClientSession, url: str) -> str:
    async with console.get(url) as response:
        page = await response.text()
    if response.status != 200 or not (found := CSRF.search(page)):
        raise RuntimeError(f"GET {url} answered {response.status} without a form")
    return found.group(1)


async def signed_in(base_url: str, url: str, workdir: Path) -> aiohttp.ClientSession:
    """A console session of the admin user: a setup link from the command line, then a password."""
    command = [sys.executable, str(servers.RUN_PY), "users", "setup-link", ADMIN]
    printed = subprocess.run(command, env=servers.signsvc_env(url), cwd=workdir, capture_output=True, text=True)
    link = re.search(r"(/console/setup/\S+)", printed.stdout)
    if link is None:
        raise RuntimeError(f"no setup link: {printed.stdout} {printed.stderr}")
    console = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
    csrf = await csrf_of(console, base_url + link.group(1))
    form = {"csrf": csrf, "password": PASSWORD, "confirmation": PASSWORD}
    async with console.post(base_url + link.group(1), data=form, allow_redirects=False) as response:
        if response.status != 303:
            raise RuntimeError(f"setting the password answered {response.status}")
    return console


async def measure(server: servers.Server, url: str, workdir: Path, rows: int) -> dict[str, float]:
    body = one_page_template("Bench letter", "letter", [("Full Name", "Signer", 0.1)], height=0.05)
    async with api_session(connections=1) as session:
        template_id = (await create_template(session, server.base_url, body))["id"]
        await asyncio.sleep(1.0)  # the PDF pool, warmed after the ready line and used by the template, settles
        each = await one_each(session, server.base_url, template_id, rows)
    console = await signed_in(server.base_url, url, workdir)
    try:
        whole, send = await bulk(console, server.base_url, template_id, rows)
    finally:
        await console.close()
    return {"one_each": each, "bulk": whole, "send": send}


def run(kind: str, rows: int) -> dict[str, float]:
    with (
        servers.temp_dir() as workdir,
        fresh_database(kind, workdir, "bench_bulk") as url,
        servers.running(kind, servers.signsvc_argv(), servers.signsvc_env(url), workdir) as server,
    ):
        return asyncio.run(measure(server, url, workdir, rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--skip-postgres", action="store_true")
    args = parser.parse_args()
    if not args.skip_postgres:
        require_postgres(parser)
    print(f"{'database':<10} {'way':<28} {'seconds':>8} {'per second':>11}")
    for kind in kinds(args.skip_postgres):
        times = run(kind, args.rows)
        for way, label in (("one_each", "POST /api/submissions each"), ("bulk", "bulk file (upload + send)")):
            print(f"{kind:<10} {label:<28} {times[way]:>8.2f} {args.rows / times[way]:>11.0f}")
        print(f"{kind:<10} {'  of which the send':<28} {times['send']:>8.2f}")
        print(
            f"{kind:<10} {'ratio bulk / one each':<28} {times['bulk'] / times['one_each']:>8.2f}   (target: at most 2)"
        )


if __name__ == "__main__":
    main()
