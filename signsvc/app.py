"""The application factory: the one place that builds every part from the configuration and wires it up.

The parts are opened and closed by one cleanup context, in order: the database, the files, the PDF pool,
the downloader and the office converter, then the domain's objects, and last the job worker, which
therefore stops first, before anything its jobs use.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from pathlib import Path

from aiohttp import web

from signsvc.accounts.accounts import Accounts
from signsvc.accounts.console_users import ConsoleUsers
from signsvc.accounts.key_seal import KeySeal
from signsvc.accounts.rate_limits import PublicCaps, RateLimits
from signsvc.accounts.user_links import UserLinks
from signsvc.clickwraps.certificates import Certificates
from signsvc.clickwraps.clickwraps import Clickwraps
from signsvc.clickwraps.consent_page import ConsentPages
from signsvc.http import appkeys, body_budget, routes, some_requests
from signsvc.http.list_pages import ListPages
from signsvc.http.metrics import timed
from signsvc.http.middleware import edge_middleware, holder
from signsvc.http.web import catalogue, public_forms, rendering, templating
from signsvc.http.web.console import shell
from signsvc.http.web.console.session import Sessions
from signsvc.infra import errors, jobs, pdf_calls, secret_key, smtp
from signsvc.infra.clock import Clock, ManualClock, SystemClock
from signsvc.infra.config import Config, ConfigError
from signsvc.infra.downloads import Downloader
from signsvc.infra.files import Files
from signsvc.infra.form_nonces import FormNonces
from signsvc.infra.kit import Kit
from signsvc.infra.mail import Outbox
from signsvc.infra.metrics import Metrics
from signsvc.infra.office import OfficeConverter
from signsvc.infra.pool import PdfPool
from signsvc.infra.retention import Retention
from signsvc.infra.urls import Urls
from signsvc.pdf import font_files
from signsvc.preparation import check_data_dir, open_configured_database, prepare
from signsvc.results import revocation
from signsvc.results.archive_timestamps import ArchiveTimestamps
from signsvc.results.previews import Previews
from signsvc.results.produce import Producer
from signsvc.results.results import Results
from signsvc.results.revocation import Revocations
from signsvc.results.sealing import Sealer
from signsvc.results.signing_identity import SigningIdentity
from signsvc.submissions.email_verification import EmailCodes
from signsvc.submissions.invitations import Invitations
from signsvc.submissions.one_off import OneOffs
from signsvc.submissions.phone_handoff import PhoneHandoffs
from signsvc.submissions.reminders import Reminders
from signsvc.submissions.signing_form import SigningForms
from signsvc.submissions.submissions import Submissions
from signsvc.submissions.submitters import Submitters
from signsvc.submissions.template_links import TemplateLinks
from signsvc.submissions.verification_passes import Passes
from signsvc.templates.documents import Ingest
from signsvc.templates.page_images import PageImages
from signsvc.templates.templates import Templates
from signsvc.webhooks.delivery import Deliverer, Sender
from signsvc.webhooks.endpoints import WebhookEndpoints
from signsvc.webhooks.payloads import Payloads
from storage import Database
from storage.contents import open_store
from storage.object_store import ObjectStoreError

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
) -> web.Application:
    """The whole service. `db`, `pool` and `downloader` are used (and left open) when given;
    `background=False` runs no worker loop, for tests that drain jobs themselves."""
    budget = body_budget.BodyBudget(config.body_budget_bytes)
    metrics = Metrics() if config.metrics_token else None
    app = web.Application(
        middlewares=[
            timed(metrics) if metrics else edge_middleware,
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
    routes.setup(app)
    templating.setup(
        app, context_processors=[catalogue.context, rendering.context, shell.context, public_forms.context]
    )
    if metrics is not None:
        routes.add_metrics(app)
        app[appkeys.METRICS] = metrics
    if config.testing:
        routes.add_testing(app)
        clock = clock or ManualClock()
    parts = _Parts(config, clock or SystemClock(), db, pool, downloader, background, job_kinds or [])
    app.cleanup_ctx.append(parts.context)
    return app


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


def outbox(db: Database, clock: Clock, files: Files, config: Config) -> Outbox:
    smtp_server = smtp.parse_smtp_url(config.smtp_url) if config.smtp_url else None
    return Outbox(
        db,
        clock,
        files,
        smtp_server=smtp_server,
        sender=config.mail_from,
        per_recipient_hour=config.emails_per_recipient_hour,
    )


def webhook_sender(config: Config) -> Sender:
    return Sender(timeout=config.webhook_timeout_seconds, public_only=config.public_webhooks_only)


async def signing_identity(db: Database, clock: Clock, pool: PdfPool, config: Config, secret: str) -> SigningIdentity:
    """The service's signing identity, with the configured PKCS#12 when there is one (else a start error)."""
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


