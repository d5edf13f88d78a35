"""`GET /metrics` for a Prometheus scraper holding SIGNSVC_METRICS_TOKEN (routed only when it is set), and the edge
middleware timed for the request metrics (in its place only then: without metrics a request's path is as it was)."""

from __future__ import annotations

import hmac
import time

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

from signsvc.http.appkeys import METRICS, SETTINGS
from signsvc.http.middleware import edge_middleware
from signsvc.http.responses import error_response
from signsvc.infra import errors
from signsvc.infra.metrics import Metrics

# A request that matched no route (a 404 or 405) is counted under one label: paths are unbounded.
UNMATCHED = "unmatched"
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


async def show(request: web.Request) -> web.Response:
    if not _bearer_holds_the_token(request):
        return error_response(401, errors.NotAuthenticated.message, {"WWW-Authenticate": 'Bearer realm="metrics"'})
    metrics = request.app[METRICS]
    return web.Response(body=await metrics.exposition(), headers={"Content-Type": metrics.content_type})


def _bearer_holds_the_token(request: web.Request) -> bool:
    scheme, _, credentials = request.headers.get("Authorization", "").strip().partition(" ")
    token = request.app[SETTINGS].metrics_token or ""
    # In constant time: how much of a guess matched must not show in how long the answer takes.
    matches = hmac.compare_digest(credentials.strip().encode("utf-8", "surrogatepass"), token.encode())
    return scheme.lower() == "bearer" and bool(token) and matches


def timed(metrics: Metrics) -> Middleware:
    """The edge middleware, each request counted and timed by its route's template (`/api/templates/{id}`, never
    the path), method and status. A wrapper rather than a branch inside: the edge stays as it is without metrics."""
    served = metrics.served

    @web.middleware
    async def timed_edge(request: web.Request, handler: Handler) -> web.StreamResponse:
        started = time.perf_counter()
        try:
            response = await edge_middleware(request, handler)
        except web.HTTPException as exc:  # a redirect, which the edge passes on
            served(_route(request), _method(request), exc.status, time.perf_counter() - started)
            raise
        served(_route(request), _method(request), response.status, time.perf_counter() - started)
        return response

    return timed_edge


def _route(request: web.Request) -> str:
    resource = request.match_info.route.resource
    return resource.canonical if resource is not None else UNMATCHED


def _method(request: web.Request) -> str:
    return request.method if request.method in _METHODS else "other"
