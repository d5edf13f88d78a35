"""The signing pages over HTTP: the form at /s/{slug} and /apiemb/{slug}, the page of every state, the
documents page behind a signed link, the headers of every page, and what a modified page may send.

What the pages do in a browser (typing, drawing, embedding) is in tests/browser/."""

import asyncio
import base64
import io
import json
import re
from datetime import timedelta
from html import unescape
from urllib.parse import urlsplit

import pytest

import storage.events as stored_events
import storage.submissions as stored_submissions
from tests.support.app import Api
from tests.support.documents import png
from tests.support.every_field import EVERY_FIELD, box, every_field_template, field, invite
from tests.support.signing import ANN_VALUES, BOB_VALUES, act, send, template

PAGE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; font-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors {}"
)
FILLED = {
    "Full name": "Tess Tenant",
    "Signature": "Tess Tenant",
    "Initials": "TT",
    "Signed on": "2026-01-01",
    "Age": 30,
    "I agree": True,
    "Plan": "Pro",
    "Country": "France",
    "Photo": "data:image/png;base64," + base64.b64encode(png()).decode(),
    "Postcode": "10115",
}


async def page(api: Api, path: str, **headers: str):
    return await api.with_key(None).get(path, headers={"Accept": "text/html", **headers})


def text(reply) -> str:
    """The page's text as a person reads it: scripts and tags dropped, entities read, spaces folded."""
    shown = re.sub(r"<(script|title)\b.*?</\1>", " ", reply.body.decode(), flags=re.S)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", shown)).split())


@pytest.fixture
async def tess(api):
    return await invite(api, await every_field_template(api))


async def test_signing_link_opens_the_form_naming_every_field_of_the_signer(api, tess):
    reply = await page(api, f"/s/{tess['slug']}")
    assert reply.status == 200 and reply.headers["Content-Type"].startswith("text/html")
    body = reply.body.decode()
    for shown in EVERY_FIELD:
        assert f">{shown['name']}<" in body or f'aria-label="{shown["name"]}"' in body, shown["name"]
    assert ">Complete<" in body and ">Decline<" in body


async def test_the_form_shows_every_page_as_its_picture_with_its_text_for_screen_readers(api, tess):
    body = (await page(api, f"/s/{tess['slug']}")).body.decode()
    images = re.findall(r'<img src="(/file/[^"]+)" width="\d+" height="\d+" alt="Page (\d) of lease"', body)
    assert [number for _, number in images] == ["1", "2"]
    picture = await api.with_key(None).get(images[0][0])
    assert picture.status == 200 and picture.headers["Content-Type"] == "image/jpeg"
    assert '<div class="visually-hidden">Lease agreement, page 1</div>' in body
    assert '<div class="visually-hidden">Lease agreement, page 2</div>' in body


async def test_a_submission_made_before_submissions_kept_page_pictures_shows_its_templates(api, db, tess):
    submission = await stored_submissions.get_submission(db, tess["submission_id"])
    documents = [{key: value for key, value in d.items() if key != "previews"} for d in submission.documents]
    await db.run_script(f"UPDATE submissions SET documents = '{json.dumps(documents)}' WHERE id = {submission.id};")
    body = (await page(api, f"/s/{tess['slug']}")).body.decode()
    assert len(re.findall(r'<img src="/file/[^"]+" width="\d+" height="\d+" alt="Page \d of lease"', body)) == 2


async def test_each_field_is_drawn_at_its_area_on_its_page(api, tess):
    body = (await page(api, f"/s/{tess['slug']}")).body.decode()
    second_page = body[body.index('data-page="1"') :]
    assert re.search(r'class="box image"[^>]*data-x="0.1" data-y="0.1" data-w="0.3" data-h="0.1"', second_page)
    assert len(re.findall(r'class="box radio"', body)) == 2


async def test_a_prefilled_read_only_value_is_shown_locked(api, tess):
    body = (await page(api, f"/s/{tess['slug']}")).body.decode()
    assert re.search(r'<input id="f-[^"]+" type="text" value="REF-42" readonly', body)


async def test_a_date_is_shown_on_the_page_in_its_fields_format(api, tess):
    await act(api, tess["slug"], "values", {"values": {"Signed on": "2026-03-05"}})
    body = (await page(api, f"/s/{tess['slug']}")).body.decode()
    assert re.search(r'class="box date filled"[^>]*>.*?<span class="value">March 5, 2026</span>', body, re.S)
    assert 'type="text" class="date" value="March 5, 2026"' in body  # the input in the field's format too