async def configure_webhooks(endpoints: WebhookEndpoints, config: Config) -> None:
    """`SIGNSVC_WEBHOOK_URL` and its siblings name the default account's configured endpoints. Only a
    serving process applies them: a management command run from a shell without them must not remove the
    endpoint the server was started with."""
    secret = (
        {"header": config.webhook_secret_header, "value": config.webhook_secret}
        if config.webhook_secret_header and config.webhook_secret is not None
        else None
    )
    try:
        warnings = await endpoints.put_configured((config.webhook_url, config.test_webhook_url), secret)
    except errors.Invalid as exc:
        raise ConfigError(f"SIGNSVC_WEBHOOK_* settings: {exc.message}") from None
    for warning in warnings:
        log.warning("SIGNSVC_WEBHOOK_SECRET: %s", warning)


class _Parts:
    """Opens every part in order when the app starts, and closes them in reverse when it stops."""

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

    async def context(self, app: web.Application) -> AsyncIterator[None]:
        check_data_dir(self.config)
        async with contextlib.AsyncExitStack() as stack:
            db = await self._database(app, stack)
            files = await open_files(db, self.clock, self.config, app[appkeys.SETTINGS].urls)
            stack.push_async_callback(files.close)
            pool = self.given_pool or self._own_pool(stack)
            if (metrics := app.get(appkeys.METRICS)) is not None:
                await stack.enter_async_context(metrics.reading(db, self.clock, pool))
            downloader = self.given_downloader or await self._own_downloader(stack)
            office = await stack.enter_async_context(OfficeConverter())
            sender = webhook_sender(self.config)
            stack.push_async_callback(sender.close)
            revocations = Revocations(self.clock, (await self._revocation_downloader(stack)).fetch)
            kinds = await self._domain(
                app, db, files, pool, Ingest(pool, office, downloader, self.config.font_dir), sender, revocations
            )
            await configure_webhooks(app[appkeys.WEBHOOKS], self.config)
            await self._worker(app, stack, db, kinds)
            if self.background and self.given_pool is None and self.config.pdf_warm_up:
                # Started by `serving_started`, after the ready line, not before it: the workers load the PDF
                # libraries, fonts and signing key (about two seconds of CPU, which SIGNSVC_PDF_WARM_UP=false
                # leaves to the first document), and on a busy machine that would delay the start.
                app[_WARM_UP] = warm_up = _WarmUp(pool, app[appkeys.RESULTS].identity, self.config.font_dir)
                stack.callback(warm_up.cancel)
            yield

    async def _database(self, app: web.Application, stack: contextlib.AsyncExitStack) -> Database:
        db = self.given_db or await open_configured_database(self.config, single_process=self.config.workers == 1)
        if self.given_db is None:
            stack.push_async_callback(db.close)
        app[appkeys.DB], app[appkeys.CLOCK] = db, self.clock
        app[appkeys.ISSUED_KEYS] = await prepare(db, self.clock, self.config)
        return db

    async def _own_downloader(self, stack: contextlib.AsyncExitStack) -> Downloader:
        return await stack.enter_async_context(
            Downloader(max_bytes=self.config.max_body_bytes, allow_private=self.config.allow_private_downloads)
        )

    async def _revocation_downloader(self, stack: contextlib.AsyncExitStack) -> Downloader:
        # CRLs are signed and mostly published over plain http; the other download rules hold.
        return await stack.enter_async_context(
            Downloader(
                max_bytes=revocation.MAX_CRL_BYTES,
                timeout=revocation.FETCH_TIMEOUT,
                allow_private=self.config.allow_private_downloads,
                plain_http=True,
            )
        )

    def _own_pool(self, stack: contextlib.AsyncExitStack) -> PdfPool:
        # Workers start with the first document, not at start: a service used as a fake in test suites,
        # or never sent a document, should not spend seconds importing PDF code.
        pool = PdfPool()
        stack.callback(pool.close)
        return pool

    async def _domain(
        self,
        app: web.Application,
        db: Database,
        files: Files,
        pool: PdfPool,
        ingest: Ingest,
        sender: Sender,
        revocations: Revocations,
    ) -> list[jobs.Kind]:
        """Builds the domain's objects, gives the edge the ones it calls; answers every job kind."""
        config, clock = self.config, self.clock
        if problem := await asyncio.to_thread(font_files.no_text_font, config.font_dir):
            raise ConfigError(problem)
        scripts: Callable[[], asyncio.Future[tuple[str, ...]]] = _FontScripts(config.font_dir)
        app[appkeys.FONT_SCRIPTS] = scripts
        mail = outbox(db, clock, files, config)
        invitations = Invitations(db, clock, mail, files.urls)
        app[appkeys.REMINDERS] = reminders = Reminders(db, clock, invitations)
        submitters = Submitters(db, clock, files, ingest, invitations, uploads_limit=config.submitter_uploads_bytes)
        identity = await signing_identity(db, clock, pool, config, files.secret_key)
        await identity.warn_without_crl()
        previews = Previews(db, clock, files, pool, config.font_dir)
        sealer = Sealer(clock, pool, identity, config.tsa_url, revocations)
        archive_timestamps = ArchiveTimestamps(db, clock, files, pool, sealer)
        producer = Producer(db, clock, files, pool, sealer, mail, config.font_dir)
        certificates = Certificates(db, clock, files, pool, sealer, mail, config.font_dir)
        deliverer = Deliverer(db, clock, Payloads(clock, files), sender, fast_retries=config.testing_fast_retries)
        caps = PublicCaps(
            config.public_starts_per_link,
            config.public_starts_per_address,
            config.consents_per_clickwrap,
            config.consents_per_address,
        )
        rate_limits = RateLimits(
            db, clock, per_key=config.rate_limit_per_key, per_ip=config.rate_limit_per_ip, public=caps
        )
        retention = Retention(db, clock, days=config.retention_days)
        images = PageImages(db, files, pool)
        submissions = Submissions(db, clock, files, ingest, submitters, images)
        app[appkeys.FILES], app[appkeys.INGEST], app[appkeys.OUTBOX] = files, ingest, mail
        accounts = Accounts(db, clock, KeySeal(files.secret_key))
        app[appkeys.ACCOUNTS], app[appkeys.RATE_LIMITS] = accounts, rate_limits
        app[appkeys.LIST_PAGES] = ListPages(db, clock)
        links = UserLinks(db, clock, files.urls)
        app[appkeys.CONSOLE_USERS] = ConsoleUsers(db, clock, rate_limits, mail, links, accounts)
        app[appkeys.SESSIONS] = Sessions(files.secret_key, clock, secure=files.urls.secure)
        issued = app[appkeys.ISSUED_KEYS]
        app[appkeys.SETUP_LINK] = await links.setup_link(issued.user.id) if issued else None
        app[appkeys.TEMPLATES] = Templates(db, clock, files, ingest, images)
        app[appkeys.SUBMISSIONS], app[appkeys.SUBMITTERS] = submissions, submitters
        app[appkeys.ONE_OFFS] = OneOffs(db, files, ingest, submissions, images)
        app[appkeys.SIGNING_FORMS] = forms = SigningForms(db, clock, files, images)
        app[appkeys.PHONE_HANDOFFS] = PhoneHandoffs(db, clock, submitters, forms, files.urls, pool)
        app[appkeys.EMAIL_CODES] = EmailCodes(db, clock, mail, rate_limits, files.secret_key)
        app[appkeys.VERIFICATION_PASSES] = Passes(files.secret_key, clock)
        app[appkeys.TEMPLATE_LINKS] = TemplateLinks(db, clock, submissions)
        app[appkeys.FORM_NONCES] = FormNonces(db, clock)
        app[appkeys.RESULTS] = Results(db, clock, files, pool, identity, previews)
        app[appkeys.CLICKWRAPS] = Clickwraps(db, clock)
        app[appkeys.CONSENT_PAGES] = ConsentPages(db, clock, files, submissions, images)
        app[appkeys.WEBHOOKS] = WebhookEndpoints(db, clock, public_only=config.public_webhooks_only)
        app[appkeys.DELIVERER] = deliverer
        return (
            rate_limits.kinds()
            + retention.kinds()
            + files.kinds()
            + app[appkeys.CONSOLE_USERS].kinds()
            + mail.kinds()
            + invitations.kinds()
            + reminders.kinds()
            + submissions.kinds()
            + producer.kinds()
            + certificates.kinds()
            + images.kinds()
            + identity.kinds()
            + archive_timestamps.kinds()
            + deliverer.kinds()
            + self.job_kinds
        )

    async def _worker(
        self, app: web.Application, stack: contextlib.AsyncExitStack, db: Database, kinds: list[jobs.Kind]
    ) -> None:
        if self.config.testing_fast_retries:
            kinds = [dataclasses.replace(kind, backoff=kind.backoff.fast()) for kind in kinds]
        worker = jobs.Worker(db, self.clock, kinds, lease=timedelta(seconds=self.config.job_lease_seconds))
        app[appkeys.WORKER] = worker
        if self.config.testing:
            app[appkeys.KIT] = Kit(db, app[appkeys.FILES], worker)
            if isinstance(self.clock, ManualClock):
                app[appkeys.TESTING_CLOCK] = self.clock
        await jobs.schedule_periodic(db, self.clock, kinds)
        if self.background:
            await worker.start()
            stack.push_async_callback(worker.stop)


