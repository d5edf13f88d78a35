"""The OpenAPI document as a contract a fuzzer can use: schemathesis, run against `python run.py` with the
testing extension on, finds no server error, no answer outside the document, no valid request refused and
no invalid one accepted; every operation answers a valid request, and the stateful phase, following the
document's links from what one answer makes to the requests on it, reaches every operation.

Settings (fixed seed, examples per operation) are in schemathesis.toml, hooks in hooks.py (this folder).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from signsvc.app import OPENAPI_PATH
from tests.fuzz.records import Api
from tests.support import service
from tests.support.paths import ROOT

KEY = "fuzz-key-000000000000000000000000"
SCHEMATHESIS = Path(sys.executable).with_name("st")
CONFIG = ROOT / "tests" / "fuzz" / "schemathesis.toml"
# The stateful phase's time budget: schemathesis runs suites of scenarios until it is spent. On a CI machine
# running both databases' tests at once, every operation has answered after about two thirds of it.
STATEFUL_SECONDS = 150


async def test_schemathesis_finds_nothing_and_every_operation_answers(database_url, tmp_path):
    settings = {"SIGNSVC_DATABASE_URL": database_url, "SIGNSVC_DATA_DIR": str(tmp_path / "data"),
                "SIGNSVC_TESTING": "1", "SIGNSVC_API_KEY": KEY, "SIGNSVC_RATE_LIMIT_PER_KEY": "0",
                "SIGNSVC_RATE_LIMIT_PER_IP": "0", "SIGNSVC_WEBHOOK_TIMEOUT_SECONDS": "1"}
    calls = tmp_path / "calls.jsonl"
    server = await service.start(**settings)
    try:
        code, output = await _schemathesis(server, calls, "--phases", "examples,coverage,fuzzing")
        await asyncio.to_thread(Api(server.api, KEY).call, "POST", "/_testing/reset")
    finally:
        await server.stop()
    assert code == 0, output[-8000:]
    # The stateful phase starts from an empty service (no record, a new process's clock), so that with the fixed
    # seed its scenarios meet the same states on every run.
    server = await service.start(**settings)
    try:
        code, output = await _schemathesis(server, calls, "--phases", "stateful", "--max-time", str(STATEFUL_SECONDS))
    finally:
        await server.stop()
    assert code == 0, output[-8000:]
    answered = _answered(calls)
    assert [operation for operation in _operations() if not answered.get(operation)] == [], output[-3000:]
    # The links reach every operation: each answers a valid request in a scenario.
    assert [operation for operation in _operations() if not answered.get(operation, {}).get("stateful")] == [], \
        output[-3000:]


async def _schemathesis(server: service.Service, calls: Path, *arguments: str) -> tuple[int, str]:
    fuzzer = await asyncio.create_subprocess_exec(
        SCHEMATHESIS, "--config-file", CONFIG, "--no-color", "run", f"{server.site}/openapi.json",
        "--header", f"X-Auth-Token: {KEY}", *arguments, cwd=ROOT, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env={**os.environ, "SCHEMATHESIS_HOOKS": "tests.fuzz.hooks", "SIGNSVC_FUZZ_LOG": str(calls),
             "SIGNSVC_FUZZ_API": server.api, "SIGNSVC_FUZZ_KEY": KEY})
    output = (await asyncio.wait_for(fuzzer.communicate(), 600))[0].decode()
    assert fuzzer.returncode is not None
    return fuzzer.returncode, output


def _answered(calls: Path) -> dict[str, dict[str, int]]:
    """Per operation and phase, how many requests got a 2xx answer."""
    answered: dict[str, dict[str, int]] = {}
    for call in map(json.loads, calls.read_text().splitlines()):
        if 200 <= call["status"] < 300:
            phases = answered.setdefault(call["operation"], {})
            phases[call["phase"]] = phases.get(call["phase"], 0) + 1
    return answered


def _operations() -> list[str]:
    document = json.loads(OPENAPI_PATH.read_text())
    return [operation["operationId"] for item in document["paths"].values() for method, operation in item.items()
            if method != "parameters"]