async def test_a_read_only_field_without_a_value_is_locked_too(api):
    template_id = await every_field_template(api, [*EVERY_FIELD, field("Ref", "text", box(2, 0.9), readonly=True)])
    body = (await page(api, f"/s/{(await invite(api, template_id))['slug']}")).body.decode()
    assert re.search(r'<label for="(f-[^"]+)">Ref</label>\s*<input id="\1" type="text" value="" readonly', body)


async def test_a_number_is_shown_on_the_page_in_its_fields_format(api):
    rent = field("Rent", "number", box(1, 0.9), preferences={"format": "usd"})
    tess = await invite(api, await every_field_template(api, [*EVERY_FIELD, rent]))
    await act(api, tess["slug"], "values", {"values": {"Rent": 1250}})
    body = (await page(api, f"/s/{tess['slug']}")).body.decode()
    assert re.search(r'class="box number filled"[^>]*>.*?<span class="value">\$1,250.00</span>', body, re.S)


async def test_cells_get_one_box_per_character_from_the_area(api, tess):
    body = (await page(api, f"/s/{tess['slug']}")).body.decode()
    assert re.search(r'class="cells" maxlength="5" data-cells="5"', body)


async def test_values_saved_earlier_are_on_the_form_when_the_signer_comes_back(api, tess):
    assert (
        await act(api, tess["slug"], "values", {"values": {"Full name": "Tess Tenant", "Plan": "Pro"}})
    ).status == 200
    body = (await page(api, f"/s/{tess['slug']}")).body.decode()
    assert 'value="Tess Tenant"' in body
    assert re.search(r'value="Pro" checked', body)


async def test_signing_page_refuses_framing_inline_script_sniffing_and_referrer(api, tess):
    reply = await page(api, f"/s/{tess['slug']}")
    assert reply.headers["Content-Security-Policy"] == PAGE_POLICY.format("'none'")
    assert reply.headers["X-Frame-Options"] == "DENY"
    assert reply.headers["X-Content-Type-Options"] == "nosniff"
    assert reply.headers["Referrer-Policy"] == "no-referrer"
    assert reply.headers["Cache-Control"] == "private, no-store"
    assert not re.search(r"<script(?![^>]*\b(src=|type=\"application/json\"))", reply.body.decode())
    assert not re.search(r"\son\w+=", reply.body.decode())


async def test_only_the_embedded_form_may_be_framed_by_any_site(api, tess):
    reply = await page(api, f"/apiemb/{tess['slug']}")
    assert reply.status == 200
    assert reply.headers["Content-Security-Policy"] == PAGE_POLICY.format("*")
    assert "X-Frame-Options" not in reply.headers
    assert '"embedded": true' in reply.body.decode()


@pytest.mark.parametrize("path", ["/s/nothing-here", "/apiemb/nothing-here"])
async def test_an_unknown_signing_link_is_a_human_404_page(api, path):
    reply = await page(api, path)
    assert reply.status == 404 and reply.headers["Content-Type"].startswith("text/html")
    assert "Page not found" in text(reply)


@pytest.mark.parametrize("path", ["/c/some-clickwrap", "/d/some-template", "/nowhere"])
async def test_a_browser_asking_for_a_page_that_does_not_exist_gets_a_page_that_may_not_be_framed(api, path):
    reply = await page(api, path)
    assert reply.status == 404 and "Page not found" in text(reply)
    assert reply.headers["X-Frame-Options"] == "DENY"
    assert reply.headers["Content-Security-Policy"].endswith("frame-ancestors 'none'")


async def test_an_api_client_still_gets_json_for_an_unknown_path(api):
    reply = await api.get("/api/nowhere", headers={"Accept": "text/html"})
    assert (reply.status, reply.json) == (404, {"error": "Not found"})


async def test_the_awaiting_page_names_who_signs_first_in_preserved_order(api):
    ann, bob = await send(api, await template(api), order="preserved")
    reply = await page(api, f"/s/{bob['slug']}")
    assert reply.status == 200
    assert "Not your turn yet" in text(reply) and "waiting for Ann to sign first" in text(reply)
    await act(api, ann["slug"], "complete", {"values": ANN_VALUES})
    assert "Not your turn yet" not in text(await page(api, f"/s/{bob['slug']}"))


async def test_the_next_signer_sees_what_the_signers_before_entered_on_the_pages_locked(api):
    ann, bob = await send(api, await template(api), order="preserved")
    await act(api, ann["slug"], "complete", {"values": {**ANN_VALUES, "Newsletter": True}})
    body = (await page(api, f"/s/{bob['slug']}")).body.decode()
    done = re.findall(r'<div class="box (\w+) filled done"[^>]*><span class="value">(.*?)</span></div>', body, re.S)
    assert [(kind, value if kind == "text" else value[:10]) for kind, value in done] == [
        ("text", "Ann Smith"),
        ("signature", '<img src="'),
        ("checkbox", "\u2713"),
    ]
    assert 'value="Ann Smith"' not in body  # on the pages only: not a field of Bob's


