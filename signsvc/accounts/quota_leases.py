"""Counting requests without a database write per request, and never admitting more than a limit in a window,
however many processes share the database.

Each process takes a block of a bucket's quota (a lease) from the shared counter in one statement, then admits
requests from its block in memory. The first block of a window is one request and blocks grow as requests keep
coming, but never past an eighth of what the window has left: near the limit every process goes back to the
database for each request, and a block another process holds unused can only make this one refuse early.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field

import storage.rate_limits as stored
from storage import Database

LARGEST_BLOCK = 1024
# Buckets of one window held before the spent ones are dropped.
MOST_HELD = 10_000


@dataclass
class _Lease:
    left: int = 0  # requests this process may still admit from its blocks
    counted: int = 0  # the bucket's count in the database after this process's last block
    next_block: int = 1
    exhausted: bool = False  # the database had nothing left to give in this window
    refilling: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def empty(self) -> bool:
        return self.left == 0 and not self.exhausted


class QuotaLeases:
    """Admits requests against buckets' limits in the window that starts at `window_start`."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._window = -1
        self._leases: dict[str, _Lease] = {}

    def forget(self) -> None:
        """Drops every block (the counters were emptied)."""
        self._leases.clear()

    async def admit(self, limits: dict[str, int], window_start: int) -> tuple[int, int]:
        """Counts one request in each bucket unless one of them has no quota left; answers what is left of the
        tightest limit (-1 when a bucket refused the request) and that limit."""
        leases = self._in_window(window_start, limits)
        while any(lease.empty for lease in leases.values()):
            await self._refill(
                leases, limits, sorted(bucket for bucket, lease in leases.items() if lease.empty), window_start
            )
        return _take(leases, limits)

    async def _refill(
        self, leases: dict[str, _Lease], limits: dict[str, int], empty: list[str], window_start: int
    ) -> None:
        """Takes a block for each empty bucket; one refill of a bucket at a time, so that requests waiting for
        it use its block. Another bucket may be empty again by the time it returns."""
        async with contextlib.AsyncExitStack() as locks:
            for bucket in empty:
                await locks.enter_async_context(leases[bucket].refilling)
            if wanted := {bucket: leases[bucket].next_block for bucket in empty if leases[bucket].empty}:
                counts = await stored.hit(self.db, wanted, window_start)
                for bucket, block in wanted.items():
                    _grant(leases[bucket], limits[bucket], block, counts[bucket])

    def _in_window(self, window_start: int, limits: dict[str, int]) -> dict[str, _Lease]:
        if window_start != self._window:
            self._window, self._leases = window_start, {}
        if len(self._leases) >= MOST_HELD:
            self._forget_spent()
        held, leases = self._leases, {}
        for bucket in limits:
            lease = held.get(bucket)
            if lease is None:
                lease = held[bucket] = _Lease()
            leases[bucket] = lease
        return leases

    def _forget_spent(self) -> None:
        """Drops the leases with nothing left that the database can still refill (their buckets start a new
        block when they come back): a window's distinct addresses and emails do not pile up."""
        self._leases = {bucket: lease for bucket, lease in self._leases.items() if lease.left or lease.exhausted}


def _take(leases: dict[str, _Lease], limits: dict[str, int]) -> tuple[int, int]:
    admitted = all(lease.left > 0 for lease in leases.values())
    tightest = None
    for bucket, lease in leases.items():
        lease.left -= admitted
        left = (limits[bucket] - lease.counted + lease.left if lease.left or admitted else -1, limits[bucket])
        tightest = left if tightest is None else min(tightest, left)
    assert tightest is not None
    return tightest


def _grant(lease: _Lease, limit: int, block: int, count: int) -> None:
    granted = max(0, min(block, limit - (count - block)))
    lease.left += granted
    lease.exhausted = granted == 0
    # What the counter held once this block was given, not counting what it asked beyond the limit.
    lease.counted = max(lease.counted, count - block + granted)
    lease.next_block = max(1, min(2 * block, LARGEST_BLOCK, (limit - count) // 8))
