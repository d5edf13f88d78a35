"""Printing figures: percentiles, ratios to the ceiling, CPU as a share of a core, tables, failures
counted, and the line that says what machine the figures come from."""

from __future__ import annotations

import os
import statistics
import sys


def percentile(sorted_values: list[float], fraction: float) -> float:
    """Nearest-rank percentile of an ascending list; NaN for none."""
    if not sorted_values:
        return float("nan")
    index = max(0, min(len(sorted_values) - 1, round(fraction * len(sorted_values)) - 1))
    return sorted_values[index]


def median(values: list[float]) -> float:
    """The median; NaN for none."""
    return statistics.median(values) if values else float("nan")


def ms(seconds: float) -> str:
    """Seconds as whole milliseconds."""
    return f"{seconds * 1000:.0f}"


def ratio(value: float, ceiling: float) -> str:
    """A figure over its ceiling measured in the same run: `0.43x`."""
    return f"{value / ceiling:.2f}x"


def percent(cpu_seconds: float | None, seconds: float) -> str:
    """CPU-seconds over a wall time, in percent of one core (`-` when not measured)."""
    return "-" if cpu_seconds is None else f"{100 * cpu_seconds / seconds:.0f}%"


def print_table(headers: list[str], rows: list[list[str]]) -> None:
    """Columns padded to their widest cell; the first left-aligned, the others right-aligned."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows, strict=True)]
    for row in [headers, ["-" * w for w in widths], *rows]:
        print(
            "  ".join(
                str(cell).ljust(w) if i == 0 else str(cell).rjust(w)
                for i, (cell, w) in enumerate(zip(row, widths, strict=True))
            ).rstrip()
        )


def print_counted(kind: str, where: str, items: list[str]) -> None:
    """Each distinct item once, with how often it happened: `failure [where] (3x): ...`."""
    for item in sorted(set(items)):
        print(f"{kind} [{where}] ({items.count(item)}x): {item}")


def machine_line() -> str:
    """`2 CPU cores; Python 3.11.7; load average 0.12` (the load average now)."""
    return f"{os.cpu_count()} CPU cores; Python {sys.version.split()[0]}; load average {os.getloadavg()[0]:.2f}"


def progress(text: str) -> None:
    """A progress line on stderr, so that stdout holds the figures alone."""
    print(f"  {text}", file=sys.stderr, flush=True)
