"""Every string the pages show, by language (`signsvc.infra.languages`: the catalogues in `pages/i18n/`, a key a
catalogue lacks falling back to English). The language is the submitter's (`preferences.language`), else
the first the browser asks for that a catalogue exists for, else English."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from aiohttp import web

from signsvc.infra.languages import DEFAULT, chosen, languages, own, strings, translator

__all__ = ["DEFAULT", "choose", "context", "language", "languages", "own", "strings", "translator"]

CHOSEN = web.RequestKey("language", str)  # the language a handler chose for its page (`choose`)


def language(request: web.Request, preferred: Iterable[str | None] = ()) -> str:
    """The language to show: the first preferred one (the submitter's) there is a catalogue for, else the
    browser's (Accept-Language, by its weights), else English."""
    return chosen([*preferred, *_accepted(request.headers.get("Accept-Language", ""))]) or DEFAULT


def choose(request: web.Request, preferred: Iterable[str | None]) -> str:
    """`language(request, preferred)`, which the request's page is then shown in (the submitter's, say)."""
    request[CHOSEN] = picked = language(request, preferred)
    return picked


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
