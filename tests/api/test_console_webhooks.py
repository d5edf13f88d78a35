"""The console's webhooks pages: endpoints added, changed and deleted through the same rules as /api/webhooks
(their refusals shown beside the input, nothing saved), the secret shown once, the delivery log with every
attempt, resend and the test webhook against a real local receiver, and only the account's own endpoints
(the test account's in test mode)."""

import html
import re

import pytest

from signsvc.webhooks.endpoints import EVENT_TYPES
from tests.support.app import TEST_KEY, Api
from tests.support.console import Console, location, signed_in
from tests.support.signing import send, template

PAGE = "/console/webhooks"
SECRET = "whsec-" + "k" * 40
TEMPLATE_EVENTS = ["template.created", "template.updated"]


def visible(reply) -> str:
    """The page's text as a person reads it: tags dropped, entities decoded, spaces collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", reply.body.decode())).split())


def problem_of(reply, name: str) -> str:
    """The message shown beside the form's input `name`."""
    found = re.search(rf'<p class="problem" role="alert" id="{name}-problem">([^<]*)</p>', reply.body.decode())
    assert found, f"no problem beside {name}"
    return html.unescape(found[1])


async def add(console: Console, url: str, events=TEMPLATE_EVENTS, **fields):
    await console.get(f"{PAGE}/new")
    return await console.post(PAGE, {"url": url, "events": list(events), **fields})


async def endpoints(api, key=None) -> list[dict]:
    reply = await (api.with_key(key) if key else api).get("/api/webhooks")
    assert reply.status == 200, reply.json
    return reply.json["data"]


async def api_refusal(api, body: dict) -> str:
    """What /api/webhooks answers the same settings."""
    reply = await api.post("/api/webhooks", json=body)
    assert reply.status == 422, reply.json
    return reply.json["error"]


# Adding an endpoint


async def test_an_endpoint_added_in_the_console_is_the_one_the_api_lists(api, receiver):
    console = await signed_in(api)
    form = await console.get(f"{PAGE}/new")
    assert form.status == 200
    for event_type in EVENT_TYPES:
        assert f'name="events" value="{event_type}"' in form.body.decode(), "every event type is a checkbox"
    reply = await add(console, receiver.url(), events=["form.completed", "template.created"])
    assert reply.status == 303 and location(reply) == f"{PAGE}/1?done=webhook_created"
    [endpoint] = await endpoints(api)
    assert (endpoint["id"], endpoint["url"], endpoint["events"], endpoint["secret"]) == (
        1,
        receiver.url(),
        ["form.completed", "template.created"],
        None,
    )
    page = visible(await console.get(location(reply)))
    assert "The endpoint is added." in page and receiver.url() in page
    listed = visible(await console.get(PAGE))
    assert receiver.url() in listed and "form.completed, template.created" in listed and "None yet" in listed


async def test_an_ftp_url_is_refused_with_the_apis_message_beside_it_and_nothing_is_saved(api):
    console = await signed_in(api)
    reply = await add(console, "ftp://files.example.com/hook", events=["form.completed"])
    assert reply.status == 422
    message = await api_refusal(api, {"url": "ftp://files.example.com/hook", "events": ["form.completed"]})
    assert problem_of(reply, "url") == message and message.startswith("url must be an http:// or https:// URL")
    body = reply.body.decode()
    assert re.search(r'<input id="url"[^>]*aria-describedby="url-problem url-hint" aria-invalid="true" autofocus', body)
    assert 'value="ftp://files.example.com/hook"' in body, "what was typed is kept"
    assert re.search(r'value="form.completed"\s+aria-describedby="event-3-hint" checked', body), "the events too"
    assert await endpoints(api) == []


@pytest.mark.parametrize("events,name", [([], "events"), (["form.completed", "form.exploded"], "events")])
async def test_events_the_api_refuses_are_refused_beside_the_events(api, events, name):
    console = await signed_in(api)
    reply = await add(console, "https://app.example.com/hook", events=events)
    assert reply.status == 422
    assert problem_of(reply, name) == await api_refusal(api, {"url": "https://app.example.com/hook", "events": events})
    assert await endpoints(api) == []


