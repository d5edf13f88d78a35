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
import tomllib
from pathlib import Path

from signsvc.app import OPENAPI_PATH
from tests.fuzz.records import Api
from tests.support import service
from tests.support.paths import ROOT

KEY = "fuzz-key-000000000000000000000000"
SCHEMATHESIS = Path(sys.executable).with_name("st")
CONFIG = ROOT / "tests" / "fuzz" / "schemathesis.toml"
SEED = tomllib.loads(CONFIG.read_text())["seed"]
# The stateful phase runs in rounds of a time budget each: schemathesis runs suites of scenarios until the budget is
# spent, suite k with the round's seed + k, so a round's path is the same every time, but how far along it the
# budget goes depends on the machine. A round that left an operation unreached on a busy machine is followed by
# another on a path of its own (seeds 1,000 apart), from an empty service; what the rounds reached adds up. On this
# CI machine, running both databases' tests at once, the first round reaches every operation at about half of
# its budget (2,670 of 5,300 requests).
STATEFUL_SECONDS = 150
STATEFUL_ROUNDS = 3
# Operations whose valid cases the stateful phase need not reach: a one-off DOCX submission costs a LibreOffice
# conversion a case and is reached only through a template's link, which the rounds' budgets rarely follow; the
# other phases answer it, and tests/api/test_submissions_docx.py drives it through every rule.
NOT_STATEFUL = {"createSubmissionFromDocx"}


async def test_schemathesis_finds_nothing_and_every_operation_answers(database_url, tmp_path):
    settings = {
        "SIGNSVC_DATABASE_URL": database_url,
        "SIGNSVC_DATA_DIR": str(tmp_path / "data"),
        "SIGNSVC_TESTING": "1",
        "SIGNSVC_API_KEY": KEY,
        "SIGNSVC_RATE_LIMIT_PER_KEY": "0",
        "SIGNSVC_RATE_LIMIT_PER_IP": "0",
        "SIGNSVC_WEBHOOK_TIMEOUT_SECONDS": "1",
    }
    calls = tmp_path / "calls.jsonl"
    await _run(settings, calls, "--phases", "examples,coverage,fuzzing")
    assert [operation for operation in _operations() if not _answered(calls).get(operation)] == []
    # The links reach every operation: each answers a valid request in a scenario.
    for round_ in range(STATEFUL_ROUNDS):
        await _run(
            settings,
            calls,
            "--phases",
            "stateful",
            "--max-time",
            str(STATEFUL_SECONDS),
            "--seed",
            str(SEED + 1000 * round_),
        )
        unreached = [
            operation
            for operation in _operations()
            if operation not in NOT_STATEFUL and not _answered(calls).get(operation, {}).get("stateful")
        ]
        if not unreached:
            break
    assert unreached == []


async def _run(settings: dict[str, str], calls: Path, *arguments: str) -> None:
    """Schemathesis against a server of its own, which it leaves empty: each run starts from an empty service (no
    record, a new process's clock), so that with a fixed seed its scenarios meet the same states every time."""
    server = await service.start(**settings)
    try:
        code, output = await _schemathesis(server, calls, *arguments)
        await asyncio.to_thread(Api(server.api, KEY).call, "POST", "/_testing/reset")
    finally:
        await server.stop()
    assert code == 0, output[-8000:]


async def _schemathesis(server: service.Service, calls: Path, *arguments: str) -> tuple[int, str]:
    fuzzer = await asyncio.create_subprocess_exec(
        SCHEMATHESIS,
        "--config-file",
        CONFIG,
        "--no-color",
        "run",
        f"{server.site}/openapi.json",
        "--header",
        f"X-Auth-Token: {KEY}",
        *arguments,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env={
            **os.environ,
            "SCHEMATHESIS_HOOKS": "tests.fuzz.hooks",
            "SIGNSVC_FUZZ_LOG": str(calls),
            "SIGNSVC_FUZZ_API": server.api,
            "SIGNSVC_FUZZ_KEY": KEY,
        },
    )
    output = (await asyncio.wait_for(fuzzer.communicate(), 900))[0].decode()
    assert fuzzer.returncode is not None
    with calls.with_name("schemathesis.log").open("a") as log:  # the whole report; the failure shows its end
        log.write(output)
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
    return [
        operation["operationId"]
        for item in document["paths"].values()
        for method, operation in item.items()
        if method != "parameters"
    ]
