"""Typed keys of what the application object holds."""

from __future__ import annotations

from aiohttp import web

from signsvc.accounts.accounts import IssuedKeys
from signsvc.templates.documents import Ingest
from signsvc.infra.jobs import Worker
from signsvc.infra.services import Services
from signsvc.webhooks.delivery import Deliverer

SERVICES = web.AppKey("services", Services)
WORKER = web.AppKey("worker", Worker)
ISSUED_KEYS = web.AppKey("issued_keys", IssuedKeys)
OPENAPI = web.AppKey("openapi", bytes)
INGEST = web.AppKey("ingest", Ingest)
DELIVERER = web.AppKey("deliverer", Deliverer)
RESULTS = web.AppKey("results", "Results")