@pytest.mark.parametrize(
    "fields,name",
    [
        ({"secret_header": "X-Secret", "secret_value": "short"}, "secret_value"),
        ({"secret_header": "Content-Type", "secret_value": SECRET}, "secret_header"),
        ({"secret_header": "", "secret_value": SECRET}, "secret_header"),
    ],
)
async def test_a_secret_the_api_refuses_is_refused_beside_its_input(api, fields, name):
    console = await signed_in(api)
    reply = await add(console, "https://app.example.com/hook", **fields)
    assert reply.status == 422
    secret = {"header": fields["secret_header"], "value": fields["secret_value"]}
    assert problem_of(reply, name) == await api_refusal(api, {"url": "https://app.example.com/hook", "secret": secret})
    assert await endpoints(api) == []


async def test_a_private_address_is_refused_where_the_service_allows_only_public_ones(aiohttp_client, make_app):
    api = Api(await aiohttp_client(make_app(webhook_public_only=True)))
    console = await signed_in(api)
    reply = await add(console, "http://10.0.0.7/hook")
    assert reply.status == 422
    assert (
        problem_of(reply, "url") == "url must point to a public address: 10.0.0.7 is a private or local network "
        "address (SIGNSVC_WEBHOOK_PUBLIC_ONLY allows only public ones)"
    )
    assert await endpoints(api) == []


async def test_the_twenty_first_endpoint_is_refused_above_the_form(api):
    console = await signed_in(api)
    for number in range(20):
        assert (await add(console, f"https://app.example.com/hook/{number}")).status == 303
    reply = await add(console, "https://app.example.com/hook/20")
    assert reply.status == 422
    assert (
        '<p class="problem" role="alert" id="problem">an account has at most 20 webhook endpoints</p>'
        in reply.body.decode()
    )
    assert (await api.get("/api/webhooks?limit=100")).json["pagination"]["count"] == 20


# The secret


async def test_the_secret_is_shown_once_right_after_it_is_set_and_never_again(api):
    console = await signed_in(api)
    reply = await add(console, "https://app.example.com/hook", secret_header="X-Signsvc-Secret", secret_value=SECRET)
    assert reply.status == 200
    page = visible(reply)
    assert "The endpoint is added." in page and "Copy the secret now" in page and SECRET in page
    assert "X-Signsvc-Secret" in page
    [endpoint] = await endpoints(api)
    assert endpoint["secret"] == {"header": "X-Signsvc-Secret"}, "the API keeps the value to itself too"
    again = visible(await console.get(f"{PAGE}/1"))
    assert SECRET not in again and "Sent in the X-Signsvc-Secret header; its value is not shown again." in again
    edit = (await console.get(f"{PAGE}/1/edit")).body.decode()
    assert SECRET not in edit and 'value="X-Signsvc-Secret"' in edit


async def test_a_secret_shorter_than_recommended_is_saved_with_the_apis_warning(api):
    console = await signed_in(api)
    reply = await add(console, "https://app.example.com/hook", secret_header="X-Secret", secret_value="s" * 20)
    assert reply.status == 200
    assert "secret.value has 20 characters; 32 or more random characters are recommended" in visible(reply)


async def test_editing_keeps_replaces_or_removes_the_secret_as_asked(api):
    console = await signed_in(api)
    await add(console, "https://app.example.com/hook", secret_header="X-Secret", secret_value=SECRET)
    await console.get(f"{PAGE}/1/edit")
    kept = await console.post(
        f"{PAGE}/1",
        {
            "url": "https://app.example.com/hook",
            "events": TEMPLATE_EVENTS,
            "secret_header": "X-Secret",
            "secret_value": "",
        },
    )
    assert kept.status == 303 and location(kept) == f"{PAGE}/1?done=webhook_updated"
    assert (await endpoints(api))[0]["secret"] == {"header": "X-Secret"}

    new_secret = "n" * 40
    await console.get(f"{PAGE}/1/edit")
    replaced = await console.post(
        f"{PAGE}/1",
        {
            "url": "https://app.example.com/hook",
            "events": TEMPLATE_EVENTS,
            "secret_header": "X-Other",
            "secret_value": new_secret,
        },
    )
    assert replaced.status == 200 and new_secret in visible(replaced), "a new secret is shown once too"
    assert (await endpoints(api))[0]["secret"] == {"header": "X-Other"}

    await console.get(f"{PAGE}/1/edit")
    removed = await console.post(
        f"{PAGE}/1",
        {
            "url": "https://app.example.com/hook",
            "events": TEMPLATE_EVENTS,
            "secret_header": "X-Other",
            "remove_secret": "on",
        },
    )
    assert removed.status == 303
    assert (await endpoints(api))[0]["secret"] is None


