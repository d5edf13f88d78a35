"""Every route of the service, top to bottom. Ids in paths are digits only, so literal paths never clash,
and at most 18 of them, so every id a path can name fits the databases' 64-bit integers."""

from __future__ import annotations

from aiohttp import web

from signsvc.http import metrics
from signsvc.http.api import (
    clickwraps,
    events,
    submissions,
    submitters,
    system,
    templates,
    testing,
    tools,
    users,
    verification_passes,
    webhooks,
)
from signsvc.http.web import (
    assets,
    clickwrap_page,
    crl,
    email_verification,
    files,
    home,
    phone_handoff,
    signing,
    submitter_actions,
    template_links,
)
from signsvc.http.web.console import routes as console_routes


def setup(app: web.Application) -> None:
    app.router.add_get("/", home.show)
    app.router.add_get("/health", system.health)
    app.router.add_get("/openapi.json", system.openapi)
    app.router.add_get("/static/{hash}/{name}", assets.show)
    app.router.add_get("/js/embed.js", assets.embed_script)
    app.router.add_get("/file/{token}/{filename:.+}", files.show)
    app.router.add_get("/signing/crl/{sha256:[0-9a-f]{64}}.crl", crl.show)
    app.router.add_get("/s/{slug}", signing.form)
    app.router.add_get("/apiemb/{slug}", signing.embedded)
    app.router.add_get("/e/{token}", signing.documents)
    app.router.add_post("/s/{slug}/view", submitter_actions.view)
    app.router.add_post("/s/{slug}/values", submitter_actions.save)
    app.router.add_post("/s/{slug}/complete", submitter_actions.complete)
    app.router.add_post("/s/{slug}/decline", submitter_actions.decline)
    app.router.add_post("/s/{slug}/phone", phone_handoff.start)
    app.router.add_get(r"/s/{slug}/phone/{id:\d{1,18}}", phone_handoff.status)
    app.router.add_get("/p/{token}", phone_handoff.page)
    app.router.add_post("/p/{token}", phone_handoff.sign)
    app.router.add_post("/s/{slug}/verification/send", email_verification.send)
    app.router.add_post("/s/{slug}/verification/check", email_verification.check)
    app.router.add_post("/apiemb/{slug}/verification/send", email_verification.send)
    app.router.add_post("/apiemb/{slug}/verification/check", email_verification.check)
    app.router.add_get("/d/{slug}", template_links.page)
    app.router.add_post("/d/{slug}", template_links.start)
    app.router.add_get("/c/{slug}", clickwrap_page.page)
    app.router.add_post("/c/{slug}", clickwrap_page.agree)
    console_routes.setup(app)

    app.router.add_get("/api/user", users.show)

    app.router.add_get("/api/templates", templates.index)
    app.router.add_post("/api/templates", templates.create)
    app.router.add_post("/api/templates/pdf", templates.create)
    app.router.add_post("/api/templates/docx", templates.create_from_docx)
    app.router.add_post("/api/templates/html", templates.from_html)
    app.router.add_get(r"/api/templates/{id:\d{1,18}}", templates.show)
    app.router.add_put(r"/api/templates/{id:\d{1,18}}", templates.update)
    app.router.add_delete(r"/api/templates/{id:\d{1,18}}", templates.destroy)
    app.router.add_post(r"/api/templates/{id:\d{1,18}}/clone", templates.clone)
    app.router.add_get(r"/api/templates/{id:\d{1,18}}/pdf", templates.pdf)
    app.router.add_post("/api/templates/merge", templates.merge)
    app.router.add_put(r"/api/templates/{id:\d{1,18}}/documents", templates.change_documents)
    app.router.add_get(r"/api/templates/{id:\d{1,18}}/submissions", submissions.of_template)

    app.router.add_get("/api/submissions", submissions.index)
    app.router.add_post("/api/submissions", submissions.create)
    app.router.add_post("/api/submissions/init", submissions.init)
    app.router.add_post("/api/submissions/emails", submissions.from_emails)
    app.router.add_post("/api/submissions/pdf", submissions.from_pdf)
    app.router.add_post("/api/submissions/html", submissions.from_html)
    app.router.add_post("/api/submissions/docx", submissions.from_docx)
    app.router.add_get(r"/api/submissions/{id:\d{1,18}}", submissions.show)
    app.router.add_put(r"/api/submissions/{id:\d{1,18}}", submissions.update)
    app.router.add_get(r"/api/submissions/{id:\d{1,18}}/documents", submissions.documents)
    app.router.add_get(r"/api/submissions/{id:\d{1,18}}/pdf", submissions.pdf)
    app.router.add_delete(r"/api/submissions/{id:\d{1,18}}", submissions.destroy)

    app.router.add_get("/api/submitters", submitters.index)
    app.router.add_get(r"/api/submitters/{id:\d{1,18}}", submitters.show)
    app.router.add_put(r"/api/submitters/{id:\d{1,18}}", submitters.update)
    app.router.add_post(r"/api/submitters/{id:\d{1,18}}/two_factor_token", verification_passes.issue)

    app.router.add_get("/api/events/form/completed", events.form_completed)

    app.router.add_post("/api/tools/merge", tools.merge)
    app.router.add_post("/api/tools/verify", tools.verify)

    app.router.add_get("/api/clickwraps", clickwraps.index)
    app.router.add_post("/api/clickwraps", clickwraps.create)
    app.router.add_get(r"/api/clickwraps/{id:\d{1,18}}", clickwraps.show)
    app.router.add_put(r"/api/clickwraps/{id:\d{1,18}}", clickwraps.update)
    app.router.add_post(r"/api/clickwraps/{id:\d{1,18}}/publish", clickwraps.publish)
    app.router.add_get(r"/api/clickwraps/{id:\d{1,18}}/consents", clickwraps.consents)
    app.router.add_post(r"/api/clickwraps/{id:\d{1,18}}/consents", clickwraps.create_consent)
    app.router.add_get(r"/api/consents/{id:\d{1,18}}", clickwraps.show_consent)

    app.router.add_get("/api/webhooks", webhooks.index)
    app.router.add_post("/api/webhooks", webhooks.create)
    app.router.add_get(r"/api/webhooks/{id:\d{1,18}}", webhooks.show)
    app.router.add_put(r"/api/webhooks/{id:\d{1,18}}", webhooks.update)
    app.router.add_delete(r"/api/webhooks/{id:\d{1,18}}", webhooks.destroy)
    app.router.add_get(r"/api/webhooks/{id:\d{1,18}}/deliveries", webhooks.deliveries)
    app.router.add_post(r"/api/webhooks/{id:\d{1,18}}/deliveries/{delivery_id:\d{1,18}}/resend", webhooks.resend)
    app.router.add_post(r"/api/webhooks/{id:\d{1,18}}/test", webhooks.test)


