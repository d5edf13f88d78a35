"""The app as the API tests drive it: the default user's keys, the start of the test clock, and an HTTP
client that checks every /api response against the OpenAPI document."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from multidict import CIMultiDictProxy

from tests.support.openapi_check import OpenApiChecker

LIVE_KEY = "live-key-of-the-default-user-0000000000000"
TEST_KEY = "test-key-of-the-default-user-0000000000000"
START = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


@dataclass
class Reply:
    status: int
    headers: CIMultiDictProxy[str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


class Api:
    """Talks HTTP to the app with a key; checks each /api response against the OpenAPI document."""

    checker = OpenApiChecker()

    def __init__(self, client: Any, key: str | None = LIVE_KEY) -> None:
        self.client = client
        self.key = key
        self.app = client.app

    def with_key(self, key: str | None) -> Api:
        return Api(self.client, key)

    async def request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        data: Any = None,
        headers: dict[str, str] | None = None,
        allow_redirects: bool = True,
    ) -> Reply:
        headers = dict(headers or {})
        if self.key is not None:
            headers.setdefault("X-Auth-Token", self.key)
        async with self.client.request(
            method, path, json=json, data=data, headers=headers, allow_redirects=allow_redirects
        ) as response:
            reply = Reply(response.status, response.headers, await response.read())
        if response.url.path == "/api" or response.url.path.startswith("/api/"):
            self.checker.check(method, response.url.path, reply.status, reply.headers, reply.body)
        return reply

    async def get(self, path: str, **kwargs: Any) -> Reply:
        return await self.request("GET", path, **kwargs)

    async def post(self, path: str, **kwargs: Any) -> Reply:
        return await self.request("POST", path, **kwargs)

    async def put(self, path: str, **kwargs: Any) -> Reply:
        return await self.request("PUT", path, **kwargs)

    async def delete(self, path: str, **kwargs: Any) -> Reply:
        return await self.request("DELETE", path, **kwargs)
