"""A machine without system fonts (a slim container image): `python run.py` with /usr/share/fonts hidden by a
mount namespace (a tmpfs over it) starts with the project's virtual environment alone, and completes a submission
whose signers write in Japanese, Arabic and Hebrew; the signed document and the audit log name them, read back by
pdftotext. The fonts are Python packages (tests/pdf/test_right_to_left.py checks they are install requirements),
so this shows that a `pip install` brings everything the documents need."""

import asyncio
import os
import shutil
import subprocess
import time
from urllib.parse import urlsplit

import aiohttp
import pytest

from tests.support import service
from tests.support.documents import b64, pdf
from tests.support.pdf_text import pdftotext
from tests.support.system import required

KEY = "no-system-fonts-key-000000000000000000000000"
SIGNERS = ["山田 太郎", "محمد", "דוד"]
FONTS = "/usr/share/fonts"
# Runs the server in a mount namespace of its own (private: nothing leaks out) with a tmpfs over the fonts.
HIDDEN = (
    "unshare",
    "--mount",
    "--propagation",
    "private",
    "--",
    "sh",
    "-c",
    f'if [ -d {FONTS} ]; then mount -t tmpfs -o size=1m tmpfs {FONTS} || exit 97; fi; exec "$@"',
    "sh",
)


def can_hide_fonts() -> str | None:
    """Why a mount namespace can't be made here, or None when it can."""
    if not shutil.which("unshare") or not shutil.which("pdftotext"):
        return "needs unshare (util-linux) and pdftotext (poppler-utils)"
    done = subprocess.run([*HIDDEN, "true"], capture_output=True, text=True, timeout=30)
    return None if done.returncode == 0 else f"unshare --mount is not permitted here: {done.stderr.strip()}"


@pytest.fixture
def hidden_fonts():
    if reason := can_hide_fonts():
        if required():
            pytest.fail(reason)
        pytest.skip(reason)


async def test_a_server_without_system_fonts_signs_documents_for_signers_in_any_script(hidden_fonts, tmp_path):
    server = await service.start(
        prefix=HIDDEN,
        SIGNSVC_DATABASE_URL=f"sqlite:///{tmp_path / 'signsvc.db'}",
        SIGNSVC_DATA_DIR=str(tmp_path / "data"),
        SIGNSVC_API_KEY=KEY,
        SIGNSVC_RATE_LIMIT_PER_KEY="0",
        SIGNSVC_RATE_LIMIT_PER_IP="0",
    )
    try:
        # What the server's own mount namespace shows (the process is the server: `sh` exec'd it).
        assert os.listdir(f"/proc/{server.process.pid}/root{FONTS}") == []
        async with aiohttp.ClientSession(headers={"X-Auth-Token": KEY}) as session:
            async with session.get(f"{server.site}/health") as reply:
                assert {"Latin", "Arabic", "Hebrew", "CJK"} <= set((await reply.json())["scripts"])
            found = await completed(session, server.api)
            document = await download(session, server.site, found["documents"][0]["url"])
            audit_log = await download(session, server.site, found["audit_log_url"])
    finally:
        assert await server.stop() == 0
    signed, audit = " ".join(pdftotext(document).split()), " ".join(pdftotext(audit_log).split())
    for name in SIGNERS:
        assert name in signed, name
        assert f"Name {name}" in audit, name
    assert "no installed font" not in audit


async def completed(session: aiohttp.ClientSession, api: str) -> dict:
    """A submission of a template with a name field per signer, every signer completed with their name."""
    roles = [f"Party {number}" for number in range(1, len(SIGNERS) + 1)]
    fields = [
        {
            "name": f"Name {number}",
            "type": "text",
            "role": role,
            "areas": [{"x": 0.1, "y": 0.1 * number, "w": 0.5, "h": 0.05, "page": 1}],
        }
        for number, role in enumerate(roles, 1)
    ]
    async with session.post(
        f"{api}/templates", json={"name": "NDA", "documents": [{"name": "nda", "file": b64(pdf()), "fields": fields}]}
    ) as reply:
        assert reply.status == 201, await reply.text()
        template_id = (await reply.json())["id"]
    submitters = [
        {
            "role": role,
            "name": name,
            "email": f"signer{number}@example.com",
            "completed": True,
            "values": {f"Name {number}": name},
        }
        for number, (role, name) in enumerate(zip(roles, SIGNERS, strict=True), 1)
    ]
    async with session.post(f"{api}/submissions", json={"template_id": template_id, "submitters": submitters}) as reply:
        assert reply.status == 200, await reply.text()
        submission_id = (await reply.json())[0]["submission_id"]
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        async with session.get(f"{api}/submissions/{submission_id}") as reply:
            found = await reply.json()
        if found.get("audit_log_url"):
            return found
        await asyncio.sleep(0.2)
    raise AssertionError(f"no audit log within 120 s: {found}")


async def download(session: aiohttp.ClientSession, site: str, url: str) -> bytes:
    parts = urlsplit(url)
    async with session.get(site + parts.path + (f"?{parts.query}" if parts.query else "")) as reply:
        assert reply.status == 200, url
        return await reply.read()
