"""What every process does before it serves or manages: migrate the schema, ensure the default account."""

from __future__ import annotations

import logging

from signsvc.accounts import accounts
from signsvc.infra.clock import Clock
from signsvc.infra.config import Config
from storage import Database
from storage.migrations import migrate

log = logging.getLogger(__name__)


async def prepare(db: Database, clock: Clock, config: Config) -> accounts.IssuedKeys | None:
    """Brings the schema up to date and the default account in place; answers keys made on first start."""
    for migration in await migrate(db):
        log.info("applied migration %04d_%s", migration.version, migration.name)
    return await accounts.bootstrap(db, clock, live_key=config.api_key, test_key=config.test_api_key)
