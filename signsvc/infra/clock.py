"""The one clock every time rule reads (expiry, link lifetime, retries, rate-limit windows).

The service runs on `SystemClock`; tests and integration suites use `ManualClock` and move it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime:
        """The current time, timezone-aware, in UTC."""

    def subscribe(self, listener: Callable[[], None]) -> None:
        """Calls `listener` whenever the time jumps (never for a clock that just runs)."""


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)

    def subscribe(self, listener: Callable[[], None]) -> None:
        pass


class ManualClock:
    """A clock that stands still until it is moved; moving it wakes whoever waits on time."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 1, 1, tzinfo=UTC)
        self._listeners: list[Callable[[], None]] = []

    def now(self) -> datetime:
        return self._now

    def subscribe(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def advance(self, delta: timedelta) -> datetime:
        if delta < timedelta(0):
            raise ValueError("time only moves forward")
        return self.set(self._now + delta)

    def set(self, moment: datetime) -> datetime:
        if moment.tzinfo is None:
            raise ValueError("a naive datetime has no place on this clock")
        self._now = moment.astimezone(UTC)
        for listener in self._listeners:
            listener()
        return self._now
