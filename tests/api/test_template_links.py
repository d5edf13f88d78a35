"""A template's public link `/d/{slug}`: `shared_link` on by default, the page asking the visitor's details,
the post that starts their submission (once per form), and every input the page refuses.

What a visitor does with the page in a browser is in tests/browser/test_template_links.py."""

import asyncio
import re
from collections.abc import AsyncIterator
from html import unescape

import pytest

from signsvc.http.appkeys import WORKER
from tests.support.app import TEST_KEY, Api, Reply
from tests.support.documents import b64, pdf
from tests.support.signing import ANN_VALUES, FIELDS, act, area, event_types, template
from tests.support.smtp_server import SmtpServer

PAGE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; font-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
FIRST_PARTY = [field for field in FIELDS if field["role"] == "First Party"]
WITH_PHONE = [*FIRST_PARTY, {"name": "Mobile", "type": "phone", "role": "First Party", "areas": [area(0.5)]}]
ANN = {"name": "Ann Smith", "email": "ann@example.com"}


async def shared(api: Api, fields=FIRST_PARTY, **changes) -> str:
    """A template's public link slug."""
    return (await api.get(f"/api/templates/{await template(api, fields, **changes)}")).json["slug"]


async def page(api: Api, path: str, **headers: str) -> Reply:
    return await api.with_key(None).get(path, headers={"Accept": "text/html", **headers})


async def post(api: Api, slug: str, data, **headers: str) -> Reply:
    """A post as a browser sends it: with the form cookie, no key, redirects not followed."""
    async with api.client.post(
        f"/d/{slug}", data=data, allow_redirects=False, headers={"Accept": "text/html", **headers}
    ) as response:
        return Reply(response.status, response.headers, await response.read())


def token_of(reply: Reply) -> str:
    return re.search(r'name="form_token" value="([^"]+)"', reply.body.decode()).group(1)


async def opened(api: Api, slug: str) -> str:
    """The form token of a freshly opened page (its cookie is now in the client's jar)."""
    reply = await page(api, f"/d/{slug}")
    assert reply.status == 200, reply.body
    return token_of(reply)


def text(reply: Reply) -> str:
    """The page's text as a person reads it."""
    shown = re.sub(r"<(script|title)\b.*?</\1>", " ", reply.body.decode(), flags=re.S)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", shown)).split())


def input_tag(reply: Reply, name: str) -> str:
    return re.search(rf'<input id="{name}"[^>]*>', reply.body.decode(), re.S).group(0)


async def submissions(api: Api) -> list[dict]:
    return (await api.get("/api/submissions")).json["data"]


def signing_slug(reply: Reply) -> str:
    assert reply.status == 303, reply.body
    return re.fullmatch(r"/s/(\w+)", reply.headers["Location"]).group(1)


async def test_shared_link_defaults_to_true(api):
    for path in ("/api/templates", "/api/templates/pdf"):
        created = await api.post(path, json={"name": "NDA", "documents": [{"name": "nda", "file": b64(pdf())}]})
        assert created.status == 201 and created.json["shared_link"] is True, path
    closed = (await api.get(f"/api/templates/{await template(api, shared_link=False)}")).json
    assert closed["shared_link"] is False
    clone = await api.post(f"/api/templates/{closed['id']}/clone", json={})
    assert clone.status == 200 and clone.json["shared_link"] is False
    assert (await api.put(f"/api/templates/{closed['id']}", json={"shared_link": True})).status == 200
    assert (await api.get(f"/api/templates/{closed['id']}")).json["shared_link"] is True


