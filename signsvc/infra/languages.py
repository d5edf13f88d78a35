"""The languages the service speaks: every string of the pages, emails and records (the audit log, the consent
certificate) from the catalogues in `pages/i18n/`, each `{language}.json` with the parts in its folder
(`{language}/*.json`, one per area), English first; a key a catalogue lacks falls back to English.

A person's language is the first of theirs there is a catalogue for (`de-AT` is `de`), else English. Dates and
numbers are written as the language writes them (Babel, loaded with the first one); times are always in UTC,
and say so.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

import pages

DEFAULT = "en"
RIGHT_TO_LEFT = frozenset({"ar", "he"})


@functools.cache
def languages() -> frozenset[str]:
    return frozenset(path.stem for path in pages.CATALOGUE_DIR.glob("*.json"))


@functools.cache
def strings(language: str) -> dict[str, str]:
    english = own(DEFAULT)
    return english if language == DEFAULT else {**english, **own(language)}


def own(language: str) -> dict[str, str]:
    """The strings a language's catalogue has itself, without English for the missing ones."""
    found: dict[str, str] = json.loads((pages.CATALOGUE_DIR / f"{language}.json").read_text())
    for part in sorted((pages.CATALOGUE_DIR / language).glob("*.json")):
        found.update(json.loads(part.read_text()))
    return found


def translator(language: str) -> Callable[..., str]:
    """`t(key, **values)`: the string of `key` with `{name}` values filled in."""
    found = strings(language)

    def t(key: str, **values: Any) -> str:
        return found[key].format(**values) if values else found[key]

    return t


@functools.cache
def words(language: str, prefixes: tuple[str, ...]) -> dict[str, str]:
    """The strings whose keys start with one of `prefixes`: what a record's drawing is handed, in plain data."""
    return {key: text for key, text in strings(language).items() if key.startswith(prefixes)}


def chosen(preferred: Iterable[str | None]) -> str | None:
    """The first of the `preferred` languages (tags such as `de-AT`, or None) there is a catalogue for."""
    for choice in preferred:
        code = (choice or "").lower().split("-")[0].split("_")[0]
        if code in languages():
            return code
    return None


def of(*preferred: str | None) -> str:
    """The language to write to a person in: the first of theirs there is a catalogue for, else English."""
    return chosen(preferred) or DEFAULT


def direction(language: str) -> str:
    return "rtl" if language in RIGHT_TO_LEFT else "ltr"


def moment(when: datetime, language: str) -> str:
    """A time to the minute as the language writes it, in UTC: "November 28, 2026, 2:03 PM UTC",
    "28 listopada 2026, 14:03 UTC"."""
    from babel import dates

    when = when.astimezone(UTC)
    joined = str(dates.get_datetime_format("medium", locale=language)).replace("'", "")
    time = dates.format_time(when, "short", tzinfo=UTC, locale=language)
    day = str(dates.format_date(when, "long", locale=language))
    return _spaced(joined.replace("{1}", day).replace("{0}", str(time)) + " UTC")


@functools.lru_cache(maxsize=256)  # a few numbers, each written in every email of its kind (Babel takes ~50 µs)
def number(value: int | float, language: str) -> str:
    from babel import numbers

    return _spaced(str(numbers.format_decimal(value, locale=language)))


def _spaced(text: str) -> str:
    """CLDR's narrow no-break space (before "PM", between thousands in French) as the no-break space every font
    and mail client has."""
    return text.replace("\u202f", "\u00a0")
