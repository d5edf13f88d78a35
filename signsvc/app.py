"""The application factory: the one place that builds every part from the configuration and wires it up.

The app starts in two halves, both within its startup (one cleanup context each, opened in order and closed in
reverse). The first opens what the ready line needs and what can stop a start: the database (migrated, with the
default account and its keys), the files, the PDF pool, the checks of the fonts, of a configured signing
certificate and of the webhook settings, and the console setup link. Then `announce` runs: the ready line of
`serve`. The second half (signsvc/assembly.py, imported only then: most of the start's imports are its own)
builds the route table, the downloaders and the office converter, the domain's objects and last the job worker,
which therefore stops first, before anything its jobs use. The app answers its first request once both are done;
a connection made meanwhile waits in the listening socket's backlog.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from aiohttp import web
from aiohttp.typedefs import Middleware

from signsvc.accounts.user_links import UserLinks
from signsvc.http import appkeys, body_budget, some_requests
from signsvc.http.middleware import edge_middleware, holder
from signsvc.http.web.console import shell
from signsvc.infra import secret_key
from signsvc.infra.clock import Clock, ManualClock, SystemClock
from signsvc.infra.config import Config, ConfigError
from signsvc.infra.files import Files
from signsvc.infra.pool import PdfPool
from signsvc.infra.urls import Urls
from signsvc.pdf import font_files
from signsvc.preparation import (
    check_data_dir,
    configure_webhooks,
    open_configured_database,
    prepare,
    webhook_settings_given,
)
from storage import Database
from storage.contents import open_store
from storage.object_store import ObjectStoreError

if TYPE_CHECKING:
    from signsvc.infra import jobs
    from signsvc.infra.downloads import Downloader
    from signsvc.infra.metrics import Metrics
    from signsvc.results.signing_identity import SigningIdentity

log = logging.getLogger(__name__)

OPENAPI_PATH = Path(__file__).parent / "http" / "api" / "openapi.json"
# A public page's link may carry prefilled values (a clickwrap's name, email and reference): a request
# line of up to 64 KiB reaches the page, which clips each value, instead of aiohttp's bare 400 at 8 KiB.
MAX_URL_BYTES = 64 * 1024


def create_app(
    config: Config,
    *,
    clock: Clock | None = None,
    db: Database | None = None,
    pool: PdfPool | None = None,
    downloader: Downloader | None = None,
    background: bool = True,
    job_kinds: list[jobs.Kind] | None = None,
    announce: Callable[[web.Application], None] | None = None,
) -> web.Application:
    """The whole service. `db`, `pool` and `downloader` are used (and left open) when given;
    `background=False` runs no worker loop, for tests that drain jobs themselves. `announce` is called between
    the start's two halves, once nothing the configuration says can stop the start any more (the ready line)."""
    budget = body_budget.BodyBudget(config.body_budget_bytes)
    metrics = _metrics(config)
    app = web.Application(
        middlewares=[
            _edge(metrics),
            some_requests.middleware(shell.middleware, body_budget.middleware(budget, config.max_body_bytes, holder)),
        ],
        client_max_size=config.max_body_bytes,
        handler_args={"max_line_size": MAX_URL_BYTES},
    )
    app[appkeys.OPENAPI] = OPENAPI_PATH.read_bytes()
    app[appkeys.BODY_BUDGET] = budget
    app[appkeys.SETTINGS] = appkeys.Settings(
        Urls(config.site),
        config.trusted_proxies,
        config.max_body_bytes,
        frozenset(filter(None, (config.api_key, config.test_api_key))),
        metrics_token=config.metrics_token,
    )
    if metrics is not None:
        app[appkeys.METRICS] = metrics
    if config.testing:
        clock = clock or ManualClock()
    parts = _Parts(config, clock or SystemClock(), db, pool, downloader, background, job_kinds or [])
    app.cleanup_ctx.append(parts.first_half)
    if announce is not None:
        app.cleanup_ctx.append(_announcing(announce))
    app.cleanup_ctx.append(parts.second_half)
    return app


def _metrics(config: Config) -> Metrics | None:
    """The app's metrics, with SIGNSVC_METRICS_TOKEN only: prometheus_client and what they read are imported then."""
    if not config.metrics_token:
        return None
    from signsvc.infra.metrics import Metrics

    return Metrics()


def _edge(metrics: Metrics | None) -> Middleware:
    """The edge middleware, timed for the metrics when there are some."""
    if metrics is None:
        return edge_middleware
    from signsvc.http.metrics import timed

    return timed(metrics)


def _announcing(
    announce: Callable[[web.Application], None],
) -> Callable[[web.Application], AsyncIterator[None]]:
    """`announce` as a cleanup context of its own, so that it runs between the halves (aiohttp opens the cleanup
    contexts in the order they were added, before any other startup handler)."""

    async def announcing(app: web.Application) -> AsyncIterator[None]:
        announce(app)
        yield

    return announcing


async def open_files(db: Database, clock: Clock, config: Config, urls: Urls) -> Files:
    """The files of a prepared database, in the content store the configuration names (checked: an object store
    that cannot be used is a start error); close them when done."""
    try:
        contents = await open_store(config.content_store, db, config.data_dir)
    except ObjectStoreError as error:
        raise ConfigError(f"SIGNSVC_STORAGE_URL={config.storage_url}: {error}") from None
    return Files(
        db,
        contents,
        clock,
        await secret_key.load(db, config.secret_key),
        urls,
        presigned_links=config.storage_presigned_links,
    )