async def test_link_page_shows_template_and_account_names_and_asks_name_and_email(api):
    reply = await page(api, f"/d/{await shared(api)}")
    assert reply.status == 200 and reply.headers["Content-Type"].startswith("text/html")
    assert re.search(r"<h1>NDA</h1>", reply.body.decode()) and "Shared by signsvc" in text(reply)
    body = reply.body.decode()
    assert '<label for="name">Your name <span class="hint">(optional)</span></label>' in body
    assert '<label for="email">Your email address</label>' in body
    assert 'type="text" autocomplete="name"' in input_tag(reply, "name")
    assert re.search(
        r'type="email" autocomplete="email".*required aria-required="true"', input_tag(reply, "email"), re.S
    )
    assert 'id="phone"' not in body
    assert re.search(r'<form method="post" action="/d/\w+"', body)
    cookie = reply.headers["Set-Cookie"]
    assert cookie.startswith("signsvc_form=") and "HttpOnly" in cookie and "SameSite=Lax" in cookie


async def test_link_page_asks_a_phone_number_when_the_first_role_has_a_phone_field_email_then_optional(api):
    slug = await shared(api, WITH_PHONE)
    reply = await page(api, f"/d/{slug}")
    assert re.search(r'type="tel" autocomplete="tel".*required', input_tag(reply, "phone"), re.S)
    assert 'aria-describedby="phone-hint"' in input_tag(reply, "phone")
    assert "required" not in input_tag(reply, "email")
    assert "Your email address (optional)" in text(reply)
    start = await post(api, slug, {"form_token": token_of(reply), "name": "Ann", "phone": "+49 (30) 123-4567"})
    signer = (await submissions(api))[0]["submitters"][0]
    assert signing_slug(start) == signer["slug"] and signer["phone"] == "+49301234567" and signer["email"] is None


async def test_a_missing_or_invalid_phone_is_refused_beside_its_input(api):
    slug = await shared(api, WITH_PHONE)
    for phone, message in (
        ("", "Please enter your phone number."),
        ("030 1234567", "Please enter your number with + and your country code"),
    ):
        reply = await post(
            api, slug, {"form_token": await opened(api, slug), "email": "ann@example.com", "phone": phone}
        )
        assert reply.status == 422 and message in text(reply)
        assert re.search(r'aria-invalid="true" aria-describedby="phone-hint phone-problem"', input_tag(reply, "phone"))
    assert await submissions(api) == []


async def test_unknown_slug_or_unshared_template_link_is_the_404_page(api):
    unshared = await shared(api, shared_link=False)
    for slug in ("nothing", unshared):
        reply = await page(api, f"/d/{slug}")
        assert reply.status == 404 and "Page not found" in text(reply)
        assert (await post(api, slug, {"email": "ann@example.com"})).status == 404


async def test_archived_template_link_shows_no_longer_available_410(api):
    slug = await shared(api)
    template_id = (await api.get("/api/templates")).json["data"][0]["id"]
    assert (await api.delete(f"/api/templates/{template_id}")).status == 200  # DELETE archives
    reply = await page(api, f"/d/{slug}")
    assert reply.status == 410 and "No longer available" in text(reply) and "<form" not in reply.body.decode()


async def test_link_page_refuses_framing(api):
    reply = await page(api, f"/d/{await shared(api)}")
    assert reply.headers["Content-Security-Policy"] == PAGE_POLICY
    assert reply.headers["X-Frame-Options"] == "DENY"
    assert reply.headers["X-Content-Type-Options"] == "nosniff" and reply.headers["Referrer-Policy"] == "no-referrer"
    assert reply.headers["Cache-Control"] == "private, no-store"
    assert "<script" not in reply.body.decode(), "the page works without script"


async def test_link_submission_source_is_link_and_fires_submission_created(api, db, worker):
    slug = await shared(api)
    reply = await post(api, slug, {"form_token": await opened(api, slug), **ANN})
    [found] = await submissions(api)
    signer = found["submitters"][0]
    assert signing_slug(reply) == signer["slug"]
    assert found["source"] == "link"
    assert (signer["name"], signer["email"], signer["role"]) == ("Ann Smith", "ann@example.com", "First Party")
    assert await event_types(db, "submission", found["id"]) == ["submission.created"]
    assert signer["sent_at"] is None, "no invitation: the visitor signs right away"
    assert (await page(api, f"/s/{signer['slug']}")).status == 200
    for action, body in (
        ("view", {}),
        ("values", {"values": {"Full Name": "Ann Smith"}}),
        ("complete", {"values": ANN_VALUES}),
    ):
        assert (await act(api, signer["slug"], action, body)).status == 200
    await worker.drain()
    assert await event_types(db, "submitter", signer["id"]) == ["form.viewed", "form.started", "form.completed"]
    assert (await api.get(f"/api/submissions/{found['id']}")).json["status"] == "completed"


