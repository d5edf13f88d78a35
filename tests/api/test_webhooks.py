"""Webhook endpoints (the /api/webhooks extension) and the endpoints configured at start."""

import pytest
from aiohttp import web

import storage.webhooks as stored
from signsvc.accounts.accounts import Accounts
from signsvc.app import configure_webhooks, create_app
from signsvc.infra.config import ConfigError
from signsvc.webhooks import endpoints
from signsvc.webhooks.endpoints import WebhookEndpoints
from tests.support.app import TEST_KEY, Api

URL = "https://hooks.example.com/signsvc"
SECRET = {"header": "X-Webhook-Secret", "value": "s" * 32}


async def add(api, **body):
    reply = await api.post("/api/webhooks", json={"url": URL, **body})
    assert reply.status == 200, reply.json
    return reply.json


async def test_a_new_endpoint_starts_with_the_four_form_events(api):
    endpoint = await add(api)
    assert endpoint["events"] == ["form.viewed", "form.started", "form.completed", "form.declined"]
    assert (endpoint["id"], endpoint["url"], endpoint["secret"], endpoint["configured"]) == (1, URL, None, False)
    assert endpoint["warnings"] == []


async def test_events_are_kept_in_the_order_of_the_spec_without_repeats(api):
    endpoint = await add(api, events=["template.updated", "form.completed", "template.updated"])
    assert endpoint["events"] == ["form.completed", "template.updated"]


async def test_events_all_chooses_every_event_type_as_the_command_line_does(api):
    endpoint = await add(api, events="all")
    assert endpoint["events"] == list(endpoints.EVENT_TYPES)
    await api.put(f"/api/webhooks/{endpoint['id']}", json={"events": ["form.completed"]})
    reply = await api.put(f"/api/webhooks/{endpoint['id']}", json={"events": "all"})
    assert (reply.status, reply.json["events"]) == (200, list(endpoints.EVENT_TYPES))


async def test_the_secret_value_is_never_shown_again(api, db):
    endpoint = await add(api, secret=SECRET)
    assert endpoint["secret"] == {"header": "X-Webhook-Secret"}
    assert "s" * 32 not in (await api.get("/api/webhooks/1")).body.decode()
    assert (await stored.get_endpoint(db, 1)).secret == "s" * 32


async def test_a_secret_shorter_than_recommended_is_accepted_with_a_warning(api):
    endpoint = await add(api, secret={"header": "X-Secret", "value": "a" * 20})
    assert endpoint["warnings"] == ["secret.value has 20 characters; 32 or more random characters are recommended"]


@pytest.mark.parametrize(
    "body,message",
    [
        ({"url": "ftp://hooks.example.com/x"}, "url must be an http:// or https:// URL with a host"),
        ({"url": "hooks.example.com/x"}, "url must be an http:// or https:// URL with a host"),
        ({"url": "http://"}, "url must be an http:// or https:// URL with a host"),
        ({"url": None}, "url is required: an http:// or https:// URL"),
        ({"url": "http://hooks example.com/x"}, "url must be an http:// or https:// URL with a host (RFC 3986"),
        ({"url": " http://hooks.example.com/x"}, "url must be an http:// or https:// URL with a host (RFC 3986"),
        ({"url": "http://hooks.example.com:65536/x"}, "url must be an http:// or https:// URL with a host (RFC 3986"),
        ({"url": "http://xn--.com/x"}, "url must be an http:// or https:// URL with a host (RFC 3986"),
        (
            {"url": URL, "events": ["form.signed"]},
            "events[0] 'form.signed' is not an event type; use one of: form.viewed",
        ),
        ({"url": URL, "events": []}, 'events must be "all" or a non-empty array of event types'),
        ({"url": URL, "events": "form.completed"}, 'events must be "all" or a non-empty array of event types'),
        (
            {"url": URL, "secret": {"header": "X-Secret", "value": "short"}},
            "secret.value must have 16 to 255 characters (32 or more random characters are recommended)",
        ),
        (
            {"url": URL, "secret": {"header": "X-Secret", "value": "with spaces in the secret value"}},
            "secret.value must be printable ASCII without spaces",
        ),
        (
            {"url": URL, "secret": {"header": "Content-Type", "value": "s" * 32}},
            "secret.header Content-Type is a header every delivery sets itself",
        ),
        (
            {"url": URL, "secret": {"header": "X-Service-Signature", "value": "s" * 32}},
            "secret.header X-Service-Signature is a header every delivery sets itself",
        ),
        (
            {"url": URL, "secret": {"header": "X Secret", "value": "s" * 32}},
            "secret.header must be an HTTP header name",
        ),
        ({"url": URL, "secret": {"value": "s" * 32}}, "secret.header must be an HTTP header name"),
        ({"url": URL, "secret": "s" * 32}, "secret must be an object with header and value, or null"),
    ],
)
async def test_bad_configuration_is_a_clear_422(api, body, message):
    reply = await api.post("/api/webhooks", json=body)
    assert reply.status == 422 and reply.json["error"].startswith(message), reply.json


