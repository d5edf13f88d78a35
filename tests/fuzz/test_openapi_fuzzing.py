"""The OpenAPI document as a contract a fuzzer can use: schemathesis, run against `python run.py` with the
testing extension on, finds no server error, no answer outside the document, no valid request refused and
no invalid one accepted; every operation answers a valid request, and the stateful phase follows the
document's links from what one answer makes to the requests on it.

Settings (fixed seed, examples per operation) are in schemathesis.toml, hooks in hooks.py (this folder).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from signsvc.app import OPENAPI_PATH
from tests.support import service
from tests.support.paths import ROOT

KEY = "fuzz-key-000000000000000000000000"
SCHEMATHESIS = Path(sys.executable).with_name("st")
CONFIG = ROOT / "tests" / "fuzz" / "schemathesis.toml"


async def test_schemathesis_finds_nothing_and_every_operation_answers(database_url, tmp_path):
    server = await service.start(
        SIGNSVC_DATABASE_URL=database_url, SIGNSVC_DATA_DIR=str(tmp_path / "data"), SIGNSVC_TESTING="1",
        SIGNSVC_API_KEY=KEY, SIGNSVC_RATE_LIMIT_PER_KEY="0", SIGNSVC_RATE_LIMIT_PER_IP="0",
        SIGNSVC_WEBHOOK_TIMEOUT_SECONDS="1")
    calls = tmp_path / "calls.jsonl"
    try:
        fuzzer = await asyncio.create_subprocess_exec(
            SCHEMATHESIS, "--config-file", CONFIG, "--no-color", "run", f"{server.site}/openapi.json",
            "--header", f"X-Auth-Token: {KEY}", cwd=ROOT, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env={**os.environ, "SCHEMATHESIS_HOOKS": "tests.fuzz.hooks", "SIGNSVC_FUZZ_LOG": str(calls),
                 "SIGNSVC_FUZZ_API": server.api, "SIGNSVC_FUZZ_KEY": KEY})
        output = (await asyncio.wait_for(fuzzer.communicate(), 600))[0].decode()
    finally:
        await server.stop()
    assert fuzzer.returncode == 0, output[-8000:]
    answered = _answered(calls)
    assert [operation for operation in _operations() if not answered.get(operation)] == [], output[-3000:]
    # The links yield usable ids: most operations on a record are reached with one a scenario made.
    by_links = [operation for operation in _operations(with_id=True) if answered.get(operation, {}).get("stateful")]
    assert len(by_links) >= len(_operations(with_id=True)) / 2, by_links


def _answered(calls: Path) -> dict[str, dict[str, int]]:
    """Per operation and phase, how many requests got a 2xx answer."""
    answered: dict[str, dict[str, int]] = {}
    for call in map(json.loads, calls.read_text().splitlines()):
        if 200 <= call["status"] < 300:
            phases = answered.setdefault(call["operation"], {})
            phases[call["phase"]] = phases.get(call["phase"], 0) + 1
    return answered


def _operations(*, with_id: bool = False) -> list[str]:
    document = json.loads(OPENAPI_PATH.read_text())
    return [operation["operationId"] for path, item in document["paths"].items() for method, operation in item.items()
            if method != "parameters" and (not with_id or "{" in path)]
