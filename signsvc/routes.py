"""Every route of the service, top to bottom. Ids in paths are digits only, so literal paths never clash."""

from __future__ import annotations

from aiohttp import web

import pages
from signsvc.api import clickwraps, system, templates, users, webhooks
from signsvc.web import files, home


def setup(app: web.Application) -> None:
    app.router.add_get("/", home.show)
    app.router.add_get("/health", system.health)
    app.router.add_get("/openapi.json", system.openapi)
    app.router.add_static("/static", pages.STATIC_DIR)
    app.router.add_get("/file/{token}/{filename:.+}", files.show)

    app.router.add_get("/api/user", users.show)

    app.router.add_get("/api/templates", templates.index)
    app.router.add_post("/api/templates", templates.create)
    app.router.add_post("/api/templates/pdf", templates.create)
    app.router.add_get(r"/api/templates/{id:\d+}", templates.show)
    app.router.add_put(r"/api/templates/{id:\d+}", templates.update)
    app.router.add_delete(r"/api/templates/{id:\d+}", templates.destroy)
    app.router.add_post(r"/api/templates/{id:\d+}/clone", templates.clone)
    app.router.add_get(r"/api/templates/{id:\d+}/pdf", templates.pdf)
    app.router.add_get(r"/api/templates/{id:\d+}/submissions", templates.submissions)

    app.router.add_get("/api/clickwraps", clickwraps.index)
    app.router.add_post("/api/clickwraps", clickwraps.create)
    app.router.add_get(r"/api/clickwraps/{id:\d+}", clickwraps.show)
    app.router.add_put(r"/api/clickwraps/{id:\d+}", clickwraps.update)
    app.router.add_post(r"/api/clickwraps/{id:\d+}/publish", clickwraps.publish)
    app.router.add_get(r"/api/clickwraps/{id:\d+}/consents", clickwraps.consents)
    app.router.add_post(r"/api/clickwraps/{id:\d+}/consents", clickwraps.create_consent)
    app.router.add_get(r"/api/consents/{id:\d+}", clickwraps.show_consent)

    app.router.add_get("/api/webhooks", webhooks.index)
    app.router.add_post("/api/webhooks", webhooks.create)
    app.router.add_get(r"/api/webhooks/{id:\d+}", webhooks.show)
    app.router.add_put(r"/api/webhooks/{id:\d+}", webhooks.update)
    app.router.add_delete(r"/api/webhooks/{id:\d+}", webhooks.destroy)
    app.router.add_get(r"/api/webhooks/{id:\d+}/deliveries", webhooks.deliveries)
    app.router.add_post(r"/api/webhooks/{id:\d+}/deliveries/{delivery_id:\d+}/resend", webhooks.resend)
    app.router.add_post(r"/api/webhooks/{id:\d+}/test", webhooks.test)