def add_metrics(app: web.Application) -> None:
    """Only when SIGNSVC_METRICS_TOKEN is set; otherwise /metrics is a 404 like any unknown path."""
    app.router.add_get("/metrics", metrics.show)


def add_testing(app: web.Application) -> None:
    """The testing extension: only when SIGNSVC_TESTING is set; otherwise every path below is a 404."""
    app.router.add_get("/api/_testing/clock", testing.clock)
    app.router.add_post("/api/_testing/clock/advance", testing.advance)
    app.router.add_post("/api/_testing/clock/set", testing.set_time)
    app.router.add_post("/api/_testing/clock/freeze", testing.freeze)
    app.router.add_post("/api/_testing/clock/unfreeze", testing.unfreeze)
    app.router.add_post("/api/_testing/reset", testing.reset)
    app.router.add_post("/api/_testing/jobs/drain", testing.drain)
    app.router.add_post(r"/api/_testing/submitters/{id:\d{1,18}}/view", testing.view)
    app.router.add_post(r"/api/_testing/submitters/{id:\d{1,18}}/start", testing.start)
    app.router.add_post(r"/api/_testing/submitters/{id:\d{1,18}}/complete", testing.complete)
    app.router.add_post(r"/api/_testing/submitters/{id:\d{1,18}}/decline", testing.decline)
    app.router.add_get("/api/_testing/emails", testing.emails)
    app.router.add_get(r"/api/_testing/emails/{id:\d{1,18}}", testing.email)
    app.router.add_get("/api/_testing/webhooks/deliveries", testing.deliveries)
