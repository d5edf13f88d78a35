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


def rounds_arguments(parser: argparse.ArgumentParser, *, count: int, ceiling_runs: int, ceiling_unit: str) -> None:
    """The options of a bench of creations one at a time, in rounds per database, against an in-process ceiling
    (`ceiling_unit`: what a ceiling round runs, as the help names it)."""
    parser.add_argument("--count", type=int, default=count, help=f"creations per round and target (default {count})")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per target (default 3)")
    parser.add_argument(
        "--ceiling-runs",
        type=int,
        default=ceiling_runs,
        help=f"{ceiling_unit} per ceiling round (default {ceiling_runs})",
    )
    parser.add_argument("--skip-postgres", action="store_true", help="leave out the Postgres target")


def parsed_rounds(parser: argparse.ArgumentParser) -> argparse.Namespace:
    """The command line of `rounds_arguments`, checked: counts of at least 1, Postgres reachable unless skipped."""
    from harness import databases

    args = parser.parse_args()
    if min(args.count, args.rounds, args.ceiling_runs) < 1:
        parser.error("--count, --rounds and --ceiling-runs must be at least 1")
    if not args.skip_postgres:
        databases.require_postgres(parser)
    return args