# Changing and deleting


async def test_editing_changes_the_events_and_the_url(api):
    console = await signed_in(api)
    await add(console, "https://app.example.com/hook")
    form = (await console.get(f"{PAGE}/1/edit")).body.decode()
    assert 'value="https://app.example.com/hook"' in form
    assert re.search(r'value="template.updated"\s+aria-describedby="event-10-hint" checked', form)
    reply = await console.post(
        f"{PAGE}/1",
        {"url": "https://app.example.com/hooks/v2", "events": ["form.completed", "form.declined", "consent.created"]},
    )
    assert reply.status == 303 and location(reply) == f"{PAGE}/1?done=webhook_updated"
    [endpoint] = await endpoints(api)
    assert (endpoint["url"], endpoint["events"]) == (
        "https://app.example.com/hooks/v2",
        ["form.completed", "form.declined", "consent.created"],
    )
    assert "The endpoint is saved." in visible(await console.get(location(reply)))


async def test_a_change_the_api_refuses_is_shown_and_nothing_changes(api):
    console = await signed_in(api)
    await add(console, "https://app.example.com/a")
    await add(console, "https://app.example.com/b")
    await console.get(f"{PAGE}/1/edit")
    reply = await console.post(f"{PAGE}/1", {"url": "https://app.example.com/b", "events": ["form.completed"]})
    assert reply.status == 422
    assert problem_of(reply, "url") == "url https://app.example.com/b already has a webhook endpoint"
    assert "Change the webhook endpoint" in visible(reply)
    assert [(e["url"], e["events"]) for e in await endpoints(api)] == [
        ("https://app.example.com/b", TEMPLATE_EVENTS),
        ("https://app.example.com/a", TEMPLATE_EVENTS),
    ]


async def test_deleting_asks_for_a_ticked_confirmation_then_removes_the_endpoint(api):
    console = await signed_in(api)
    await add(console, "https://app.example.com/hook")
    confirm = await console.get(f"{PAGE}/1/delete")
    assert confirm.status == 200
    assert "Delete this webhook endpoint?" in visible(confirm) and "https://app.example.com/hook" in visible(confirm)
    assert 'name="confirm" value="yes" required' in confirm.body.decode()
    assert len(await endpoints(api)) == 1, "opening the confirmation deletes nothing"
    for form in ({}, {"confirm": "no"}):
        refused = await console.post(f"{PAGE}/1/delete", form)
        assert refused.status == 422 and "Please confirm: tick the box." in visible(refused)
    assert len(await endpoints(api)) == 1, "the deletion cannot be undone: it needs the box ticked"
    reply = await console.post(f"{PAGE}/1/delete", {"confirm": "yes"})
    assert reply.status == 303 and location(reply) == f"{PAGE}?done=webhook_deleted"
    assert await endpoints(api) == []
    listed = visible(await console.get(location(reply)))
    assert "The endpoint is deleted." in listed and "No endpoints yet." in listed
    assert (await console.get(f"{PAGE}/1")).status == 404


async def test_a_post_without_the_csrf_token_is_refused_and_changes_nothing(api):
    console = await signed_in(api)
    refused = await add(console, "https://app.example.com/hook", csrf="")
    assert refused.status == 403 and "This form has expired" in visible(refused)
    assert await endpoints(api) == []
    await add(console, "https://app.example.com/hook")
    for path, form in (
        (f"{PAGE}/1", {"url": "https://app.example.com/other", "events": ["form.completed"]}),
        (f"{PAGE}/1/delete", {}),
        (f"{PAGE}/1/test", {}),
    ):
        assert (await console.post(path, form, csrf=False)).status == 403
    [endpoint] = await endpoints(api)
    assert (endpoint["url"], endpoint["events"]) == ("https://app.example.com/hook", TEMPLATE_EVENTS)


