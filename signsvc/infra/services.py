"""What domain code and job handlers share in one process: the database, the clock, the settings."""

from __future__ import annotations

from dataclasses import dataclass

from signsvc.infra.clock import Clock
from signsvc.infra.files import Files
from signsvc.infra.config import Config
from storage import Database


@dataclass(frozen=True)
class Services:
    db: Database
    clock: Clock
    config: Config
    secret_key: str
    files: Files
