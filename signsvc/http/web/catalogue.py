"""Every string the pages show, by language: the catalogues in `pages/i18n/`, each `{language}.json` with
the parts in its folder (`{language}/*.json`, one per area of the console), English first; a key a
catalogue lacks falls back to English. The language is the submitter's (`preferences.language`), else
the first the browser asks for that a catalogue exists for, else English."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable
from typing import Any

from aiohttp import web

import pages

DEFAULT = "en"
CHOSEN = web.RequestKey("language", str)  # the language a handler chose for its page (`choose`)


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


def language(request: web.Request, preferred: Iterable[str | None] = ()) -> str:
    """The language to show: the first preferred one (the submitter's) there is a catalogue for, else the
    browser's (Accept-Language, by its weights), else English."""
    for choice in [*preferred, *_accepted(request.headers.get("Accept-Language", ""))]:
        code = (choice or "").lower().split("-")[0].split("_")[0]
        if code in languages():
            return code
    return DEFAULT


def choose(request: web.Request, preferred: Iterable[str | None]) -> str:
    """`language(request, preferred)`, which the request's page is then shown in (the submitter's, say)."""
    request[CHOSEN] = chosen = language(request, preferred)
    return chosen


def context(request: web.Request) -> dict[str, Any]:
    """Context processor of every page: its `language` (the one its handler chose, else the browser's) and
    `t`, the translator of that language."""
    shown = request.get(CHOSEN) or language(request)
    return {"language": shown, "t": translator(shown)}


def _accepted(header: str) -> list[str]:
    weighted = []
    for position, part in enumerate(header.split(",")):
        code, _, parameters = part.strip().partition(";")
        weight = 1.0
        if parameters.strip().startswith("q="):
            try:
                weight = float(parameters.strip()[2:])
            except ValueError:
                weight = 0.0
        if code and weight > 0:
            weighted.append((-weight, position, code))
    return [code for _, _, code in sorted(weighted)]
