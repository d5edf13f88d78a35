"""One access-log line per request: method, path, status, duration, account; never the key."""

from __future__ import annotations

import logging

from aiohttp import web
from aiohttp.abc import AbstractAccessLogger

from signsvc.http.middleware import account_id


class AccessLogger(AbstractAccessLogger):
    @property
    def enabled(self) -> bool:
        return self.logger.isEnabledFor(logging.INFO)

    def log(self, request: web.BaseRequest, response: web.StreamResponse, time: float) -> None:
        account = account_id(request) if isinstance(request, web.Request) else None
        self.logger.info("%s %s %s %.1fms account=%s", request.method, request.path, response.status,
                         time * 1000, account if account is not None else "-")
