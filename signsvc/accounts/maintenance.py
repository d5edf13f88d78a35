"""Periodic housekeeping jobs."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from signsvc.accounts import rate_limits as ratelimits
from signsvc.infra.jobs import Kind
from signsvc.infra.services import Services


async def prune_rate_limits(services: Services, payload: dict[str, Any]) -> None:
    await ratelimits.prune(services.db, services.clock)


KINDS = [Kind("maintenance.prune_rate_limits", prune_rate_limits, every=timedelta(seconds=ratelimits.WINDOW_SECONDS))]
