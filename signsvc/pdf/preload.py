"""What the PDF pool's forkserver loads once, before it forks any worker (`signsvc.infra.pool.PRELOADED`).

The engines' libraries (about a second of imports) and the fonts a default install draws with, parsed
(`font_cache`: about a second, nearly all of it the packaged CJK collection; the text, Arabic, Hebrew,
Devanagari and Thai fonts about 0.1 s together): every worker the forkserver forks, the first ones after a start and
each replacement, then has them without paying for them, and a start costs the shared cores that once
rather than once per worker. Also the static instances of the packaged fonts that HTML is drawn with
(`html_render.prepare_fonts`, about a quarter of a second). Imported by the forkserver only, never by the server
process. Not PDFium
(`previews`): it is initialised when imported, so each worker imports it itself rather than inherit a
library set up in another process. Fonts in a configured font directory are parsed by each worker's
warm-up (`signsvc.infra.pdf_calls.warm`).
"""

from __future__ import annotations

import logging

from signsvc.pdf import (
    audit_log,
    consent_certificate,
    fill,
    font_cache,
    forms,
    html_render,
    merge,
    record_pages,
    seal,
    verify,
)

ENGINES = (audit_log, consent_certificate, fill, forms, merge, seal, verify)
log = logging.getLogger(__name__)


def parse_fonts() -> None:
    """Parses the fonts found without a configured font directory."""
    try:
        for path in record_pages.every_font(None):
            font_cache.load(path)
    except Exception:  # a missing or broken font must not stop the forkserver: the document that needs it says so
        log.debug("fonts not parsed ahead", exc_info=True)
    try:
        html_render.prepare_fonts()
    except Exception:  # as above: the render that needs them makes them, or says what is wrong
        log.debug("static fonts not made ahead", exc_info=True)


parse_fonts()
