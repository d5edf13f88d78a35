"""Email verification on the signing pages (`require_email_2fa`): the page that sends a code and takes it, shown
in place of the form until the browser presents a pass, and the check the form's actions make.

A pass comes as the cookie set when the right code was typed (SameSite=Lax: a top-level page only), or as
`?two_factor_token=` or the `X-Two-Factor-Token` header: a pass an embedding server asked the API for, or the one
the embedded form carries itself (a page framed by another site gets no Lax cookie). The page hands the pass it
was opened with to the form's actions, and never a longer one: a browser stays verified as long as its pass.

The posts carry no form token: the link is the credential, and what a forged post could do (send the signer a
code, try a code) is counted per signer.
"""

from __future__ import annotations

from urllib.parse import urlencode

from aiohttp import web

from signsvc.http.appkeys import CLOCK, EMAIL_CODES, SETTINGS, SIGNING_FORMS, VERIFICATION_PASSES
from signsvc.http.web import catalogue, public_forms, rendering
from signsvc.infra import errors
from signsvc.submissions import email_verification, invitations
from signsvc.submissions.email_verification import Outcome
from signsvc.submissions.signing_form import AWAITING, COMPLETED, FORM, FormView
from signsvc.submissions.verification_passes import BROWSER_LIFETIME
from storage.records import Submission, Submitter

COOKIE_PREFIX = "signsvc_verified_"
QUERY = "two_factor_token"
HEADER = "X-Two-Factor-Token"
# The states whose page shows the signer's form, documents or co-signers; the others show nothing of theirs.
GATED = (FORM, COMPLETED, AWAITING)
PROBLEMS = {
    Outcome.MISSING: ("verify.missing", 422),
    Outcome.WRONG: ("verify.wrong", 422),
    Outcome.EXPIRED: ("verify.expired", 422),
}
SEND_REFUSALS = {Outcome.TOO_MANY: "verify.too_many", Outcome.TOO_MANY_TODAY: "verify.too_many_today"}


def presented(request: web.Request, submitter: Submitter) -> str | None:
    """The pass for the submitter the request carries (cookie, query or header), if one is valid now."""
    cookie = request.cookies.get(_cookie(submitter))
    return cookie if request.app[VERIFICATION_PASSES].admits(submitter, cookie) else _carried(request, submitter)


def refuse_unverified(request: web.Request, signer: email_verification.Signer) -> None:
    """The form's actions: refused (403) to a browser that has not verified the signer's email address."""
    if signer.must_verify and presented(request, signer.submitter) is None:
        raise errors.NotAuthorized(email_verification.REQUIRED)


async def gate(request: web.Request, view: FormView, *, embedded: bool) -> web.Response | None:
    """The verification page when the signer must verify and this browser has not; None to show the page."""
    if view.state not in GATED or not view.must_verify:
        return None
    if presented(request, view.submitter) is not None:
        return None
    return await _page(request, view.submission, view.submitter)


def action_query(request: web.Request, view: FormView) -> str:
    """What the form's script appends to its actions' paths: the pass the page was opened with from its address
    or a header (a pass in the cookie goes with the actions by itself, and stays out of the page's reach)."""
    token = _given(request, view)
    return "?" + urlencode({QUERY: token}) if token else ""


def keep(request: web.Request, response: web.Response, view: FormView) -> None:
    """A pass that opened the page from its address or a header is kept in the cookie too, until it expires, so
    that the page opens again without it."""
    if (token := _given(request, view)) and token != request.cookies.get(_cookie(view.submitter)):
        _set_cookie(request, response, view.submitter, token)


def _given(request: web.Request, view: FormView) -> str | None:
    """A valid pass from the query or the header, for a signer who must verify."""
    return _carried(request, view.submitter) if view.must_verify else None


def _carried(request: web.Request, submitter: Submitter) -> str | None:
    passes = request.app[VERIFICATION_PASSES]
    carried = (request.query.get(QUERY), request.headers.get(HEADER))
    return next((token for token in carried if passes.admits(submitter, token)), None)


async def send(request: web.Request) -> web.Response:
    """Sends a new code to the signer's email address; the page again, with the code's input."""
    found = await _subject(request)
    if isinstance(found, web.Response):
        return found
    submission, submitter, _ = found
    outcome = await request.app[EMAIL_CODES].send(submission, submitter, _language(request, submission, submitter))
    if outcome in SEND_REFUSALS:
        return await _page(request, submission, submitter, notice=SEND_REFUSALS[outcome], status=429)
    return await _page(request, submission, submitter, notice="verify.sent")


