"""The console's routes: each module of this package lists its own in `ROUTES`."""

from __future__ import annotations

from aiohttp import web

from signsvc.http.web.console import (
    api_settings,
    bulk_send,
    completed_copies,
    outbox,
    reminder_settings,
    sign_in,
    signature_settings,
    submissions,
    templates,
    users,
    verify_tool,
    webhooks,
)

SIGN_IN = [
    web.get("/console", sign_in.home),
    web.get("/console/sign-in", sign_in.sign_in_page),
    web.post("/console/sign-in", sign_in.sign_in),
    web.post("/console/sign-out", sign_in.sign_out),
    web.post("/console/mode", sign_in.switch_mode),
    web.get("/console/setup/{token}", sign_in.link_page),
    web.post("/console/setup/{token}", sign_in.set_password),
    web.get("/console/reset", sign_in.reset_page),
    web.post("/console/reset", sign_in.request_reset),
    web.get("/console/reset/{token}", sign_in.link_page),
    web.post("/console/reset/{token}", sign_in.set_password),
]


def setup(app: web.Application) -> None:
    app.router.add_routes(SIGN_IN)
    for module in (
        api_settings,
        reminder_settings,
        signature_settings,
        users,
        webhooks,
        templates,
        submissions,
        bulk_send,
        completed_copies,
        outbox,
        verify_tool,
    ):
        app.router.add_routes(module.ROUTES)
