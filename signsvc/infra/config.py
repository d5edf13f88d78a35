"""Configuration: `SIGNSVC_*` environment variables, overridden by command-line flags."""

from __future__ import annotations

import dataclasses
import ipaddress
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from signsvc.infra import smtp

_BUCKET = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")


class ConfigError(ValueError):
    """A setting has a value the service cannot use; the message names the variable."""


@dataclass(frozen=True)
class Config:
    host: str = "127.0.0.1"
    port: int = 3000
    database_url: str = "sqlite:///data/signsvc.sqlite3"
    site_url: str | None = None
    data_dir: str = "data"
    file_store: str | None = None
    storage_url: str | None = None  # s3://bucket/prefix: files in S3-compatible object storage
    storage_presigned_links: bool = False
    api_key: str | None = None
    test_api_key: str | None = None
    secret_key: str | None = None
    smtp_url: str | None = None
    mail_from: str | None = None
    rate_limit_per_key: int = 600
    rate_limit_per_ip: int = 1200
    public_starts_per_link: int = 20  # in five minutes; the public pages' caps, 0 lifts one
    public_starts_per_address: int = 10
    consents_per_clickwrap: int = 60
    consents_per_address: int = 10
    emails_per_recipient_hour: int = 10  # completed copies and consent certificates to one address in an hour
    max_body_bytes: int = 64 * 1024 * 1024
    body_budget_bytes: int = 256 * 1024 * 1024
    header_timeout_seconds: float = 15.0  # a request's head must arrive whole within this of its first byte
    body_min_rate: int = 1024  # bytes a second a request body must bring, over every body_rate_window_seconds
    body_rate_window_seconds: float = 10.0
    submitter_uploads_bytes: int = 50 * 1024 * 1024  # a submitter's files (signatures, images, uploads) together
    trusted_proxies: frozenset[str] = field(default_factory=frozenset)
    allow_private_downloads: bool = False
    log_level: str = "INFO"
    webhook_url: str | None = None
    test_webhook_url: str | None = None
    webhook_secret_header: str | None = None
    webhook_secret: str | None = None
    webhook_timeout_seconds: float = 30.0
    webhook_public_only: bool | None = None  # None: as `public_webhooks_only` decides
    signing_p12: str | None = None
    signing_p12_password: str | None = None
    tsa_url: str | None = None
    font_dir: str | None = None
    pdf_warm_up: bool = True  # start the PDF workers right after the ready line, not with the first document
    testing: bool = False
    testing_fast_retries: bool = False
    workers: int = 1  # serving processes; more than one: a supervisor starts them (signsvc/cli/workers.py)
    metrics_token: str | None = None
    job_lease_seconds: int = 300  # how long a job of a process that died waits before another process takes it
    retention_days: int = 90  # 0 keeps every delivery attempt, email, failed job and event

    @property
    def site(self) -> str:
        """The public base address used in every link; the API base is `{site}/api`."""
        host = f"[{self.host}]" if ":" in self.host else self.host  # an IPv6 address
        site = (self.site_url or f"http://{host}:{self.port}").rstrip("/")
        # Schemes are case-insensitive (RFC 3986): `HTTPS://` is https, and every `https://` test reads this.
        scheme, separator, rest = site.partition("://")
        return f"{scheme.lower()}{separator}{rest}" if separator else site

    @property
    def public_webhooks_only(self) -> bool:
        """Whether webhooks may go only to public addresses: SIGNSVC_WEBHOOK_PUBLIC_ONLY when set, else on, unless
        the site is on a loopback address (a laptop) or the testing extension is on (a test suite's receivers
        listen on this machine)."""
        if self.webhook_public_only is not None:
            return self.webhook_public_only
        return not (self.testing or _is_loopback(urlsplit(self.site).hostname or ""))

    @property
    def content_store(self) -> str:
        """Where file contents live: `directory` (under the data directory), `database` (always for an ephemeral
        in-memory instance unless told otherwise), or an `s3://` URL."""
        if self.storage_url:
            return self.storage_url
        if self.file_store:
            return self.file_store
        return "database" if self.database_url.endswith(":memory:") else "directory"

    def replace(self, **changes: Any) -> Config:
        """A copy with the given settings; None leaves a setting as it is (a flag that was not given)."""
        return dataclasses.replace(self, **{k: v for k, v in changes.items() if v is not None})