async def test_an_account_has_one_endpoint_per_url(api):
    await add(api)
    reply = await api.post("/api/webhooks", json={"url": URL})
    assert (reply.status, reply.json) == (422, {"error": f"url {URL} already has a webhook endpoint"})


async def test_an_account_has_at_most_twenty_endpoints(api):
    for n in range(endpoints.MAX_ENDPOINTS):
        await add(api, url=f"{URL}/{n}")
    reply = await api.post("/api/webhooks", json={"url": f"{URL}/extra"})
    assert (reply.status, reply.json) == (422, {"error": "an account has at most 20 webhook endpoints"})


async def test_update_changes_what_it_names_and_null_removes_the_secret(api, db):
    await add(api, secret=SECRET)
    reply = await api.put("/api/webhooks/1", json={"events": ["template.created"]})
    assert reply.status == 200
    assert (reply.json["events"], reply.json["secret"], reply.json["url"]) == (
        ["template.created"],
        {"header": "X-Webhook-Secret"},
        URL,
    )
    reply = await api.put("/api/webhooks/1", json={"url": URL + "/v2", "secret": None})
    assert (reply.json["url"], reply.json["secret"]) == (URL + "/v2", None)
    assert (await stored.get_endpoint(db, 1)).secret is None


async def test_update_refuses_a_url_another_endpoint_has(api):
    await add(api)
    await add(api, url=URL + "/2")
    reply = await api.put("/api/webhooks/2", json={"url": URL})
    assert reply.status == 422 and "already has a webhook endpoint" in reply.json["error"]
    assert (await api.put("/api/webhooks/2", json={"events": ["form.viewed"]})).status == 200


async def test_list_get_and_delete(api):
    for n in range(3):
        await add(api, url=f"{URL}/{n}")
    page = (await api.get("/api/webhooks?limit=2")).json
    assert [e["id"] for e in page["data"]] == [3, 2] and page["pagination"] == {"count": 2, "next": 2, "prev": 3}
    assert (await api.get("/api/webhooks/2")).json["url"] == f"{URL}/1"
    deleted = await api.delete("/api/webhooks/2")
    assert (deleted.status, deleted.json["id"]) == (200, 2)
    assert (await api.get("/api/webhooks/2")).status == 404
    assert (await api.get("/api/webhooks/2/deliveries")).status == 404


async def test_live_and_test_keys_each_manage_their_own_endpoints(api):
    await add(api)
    test_api = api.with_key(TEST_KEY)
    assert (await test_api.get("/api/webhooks")).json["data"] == []
    reply = await test_api.get("/api/webhooks/1")
    assert reply.status == 404
    assert reply.json["error"] == (
        "Webhook endpoint 1 not found using testing API key; Use production API key to "
        "access production webhook endpoints."
    )
    assert (await test_api.post("/api/webhooks", json={"url": URL})).status == 200, "a url per account"


async def test_another_accounts_endpoint_is_not_authorized(api, other_account):
    await add(api)
    other = api.with_key(other_account.live)
    for reply in (
        await other.get("/api/webhooks/1"),
        await other.put("/api/webhooks/1", json={}),
        await other.delete("/api/webhooks/1"),
        await other.get("/api/webhooks/1/deliveries"),
        await other.post("/api/webhooks/1/test"),
    ):
        assert (reply.status, reply.json) == (403, {"error": "Not authorized"})


async def test_the_delivery_log_filters_by_a_known_status_only(api):
    await add(api)
    reply = await api.get("/api/webhooks/1/deliveries?status=sent")
    assert (reply.status, reply.json) == (422, {"error": "status must be one of: pending, delivered, failed"})
    assert (await api.get("/api/webhooks/1/deliveries?status=failed")).json["data"] == []