async def test_the_visitor_signs_the_first_role_of_a_template_whose_other_roles_have_no_fields(api):
    template_id = await template(api, FIRST_PARTY)
    roles = (await api.get(f"/api/templates/{template_id}")).json["submitters"]
    reply = await api.put(f"/api/templates/{template_id}", json={"submitters": [*roles, {"name": "Viewer"}]})
    assert reply.status == 200
    slug = (await api.get(f"/api/templates/{template_id}")).json["slug"]
    reply = await post(api, slug, {"form_token": await opened(api, slug), **ANN})
    [found] = await submissions(api)
    assert signing_slug(reply) == found["submitters"][0]["slug"]
    assert [s["role"] for s in found["submitters"]] == ["First Party"]


async def test_a_template_whose_other_roles_have_fields_cannot_be_started_from_its_link_409(api):
    slug = await shared(api, FIELDS)  # Second Party has a field, and no one could invite them
    reply = await page(api, f"/d/{slug}")
    assert reply.status == 409 and "can't be started from a link" in text(reply)
    assert "<form" not in reply.body.decode()
    assert (await post(api, slug, {"form_token": "forged.token", **ANN})).status == 409
    assert await submissions(api) == []


async def test_double_post_creates_one_submission(api):
    slug = await shared(api)
    form = {"form_token": await opened(api, slug), **ANN}
    first, second = await post(api, slug, form), await post(api, slug, form)
    assert signing_slug(first) == signing_slug(second)
    assert len(await submissions(api)) == 1


async def test_concurrent_double_post_creates_one_submission(api, db):
    slug = await shared(api)
    form = {"form_token": await opened(api, slug), **ANN}
    replies = await asyncio.gather(*(post(api, slug, form) for _ in range(3)))
    assert len({signing_slug(reply) for reply in replies}) == 1
    [found] = await submissions(api)
    assert await event_types(db, "submission", found["id"]) == ["submission.created"]
    assert len((await api.get("/api/submitters")).json["data"]) == 1


async def test_each_opened_page_starts_a_submission_of_its_own(api):
    slug = await shared(api)
    first = await post(api, slug, {"form_token": await opened(api, slug), **ANN})
    second = await post(api, slug, {"form_token": await opened(api, slug), **ANN})
    assert signing_slug(first) != signing_slug(second) and len(await submissions(api)) == 2


async def test_a_post_without_a_valid_form_token_is_refused_403_with_the_values_kept(api):
    slug = await shared(api)
    token = await opened(api, slug)
    for form in ({**ANN}, {"form_token": token + "x", **ANN}, {"form_token": "a.b", **ANN}):
        reply = await post(api, slug, form)
        assert reply.status == 403 and "This form expired, please submit it again." in text(reply)
        assert 'value="ann@example.com"' in input_tag(reply, "email")
    api.client.session.cookie_jar.clear()  # another site's page: the browser's form cookie is not sent
    reply = await post(api, slug, {"form_token": token, **ANN})
    assert reply.status == 403 and await submissions(api) == []
    retried = await post(api, slug, {"form_token": token_of(reply), **ANN})
    assert retried.status == 303, "the page again carries a fresh token and cookie"


async def test_a_missing_email_is_refused_422_beside_its_input_with_the_name_kept(api):
    slug = await shared(api)
    reply = await post(api, slug, {"form_token": await opened(api, slug), "name": "Ann Smith", "email": " "})
    assert reply.status == 422
    email = input_tag(reply, "email")
    assert 'aria-invalid="true" aria-describedby="email-problem"' in email and "autofocus" in email
    assert '<span class="problem" id="email-problem">Please enter your email address.</span>' in reply.body.decode()
    assert 'value="Ann Smith"' in input_tag(reply, "name") and "aria-invalid" not in input_tag(reply, "name")
    assert "Some answers need your attention" in text(reply)
    assert await submissions(api) == []