def checked_port(port: int, setting: str) -> int:
    """A listen port as `setting` gives it: 1 to 65535, or 0 for any free port (the system would quietly take a
    larger number modulo 65536)."""
    if not 0 <= port <= 65535:
        raise ConfigError(f"{setting}={port} is not a port: use 1 to 65535, or 0 for any free port")
    return port


def check_store_url(url: str, setting: str) -> str:
    """An object-store URL as `setting` gives it: `s3://bucket` or `s3://bucket/prefix`, the bucket named as S3
    names them."""
    bucket = url.removeprefix("s3://").partition("/")[0] if url.startswith("s3://") else ""
    if not bucket:
        raise ConfigError(f"{setting}={url!r} is not an object store: use s3://bucket or s3://bucket/prefix")
    if not _BUCKET.fullmatch(bucket):
        raise ConfigError(
            f"{setting}={url!r}: {bucket!r} is not a bucket name (3 to 63 lowercase letters, digits, "
            f"dots and hyphens, beginning and ending with a letter or digit)"
        )
    return url


def _is_loopback(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):  # RFC 6761: always this machine
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _boolean(value: str) -> bool:
    if value.lower() not in ("true", "false", "1", "0"):
        raise ValueError(value)
    return value.lower() in ("true", "1")


_ENV: dict[str, tuple[str, Callable[[str], Any]]] = {
    "host": ("SIGNSVC_HOST", str),
    "port": ("SIGNSVC_PORT", int),
    "database_url": ("SIGNSVC_DATABASE_URL", str),
    "site_url": ("SIGNSVC_SITE_URL", str),
    "data_dir": ("SIGNSVC_DATA_DIR", str),
    "file_store": ("SIGNSVC_FILE_STORE", str.lower),
    "storage_url": ("SIGNSVC_STORAGE_URL", str),
    "storage_presigned_links": ("SIGNSVC_STORAGE_PRESIGNED_LINKS", _boolean),
    "api_key": ("SIGNSVC_API_KEY", str),
    "test_api_key": ("SIGNSVC_TEST_API_KEY", str),
    "secret_key": ("SIGNSVC_SECRET_KEY", str),
    "smtp_url": ("SIGNSVC_SMTP_URL", str),
    "mail_from": ("SIGNSVC_MAIL_FROM", str),
    "rate_limit_per_key": ("SIGNSVC_RATE_LIMIT_PER_KEY", int),
    "rate_limit_per_ip": ("SIGNSVC_RATE_LIMIT_PER_IP", int),
    "public_starts_per_link": ("SIGNSVC_PUBLIC_STARTS_PER_LINK", int),
    "public_starts_per_address": ("SIGNSVC_PUBLIC_STARTS_PER_ADDRESS", int),
    "consents_per_clickwrap": ("SIGNSVC_CONSENTS_PER_CLICKWRAP", int),
    "consents_per_address": ("SIGNSVC_CONSENTS_PER_ADDRESS", int),
    "emails_per_recipient_hour": ("SIGNSVC_EMAILS_PER_RECIPIENT_HOUR", int),
    "max_body_bytes": ("SIGNSVC_MAX_BODY_BYTES", int),
    "body_budget_bytes": ("SIGNSVC_BODY_BUDGET_BYTES", int),
    "header_timeout_seconds": ("SIGNSVC_HEADER_TIMEOUT_SECONDS", float),
    "body_min_rate": ("SIGNSVC_BODY_MIN_RATE", int),
    "body_rate_window_seconds": ("SIGNSVC_BODY_RATE_WINDOW_SECONDS", float),
    "submitter_uploads_bytes": ("SIGNSVC_SUBMITTER_UPLOADS_BYTES", int),
    "trusted_proxies": ("SIGNSVC_TRUSTED_PROXIES", lambda v: frozenset(p.strip() for p in v.split(",") if p.strip())),
    "log_level": ("SIGNSVC_LOG_LEVEL", str.upper),
    "allow_private_downloads": ("SIGNSVC_ALLOW_PRIVATE_DOWNLOADS", _boolean),
    "webhook_url": ("SIGNSVC_WEBHOOK_URL", str),
    "test_webhook_url": ("SIGNSVC_TEST_WEBHOOK_URL", str),
    "webhook_secret_header": ("SIGNSVC_WEBHOOK_SECRET_HEADER", str),
    "webhook_secret": ("SIGNSVC_WEBHOOK_SECRET", str),
    "webhook_timeout_seconds": ("SIGNSVC_WEBHOOK_TIMEOUT_SECONDS", float),
    "webhook_public_only": ("SIGNSVC_WEBHOOK_PUBLIC_ONLY", _boolean),
    "signing_p12": ("SIGNSVC_SIGNING_P12", str),
    "signing_p12_password": ("SIGNSVC_SIGNING_P12_PASSWORD", str),
    "tsa_url": ("SIGNSVC_TSA_URL", str),
    "font_dir": ("SIGNSVC_FONT_DIR", str),
    "pdf_warm_up": ("SIGNSVC_PDF_WARM_UP", _boolean),
    "testing": ("SIGNSVC_TESTING", _boolean),
    "testing_fast_retries": ("SIGNSVC_TESTING_FAST_RETRIES", _boolean),
    "workers": ("SIGNSVC_WORKERS", int),
    "metrics_token": ("SIGNSVC_METRICS_TOKEN", str),
    "retention_days": ("SIGNSVC_RETENTION_DAYS", int),
    "job_lease_seconds": ("SIGNSVC_JOB_LEASE_SECONDS", int),
}


