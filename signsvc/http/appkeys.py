"""Typed keys of what the application holds for the HTTP edge: the domain's objects and a few settings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from aiohttp import web

if TYPE_CHECKING:  # the types only: importing the domain here would load it all with the edge's first module
    import asyncio
    from collections.abc import Callable

    from signsvc.accounts.accounts import Accounts, IssuedKeys
    from signsvc.accounts.console_users import ConsoleUsers
    from signsvc.accounts.rate_limits import RateLimits
    from signsvc.clickwraps.clickwraps import Clickwraps
    from signsvc.clickwraps.consent_page import ConsentPages
    from signsvc.http.body_budget import BodyBudget
    from signsvc.http.list_pages import ListPages
    from signsvc.http.web.console.session import Sessions
    from signsvc.infra.clock import Clock, ManualClock
    from signsvc.infra.files import Files
    from signsvc.infra.form_nonces import FormNonces
    from signsvc.infra.jobs import Worker
    from signsvc.infra.kit import Kit
    from signsvc.infra.mail import Outbox
    from signsvc.infra.metrics import Metrics
    from signsvc.infra.urls import Urls
    from signsvc.results.results import Results
    from signsvc.submissions.email_verification import EmailCodes
    from signsvc.submissions.one_off import OneOffs
    from signsvc.submissions.phone_handoff import PhoneHandoffs
    from signsvc.submissions.reminders import Reminders
    from signsvc.submissions.signing_form import SigningForms
    from signsvc.submissions.submissions import Submissions
    from signsvc.submissions.submitters import Submitters
    from signsvc.submissions.template_links import TemplateLinks
    from signsvc.submissions.verification_passes import Passes
    from signsvc.templates.documents import Ingest
    from signsvc.templates.templates import Templates
    from signsvc.webhooks.delivery import Deliverer
    from signsvc.webhooks.endpoints import WebhookEndpoints
    from storage import Database


@dataclass(frozen=True)
class Settings:
    """What the edge itself needs to know: the public addresses, the proxies whose X-Forwarded-For it
    believes, the largest body it reads, the keys SIGNSVC_API_KEY / SIGNSVC_TEST_API_KEY fix (rotating
    one in the console lasts until the next start, which the console says), and the bearer token a metrics
    scraper sends (SIGNSVC_METRICS_TOKEN)."""

    urls: Urls
    trusted_proxies: frozenset[str]
    max_body_bytes: int
    fixed_api_keys: frozenset[str] = frozenset()
    metrics_token: str | None = None


SETTINGS: web.AppKey[Settings] = web.AppKey("settings")
OPENAPI: web.AppKey[bytes] = web.AppKey("openapi")
BODY_BUDGET: web.AppKey[BodyBudget] = web.AppKey("body_budget")
DB: web.AppKey[Database] = web.AppKey("db")
CLOCK: web.AppKey[Clock] = web.AppKey("clock")
FILES: web.AppKey[Files] = web.AppKey("files")
OUTBOX: web.AppKey[Outbox] = web.AppKey("outbox")
ISSUED_KEYS: web.AppKey[IssuedKeys | None] = web.AppKey("issued_keys")
ACCOUNTS: web.AppKey[Accounts] = web.AppKey("accounts")
CONSOLE_USERS: web.AppKey[ConsoleUsers] = web.AppKey("console_users")
SESSIONS: web.AppKey[Sessions] = web.AppKey("sessions")
# The first user's console setup link, made on the first start (printed with the ready line).
SETUP_LINK: web.AppKey[str | None] = web.AppKey("setup_link")
RATE_LIMITS: web.AppKey[RateLimits] = web.AppKey("rate_limits")
LIST_PAGES: web.AppKey[ListPages] = web.AppKey("list_pages")
INGEST: web.AppKey[Ingest] = web.AppKey("ingest")
# The scripts the fonts draw (`font_files.scripts`), worked out once in a thread, begun after the ready line or by
# the first call: /health awaits them.
FONT_SCRIPTS: web.AppKey[Callable[[], asyncio.Future[tuple[str, ...]]]] = web.AppKey("font_scripts")
TEMPLATES: web.AppKey[Templates] = web.AppKey("templates")
SUBMISSIONS: web.AppKey[Submissions] = web.AppKey("submissions")
SUBMITTERS: web.AppKey[Submitters] = web.AppKey("submitters")
ONE_OFFS: web.AppKey[OneOffs] = web.AppKey("one_offs")
REMINDERS: web.AppKey[Reminders] = web.AppKey("reminders")
SIGNING_FORMS: web.AppKey[SigningForms] = web.AppKey("signing_forms")
PHONE_HANDOFFS: web.AppKey[PhoneHandoffs] = web.AppKey("phone_handoffs")
EMAIL_CODES: web.AppKey[EmailCodes] = web.AppKey("email_codes")
VERIFICATION_PASSES: web.AppKey[Passes] = web.AppKey("verification_passes")
TEMPLATE_LINKS: web.AppKey[TemplateLinks] = web.AppKey("template_links")
FORM_NONCES: web.AppKey[FormNonces] = web.AppKey("form_nonces")
RESULTS: web.AppKey[Results] = web.AppKey("results")
CLICKWRAPS: web.AppKey[Clickwraps] = web.AppKey("clickwraps")
CONSENT_PAGES: web.AppKey[ConsentPages] = web.AppKey("consent_pages")
WEBHOOKS: web.AppKey[WebhookEndpoints] = web.AppKey("webhooks")
DELIVERER: web.AppKey[Deliverer] = web.AppKey("deliverer")
WORKER: web.AppKey[Worker] = web.AppKey("worker")
# Starts the PDF workers' warm-up (`serving_started`), when the app warms its own pool.
PDF_WARM_UP: web.AppKey[Callable[[], None]] = web.AppKey("pdf_warm_up")
# With SIGNSVC_METRICS_TOKEN only:
METRICS: web.AppKey[Metrics] = web.AppKey("metrics")
# The testing extension (SIGNSVC_TESTING) only:
KIT: web.AppKey[Kit] = web.AppKey("kit")
TESTING_CLOCK: web.AppKey[ManualClock] = web.AppKey("testing_clock")