@pytest.mark.parametrize("email", ["ann", "ann@example", "ann@@example.com", "ann smith@example.com"])
async def test_an_invalid_email_is_refused_422(api, email):
    slug = await shared(api)
    reply = await post(api, slug, {"form_token": await opened(api, slug), "email": email})
    assert reply.status == 422 and "Please enter an email address such as name@example.com." in text(reply)
    assert await submissions(api) == []


async def test_an_email_is_stored_lowercased_as_the_api_stores_it(api):
    slug = await shared(api)
    await post(api, slug, {"form_token": await opened(api, slug), "email": " Ann@Example.COM "})
    assert (await submissions(api))[0]["submitters"][0]["email"] == "ann@example.com"


async def test_prefilled_values_are_put_in_the_inputs_escaped(api):
    slug = await shared(api)
    reply = await page(api, f"/d/{slug}?name=%3Cscript%3Ealert(1)%3C/script%3E&email=a%22%3E%3Cb%3E@example.com")
    assert reply.status == 200
    body = reply.body.decode()
    assert "<script>" not in body and "<b>" not in body
    assert 'value="&lt;script&gt;alert(1)&lt;/script&gt;"' in input_tag(reply, "name")
    assert 'value="a&#34;&gt;&lt;b&gt;@example.com"' in input_tag(reply, "email")


async def test_a_posted_script_is_kept_escaped_and_stored_as_text(api):
    slug = await shared(api)
    reply = await post(
        api, slug, {"form_token": await opened(api, slug), "name": "<script>x</script>", "email": "<script>"}
    )
    assert reply.status == 422 and "<script>" not in reply.body.decode()
    assert 'value="&lt;script&gt;x&lt;/script&gt;"' in input_tag(reply, "name")


async def test_an_over_long_prefill_is_shown_with_the_limit_beside_its_input(api):
    slug = await shared(api)
    reply = await page(api, f"/d/{slug}?email={'a' * 300}@example.com&name=Ann")
    assert reply.status == 200
    assert "Please enter at most 255 characters." in text(reply)
    assert 'aria-invalid="true"' in input_tag(reply, "email") and "aria-invalid" not in input_tag(reply, "name")


async def test_a_prefill_of_10000_characters_with_a_script_is_refused_beside_its_input_escaped(api):
    reply = await page(api, f"/d/{await shared(api)}?name=%3Cscript%3E{'n' * 10_000}")
    assert reply.status == 200 and "<script>" not in reply.body.decode()
    assert 'aria-invalid="true" aria-describedby="name-problem"' in input_tag(reply, "name")
    assert "Please enter at most 255 characters." in text(reply)


async def test_over_long_posted_values_are_refused_422_and_nothing_is_written(api):
    slug = await shared(api)
    reply = await post(
        api, slug, {"form_token": await opened(api, slug), "name": "n" * 10_000, "email": f"{'a' * 250}@example.com"}
    )
    assert reply.status == 422
    assert text(reply).count("Please enter at most 255 characters.") == 2
    assert await submissions(api) == []


async def test_control_characters_are_refused_422_on_every_database(api):
    slug = await shared(api)
    reply = await post(
        api, slug, {"form_token": await opened(api, slug), "name": "Ann\x00", "email": "ann\x00@example.com"}
    )
    assert reply.status == 422 and "without special characters" in text(reply)
    assert await submissions(api) == []


async def test_a_template_archived_between_get_and_post_shows_no_longer_available_and_creates_nothing(api):
    slug = await shared(api)
    token = await opened(api, slug)
    template_id = (await api.get("/api/templates")).json["data"][0]["id"]
    await api.put(f"/api/templates/{template_id}", json={"archived": True})
    reply = await post(api, slug, {"form_token": token, **ANN})
    assert reply.status == 410 and "No longer available" in text(reply)
    assert await submissions(api) == []


