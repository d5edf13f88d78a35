"""The application factory: everything a process needs, opened and closed by cleanup contexts."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import AsyncIterator

import aiohttp_jinja2
import jinja2
from aiohttp import web

import pages
from signsvc.infra import jobs
from signsvc.infra import mail
from signsvc.accounts import maintenance
from signsvc.http import routes
from signsvc.infra import secret_key as site_secret
from signsvc.submissions import submissions
from signsvc.webhooks import payloads as webhook_payloads
from signsvc.webhooks import endpoints as webhooks
from signsvc.http.middleware import api_middleware, errors_middleware
from signsvc.http.appkeys import DELIVERER, INGEST, ISSUED_KEYS, OPENAPI, RESULTS, SERVICES, WORKER
from signsvc.infra.clock import Clock, SystemClock
from signsvc.infra.config import Config
from signsvc.templates.documents import Ingest
from signsvc.infra.downloads import Downloader
from signsvc.infra.files import Files
from signsvc.infra.office import OfficeConverter
from signsvc.infra.pool import PdfPool
from signsvc.results.produce import Results
from signsvc.infra.services import Services
from signsvc.startup import prepare
from signsvc.webhooks.delivery import Deliverer
from storage import Database, open_database
from storage.contents import DatabaseStore, DirectoryStore

OPENAPI_PATH = Path(__file__).parent / "http" / "api" / "openapi.json"


def create_app(config: Config, *, clock: Clock | None = None, db: Database | None = None,
               pool: PdfPool | None = None, downloader: Downloader | None = None, background: bool = True,
               job_kinds: list[jobs.Kind] | None = None) -> web.Application:
    """The whole service. `db`, `pool` and `downloader` are used (and left open) when given;
    `background=False` runs no worker loop, for tests that drain jobs themselves."""
    app = web.Application(middlewares=[errors_middleware, api_middleware], client_max_size=config.max_body_bytes)
    app[OPENAPI] = OPENAPI_PATH.read_bytes()
    aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(pages.TEMPLATES_DIR), autoescape=True)
    routes.setup(app)
    app[DELIVERER] = deliverer = Deliverer(config, webhook_payloads.SERIALIZERS)
    app[RESULTS] = results = Results(warm=background and pool is None)
    kinds = (maintenance.KINDS + mail.KINDS + submissions.KINDS + deliverer.kinds + results.kinds
             + (job_kinds or []))
    app.cleanup_ctx.append(_services(config, clock or SystemClock(), db))
    app.cleanup_ctx.append(deliverer.context)
    app.cleanup_ctx.append(_ingest(config, pool, downloader))
    app.cleanup_ctx.append(results.context)
    app.cleanup_ctx.append(_worker(kinds, background))  # last: it stops first, before what its jobs use
    return app


def _services(config: Config, clock: Clock, given: Database | None):
    async def context(app: web.Application) -> AsyncIterator[None]:
        db = given or await open_database(config.database_url)
        try:
            app[ISSUED_KEYS] = await prepare(db, clock, config)
            # Only a serving process applies SIGNSVC_WEBHOOK_URL: a management command run from a shell
            # without it must not remove the endpoint the server was started with.
            await webhooks.configure(db, clock, config)
            app[SERVICES] = await services(db, clock, config)
            yield
        finally:
            if given is None:
                await db.close()

    return context


async def services(db: Database, clock: Clock, config: Config) -> Services:
    """What domain code and job handlers share, on a prepared database."""
    secret_key = await site_secret.load(db, config.secret_key)
    contents = DatabaseStore(db) if config.files_in_database else DirectoryStore(Path(config.data_dir) / "files")
    return Services(db, clock, config, secret_key, Files(db, contents, clock, secret_key, config.site))


def _worker(kinds: list[jobs.Kind], background: bool):
    async def context(app: web.Application) -> AsyncIterator[None]:
        services = app[SERVICES]
        worker = jobs.Worker(services.db, services.clock, kinds, services)
        app[WORKER] = worker
        await jobs.schedule_periodic(services.db, services.clock, kinds)
        if background:
            await worker.start()
        yield
        if background:
            await worker.stop()

    return context


def _ingest(config: Config, pool: PdfPool | None, downloader: Downloader | None):
    async def context(app: web.Application) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            if pool is None:
                # Workers start with the first document, not at start: a service used as a fake in
                # test suites, or never sent a document, should not spend seconds importing PDF code.
                stack.callback((own_pool := PdfPool()).close)
            if downloader is None:
                own_downloader = await stack.enter_async_context(Downloader(
                    max_bytes=config.max_body_bytes, allow_private=config.allow_private_downloads))
            office = await stack.enter_async_context(OfficeConverter())
            app[INGEST] = Ingest(pool or own_pool, office, downloader or own_downloader, config.font_dir)
            yield

    return context
