"""Rendering a page: its template through aiohttp-jinja2 (`templating`), and the headers every page carries
(a Content-Security-Policy without inline script, no framing but for the embeddable form, no sniffing, no
referrer: the paths hold credentials)."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from signsvc.http.web import assets, notices, templating

_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; font-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors {frames}"
)


def render(
    request: web.Request, template: str, *, status: int = 200, framable: bool = False, **context: Any
) -> web.Response:
    """The page `template` with the handler's own data (`context`) and the headers every page carries; what
    every page shows (its language and `t`, `asset`, ...) comes from the context processors."""
    response = templating.render(request, template, context, status=status)
    response.headers.update(headers(framable))
    return response


def context(request: web.Request) -> dict[str, Any]:
    """Context processor of every page: the static files' URL (`asset`), and whether emails stay in the
    outbox (`mail_kept`)."""
    return {"asset": assets.url, "mail_kept": notices.mail_kept(request.app)}


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
    return render(
        request,
        "message.html",
        status=404,
        framable=framable,
        title_key="not_found.title",
        body_key="not_found.body",
    )
