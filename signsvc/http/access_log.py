"""One access-log line per request: method, path, status, duration, account; never the key, nor more than
the start of a slug or token in the path."""

from __future__ import annotations

import logging

from aiohttp import web
from aiohttp.abc import AbstractAccessLogger

from signsvc.http.middleware import account_id, loggable_path


class AccessLogger(AbstractAccessLogger):
    @property
    def enabled(self) -> bool:
        return self.logger.isEnabledFor(logging.INFO)

    def log(self, request: web.BaseRequest, response: web.StreamResponse, time: float) -> None:
        account = account_id(request) if isinstance(request, web.Request) else None
        self.logger.info(
            "%s %s %s %.1fms account=%s",
            request.method,
            loggable_path(request.path),
            response.status,
            time * 1000,
            account if account is not None else "-",
        )
