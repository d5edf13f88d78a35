"""What the bench scripts share, so that each script holds only its own measurement and its own ceiling.

    servers    spawning a server (signsvc, or the bare aiohttp ceiling), waiting for its ready line,
               stopping it with SIGTERM, its notes; the environment (quiet log, fixed key, limits lifted)
    databases  a fresh database per target: a SQLite file, or a Postgres schema dropped afterwards
    usage      what processes use, from /proc: CPU time of a process, its pool, the postgres processes
               and the machine (with steal), resident memory
    client     the load generator's side: an API session, the user check, creating a template, clients
               in a closed loop
    wrk        wrk as the load generator: one run as a subprocess, its output parsed, its own CPU
    probe      GET /api/user every 20 ms from a thread of its own, and its p99 against 50 ms
    ceilings   rounds of an in-process ceiling before, between and after the targets; the PDF engines
               set up in this process as in a pool worker
    samples    the words of the sample documents' contract text; a one-page PDF
    report     percentiles, ratios, tables, failures counted, the machine line

Standard library, aiohttp and asyncpg; whatever needs the repository (signsvc, storage)
imports it when called, after `use_repo()`. Linux only (select on pipes, /proc).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def use_repo() -> None:
    """Makes signsvc, storage and pages importable: a script run as `python bench/x.py` has bench/ first on its
    path, and bench/pages.py would stand for the repository's `pages` (the templates and catalogues), even when
    PYTHONPATH names the repository after it."""
    if sys.path[:1] != [str(REPO)]:
        sys.path.insert(0, str(REPO))


def arguments(doc: str) -> argparse.ArgumentParser:
    """A command line described by the first paragraph of the script's docstring."""
    return argparse.ArgumentParser(description=doc.split("\n\n")[0])
