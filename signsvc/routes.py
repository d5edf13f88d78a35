"""Every route of the service, top to bottom. Ids in paths are digits only, so literal paths never clash."""

from __future__ import annotations

from aiohttp import web

import pages
from signsvc.api import clickwraps, submissions, submitters, system, templates, users
from signsvc.web import files, home, signer_actions


def setup(app: web.Application) -> None:
    app.router.add_get("/", home.show)
    app.router.add_get("/health", system.health)
    app.router.add_get("/openapi.json", system.openapi)
    app.router.add_static("/static", pages.STATIC_DIR)
    app.router.add_get("/file/{token}/{filename:.+}", files.show)
    app.router.add_post("/s/{slug}/view", signer_actions.view)
    app.router.add_post("/s/{slug}/values", signer_actions.save)
    app.router.add_post("/s/{slug}/complete", signer_actions.complete)
    app.router.add_post("/s/{slug}/decline", signer_actions.decline)

    app.router.add_get("/api/user", users.show)

    app.router.add_get("/api/templates", templates.index)
    app.router.add_post("/api/templates", templates.create)
    app.router.add_post("/api/templates/pdf", templates.create)
    app.router.add_get(r"/api/templates/{id:\d+}", templates.show)
    app.router.add_put(r"/api/templates/{id:\d+}", templates.update)
    app.router.add_delete(r"/api/templates/{id:\d+}", templates.destroy)
    app.router.add_post(r"/api/templates/{id:\d+}/clone", templates.clone)
    app.router.add_get(r"/api/templates/{id:\d+}/pdf", templates.pdf)
    app.router.add_get(r"/api/templates/{id:\d+}/submissions", submissions.of_template)

    app.router.add_get("/api/submissions", submissions.index)
    app.router.add_post("/api/submissions", submissions.create)
    app.router.add_post("/api/submissions/init", submissions.init)
    app.router.add_post("/api/submissions/emails", submissions.from_emails)
    app.router.add_get(r"/api/submissions/{id:\d+}", submissions.show)
    app.router.add_put(r"/api/submissions/{id:\d+}", submissions.update)
    app.router.add_delete(r"/api/submissions/{id:\d+}", submissions.destroy)

    app.router.add_get("/api/submitters", submitters.index)
    app.router.add_get(r"/api/submitters/{id:\d+}", submitters.show)
    app.router.add_put(r"/api/submitters/{id:\d+}", submitters.update)

    app.router.add_get("/api/clickwraps", clickwraps.index)
    app.router.add_post("/api/clickwraps", clickwraps.create)
    app.router.add_get(r"/api/clickwraps/{id:\d+}", clickwraps.show)
    app.router.add_put(r"/api/clickwraps/{id:\d+}", clickwraps.update)
    app.router.add_post(r"/api/clickwraps/{id:\d+}/publish", clickwraps.publish)
    app.router.add_get(r"/api/clickwraps/{id:\d+}/consents", clickwraps.consents)
    app.router.add_post(r"/api/clickwraps/{id:\d+}/consents", clickwraps.create_consent)
    app.router.add_get(r"/api/consents/{id:\d+}", clickwraps.show_consent)
