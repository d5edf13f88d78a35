"""In-process ceilings measured in the same run as the service: rounds before, between and after the
targets, so that drift on the machine hits both alike; the PDF engines set up in this process as a
pool worker sets them up."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import TypeVar

from . import use_repo

T = TypeVar("T")


def between_rounds(ceiling_round: Callable[[], None], targets: Iterable[Callable[[], T]]) -> list[T]:
    """A ceiling round, then each target followed by another ceiling round; answers what the targets answered."""
    ceiling_round()
    results = []
    for target in targets:
        results.append(target())
        ceiling_round()
    return results


def engines_as_in_a_worker() -> None:
    """Makes signsvc importable and quiets pypdf's log as the pool's workers do (signsvc/infra/pool.py):
    every repair pypdf makes would be logged."""
    use_repo()
    logging.getLogger("pypdf").setLevel(logging.ERROR)
