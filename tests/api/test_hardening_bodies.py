"""Nobody without a key can stall the server: the signing form's actions and the public forms' posts find
their link and count against the pages' rate limits before reading a body, read bodies up to what a form
needs, never parse a body of countless values, and match values to fields in one pass."""

import asyncio
import io
import time
from datetime import timedelta

import pypdf
import pytest
from fpdf import FPDF
from pypdf.generic import ArrayObject, DictionaryObject, FloatObject, NameObject, NumberObject, TextStringObject

from signsvc.http.appkeys import BODY_BUDGET
from signsvc.http.web.submitter_actions import BODY_LIMIT, VALUES_LIMIT
from tests.support.app import Api, Reply
from tests.support.documents import b64, pdf
from tests.support.signing import act, area, send, template

HEALTH_WITHIN = 1.0  # seconds
JSON = {"Content-Type": "application/json"}
TERMS = {"name": "Terms", "kind": "no_document", "content": "Be kind.", "publish": True}

MIB = 1024 * 1024


async def post_raw(api: Api, path: str, body, **headers: str) -> Reply:
    """A post of `body` as it is: bytes with a Content-Length, or chunked."""
    data = io.BytesIO(body) if isinstance(body, bytes) else body
    return await api.with_key(None).post(path, data=data, headers={**JSON, **headers})


async def chunked(body: bytes):
    """The body sent chunked, without a Content-Length."""
    for start in range(0, len(body), 1024 * 1024):
        yield body[start : start + 1024 * 1024]


