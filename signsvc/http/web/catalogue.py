"""Every string the pages show, by language (`signsvc.infra.languages`: the catalogues in `pages/i18n/`, a key a
catalogue lacks falling back to English). The language is the submitter's (`preferences.language`), else
the first the browser asks for that a catalogue exists for, else English."""

from __future__ import annotations

from collections.abc import Iterable

from aiohttp import web

from signsvc.infra.languages import DEFAULT, chosen, languages, own, strings, translator

__all__ = ["DEFAULT", "language", "languages", "own", "strings", "translator"]


def language(request: web.Request, preferred: Iterable[str | None] = ()) -> str:
    """The language to show: the first preferred one (the submitter's) there is a catalogue for, else the
    browser's (Accept-Language, by its weights), else English."""
    return chosen([*preferred, *_accepted(request.headers.get("Accept-Language", ""))]) or DEFAULT


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