# The delivery log, resend, the test webhook


async def test_the_delivery_log_shows_each_attempt_with_its_response_code_and_the_next_retry(api, worker, receiver):
    receiver.script("/hook", 500, 200)
    console = await signed_in(api)
    await add(console, receiver.url())
    await template(api)
    await worker.drain()
    page = visible(await console.get(f"{PAGE}/1"))
    assert "template.created Pending Resend" in page
    assert "Next attempt 2026-01-01 12:01:00 UTC" in page
    assert "Attempts: 1 Attempt Time Response Error Duration 1 2026-01-01 12:00:00 UTC 500 HTTP 500" in page
    assert "Pending template.created" in visible(await console.get(PAGE)), "the list shows the latest delivery"

    await console.get(f"{PAGE}/1")
    reply = await console.post(f"{PAGE}/1/deliveries/1/resend")
    assert reply.status == 303 and location(reply) == f"{PAGE}/1?done=webhook_resent"
    await worker.drain()
    page = visible(await console.get(location(reply)))
    assert "The delivery is on its way again" in page and "template.created Delivered Resend" in page
    assert "1 2026-01-01 12:00:00 UTC 500 HTTP 500" in page and "2 2026-01-01 12:00:00 UTC 200" in page
    assert "Next attempt" not in page
    first, second = receiver.received
    assert first.headers["X-Service-Event-Id"] == second.headers["X-Service-Event-Id"], "the same event again"


async def test_a_delivery_that_got_no_answer_shows_none_and_the_reason(api, worker):
    console = await signed_in(api)
    await add(console, "http://127.0.0.1:9/closed")  # the discard port: nothing listens
    await template(api)
    await worker.drain()
    page = visible(await console.get(f"{PAGE}/1"))
    assert "1 2026-01-01 12:00:00 UTC none No HTTP answer: the connection failed, broke off or timed out" in page


async def test_the_delivery_log_pages_newest_first_and_filters_by_status(api, worker, receiver):
    console = await signed_in(api)
    await add(console, receiver.url())
    template_id = await template(api)
    for number in range(11):
        assert (await api.put(f"/api/templates/{template_id}", json={"name": f"NDA {number}"})).status == 200
    await worker.drain()
    first = (await console.get(f"{PAGE}/1")).body.decode()
    assert re.findall(r'<h3 id="delivery-(\d+)">', first) == [str(n) for n in range(12, 2, -1)]
    assert f'href="{PAGE}/1?after=3">Older</a>' in first and ">Newest</a>" not in first
    older = (await console.get(f"{PAGE}/1?after=3")).body.decode()
    assert re.findall(r'<h3 id="delivery-(\d+)">', older) == ["2", "1"]
    assert f'<a href="{PAGE}/1">Newest</a>' in older and ">Older</a>" not in older
    assert "No deliveries with this status." in visible(await console.get(f"{PAGE}/1?status=failed"))
    delivered = (await console.get(f"{PAGE}/1?status=delivered")).body.decode()
    assert len(re.findall(r'<h3 id="delivery-', delivered)) == 10 and '<option value="delivered" selected>' in delivered
    assert f'href="{PAGE}/1?status=delivered&amp;after=3">Older</a>' in delivered


async def test_the_test_button_sends_the_test_webhook_and_shows_how_the_endpoint_took_it(api, worker, receiver):
    signer = (await send(api, await template(api), {"email": "ann@example.com", "completed": True}))[0]
    await worker.drain()
    console = await signed_in(api)
    await add(console, receiver.url(), events=["form.completed"])
    await console.get(f"{PAGE}/1")
    reply = await console.post(f"{PAGE}/1/test")
    assert reply.status == 200
    page = visible(reply)
    assert "Test event Delivered The endpoint answered HTTP 200 in" in page
    [request] = receiver.received
    assert request.json["event_type"] == "form.completed" and "event_id" not in request.json
    assert request.json["data"]["id"] == signer["id"]
    assert "No deliveries yet" in page, "the test webhook is not in the delivery log (the spec's rule)"

    receiver.script("/hook", 500)
    page = visible(await console.post(f"{PAGE}/1/test"))
    assert "Test event Not delivered HTTP 500 (" in page
    assert len(receiver.received) == 2
    again = await console.get(f"{PAGE}/1/test", allow_redirects=False)
    assert again.status == 303 and location(again) == f"{PAGE}/1", "reached again, it is the endpoint's page"
    assert len(receiver.received) == 2