def stalling() -> bytes:
    """50 MB of arrays in an array: parsing it held the event loop for half a minute."""
    return b"[" + b"[]," * (50 * 1024 * 1024 // 3) + b"[]]"


async def while_health_answers(api: Api, *posts) -> list[Reply]:
    """The replies to `posts`, sent at once, while /health is asked again and again until they are answered
    and once more: each answer must come within HEALTH_WITHIN seconds, which a held event loop cannot give."""
    work = asyncio.gather(*posts)
    done = False
    while not done:
        done = work.done()
        started = time.monotonic()
        health = await api.with_key(None).get("/health")
        assert health.status == 200
        assert time.monotonic() - started < HEALTH_WITHIN, "the event loop was held"
    return await work


async def a_slug(api: Api) -> str:
    return (await send(api, await template(api)))[0]["slug"]


# The stalling body


async def test_the_stalling_body_is_404_on_an_unknown_link_and_413_on_a_real_one_while_health_answers(api):
    slug, body = await a_slug(api), stalling()
    unknown, sized, streamed = await while_health_answers(
        api,
        post_raw(api, "/s/nobody-has-this-slug/complete", body),
        post_raw(api, f"/s/{slug}/complete", body),
        post_raw(api, f"/s/{slug}/values", chunked(body)),
    )
    assert (unknown.status, unknown.json) == (404, {"error": "Signing link not found"})
    too_large = {"error": f"Request body is too large: the limit is {BODY_LIMIT} bytes"}
    assert (sized.status, sized.json) == (413, too_large)
    assert (streamed.status, streamed.json) == (413, too_large)
    assert (await act(api, slug, "view")).status == 200


async def test_a_small_body_of_countless_values_is_413_before_it_is_parsed(api):
    slug = await a_slug(api)
    reply = await post_raw(api, f"/s/{slug}/values", b'{"values": [' + b"[]," * VALUES_LIMIT + b"[]]}")
    assert (reply.status, reply.json) == (
        413,
        {"error": f"Request body is too large: it holds more than {VALUES_LIMIT} JSON values"},
    )


async def test_an_apps_lower_body_limit_bounds_the_signers_actions_too(aiohttp_client, make_app):
    api = Api(await aiohttp_client(make_app(max_body_bytes=300_000)))
    slug = await a_slug(api)
    reply = await act(api, slug, "values", {"values": {"Full Name": "A" * 300_000}})
    assert (reply.status, reply.json) == (413, {"error": "Request body is too large: the limit is 300000 bytes"})


# 10,000 values, 1,000 fields


async def test_10000_values_through_a_signing_link_are_422_naming_the_limit(api):
    slug = await a_slug(api)
    reply = await act(api, slug, "values", {"values": {f"Field {n}": "x" for n in range(10_000)}})
    assert (reply.status, reply.json) == (
        422,
        {"error": "Too many values: 10000, at most 1000 (a template has at most 1000 fields) in `values`."},
    )


async def test_10000_values_of_a_submitter_are_422_naming_the_limit_and_where(api):
    reply = await api.post(
        "/api/submissions",
        json={
            "template_id": await template(api),
            "submitters": [{"email": "ann@example.com", "values": {f"Field {n}": "x" for n in range(10_000)}}],
        },
    )
    assert (reply.status, reply.json) == (
        422,
        {
            "error": "Too many values: 10000, at most 1000 (a template has at "
            "most 1000 fields) in `submitters[0].values`."
        },
    )


async def test_a_template_of_more_than_1000_fields_is_422_on_creation_and_on_update(api):
    fields = [{"name": f"Field {n}", "role": "First Party"} for n in range(1001)]
    created = await api.post(
        "/api/templates", json={"name": "Huge", "documents": [{"name": "huge", "file": b64(pdf()), "fields": fields}]}
    )
    assert (created.status, created.json) == (
        422,
        {"error": "documents[0].fields has 1001 fields: a template has at most 1000"},
    )
    template_id = await template(api)
    updated = await api.put(f"/api/templates/{template_id}", json={"fields": fields})
    assert (updated.status, updated.json) == (422, {"error": "fields has 1001 fields: a template has at most 1000"})


async def test_a_template_of_1000_fields_takes_all_1000_values_in_one_save(api):
    fields = [{"name": f"Field {n}", "role": "First Party", "areas": [area(0.9)]} for n in range(1000)]
    slug = (await send(api, await template(api, fields), {"email": "ann@example.com"}))[0]["slug"]
    reply = await act(api, slug, "values", {"values": {f"field_{n}": str(n) for n in range(1000)}})
    assert reply.status == 200, reply.json
    assert {value["field"]: value["value"] for value in reply.json["values"]} == {
        f"Field {n}": str(n) for n in range(1000)
    }


# Rate limits of the pages


async def test_signer_actions_from_one_address_over_its_limit_are_429_with_retry_after(aiohttp_client, make_app, clock):
    api = Api(await aiohttp_client(make_app(rate_limit_per_ip=4)))
    slug = await a_slug(api)  # two API requests, counted apart from the pages' actions
    statuses = [(await act(api, path_slug, "view")).status for path_slug in (slug, slug, "unknown", slug)]
    assert statuses == [200, 200, 404, 200]
    clock.advance(timedelta(seconds=90))
    for over in (slug, "unknown"):
        reply = await act(api, over, "view")
        assert (reply.status, reply.json) == (429, {"error": "Too many requests"})
        assert reply.headers["Retry-After"] == "210"
    assert (await api.get("/api/user")).status == 200, "the API counts apart"
    clock.advance(timedelta(minutes=5))
    assert (await act(api, slug, "view")).status == 200


async def test_one_signing_link_takes_300_actions_in_five_minutes_from_any_address(aiohttp_client, make_app):
    api = Api(await aiohttp_client(make_app(trusted_proxies=frozenset({"127.0.0.1"}))))
    ann, bob = await send(api, await template(api))
    for n in range(300):
        reply = await act(api, ann["slug"], "decline", **{"X-Forwarded-For": f"203.0.113.{n % 250}"})
        assert reply.status == 422, reply.json  # no reason given: refused, but counted
    reply = await act(api, ann["slug"], "view", **{"X-Forwarded-For": "198.51.100.7"})
    assert (reply.status, reply.json, reply.headers["Retry-After"]) == (429, {"error": "Too many requests"}, "300")
    assert (await act(api, bob["slug"], "decline")).status == 422, "another signer has a count of their own"


@pytest.mark.parametrize("page", ["clickwrap", "template link"])
async def test_public_form_posts_from_one_address_over_its_limit_are_429_with_a_page_and_retry_after(
    aiohttp_client, make_app, page
):
    api = Api(await aiohttp_client(make_app(rate_limit_per_ip=3)))
    if page == "clickwrap":
        path = f"/c/{(await api.post('/api/clickwraps', json=TERMS)).json['slug']}"
    else:
        path = f"/d/{(await api.get(f'/api/templates/{await template(api)}')).json['slug']}"
    for _ in range(3):
        assert (await api.with_key(None).post(path, data="not a form", headers={"Accept": "text/html"})).status == 415
    reply = await api.with_key(None).post(path, data="not a form", headers={"Accept": "text/html"})
    assert (reply.status, reply.headers["Retry-After"]) == (429, "300")
    assert reply.headers["Content-Type"].startswith("text/html") and b"<h1>" in reply.body


async def test_a_public_forms_chunked_post_is_bounded_as_it_is_read_413_with_a_page(api):
    path = f"/c/{(await api.post('/api/clickwraps', json=TERMS)).json['slug']}"
    reply = await api.with_key(None).post(
        path,
        data=chunked(b"name=" + b"x" * 1024 * 1024),
        headers={"Accept": "text/html", "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert reply.status == 413 and reply.headers["Content-Type"].startswith("text/html")


def pdf_with_text_fields(count: int) -> bytes:
    """A one-page PDF whose form has `count` small text fields."""
    blank = FPDF(unit="pt", format="A4")
    blank.add_page()
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(bytes(blank.output()))))
    widgets = ArrayObject()
    for number in range(count):
        x, y = 20 + (number % 25) * 22, 20 + (number // 25) * 19
        rect = ArrayObject([FloatObject(x), FloatObject(y), FloatObject(x + 20), FloatObject(y + 15)])
        widgets.append(
            writer._add_object(
                DictionaryObject(
                    {
                        NameObject("/Type"): NameObject("/Annot"),
                        NameObject("/Subtype"): NameObject("/Widget"),
                        NameObject("/FT"): NameObject("/Tx"),
                        NameObject("/T"): TextStringObject(f"f{number}"),
                        NameObject("/Rect"): rect,
                        NameObject("/F"): NumberObject(4),
                    }
                )
            )
        )
    writer.pages[0][NameObject("/Annots")] = widgets
    writer._root_object[NameObject("/AcroForm")] = DictionaryObject({NameObject("/Fields"): widgets})
    data = io.BytesIO()
    writer.write(data)
    return data.getvalue()


async def test_a_pdf_with_more_form_fields_than_a_template_holds_is_accepted_with_the_first_1000(api):
    reply = await api.post(
        "/api/templates",
        json={"name": "Huge form", "documents": [{"name": "huge.pdf", "file": b64(pdf_with_text_fields(1001))}]},
    )
    assert reply.status == 201, reply.json
    assert len(reply.json["fields"]) == 1000


async def test_large_bodies_beyond_the_body_budget_are_503_with_retry_after_until_one_ends(make_app, aiohttp_client):
    api = Api(await aiohttp_client(make_app(max_body_bytes=8 * MIB, body_budget_bytes=10 * MIB)))
    budget, released = api.app[BODY_BUDGET], asyncio.Event()

    async def held_open():
        yield b'{"name": "' + b"x" * MIB
        await released.wait()
        yield b"x" * (5 * MIB - 12) + b'"}'

    first = asyncio.create_task(
        api.client.post(
            "/api/templates",
            data=held_open(),
            headers={"Content-Length": str(6 * MIB), "Content-Type": "application/json", "X-Auth-Token": api.key},
        )
    )
    for _ in range(500):  # until the server has the first request's headers and holds its body's length
        if budget.held:
            break
        await asyncio.sleep(0.01)
    assert budget.held == 6 * MIB
    keyed = {"X-Auth-Token": api.key}
    second = await post_raw(api, "/api/templates", b"{" + b" " * (6 * MIB - 2) + b"}", **keyed)
    assert second.status == 503 and second.headers["Retry-After"] == "2"
    assert second.json == {
        "error": "The server is receiving other large requests: send this one again in a few seconds"
    }
    assert (await api.get("/api/user")).status == 200  # a small request is never counted
    released.set()
    (await first).release()
    third = await post_raw(api, "/api/templates", b"{" + b" " * (6 * MIB - 2) + b"}", **keyed)
    assert third.status == 422 and budget.held == 0


async def hold(api: Api, size: int, released: asyncio.Event, **headers: str) -> asyncio.Task:
    """A large body of `size` bytes sent with `api`'s key, held open until `released`, once the server holds its
    length in the body budget."""
    budget = api.app[BODY_BUDGET]
    before = budget.held

    async def held_open():
        yield b'{"name": "'
        await released.wait()
        yield b"x" * (size - 12) + b'"}'

    task = asyncio.create_task(
        api.client.post(
            "/api/templates",
            data=held_open(),
            headers={
                "Content-Length": str(size),
                "Content-Type": "application/json",
                "X-Auth-Token": api.key,
                **headers,
            },
        )
    )
    for _ in range(500):
        if budget.held > before:
            break
        await asyncio.sleep(0.01)
    assert budget.held == before + size
    return task


async def released_all(released: asyncio.Event, *held: asyncio.Task) -> None:
    released.set()
    for task in held:
        (await task).release()


async def test_one_key_holds_at_most_a_quarter_of_the_body_budget_so_another_accounts_upload_fits(
    make_app, aiohttp_client, other_account
):
    api = Api(await aiohttp_client(make_app(max_body_bytes=8 * MIB, body_budget_bytes=16 * MIB)))
    released = asyncio.Event()
    held = [await hold(api, 3 * MIB, released)]  # a key's first body always fits
    try:
        over_share = await post_raw(
            api, "/api/templates", b"{" + b" " * (2 * MIB - 2) + b"}", **{"X-Auth-Token": api.key}
        )
        assert over_share.status == 503 and over_share.headers["Retry-After"] == "2"  # 5 MiB > 16 / 4
        held.append(await hold(api.with_key(other_account.live), 3 * MIB, released))  # another account's key
        assert api.app[BODY_BUDGET].held == 6 * MIB
    finally:
        await released_all(released, *held)
    assert api.app[BODY_BUDGET].held == 0 and not api.app[BODY_BUDGET].by_key


async def test_one_client_address_holds_at_most_half_of_the_body_budget_whatever_its_keys(
    make_app, aiohttp_client, other_account
):
    api = Api(
        await aiohttp_client(
            make_app(max_body_bytes=8 * MIB, body_budget_bytes=16 * MIB, trusted_proxies=frozenset({"127.0.0.1"}))
        )
    )
    released, one, another = asyncio.Event(), {"X-Forwarded-For": "203.0.113.1"}, {"X-Forwarded-For": "203.0.113.2"}
    held = [
        await hold(api, 4 * MIB, released, **one),
        await hold(api.with_key(other_account.live), 4 * MIB, released, **one),
    ]
    try:
        third_key = api.with_key(other_account.test)
        refused = await post_raw(
            third_key,
            "/api/templates",
            b"{" + b" " * (2 * MIB - 2) + b"}",
            **{"X-Auth-Token": other_account.test, **one},
        )
        assert refused.status == 503  # the address holds 8 MiB, half of 16
        held.append(await hold(third_key, 2 * MIB, released, **another))  # the same key from another address
        assert api.app[BODY_BUDGET].by_address == {"203.0.113.1": 8 * MIB, "203.0.113.2": 2 * MIB}
    finally:
        await released_all(released, *held)
    assert api.app[BODY_BUDGET].held == 0 and not api.app[BODY_BUDGET].by_address
