"""Rendering a page: its Jinja2 template with the catalogue's strings and the static files' paths, and
the headers every page carries (a Content-Security-Policy without inline script, no framing but for
the embeddable form, no sniffing, no referrer: the paths hold credentials)."""

from __future__ import annotations

from typing import Any

from aiohttp import web

import pages
from signsvc.http.web import assets, catalogue, notices

_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; font-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors {frames}"
)


def render(
    request: web.Request, template: str, *, language: str, status: int = 200, framable: bool = False, **context: Any
) -> web.Response:
    html = (
        pages.page_templates()
        .get_template(template)
        .render(
            t=catalogue.translator(language),
            language=language,
            asset=assets.url,
            mail_kept=notices.mail_kept(request.app),
            **context,
        )
    )
    return web.Response(text=html, status=status, content_type="text/html", headers=headers(framable))


def headers(framable: bool = False) -> dict[str, str]:
    found = {
        "Content-Security-Policy": _POLICY.format(frames="*" if framable else "'none'"),
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "private, no-store",
    }
    if not framable:
        found["X-Frame-Options"] = "DENY"
    return found


def protect(path: str, response: web.StreamResponse) -> None:
    """What every response outside the API carries unless its handler said otherwise: no sniffing, no
    referrer, and for any HTML (an error page, say) no framing but for the embeddable form."""
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    if response.content_type == "text/html" and "Content-Security-Policy" not in response.headers:
        for name, value in headers(framable=path.startswith("/apiemb/")).items():
            response.headers.setdefault(name, value)


def not_found(request: web.Request, *, framable: bool = False) -> web.Response:
    """The page for a link that names nothing: a human page, not JSON."""
    language = catalogue.language(request)
    return render(
        request,
        "message.html",
        language=language,
        status=404,
        framable=framable,
        title_key="not_found.title",
        body_key="not_found.body",
    )
