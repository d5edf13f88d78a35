"""A key holder's template cannot stall the server through its fields' patterns: 1,000 text fields with the
pattern (a|aa)+, exponential in a backtracking engine on "a" * 40 + "!", and signer saves of that text in
every field, while /health keeps answering within a second (the issue measured 63 s of a blocked process);
nor can a template of 1,000 costly patterns, each new, compiled off the event loop within one budget."""

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

import aiohttp

from tests.support import service
from tests.support.documents import b64, pdf

KEY = "live-key-of-the-pattern-stall"
FIELDS = 1000
HEALTH_SECONDS = 1  # the longest /health may take to answer at any moment of the test
SAVES = 5  # rounds of two saves at once; each took the server a minute


def template_body() -> dict:
    area = {"x": 0.1, "y": 0.1, "w": 0.2, "h": 0.02, "page": 1}
    return {
        "name": "Codes",
        "documents": [
            {
                "name": "codes",
                "file": b64(pdf()),
                "fields": [
                    {
                        "name": f"Code {n}",
                        "type": "text",
                        "role": "Signer",
                        "required": False,
                        "areas": [area],
                        "validation": {"pattern": "(a|aa)+", "message": "Only a"},
                    }
                    for n in range(FIELDS)
                ],
            }
        ],
    }


@contextlib.asynccontextmanager
async def health_timed(session: aiohttp.ClientSession, site: str) -> AsyncIterator[list[float]]:
    """How long each /health call took while the block ran, polled one after another."""
    async with session.get(f"{site}/health") as health:  # the connection made, outside the count
        assert health.status == 200
    waits: list[float] = []
    done = asyncio.Event()

    async def watch() -> None:
        while not done.is_set():
            started = time.monotonic()
            async with asyncio.timeout(HEALTH_SECONDS + 1), session.get(f"{site}/health") as health:
                assert health.status == 200
            waits.append(time.monotonic() - started)
            await asyncio.sleep(0.02)

    watching = asyncio.create_task(watch())
    try:
        yield waits
    finally:
        done.set()
        await watching


async def test_signer_saves_against_backtracking_patterns_never_stall_health(database_url, tmp_path):
    server = await service.start(
        SIGNSVC_DATABASE_URL=database_url,
        SIGNSVC_DATA_DIR=str(tmp_path / "data"),
        SIGNSVC_API_KEY=KEY,
        SIGNSVC_RATE_LIMIT_PER_KEY="0",
        SIGNSVC_RATE_LIMIT_PER_IP="0",
    )
    try:
        async with aiohttp.ClientSession(headers={"X-Auth-Token": KEY}) as session:
            async with session.post(f"{server.api}/templates", json=template_body()) as reply:
                assert reply.status == 201, await reply.text()
                template_id = (await reply.json())["id"]
            async with session.post(
                f"{server.api}/submissions",
                json={
                    "template_id": template_id,
                    "send_email": False,
                    "submitters": [{"role": "Signer", "email": "sam@example.com"}],
                },
            ) as reply:
                assert reply.status == 200, await reply.text()
                slug = (await reply.json())[0]["slug"]

            async def save(text: str) -> tuple[int, dict]:
                values = {f"Code {n}": text for n in range(FIELDS)}
                async with session.post(
                    f"{server.site}/s/{slug}/values", json={"values": values}, headers={"X-Auth-Token": ""}
                ) as reply:
                    return reply.status, await reply.json()

            async with health_timed(session, server.site) as waits:
                refused = [
                    answer
                    for _ in range(SAVES)
                    for answer in await asyncio.gather(save("a" * 40 + "!"), save("a" * 40 + "!"))
                ]
                # Within the budget but too costly for the loop: checked in a thread.
                saved = await save("a" * 500)
        assert refused == [(422, {"error": "Code 0: Only a"})] * SAVES * 2 and saved[0] == 200
        assert len(waits) >= 3 and max(waits) < HEALTH_SECONDS, waits
    finally:
        await server.stop()


async def test_a_template_of_many_costly_new_patterns_never_stalls_health(database_url, tmp_path):
    # 1,000 different patterns near the program limit: about 15 ms each to compile, 15 s compiled on the loop.
    body = template_body()
    for n, found in enumerate(body["documents"][0]["fields"]):
        found["validation"]["pattern"] = rf"\p{{L}}{{20}}{n}"
    server = await service.start(
        SIGNSVC_DATABASE_URL=database_url,
        SIGNSVC_DATA_DIR=str(tmp_path / "data"),
        SIGNSVC_API_KEY=KEY,
        SIGNSVC_RATE_LIMIT_PER_KEY="0",
        SIGNSVC_RATE_LIMIT_PER_IP="0",
    )
    try:
        async with (
            aiohttp.ClientSession(headers={"X-Auth-Token": KEY}) as session,
            health_timed(session, server.site) as waits,
        ):
            answers = []
            for _ in range(3):
                async with session.post(f"{server.api}/templates", json=body) as reply:
                    answers.append((reply.status, await reply.json()))
        assert (
            answers
            == [
                (
                    422,
                    {
                        "error": "fields have too many costly patterns to read in one request: send "
                        "fewer or simpler patterns"
                    },
                )
            ]
            * 3
        )
        assert len(waits) >= 3 and max(waits) < HEALTH_SECONDS, waits
    finally:
        await server.stop()
