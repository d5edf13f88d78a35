"""The second half of the app's start (signsvc/app.py): what serves requests, built once the first half has opened
the database and the files and checked the configuration, and once the ready line is out. The route table and its
pages, the downloaders and the office converter, the domain's objects and the job worker: importing their modules
is most of the start's work, and none of it depends on a setting that could stop the start.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Callable
from datetime import timedelta
from typing import NamedTuple

from aiohttp import web

from signsvc.accounts.accounts import Accounts
from signsvc.accounts.console_users import ConsoleUsers
from signsvc.accounts.key_seal import KeySeal
from signsvc.accounts.rate_limits import PublicCaps, RateLimits
from signsvc.accounts.user_links import UserLinks
from signsvc.clickwraps.certificates import Certificates
from signsvc.clickwraps.clickwraps import Clickwraps
from signsvc.clickwraps.consent_page import ConsentPages
from signsvc.http import appkeys, routes
from signsvc.http.list_pages import ListPages
from signsvc.http.web import catalogue, public_forms, rendering, templating
from signsvc.http.web.console import shell
from signsvc.http.web.console.session import Sessions
from signsvc.infra import jobs, pdf_calls, smtp
from signsvc.infra.clock import Clock, ManualClock
from signsvc.infra.config import Config
from signsvc.infra.downloads import Downloader
from signsvc.infra.files import Files
from signsvc.infra.form_nonces import FormNonces
from signsvc.infra.kit import Kit
from signsvc.infra.mail import Outbox
from signsvc.infra.office import OfficeConverter
from signsvc.infra.pool import PdfPool
from signsvc.infra.retention import Retention
from signsvc.pdf import font_files
from signsvc.preparation import configure_webhooks, webhook_settings_given
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

log = logging.getLogger(__name__)


class Start(NamedTuple):
    """How the app was asked to start (`create_app`'s arguments)."""

    config: Config
    clock: Clock
    given_downloader: Downloader | None
    background: bool
    job_kinds: list[jobs.Kind]
    own_pool: bool


async def build(
    app: web.Application,
    stack: contextlib.AsyncExitStack,
    start: Start,
    db: Database,
    files: Files,
    pool: PdfPool,
    identity: SigningIdentity,
) -> None:
    """Adds the routes, opens the parts that serve requests onto `stack` and gives the edge the domain's objects;
    last the job worker, started unless `start.background` is False."""
    config = start.config
    _route(app, config)
    downloader = start.given_downloader or await _own_downloader(stack, config)
    office = await stack.enter_async_context(OfficeConverter())
    sender = webhook_sender(config)
    stack.push_async_callback(sender.close)
    revocations = Revocations(start.clock, (await _revocation_downloader(stack, config)).fetch)
    ingest = Ingest(pool, office, downloader, config.font_dir)
    kinds = await _domain(app, start, db, files, pool, identity, ingest, sender, revocations)
    if not webhook_settings_given(config):  # given, they were applied (and checked) by the first half
        await configure_webhooks(app[appkeys.WEBHOOKS], config)
    await _worker(app, stack, start, db, kinds + start.job_kinds)
    if start.background and start.own_pool and config.pdf_warm_up:
        # Started by `serving_started`, after the ready line, not before it: the workers load the PDF
        # libraries, fonts and signing key (about two seconds of CPU, which SIGNSVC_PDF_WARM_UP=false
        # leaves to the first document), and on a busy machine that would delay the start.
        warm_up = _WarmUp(pool, identity, config.font_dir)
        app[appkeys.PDF_WARM_UP] = warm_up.start
        stack.callback(warm_up.cancel)


def _route(app: web.Application, config: Config) -> None:
    routes.setup(app)
    templating.setup(
        app, context_processors=[catalogue.context, rendering.context, shell.context, public_forms.context]
    )
    if app.get(appkeys.METRICS) is not None:
        routes.add_metrics(app)
    if config.testing:
        routes.add_testing(app)


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


async def _own_downloader(stack: contextlib.AsyncExitStack, config: Config) -> Downloader:
    return await stack.enter_async_context(
        Downloader(max_bytes=config.max_body_bytes, allow_private=config.allow_private_downloads)
    )


async def _revocation_downloader(stack: contextlib.AsyncExitStack, config: Config) -> Downloader:
    # CRLs are signed and mostly published over plain http; the other download rules hold.
    return await stack.enter_async_context(
        Downloader(
            max_bytes=revocation.MAX_CRL_BYTES,
            timeout=revocation.FETCH_TIMEOUT,
            allow_private=config.allow_private_downloads,
            plain_http=True,
        )
    )


async def _domain(
    app: web.Application,
    start: Start,
    db: Database,
    files: Files,
    pool: PdfPool,
    identity: SigningIdentity,
    ingest: Ingest,
    sender: Sender,
    revocations: Revocations,
) -> list[jobs.Kind]:
    """Builds the domain's objects, gives the edge the ones it calls; answers every job kind."""
    config, clock = start.config, start.clock
    scripts: Callable[[], asyncio.Future[tuple[str, ...]]] = _FontScripts(config.font_dir)
    app[appkeys.FONT_SCRIPTS] = scripts
    mail = outbox(db, clock, files, config)
    invitations = Invitations(db, clock, mail, files.urls)
    app[appkeys.REMINDERS] = reminders = Reminders(db, clock, invitations)
    submitters = Submitters(db, clock, files, ingest, invitations, uploads_limit=config.submitter_uploads_bytes)
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
    rate_limits = RateLimits(db, clock, per_key=config.rate_limit_per_key, per_ip=config.rate_limit_per_ip, public=caps)
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
    )


async def _worker(
    app: web.Application, stack: contextlib.AsyncExitStack, start: Start, db: Database, kinds: list[jobs.Kind]
) -> None:
    config = start.config
    if config.testing_fast_retries:
        kinds = [dataclasses.replace(kind, backoff=kind.backoff.fast()) for kind in kinds]
    worker = jobs.Worker(db, start.clock, kinds, lease=timedelta(seconds=config.job_lease_seconds))
    app[appkeys.WORKER] = worker
    if config.testing:
        app[appkeys.KIT] = Kit(db, app[appkeys.FILES], worker)
        if isinstance(start.clock, ManualClock):
            app[appkeys.TESTING_CLOCK] = start.clock
    await jobs.schedule_periodic(db, start.clock, kinds)
    if start.background:
        await worker.start()
        stack.push_async_callback(worker.stop)


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