async def signing_identity(db: Database, clock: Clock, pool: PdfPool, config: Config, secret: str) -> SigningIdentity:
    """The service's signing identity, with the configured PKCS#12 when there is one (else a start error)."""
    from signsvc.infra import pdf_calls  # the PDF engines' calls: imported once needed
    from signsvc.results.signing_identity import SigningIdentity

    identity = SigningIdentity(db, clock, pool, secret, config.site)
    if config.signing_p12:
        try:
            data = Path(config.signing_p12).read_bytes()
        except OSError as error:
            raise ConfigError(f"SIGNSVC_SIGNING_P12={config.signing_p12} can't be read: {error.strerror}") from None
        try:
            await identity.use_p12(data, config.signing_p12_password)
        except pdf_calls.EngineError as error:
            raise ConfigError(f"SIGNSVC_SIGNING_P12={config.signing_p12}: {error}") from None
    return identity


class _Parts:
    """Opens every part in order when the app starts, in two halves, and closes them in reverse when it stops."""

    def __init__(
        self,
        config: Config,
        clock: Clock,
        db: Database | None,
        pool: PdfPool | None,
        downloader: Downloader | None,
        background: bool,
        job_kinds: list[jobs.Kind],
    ) -> None:
        self.config, self.clock, self.given_db, self.given_pool = config, clock, db, pool
        self.given_downloader, self.background, self.job_kinds = downloader, background, job_kinds
        self.opened: _Opened | None = None

    async def first_half(self, app: web.Application) -> AsyncIterator[None]:
        """What the ready line prints and everything that can stop the start."""
        check_data_dir(self.config)
        async with contextlib.AsyncExitStack() as stack:
            db = await self._database(app, stack)
            files = await open_files(db, self.clock, self.config, app[appkeys.SETTINGS].urls)
            stack.push_async_callback(files.close)
            pool = self.given_pool or self._own_pool(stack)
            if (metrics := app.get(appkeys.METRICS)) is not None:
                await stack.enter_async_context(metrics.reading(db, self.clock, pool))
            identity = await self._checked(db, files, pool)
            issued = app[appkeys.ISSUED_KEYS]
            app[appkeys.SETUP_LINK] = (
                await UserLinks(db, self.clock, files.urls).setup_link(issued.user.id) if issued else None
            )
            self.opened = _Opened(db, files, pool, identity)
            yield

    async def _checked(self, db: Database, files: Files, pool: PdfPool) -> SigningIdentity | None:
        """The settings that can stop a start, checked: a text font, a configured PKCS#12 file (answers the
        identity made with it; without one the second half makes it), the configured webhook endpoints (applied;
        without any setting naming them, the second half removes an earlier start's)."""
        config = self.config
        if problem := await asyncio.to_thread(font_files.no_text_font, config.font_dir):
            raise ConfigError(problem)
        identity = None
        if config.signing_p12:
            identity = await signing_identity(db, self.clock, pool, config, files.secret_key)
        if webhook_settings_given(config):
            from signsvc.webhooks.endpoints import WebhookEndpoints

            await configure_webhooks(WebhookEndpoints(db, self.clock, public_only=config.public_webhooks_only), config)
        return identity

    async def second_half(self, app: web.Application) -> AsyncIterator[None]:
        """The route table and the parts that serve requests (signsvc/assembly.py)."""
        from signsvc import assembly

        assert self.opened is not None, "the first half opens what the second uses"
        opened = self.opened
        start = assembly.Start(
            self.config, self.clock, self.given_downloader, self.background, self.job_kinds, self.given_pool is None
        )
        async with contextlib.AsyncExitStack() as stack:
            identity = opened.identity or await signing_identity(
                opened.db, self.clock, opened.pool, self.config, opened.files.secret_key
            )
            await assembly.build(app, stack, start, opened.db, opened.files, opened.pool, identity)
            yield

    async def _database(self, app: web.Application, stack: contextlib.AsyncExitStack) -> Database:
        db = self.given_db or await open_configured_database(self.config, single_process=self.config.workers == 1)
        if self.given_db is None:
            stack.push_async_callback(db.close)
        app[appkeys.DB], app[appkeys.CLOCK] = db, self.clock
        app[appkeys.ISSUED_KEYS] = await prepare(db, self.clock, self.config)
        return db

    def _own_pool(self, stack: contextlib.AsyncExitStack) -> PdfPool:
        # Workers start with the first document, not at start: a service used as a fake in test suites,
        # or never sent a document, should not spend seconds importing PDF code.
        pool = PdfPool()
        stack.callback(pool.close)
        return pool


class _Opened(NamedTuple):
    """What the first half opened, for the second."""

    db: Database
    files: Files
    pool: PdfPool
    identity: SigningIdentity | None  # made by the first half only to check a configured PKCS#12 file


def serving_started(app: web.Application) -> None:
    """Called once the app serves and has said so (its ready line is out): starts working out the fonts' scripts
    and the PDF workers' warm-up, when there is one. A document sent before the workers are warm waits for them."""
    if (scripts := app.get(appkeys.FONT_SCRIPTS)) is not None:
        scripts()
    if (warm_up := app.get(appkeys.PDF_WARM_UP)) is not None:
        warm_up()
