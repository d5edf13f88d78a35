"""The pages' templates load with the first page: Jinja2 and aiohttp-jinja2 cost no start time."""

import asyncio
import sys

from tests.support import service
from tests.support.paths import ROOT

# A service started as `serve` starts it (create_app, then the app's startup), then its home page.
PROGRAM = """
import sys, urllib.request
from signsvc.testing import running
def loaded():
    return sorted(m for m in ("aiohttp_jinja2", "jinja2") if m in sys.modules)
with running() as started:
    print(loaded())
    with urllib.request.urlopen(started.url + "/") as response:
        print(response.status, response.headers["Content-Security-Policy"] is not None, loaded())
"""


async def test_jinja2_is_loaded_by_the_first_page_and_not_before_the_service_is_ready():
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", PROGRAM, cwd=ROOT, env=service.environment(), stdout=asyncio.subprocess.PIPE
    )
    out, _ = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0
    assert out.decode().splitlines()[-2:] == ["[]", "200 True ['aiohttp_jinja2', 'jinja2']"]