async def test_the_test_button_without_a_completed_signer_shows_the_apis_message(api, receiver):
    console = await signed_in(api)
    await add(console, receiver.url())
    await console.get(f"{PAGE}/1")
    reply = await console.post(f"{PAGE}/1/test")
    assert reply.status == 422
    assert (await api.post("/api/webhooks/1/test")).json["error"] in visible(reply)
    assert receiver.received == []


# Whose endpoints


async def test_test_mode_shows_and_adds_only_the_test_accounts_endpoints(api):
    live = (await api.post("/api/webhooks", json={"url": "https://app.example.com/live"})).json
    test = (await api.with_key(TEST_KEY).post("/api/webhooks", json={"url": "https://app.example.com/test"})).json
    console = await signed_in(api)
    listed = visible(await console.get(PAGE))
    assert "https://app.example.com/live" in listed and "https://app.example.com/test" not in listed
    await console.post("/console/mode", {"test_mode": "on", "next": PAGE})
    listed = visible(await console.get(PAGE))
    assert "https://app.example.com/test" in listed and "https://app.example.com/live" not in listed
    assert "These are the test account's endpoints" in listed
    assert (await console.get(f"{PAGE}/{test['id']}")).status == 200
    assert (await console.get(f"{PAGE}/{live['id']}")).status == 404, "a live endpoint is not found in test mode"
    reply = await add(console, "https://app.example.com/test-2")
    assert reply.status == 303
    assert [e["url"] for e in await endpoints(api, TEST_KEY)] == [
        "https://app.example.com/test-2",
        "https://app.example.com/test",
    ]
    assert [e["url"] for e in await endpoints(api)] == ["https://app.example.com/live"]


async def test_another_accounts_endpoint_is_the_not_found_page_whatever_is_asked(api, other_account, worker, receiver):
    other = api.with_key(other_account.live)
    theirs = (await other.post("/api/webhooks", json={"url": receiver.url(), "events": TEMPLATE_EVENTS})).json
    await template(other)
    await worker.drain()
    console = await signed_in(api)
    await console.get(PAGE)
    path = f"{PAGE}/{theirs['id']}"
    for reply in (
        await console.get(path),
        await console.get(f"{path}/edit"),
        await console.get(f"{path}/delete"),
        await console.get(f"{path}?status=delivered"),
    ):
        assert reply.status == 404 and "text/html" in reply.headers["Content-Type"]
    for post in (path, f"{path}/delete", f"{path}/test", f"{path}/deliveries/1/resend"):
        assert (
            await console.post(post, {"url": "https://evil.example.com/", "events": ["form.completed"]})
        ).status == 404
    [endpoint] = await endpoints(api, other_account.live)
    assert (endpoint["url"], endpoint["events"]) == (receiver.url(), TEMPLATE_EVENTS)
    assert len(receiver.received) == 1, "no test webhook, no resend"
    assert receiver.url() not in visible(await console.get(PAGE))


async def test_a_delivery_of_another_endpoint_cannot_be_resent_through_this_one(api, worker, receiver):
    console = await signed_in(api)
    await add(console, receiver.url("/a"))
    await add(console, receiver.url("/b"))
    await template(api)
    await worker.drain()
    assert len(receiver.received) == 2
    await console.get(f"{PAGE}/1")
    assert (await console.post(f"{PAGE}/1/deliveries/2/resend")).status == 404
    await worker.drain()
    assert len(receiver.received) == 2


async def test_signed_out_the_pages_send_to_sign_in(api):
    reply = await Console(api).get(f"{PAGE}/1", allow_redirects=False)
    assert reply.status == 303 and location(reply) == f"/console/sign-in?next={PAGE}/1"