async def test_the_test_webhook_needs_a_completed_submitter(api):
    await add(api)
    reply = await api.post("/api/webhooks/1/test")
    assert reply.status == 422
    assert reply.json["error"].startswith("No signer of this account has completed yet")


async def test_configured_endpoints_have_every_event_type_in_their_own_account(make_app, aiohttp_client):
    api = Api(
        await aiohttp_client(
            make_app(
                webhook_url="http://127.0.0.1:9/live",
                webhook_secret_header="X-Secret",
                webhook_secret="k" * 32,
                test_webhook_url="http://127.0.0.1:9/test",
            )
        )
    )
    [live] = (await api.get("/api/webhooks")).json["data"]
    [test] = (await api.with_key(TEST_KEY).get("/api/webhooks")).json["data"]
    assert (live["url"], test["url"]) == ("http://127.0.0.1:9/live", "http://127.0.0.1:9/test")
    for endpoint in (live, test):
        assert endpoint["events"] == list(endpoints.EVENT_TYPES)
        assert (endpoint["configured"], endpoint["secret"]) == (True, {"header": "X-Secret"})


async def test_the_configured_endpoint_follows_the_variable_from_start_to_start(db, clock, config):
    await Accounts(db, clock).bootstrap()
    await configure_webhooks(WebhookEndpoints(db, clock), config.replace(webhook_url="http://127.0.0.1:9/a"))
    await configure_webhooks(WebhookEndpoints(db, clock), config.replace(webhook_url="http://127.0.0.1:9/a"))
    assert [e.url for e in await stored.list_endpoints(db, 1, limit=10)] == ["http://127.0.0.1:9/a"]
    async with db.transaction() as tx:
        await stored.insert_endpoint(
            tx,
            account_id=1,
            url="http://127.0.0.1:9/own",
            events=["form.viewed"],
            secret_header=None,
            secret=None,
            now=clock.now(),
        )
    await configure_webhooks(WebhookEndpoints(db, clock), config.replace(webhook_url="http://127.0.0.1:9/b"))
    assert [e.url for e in await stored.list_endpoints(db, 1, limit=10)] == [
        "http://127.0.0.1:9/b",
        "http://127.0.0.1:9/own",
    ]
    await configure_webhooks(WebhookEndpoints(db, clock), config)
    assert [e.url for e in await stored.list_endpoints(db, 1, limit=10)] == ["http://127.0.0.1:9/own"]


@pytest.mark.parametrize(
    "changes,message",
    [
        ({"webhook_url": "ftp://127.0.0.1/x"}, "url must be an http:// or https:// URL"),
        (
            {"webhook_url": "http://127.0.0.1/x", "webhook_secret_header": "X-Secret", "webhook_secret": "short"},
            "secret.value must have 16 to 255 characters",
        ),
    ],
)
async def test_bad_configured_endpoints_stop_the_start(db, clock, config, changes, message):
    await Accounts(db, clock).bootstrap()
    with pytest.raises(ConfigError, match=f"SIGNSVC_WEBHOOK_.* settings: {message}"):
        await configure_webhooks(WebhookEndpoints(db, clock), config.replace(**changes))


async def test_a_start_without_webhook_settings_removes_the_endpoint_an_earlier_start_configured(
    aiohttp_client, make_app, db
):
    await aiohttp_client(make_app(webhook_url="http://127.0.0.1:9/a"))
    assert [e.url for e in await stored.list_endpoints(db, 1, limit=10)] == ["http://127.0.0.1:9/a"]
    await aiohttp_client(make_app())
    assert await stored.list_endpoints(db, 1, limit=10) == []


@pytest.mark.parametrize(
    "changes",
    [
        {"webhook_url": "ftp://127.0.0.1/x"},
        {"webhook_secret_header": "X-Secret", "webhook_secret": "short"},  # a secret without a URL is checked too
    ],
)
async def test_webhook_settings_that_cannot_be_used_stop_the_start_before_the_ready_line(
    db, clock, config, pdf_pool, changes
):
    announced = []
    app = create_app(
        config.replace(**changes), clock=clock, db=db, pool=pdf_pool, background=False, announce=announced.append
    )
    runner = web.AppRunner(app)
    with pytest.raises(ConfigError, match="SIGNSVC_WEBHOOK_"):
        await runner.setup()
    await runner.cleanup()
    assert announced == []
