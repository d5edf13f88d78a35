"""Typed keys of what the application holds for the HTTP edge: the domain's objects and a few settings."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from aiohttp import web

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


SETTINGS = web.AppKey("settings", Settings)
OPENAPI = web.AppKey("openapi", bytes)
BODY_BUDGET = web.AppKey("body_budget", BodyBudget)
DB = web.AppKey("db", Database)
CLOCK = web.AppKey("clock", Clock)
FILES = web.AppKey("files", Files)
OUTBOX = web.AppKey("outbox", Outbox)
ISSUED_KEYS: web.AppKey[IssuedKeys | None] = web.AppKey("issued_keys")
ACCOUNTS = web.AppKey("accounts", Accounts)
CONSOLE_USERS = web.AppKey("console_users", ConsoleUsers)
SESSIONS = web.AppKey("sessions", Sessions)
# The first user's console setup link, made on the first start (printed with the ready line).
SETUP_LINK: web.AppKey[str | None] = web.AppKey("setup_link")
RATE_LIMITS = web.AppKey("rate_limits", RateLimits)
LIST_PAGES = web.AppKey("list_pages", ListPages)
INGEST = web.AppKey("ingest", Ingest)
# The scripts the fonts draw (`font_files.scripts`), worked out once in a thread, begun after the ready line or by
# the first call: /health awaits them.
FONT_SCRIPTS: web.AppKey[Callable[[], asyncio.Future[tuple[str, ...]]]] = web.AppKey("font_scripts")
TEMPLATES = web.AppKey("templates", Templates)
SUBMISSIONS = web.AppKey("submissions", Submissions)
SUBMITTERS = web.AppKey("submitters", Submitters)
ONE_OFFS = web.AppKey("one_offs", OneOffs)
REMINDERS = web.AppKey("reminders", Reminders)
SIGNING_FORMS = web.AppKey("signing_forms", SigningForms)
PHONE_HANDOFFS = web.AppKey("phone_handoffs", PhoneHandoffs)
EMAIL_CODES = web.AppKey("email_codes", EmailCodes)
VERIFICATION_PASSES = web.AppKey("verification_passes", Passes)
TEMPLATE_LINKS = web.AppKey("template_links", TemplateLinks)
FORM_NONCES = web.AppKey("form_nonces", FormNonces)
RESULTS = web.AppKey("results", Results)
CLICKWRAPS = web.AppKey("clickwraps", Clickwraps)
CONSENT_PAGES = web.AppKey("consent_pages", ConsentPages)
WEBHOOKS = web.AppKey("webhooks", WebhookEndpoints)
DELIVERER = web.AppKey("deliverer", Deliverer)
WORKER = web.AppKey("worker", Worker)
# With SIGNSVC_METRICS_TOKEN only:
METRICS = web.AppKey("metrics", Metrics)
# The testing extension (SIGNSVC_TESTING) only:
KIT = web.AppKey("kit", Kit)
TESTING_CLOCK = web.AppKey("testing_clock", ManualClock)
