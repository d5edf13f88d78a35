"""What every process does before it serves or runs a command: the configured database opened (a SQLite file in a
directory that cannot be written is a start error that says so), migrated, with the default account in place;
and, before serving, the data directory checked and the configured webhook endpoints applied. Light on imports:
the management commands use it without the web stack, and a server before its ready line."""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from signsvc.accounts.accounts import Accounts, IssuedKeys
from signsvc.accounts.key_seal import KeySeal
from signsvc.infra import errors, secret_key
from signsvc.infra.clock import Clock
from signsvc.infra.config import Config, ConfigError
from storage import Database, open_database
from storage.contents import DirectoryStore
from storage.migrations import Migration, migrate

if TYPE_CHECKING:
    from signsvc.webhooks.endpoints import WebhookEndpoints

log = logging.getLogger(__name__)


async def prepare(db: Database, clock: Clock, config: Config) -> IssuedKeys | None:
    """What every process does before it serves or manages: brings the schema up to date and the default
    account in place; answers the keys made on first start."""
    log_migrations(await migrate(db))
    accounts = Accounts(db, clock, KeySeal(await secret_key.load(db, config.secret_key)))
    return await accounts.bootstrap(live_key=config.api_key, test_key=config.test_api_key)


def log_migrations(applied: list[Migration]) -> None:
    """One line for what the schema went through; each migration at debug level."""
    for migration in applied:
        log.debug("applied migration %04d_%s", migration.version, migration.name)
    if not applied:
        return
    newest = applied[-1].version
    if applied[0].version == 1:
        log.info("database created at version %d", newest)
    else:
        log.info("database migrated from version %d to %d", applied[0].version - 1, newest)


async def open_configured_database(config: Config, *, single_process: bool = True) -> Database:
    """The database `SIGNSVC_DATABASE_URL` names; `single_process=False` in each of several serving processes
    (`--workers`). A SQLite file whose directory cannot be created or written is a start error that says so:
    SQLite would fail later, on its journal, or in a thread the failed open leaves behind."""
    if (path := _sqlite_path(config.database_url)) is not None:
        setting = f"SIGNSVC_DATABASE_URL={config.database_url}"
        _check_writable_directory(path.parent, setting)
        _check_writable_file(path, setting)
    return await open_database(config.database_url, single_process=single_process)


def check_data_dir(config: Config) -> None:
    """Files kept on disk need a directory the service can write: a start error now, not a 500 at the first upload."""
    if config.content_store == "directory":
        _check_writable_directory(
            DirectoryStore.in_data_dir(config.data_dir).root, f"SIGNSVC_DATA_DIR={config.data_dir}"
        )


def _sqlite_path(database_url: str) -> Path | None:
    path = database_url.removeprefix("sqlite:///") if database_url.startswith("sqlite:///") else ":memory:"
    return None if path == ":memory:" else Path(path)


def _check_writable_directory(directory: Path, setting: str) -> None:
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError(
            f"{setting}: the directory {directory} cannot be created: {_in_the_way(directory, error)}"
        ) from None
    try:
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as error:
        raise ConfigError(f"{setting}: the directory {directory} cannot be written: {error.strerror}") from None


def _in_the_way(directory: Path, error: OSError) -> str:
    """Why a directory cannot be made; "File exists" or "Not a directory" would not say which file is in the way."""
    file = next((path for path in (directory, *directory.parents) if path.exists() and not path.is_dir()), None)
    return f"{file} is a file" if file else error.strerror or str(error)


def _check_writable_file(path: Path, setting: str) -> None:
    try:
        with path.open("r+b"):
            pass
    except FileNotFoundError:
        pass  # made on first open, in a directory just checked
    except OSError as error:
        raise ConfigError(f"{setting}: the database file {path} cannot be written: {error.strerror}") from None


def webhook_settings_given(config: Config) -> bool:
    """Whether a setting of the configured endpoints is given: only then can configuring them stop a start."""
    settings = (config.webhook_url, config.test_webhook_url, config.webhook_secret_header, config.webhook_secret)
    return any(setting is not None for setting in settings)


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
