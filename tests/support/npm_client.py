"""Scripts of tests/npm run with node against the API tier's server: they drive the official npm client."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from tests.support.app import LIVE_KEY
from tests.support.documents import b64, pdf
from tests.support.paths import NPM_DIR


async def run(api: Any, script: str) -> Any:
    """What `tests/npm/<script>` printed as JSON, given the API base without a trailing slash, the key and a PDF."""
    base = f"http://{api.client.host}:{api.client.port}/api"
    node = await asyncio.create_subprocess_exec(
        "node",
        str(NPM_DIR / script),
        base,
        LIVE_KEY,
        b64(pdf()),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(node.communicate(), 60)
    assert node.returncode == 0, err.decode()
    return json.loads(out)