async def check(request: web.Request) -> web.Response:
    """Checks the code typed; the form, with a pass, when it is the right one; else the page saying why not."""
    found = await _subject(request, ("code",))
    if isinstance(found, web.Response):
        return found
    submission, submitter, form = found
    outcome = await request.app[EMAIL_CODES].check(submitter, form["code"])
    if outcome == Outcome.VERIFIED:
        return _verified(request, submitter)
    if outcome == Outcome.TOO_MANY:
        return await _page(request, submission, submitter, notice="verify.too_many", status=429, pending=True)
    if outcome == Outcome.USED_UP:  # no input: no code works any more
        return await _page(request, submission, submitter, notice="verify.used_up", status=422, pending=False)
    problem, status = PROBLEMS[outcome]
    return await _page(request, submission, submitter, problem=problem, status=status, pending=True)


async def _subject(
    request: web.Request, keys: tuple[str, ...] = ()
) -> tuple[Submission, Submitter, dict[str, str]] | web.Response:
    """The submission and submitter a post names, and the form posted; else the answer to give. A signer who
    has nothing to verify (any more) is sent to their page."""
    try:
        form = await public_forms.read(request, keys)  # counted against the caller's address first
    except public_forms.Unreadable as unreadable:
        too_many = unreadable.status == 429
        return rendering.render(
            request,
            "message.html",
            status=unreadable.status,
            framable=_embedded(request),
            title_key="public.too_many.title" if too_many else "public.bad_post.title",
            body_key="public.too_many.body" if too_many else "public.bad_post.body",
        )
    view = await request.app[SIGNING_FORMS].open(request.match_info["slug"])
    if view is None:
        return rendering.not_found(request, framable=_embedded(request))
    if not view.must_verify or view.state not in GATED:
        raise web.HTTPSeeOther(_base(request, view.submitter))
    return view.submission, view.submitter, form


def _verified(request: web.Request, submitter: Submitter) -> web.Response:
    """Sends the browser on to the form with a new pass: in the cookie, and for an embedded form in its
    address too (a framed page of another site may get no cookie)."""
    token, _ = request.app[VERIFICATION_PASSES].issue(submitter, BROWSER_LIFETIME)
    location = _base(request, submitter) + ("?" + urlencode({QUERY: token}) if _embedded(request) else "")
    response = web.Response(status=303, headers={"Location": location, **rendering.headers(_embedded(request))})
    _set_cookie(request, response, submitter, token)
    return response


async def _page(
    request: web.Request,
    submission: Submission,
    submitter: Submitter,
    *,
    notice: str | None = None,
    problem: str | None = None,
    status: int = 200,
    pending: bool | None = None,
) -> web.Response:
    """The verification page: the code's input once a code that still works was sent, and the button that
    sends one."""
    embedded = _embedded(request)
    if pending is None:
        pending = notice == "verify.sent" or await request.app[EMAIL_CODES].pending(submitter)
    catalogue.choose(request, invitations.stated_languages(submission, submitter))
    return rendering.render(
        request,
        "signing/verify.html",
        status=status,
        framable=embedded,
        title=submission.name or submission.template_name,
        email=email_verification.masked(submitter.email) if submitter.email else None,
        minutes=email_verification.minutes(),
        base=_base(request, submitter),
        embedded=embedded,
        pending=pending,
        notice=notice,
        notice_is_problem=notice != "verify.sent",
        problem=problem,
        data={"embedded": embedded, "state": "verify", "strings": {}},
    )


def _set_cookie(request: web.Request, response: web.StreamResponse, submitter: Submitter, token: str) -> None:
    lifetime = int(token.partition(".")[0]) - int(request.app[CLOCK].now().timestamp())
    response.set_cookie(
        _cookie(submitter),
        token,
        max_age=max(lifetime, 0),
        path="/",
        httponly=True,
        samesite="Lax",
        secure=request.app[SETTINGS].urls.secure,
    )


def _cookie(submitter: Submitter) -> str:
    return f"{COOKIE_PREFIX}{submitter.id}"


def _embedded(request: web.Request) -> bool:
    return request.path.startswith("/apiemb/")


def _base(request: web.Request, submitter: Submitter) -> str:
    return f"/apiemb/{submitter.slug}" if _embedded(request) else f"/s/{submitter.slug}"


def _language(request: web.Request, submission: Submission, submitter: Submitter) -> str:
    """The page's language, which the code's email speaks too: the signer's, else the browser's."""
    return catalogue.language(request, invitations.stated_languages(submission, submitter))
