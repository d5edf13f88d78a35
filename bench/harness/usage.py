"""What processes use, read from /proc (Linux): CPU time of one process, of a server's pool (the
processes below it), of every postgres process and of the whole machine (and the CPU the hypervisor
stole), and resident memory. `CpuTimes.now()` takes them all at once; subtract two for a window."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable
from dataclasses import astuple, dataclass
from pathlib import Path


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def reaped_cpu_seconds(pid: int) -> float:
    """User plus system CPU time of the children a process has waited for (a subprocess such as LibreOffice)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    """The process ids just below `pid`: the serving processes of `run.py --workers N` (and its resource tracker)."""
    found = []
    with contextlib.suppress(FileNotFoundError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(FileNotFoundError, ProcessLookupError):
                found += [int(child) for child in (task / "children").read_text().split()]
    return found


def descendants(pid: int) -> list[int]:
    """The process ids below `pid` (children, grandchildren, ...): a server's forkserver and pool workers."""
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = list(Path(f"/proc/{parent}/task").iterdir())
        except FileNotFoundError:
            continue
        for task in tasks:
            try:
                children = [int(child) for child in (task / "children").read_text().split()]
            except (FileNotFoundError, ProcessLookupError):
                continue
            found += children
            todo += children
    return found


def tree_cpu_seconds(pids: Iterable[int]) -> float:
    """Summed user plus system CPU time of the given processes; one that has gone counts 0."""
    total = 0.0
    for pid in pids:
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            total += cpu_seconds(pid)
    return total


def machine_seconds() -> tuple[float, float]:
    """CPU-seconds of all cores since boot, from /proc/stat: busy (user, nice, system, irq, softirq)
    and stolen by the hypervisor."""
    user, nice, system, _, _, irq, softirq, steal = map(int, Path("/proc/stat").read_text().split()[1:9])
    tick = os.sysconf("SC_CLK_TCK")
    return (user + nice + system + irq + softirq) / tick, steal / tick


def postgres_cpu() -> dict[int, float]:
    """CPU seconds so far of every process named `postgres` on this machine (the server and its
    backends; other users' sessions included), by pid."""
    found = {}
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(FileNotFoundError, ProcessLookupError, NotADirectoryError):
            if entry.name.isdigit() and (entry / "comm").read_text().strip() == "postgres":
                found[int(entry.name)] = cpu_seconds(int(entry.name))
    return found


def postgres_cpu_since(before: dict[int, float]) -> float:
    """CPU seconds the postgres processes used since `before` (a `postgres_cpu()`); a backend started
    meanwhile counts from 0."""
    return sum(cpu - before.get(pid, 0.0) for pid, cpu in postgres_cpu().items())


def resident_mb(pid: int) -> float:
    """The process's resident memory (VmRSS), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


@dataclass(frozen=True)
class CpuTimes:
    """CPU-seconds used so far by this process (the load generator, or a ceiling's work), a server
    process, the processes of its pool, and the whole machine (busy, and stolen by the hypervisor).
    `later - earlier` is what each used in between."""

    own: float
    server: float
    pool: float
    machine: float
    steal: float

    @classmethod
    def now(cls, server_pid: int | None = None, pool: Iterable[int] = ()) -> CpuTimes:
        machine, steal = machine_seconds()
        return cls(
            time.process_time(), cpu_seconds(server_pid) if server_pid else 0.0, tree_cpu_seconds(pool), machine, steal
        )

    def __sub__(self, earlier: CpuTimes) -> CpuTimes:
        return CpuTimes(*(a - b for a, b in zip(astuple(self), astuple(earlier), strict=True)))

    @property
    def others(self) -> float:
        """What every other process on the machine used: busy CPU less this process, the server and its pool."""
        return self.machine - self.own - self.server - self.pool
