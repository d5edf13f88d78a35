"""The one clock every time rule reads (expiry, link lifetime, retries, rate-limit windows).

The service runs on `SystemClock`; tests, and the service itself with SIGNSVC_TESTING for the test suites of
applications, use `ManualClock` and move it.
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
    """A clock that tests and test suites move. Given a start it stands still there until it is moved (or
    unfrozen); without one it runs with the system time, shifted by every move. Moving it wakes whoever
    waits on time."""

    def __init__(self, start: datetime | None = None) -> None:
        self._frozen_at = start.astimezone(UTC) if start else None
        self._offset = timedelta(0)
        self._listeners: list[Callable[[], None]] = []

    def now(self) -> datetime:
        return self._frozen_at if self._frozen_at is not None else datetime.now(UTC) + self._offset

    @property
    def frozen(self) -> bool:
        return self._frozen_at is not None

    def subscribe(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def advance(self, delta: timedelta) -> datetime:
        if delta < timedelta(0):
            raise ValueError("time only moves forward")
        return self.set(self.now() + delta)

    def set(self, moment: datetime) -> datetime:
        if moment.tzinfo is None:
            raise ValueError("a naive datetime has no place on this clock")
        if self._frozen_at is not None:
            self._frozen_at = moment.astimezone(UTC)
        else:
            self._offset = moment - datetime.now(UTC)
        for listener in self._listeners:
            listener()
        return self.now()

    def freeze(self) -> datetime:
        """Stops the clock where it is."""
        self._frozen_at = self.now()
        return self._frozen_at

    def unfreeze(self) -> datetime:
        """Lets the clock run on from where it stands."""
        if self._frozen_at is not None:
            self._offset, self._frozen_at = self._frozen_at - datetime.now(UTC), None
        return self.now()