async def test_a_link_turned_off_between_get_and_post_is_the_404_page(api):
    slug = await shared(api)
    token = await opened(api, slug)
    template_id = (await api.get("/api/templates")).json["data"][0]["id"]
    await api.put(f"/api/templates/{template_id}", json={"shared_link": False})
    reply = await post(api, slug, {"form_token": token, **ANN})
    assert reply.status == 404 and "Page not found" in text(reply)
    assert await submissions(api) == []


async def test_a_body_too_large_is_a_page_413_and_creates_nothing(api):
    slug = await shared(api)
    reply = await post(api, slug, {"form_token": await opened(api, slug), **ANN, "padding": "x" * 100_000})
    assert reply.status == 413 and "The form could not be read" in text(reply)
    assert reply.headers["Content-Type"].startswith("text/html") and await submissions(api) == []


async def test_a_body_over_the_services_limit_is_a_page_too(aiohttp_client, make_app):
    api = Api(await aiohttp_client(make_app(max_body_bytes=16_384)))  # under the page's own limit
    slug = await shared(api)
    reply = await post(api, slug, {"form_token": await opened(api, slug), **ANN, "padding": "x" * 20_000})
    assert reply.status == 413 and "The form could not be read" in text(reply)


@pytest.mark.parametrize("content_type", ["application/json", "multipart/form-data; boundary=x", "text/plain"])
async def test_a_post_of_another_content_type_is_a_page_415(api, content_type):
    slug = await shared(api)
    reply = await post(api, slug, b'{"email": "ann@example.com"}', **{"Content-Type": content_type})
    assert reply.status == 415 and "The form could not be read" in text(reply)
    assert await submissions(api) == []


async def test_a_form_that_is_not_utf8_is_a_page_400(api):
    slug = await shared(api)
    reply = await post(
        api, slug, b"email=\xff\xfe@example.com&name=\xc3", **{"Content-Type": "application/x-www-form-urlencoded"}
    )
    assert reply.status == 400 and "The form could not be read" in text(reply)
    assert await submissions(api) == []


async def test_the_link_page_speaks_the_browsers_language(api):
    reply = await page(api, f"/d/{await shared(api)}", **{"Accept-Language": "de-DE,de;q=0.9"})
    assert '<html lang="de">' in reply.body.decode() and "Ihre E-Mail-Adresse" in text(reply)


async def test_a_template_of_the_test_account_starts_a_test_submission(api):
    testing = api.with_key(TEST_KEY)
    slug = await shared(testing)
    reply = await post(api, slug, {"form_token": await opened(api, slug), **ANN})
    assert reply.status == 303
    assert len(await submissions(testing)) == 1 and await submissions(api) == []


@pytest.fixture
async def mailing(aiohttp_client, make_app) -> AsyncIterator[tuple[Api, SmtpServer]]:
    """A service sending its email to a local SMTP server, and that server."""
    async with SmtpServer() as server:
        yield Api(await aiohttp_client(make_app(smtp_url=server.url))), server


async def visitor_signs(api: Api) -> dict:
    """A visitor starts a submission on the link and signs; answers their submitter."""
    slug = await shared(api)
    await post(api, slug, {"form_token": await opened(api, slug), **ANN})
    signer = (await submissions(api))[0]["submitters"][0]
    await api.app[WORKER].drain()
    return signer


async def test_the_link_visitor_gets_no_invitation(mailing):
    api, smtp_server = mailing
    await visitor_signs(api)
    assert smtp_server.received == []


async def test_the_link_visitor_gets_the_completed_copy(mailing):
    api, smtp_server = mailing
    signer = await visitor_signs(api)
    await act(api, signer["slug"], "complete", {"values": ANN_VALUES})
    await api.app[WORKER].drain()
    assert [to for received in smtp_server.received for to in received.recipients] == ["ann@example.com"]