def from_env(environ: Mapping[str, str] | None = None) -> Config:
    environ = os.environ if environ is None else environ
    values = {}
    for name, (variable, parse) in _ENV.items():
        raw = environ.get(variable, "").strip()
        if not raw:
            continue
        try:
            values[name] = parse(raw)
        except ValueError:
            raise ConfigError(f"{variable}={raw!r} is not a valid value") from None
    config = Config(**values)
    checked_port(config.port, "SIGNSVC_PORT")
    if config.file_store not in (None, "directory", "database"):
        raise ConfigError("SIGNSVC_FILE_STORE must be directory or database")
    if config.storage_url is not None:
        if config.file_store:
            raise ConfigError("SIGNSVC_STORAGE_URL and SIGNSVC_FILE_STORE name two places for files: set one")
        check_store_url(config.storage_url, "SIGNSVC_STORAGE_URL")
    if config.storage_presigned_links and not config.storage_url:
        raise ConfigError("SIGNSVC_STORAGE_PRESIGNED_LINKS needs files in object storage (SIGNSVC_STORAGE_URL)")
    for name in (
        "rate_limit_per_key",
        "rate_limit_per_ip",
        "max_body_bytes",
        "body_budget_bytes",
        "retention_days",
        "public_starts_per_link",
        "public_starts_per_address",
        "consents_per_clickwrap",
        "consents_per_address",
        "emails_per_recipient_hour",
        "body_min_rate",
        "submitter_uploads_bytes",
    ):
        if getattr(config, name) < 0:
            raise ConfigError(f"{_ENV[name][0]} must not be negative")
    if config.workers < 1:
        raise ConfigError("SIGNSVC_WORKERS must be at least 1 (1: one process, the default)")
    if not 3 <= config.job_lease_seconds <= 86400:
        raise ConfigError("SIGNSVC_JOB_LEASE_SECONDS must be 3 to 86400 (seconds)")
    for name in ("header_timeout_seconds", "body_rate_window_seconds"):
        if not 0 < getattr(config, name) <= 3600:
            raise ConfigError(f"{_ENV[name][0]} must be more than 0 and at most 3600 (seconds)")
    if not 0 < config.webhook_timeout_seconds <= 300:
        raise ConfigError("SIGNSVC_WEBHOOK_TIMEOUT_SECONDS must be more than 0 and at most 300")
    if (config.webhook_secret_header is None) != (config.webhook_secret is None):
        raise ConfigError("SIGNSVC_WEBHOOK_SECRET_HEADER and SIGNSVC_WEBHOOK_SECRET are set together or not at all")
    if config.tsa_url and not config.tsa_url.startswith(("http://", "https://")):
        raise ConfigError("SIGNSVC_TSA_URL must be an http:// or https:// address")
    if config.smtp_url:
        try:
            smtp.parse_smtp_url(config.smtp_url)  # a bad URL stops the start, not the first email
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    return config