async def test_the_awaiting_page_of_a_submitter_who_gets_no_email_says_to_come_back(api):
    _ann, bob = await send(api, await template(api), order="preserved", send_email=False)
    assert "Open this link again when it is your turn" in text(await page(api, f"/s/{bob['slug']}"))


async def test_the_completed_page_thanks_and_offers_the_copy_once_it_is_made(api, worker):
    ann, _bob = await send(api, await template(api), order="random")
    await act(api, ann["slug"], "complete", {"values": ANN_VALUES})
    reply = await page(api, f"/s/{ann['slug']}")
    assert "Thank you" in text(reply) and "Your copy is being prepared" in text(reply)
    await worker.drain()
    body = (await page(api, f"/s/{ann['slug']}")).body.decode()
    link = re.search(r'<a href="(/file/[^"]+)" download>Download your copy: ([^<]+)</a>', body)
    assert link and link.group(2) == "nda"
    download = await api.with_key(None).get(link.group(1))
    assert download.status == 200 and download.body.startswith(b"%PDF")


async def test_the_declined_page(api):
    ann, bob = await send(api, await template(api), order="random")
    assert (await act(api, ann["slug"], "decline", {"reason": "Wrong address"})).status == 200
    for signer in (ann, bob):
        assert "Declined" in text(await page(api, f"/s/{signer['slug']}"))


async def test_the_expired_page_says_when(api, clock):
    ann, _bob = await send(api, await template(api), expire_at="2026-01-02 12:00:00 UTC")
    assert "Expired" not in text(await page(api, f"/s/{ann['slug']}"))
    clock.advance(timedelta(days=2))
    assert "This form expired on" in text(await page(api, f"/s/{ann['slug']}"))


async def test_the_archived_page(api):
    ann, _bob = await send(api, await template(api))
    assert (await api.delete(f"/api/submissions/{ann['submission_id']}")).status == 200
    assert "No longer available" in text(await page(api, f"/s/{ann['slug']}"))


async def test_script_in_names_and_values_is_shown_as_text(api):
    evil = "<script>alert(1)</script>"
    ann, bob = await send(
        api,
        await template(api, name=f"NDA {evil}"),
        {"name": evil, "email": "ann@example.com"},
        {"email": "bob@example.com"},
        order="preserved",
    )
    assert (
        await act(api, ann["slug"], "values", {"values": {"Full Name": '"><img src=x onerror=alert(1)>'}})
    ).status == 200
    for path in (f"/s/{ann['slug']}", f"/s/{bob['slug']}"):
        body = (await page(api, path)).body.decode()
        assert evil not in body and "<img src=x" not in body
        assert "NDA &lt;script&gt;alert(1)&lt;/script&gt;" in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt; to sign first" in (await page(api, f"/s/{bob['slug']}")).body.decode()
    body = (await page(api, f"/s/{ann['slug']}")).body.decode()
    assert 'value="&#34;&gt;&lt;img src=x onerror=alert(1)&gt;"' in body
    data = re.search(r'<script type="application/json" id="signing-data">(.*?)</script>', body, re.S).group(1)
    assert "<" not in data


async def test_the_page_speaks_the_browsers_language_when_there_is_a_catalogue_for_it(api, tess):
    assert ">Ablehnen<" in (await page(api, f"/s/{tess['slug']}", **{"Accept-Language": "ja;q=0.9, de"})).body.decode()
    assert ">Decline<" in (await page(api, f"/s/{tess['slug']}", **{"Accept-Language": "ja"})).body.decode()


# What a modified page may send: the server holds the rules the form checks.


@pytest.mark.parametrize(
    "values,message",
    [
        ({"Full name": "R2D2"}, "Full name: Letters only"),
        ({"Age": 17}, "Age: must be at least 18"),
        ({"Age": 121}, "Age: must be at most 120"),
    ],
)
async def test_values_breaking_the_fields_pattern_minimum_or_maximum_are_refused(api, tess, values, message):
    reply = await act(api, tess["slug"], "values", {"values": values})
    assert (reply.status, reply.json) == (422, {"error": message})


@pytest.mark.parametrize("values", [{"Age": "old"}, {"Plan": "Gold"}, {"I agree": "maybe"}, {"Country": ["France"]}])
async def test_a_value_of_the_wrong_type_is_refused_and_nothing_is_saved(api, tess, values):
    reply = await act(api, tess["slug"], "values", {"values": values})
    assert reply.status == 422 and next(iter(values)) in reply.json["error"]
    submitter = (await api.get(f"/api/submitters/{tess['id']}")).json
    assert all(value["value"] is None for value in submitter["values"] if value["field"] in values)