def serving_started(app: web.Application) -> None:
    """Called once the app serves and has said so (its ready line is out): starts working out the fonts' scripts
    and the PDF workers' warm-up, when there is one. A document sent before the workers are warm waits for them."""
    if (scripts := app.get(appkeys.FONT_SCRIPTS)) is not None:
        scripts()
    if (warm_up := app.get(_WARM_UP)) is not None:
        warm_up.start()


class _FontScripts:
    """The scripts the fonts draw (`font_files.scripts`: HarfBuzz over the fonts' files, tens of milliseconds of
    CPU), worked out once, in a thread: begun after the ready line (`serving_started`), or by the first caller."""

    def __init__(self, font_dir: str | None) -> None:
        self.font_dir = font_dir
        self._future: asyncio.Future[tuple[str, ...]] | None = None

    def __call__(self) -> asyncio.Future[tuple[str, ...]]:
        if self._future is None:
            self._future = asyncio.ensure_future(asyncio.to_thread(font_files.scripts, self.font_dir))
        return self._future


class _WarmUp:
    """Loads the PDF libraries, the signing key and the fonts in every pool worker, once started."""

    def __init__(self, pool: PdfPool, identity: SigningIdentity, font_dir: str | None) -> None:
        self.pool, self.identity, self.font_dir = pool, identity, font_dir
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._warm())

    def cancel(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def _warm(self) -> None:
        try:
            chain = await self.identity.chain()
            await asyncio.gather(
                *(self.pool.run(pdf_calls.warm, chain, self.font_dir) for _ in range(self.pool.workers))
            )
        except Exception:
            log.exception("warming the PDF workers failed; they will load what they need on first use")


_WARM_UP = web.AppKey("pdf_warm_up", _WarmUp)