async def test_an_upload_that_is_not_an_image_is_refused(api, tess):
    fake = "data:image/png;base64," + base64.b64encode(b"%PDF-1.7 not a picture").decode()
    reply = await act(api, tess["slug"], "values", {"values": {"Photo": fake}})
    assert reply.status == 422 and "Photo" in reply.json["error"]


async def test_a_50_mb_upload_is_refused_with_413_and_what_was_saved_stays(api, tess):
    await act(api, tess["slug"], "values", {"values": {"Full name": "Tess Tenant"}})
    huge = json.dumps({"values": {"Photo": "data:image/png;base64," + "A" * (50 * 1024 * 1024 * 4 // 3)}}).encode()
    reply = await api.with_key(None).post(
        f"/s/{tess['slug']}/values", data=io.BytesIO(huge), headers={"Content-Type": "application/json"}
    )
    assert reply.status == 413 and reply.json["error"].startswith("Request body is too large")
    assert 'value="Tess Tenant"' in (await page(api, f"/s/{tess['slug']}")).body.decode()


async def test_two_tabs_completing_at_once_complete_the_form_once(api, db, worker, tess):
    replies = await asyncio.gather(*[act(api, tess["slug"], "complete", {"values": FILLED}) for _ in range(2)])
    assert sorted((reply.status, reply.json.get("error")) for reply in replies) == [
        (200, None),
        (422, "Form has been completed already."),
    ]
    await worker.drain()
    events = await stored_events.list_events_of_record(db, "submitter", tess["id"])
    assert [event.event_type for event in events].count("form.completed") == 1


# The submission's documents page, linked from webhooks and the events feed.


async def documents_link(api, submission_id: int) -> str:
    events = (await api.get("/api/events/form/completed")).json["data"]
    return next(
        urlsplit(event["data"]["submission_url"]).path
        for event in events
        if event["data"]["submission"]["id"] == submission_id
    )


async def test_the_documents_page_opens_with_the_signed_link_of_the_events_feed(api, worker):
    ann, bob = await send(api, await template(api), order="random")
    await act(api, ann["slug"], "complete", {"values": ANN_VALUES})
    await act(api, bob["slug"], "complete", {"values": BOB_VALUES})
    await worker.drain()
    path = await documents_link(api, ann["submission_id"])
    assert re.fullmatch(r"/e/[\w-]+\.\d+\.[\w-]+", path)
    reply = await page(api, path)
    assert reply.status == 200 and "Documents of NDA" in text(reply) and "Audit log" in text(reply)
    assert reply.headers["X-Frame-Options"] == "DENY"


async def test_the_documents_page_refuses_a_tampered_or_expired_link(api, clock, worker):
    ann, _bob = await send(api, await template(api), order="random")
    await act(api, ann["slug"], "complete", {"values": ANN_VALUES})
    await worker.drain()
    path = await documents_link(api, ann["submission_id"])
    slug, expires, signature = path[3:].split(".")
    assert (await page(api, f"/e/{slug}.{int(expires) + 60}.{signature}")).status == 404
    assert (await page(api, f"/e/{slug}")).status == 404
    clock.advance(timedelta(minutes=41))
    expired = await page(api, path)
    assert expired.status == 403 and "Link expired" in text(expired)


async def test_the_submitters_language_picks_the_catalogue_before_the_browsers(api):
    tess = await invite(api, await every_field_template(api), language="de")
    assert tess["preferences"]["language"] == "de"
    assert ">Ablehnen<" in (await page(api, f"/s/{tess['slug']}", **{"Accept-Language": "en"})).body.decode()


@pytest.mark.parametrize("language", ["<de>", "de\n", "de-AT\n", " de"])
async def test_a_language_that_is_not_a_language_tag_is_refused(api, language):
    reply = await api.post(
        "/api/submissions",
        json={
            "template_id": await every_field_template(api),
            "submitters": [{"role": "Tenant", "email": "tess@example.com", "language": language}],
        },
    )
    assert (reply.status, reply.json) == (
        422,
        {"error": "language must be a language tag such as en or de-AT in `submitters[0]`."},
    )


async def test_a_submissions_language_with_a_line_break_is_refused(api):
    reply = await api.post(
        "/api/submissions",
        json={
            "template_id": await every_field_template(api),
            "submitters": [{"role": "Tenant", "email": "tess@example.com"}],
            "language": "de\n",
        },
    )
    assert reply.status == 422 and "language must be a language tag" in reply.json["error"]


@pytest.mark.parametrize("path", ["/e/abc.1767271200.%C3%A9", "/file/abc.1767271200.%C3%A9/x.pdf"])
async def test_a_signed_link_with_a_signature_that_is_not_ascii_is_not_found(api, path):
    assert (await page(api, path)).status == 404
