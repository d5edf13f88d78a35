"""The console's submissions: sending a template from the console (the API's rules and messages), the list of
the current mode's submissions with its filters, a submission's page (signers, links, timeline, signed files),
resending an invitation, archiving; another account's records and posts without the CSRF token refused."""

import html
import re
from datetime import timedelta

import pytest

import storage.emails as stored_emails
from tests.support.app import TEST_KEY
from tests.support.console import location, signed_in
from tests.support.results import fetch
from tests.support.signing import ANN_VALUES, BOB_VALUES, act, send, submission, template

ANN = {"email-0": "ann@example.com", "name-0": "Ann", "email-1": "bob@example.com", "name-1": "Bob"}


def text(reply) -> str:
    return reply.body.decode()


async def sent_from_console(console, template_id: int, **form) -> int:
    """Sends the template from its send page; answers the new submission's id."""
    await console.get(f"/console/templates/{template_id}/send")
    reply = await console.post(
        f"/console/templates/{template_id}/send", {**ANN, "order": "preserved", "send_email": "on", **form}
    )
    assert reply.status == 303, text(reply)
    path, _, done = location(reply).partition("?")
    assert path.startswith("/console/submissions/") and done.startswith("done=submission_")
    return int(path.rsplit("/", 1)[1])


async def invitations(db, account_id: int = 1) -> list[str]:
    """The addresses of the invitations in the account's outbox, oldest first."""
    emails = await stored_emails.list_emails(db, account_id, limit=100)
    return [email.to_address for email in sorted(emails, key=lambda email: email.id) if email.kind == "invitation"]


# Sending


async def test_the_send_page_asks_for_a_signer_of_each_role_with_emails_on_by_default(api):
    template_id = await template(api)
    console = await signed_in(api)
    page = await console.get(f"/console/templates/{template_id}/send")
    assert page.status == 200
    body = text(page)
    assert "<legend>First Party</legend>" in body and "<legend>Second Party</legend>" in body
    for name in ("email-0", "name-0", "phone-0", "email-1", "name-1", "phone-1", "expire_at", "subject", "body"):
        assert f'id="{name}"' in body and f'for="{name}"' in body, name
    assert 'name="send_email" value="on" aria-describedby="send-email-hint" checked' in body
    assert 'value="preserved" aria-describedby="order-hint" checked' in body


@pytest.mark.parametrize(
    "order,invited", [("preserved", ["ann@example.com"]), ("random", ["ann@example.com", "bob@example.com"])]
)
async def test_sending_a_two_role_template_makes_the_submission_with_both_signers_and_queues_the_invitations_in_order(
    api, db, order, invited
):
    template_id = await template(api)
    console = await signed_in(api)
    submission_id = await sent_from_console(console, template_id, order=order)

    found = await submission(api, submission_id)
    assert found["submitters_order"] == order and found["source"] == "invite"
    assert [(s["role"], s["email"], s["name"]) for s in found["submitters"]] == [
        ("First Party", "ann@example.com", "Ann"),
        ("Second Party", "bob@example.com", "Bob"),
    ]
    assert await invitations(db) == invited
    if order == "preserved":
        await act(api, found["submitters"][0]["slug"], "complete", {"values": ANN_VALUES})
        assert await invitations(db) == ["ann@example.com", "bob@example.com"], "Bob's turn came after Ann's"


async def test_sending_with_a_message_and_an_expiry_and_without_emails_passes_them_to_the_submission(api, db, clock):
    template_id = await template(api)
    console = await signed_in(api)
    expiry = clock.now() + timedelta(days=3)
    submission_id = await sent_from_console(
        console,
        template_id,
        send_email="",
        order="random",
        expire_at=expiry.strftime("%Y-%m-%dT%H:%M"),
        subject="Please sign {{template.name}}",
        body="Hi {{submitter.name}}",
    )
    found = await submission(api, submission_id)
    assert found["expire_at"] == expiry.strftime("%Y-%m-%dT%H:%M:00.000Z")
    assert all(s["preferences"]["send_email"] is False for s in found["submitters"])
    assert await invitations(db) == [], "no emails: the signing links are shared by hand"
    page = await console.get(f"/console/submissions/{submission_id}?done=submission_created")
    assert "Created without emails" in text(page)


async def test_a_message_with_a_subject_reaches_the_invitation(api, db):
    template_id = await template(api)
    console = await signed_in(api)
    await sent_from_console(
        console,
        template_id,
        subject="Please sign {{template.name}}",
        body="Hi {{submitter.name}}, here: {{submitter.link}}",
    )
    [email] = await stored_emails.list_emails(db, 1, limit=10)
    assert email.subject == "Please sign NDA" and email.text_body.startswith("Hi Ann, here: http://signsvc.test/s/")


def api_body(template_id: int, form: dict[str, str]) -> dict:
    """The API request the console makes of this form, to ask the API for its own message."""
    submitters = [
        {"role": role, **{key: form[f"{key}-{i}"] for key in ("email", "name") if form.get(f"{key}-{i}")}}
        for i, role in enumerate(("First Party", "Second Party"))
    ]
    body = {"template_id": template_id, "submitters": submitters, "order": "preserved", "send_email": True}
    return {**body, **({"expire_at": form["expire_at"]} if form.get("expire_at") else {})}


@pytest.mark.parametrize(
    "changes,beside,kept",
    [
        ({"email-1": "bob@example"}, "email-1", 'value="bob@example"'),
        ({"expire_at": "2025-12-31T12:00"}, "expire_at", 'value="2025-12-31T12:00"'),
        ({"email-1": "", "name-1": ""}, "email-1", 'value="ann@example.com"'),
    ],
    ids=["bad email", "expiry in the past", "no signer for a role"],
)
async def test_a_refused_send_shows_the_apis_message_beside_the_input_keeps_the_values_and_makes_nothing(
    api, db, changes, beside, kept
):
    template_id = await template(api)
    console = await signed_in(api)
    form = {**ANN, **changes}
    await console.get(f"/console/templates/{template_id}/send")
    reply = await console.post(
        f"/console/templates/{template_id}/send", {**form, "order": "preserved", "send_email": "on"}
    )
    assert reply.status == 422
    page = text(reply)
    assert f'id="{beside}-problem"' in page and f'aria-describedby="{beside}-problem' in page
    assert 'value="Ann"' in page and kept in page

    assert (await api.get("/api/submissions")).json["data"] == []
    assert await invitations(db) == []
    said = await api.post("/api/submissions", json=api_body(template_id, form))
    assert said.status == 422
    assert f'<p class="problem" role="alert" id="{beside}-problem">{html.escape(said.json["error"])}</p>' in page


async def test_an_archived_template_or_one_without_fields_is_refused_with_the_apis_message(api):
    without_fields = await template(api, fields=[])
    archived = await template(api)
    assert (await api.delete(f"/api/templates/{archived}")).status == 200
    console = await signed_in(api)
    for template_id, message in (
        (without_fields, "Template does not contain fields"),
        (archived, "Template has been archived"),
    ):
        await console.get(f"/console/templates/{template_id}/send")
        reply = await console.post(f"/console/templates/{template_id}/send", ANN)
        assert reply.status == 422 and f'id="problem">{message}</p>' in text(reply)
    assert (await api.get("/api/submissions")).json["data"] == []


# The list


async def test_the_list_shows_the_accounts_submissions_newest_first_with_signers_statuses_and_template(api):
    nda, lease = await template(api), await template(api, name="Lease")
    await send(api, nda)
    await send(api, lease, {"email": "cy@example.com", "name": "Cy"})
    console = await signed_in(api)
    page = text(await console.get("/console/submissions"))
    assert page.index("Lease") < page.index(">NDA<")
    assert 'data-label="Template"><a href="/console/submissions/2">Lease</a>' in page
    assert '<span class="who">Cy</span> <span class="badge wait">Invited</span>' in page
    assert '<span class="who">Bob</span> <span class="badge ">Not invited yet</span>' in page
    assert '<span class="badge wait">Pending</span>' in page and "2026-01-01 12:00 UTC" in page


async def test_the_list_filters_by_status_search_and_template(api, clock):
    nda, lease = await template(api), await template(api, name="Lease")
    await send(api, lease, {"email": "late@example.com"}, expire_at=(clock.now() + timedelta(hours=1)).isoformat())
    clock.advance(timedelta(hours=2))
    await send(
        api,
        nda,
        {"email": "done@example.com", "values": ANN_VALUES, "completed": True},
        {"email": "also@example.com", "values": BOB_VALUES, "completed": True},
    )
    declined = await send(api, nda, {"email": "no@example.com"})
    await act(api, declined[0]["slug"], "decline", {"reason": "Wrong address"})
    await send(api, lease, {"email": "waiting@example.com"})
    console = await signed_in(api)

    async def shown(query: str) -> set[str]:
        page = text(await console.get(f"/console/submissions?{query}"))
        return {email for email in ("done@", "no@", "waiting@", "late@") if f">{email}example.com<" in page}

    assert await shown("") == {"done@", "no@", "waiting@", "late@"}
    assert await shown("status=completed") == {"done@"}
    assert await shown("status=declined") == {"no@"}
    assert await shown("status=pending") == {"waiting@"}
    assert await shown("status=expired") == {"late@"}
    assert await shown("q=WAIT") == {"waiting@"}
    assert await shown(f"template_id={nda}") == {"done@", "no@"}
    assert await shown(f"template_id={nda}&status=pending") == set()
    page = text(await console.get(f"/console/submissions?template_id={lease}&status=pending"))
    assert f'<option value="{lease}" selected>Lease</option>' in page and '<option value="pending" selected>' in page
    assert "No submissions match these filters." in text(await console.get("/console/submissions?q=nobody"))

    refused = await console.get("/console/submissions?status=bogus")
    assert refused.status == 422
    said = await api.get("/api/submissions?status=bogus")
    assert html.escape(said.json["error"]) in text(refused)


async def test_a_refused_filter_is_shown_with_the_filters_as_entered(api):
    nda = await template(api)
    console = await signed_in(api)
    refused = await console.get(f"/console/submissions?view=archived&q=ann&status=bogus&template_id={nda}")
    assert refused.status == 422
    page = text(refused)
    assert 'id="q" name="q" type="search" value="ann"' in page
    assert f'<option value="{nda}" selected>NDA</option>' in page
    assert '<input type="hidden" name="view" value="archived">' in page
    said = await api.get("/api/submissions?template_id=x")
    refused = await console.get("/console/submissions?q=ann&template_id=x")
    assert refused.status == 422 and html.escape(said.json["error"]) in text(refused)
    assert 'value="ann"' in text(refused) and '<option value="x" selected>' in text(refused)


async def test_the_list_shows_only_the_current_modes_account(api, other_account):
    template_id = await template(api)
    await send(api, template_id, {"email": "live@example.com"})
    tester = api.with_key(TEST_KEY)
    await send(tester, await template(tester), {"email": "tess@example.com"})
    other = api.with_key(other_account.live)
    await send(other, await template(other), {"email": "otto@example.com"})
    console = await signed_in(api)

    live = text(await console.get("/console/submissions"))
    assert "live@example.com" in live and "tess@example.com" not in live and "otto@example.com" not in live
    switched = await console.post("/console/mode", {"test_mode": "on", "next": "/console/submissions"})
    assert location(switched) == "/console/submissions"
    test = text(await console.get("/console/submissions"))
    assert "tess@example.com" in test and "live@example.com" not in test and "otto@example.com" not in test


async def test_the_list_pages_by_twenty_and_links_older_and_newest(api):
    template_id = await template(api)
    for number in range(21):
        await send(api, template_id, {"email": f"signer{number}@example.com"}, send_email=False)
    console = await signed_in(api)
    first = text(await console.get("/console/submissions"))
    assert "signer20@" in first and "signer1@" in first and "signer0@" not in first
    assert 'href="/console/submissions?after=2">Older</a>' in first and ">Newest<" not in first
    older = text(await console.get("/console/submissions?after=2"))
    assert "signer0@" in older and "signer1@" not in older
    assert 'href="/console/submissions">Newest</a>' in older and ">Older<" not in older


async def test_archived_submissions_are_in_their_own_view(api):
    template_id = await template(api)
    kept, archived = (
        await send(api, template_id, {"email": "kept@example.com"}),
        await send(api, template_id, {"email": "gone@example.com"}),
    )
    assert (await api.delete(f"/api/submissions/{archived[0]['submission_id']}")).status == 200
    console = await signed_in(api)
    active = text(await console.get("/console/submissions"))
    assert "kept@example.com" in active and "gone@example.com" not in active
    view = text(await console.get("/console/submissions?view=archived"))
    assert "gone@example.com" in view and "kept@example.com" not in view
    assert 'href="/console/submissions?view=archived" aria-current="page"' in view
    assert kept


# A submission's page


async def test_the_page_shows_the_signers_statuses_links_and_timeline_after_one_signer_completes(api, clock):
    template_id = await template(api)
    console = await signed_in(api)
    submission_id = await sent_from_console(console, template_id)
    ann, bob = (await submission(api, submission_id))["submitters"]
    clock.advance(timedelta(minutes=5))
    await act(api, ann["slug"], "view")
    clock.advance(timedelta(minutes=5))
    assert (await act(api, ann["slug"], "complete", {"values": ANN_VALUES})).status == 200

    page = text(await console.get(f"/console/submissions/{submission_id}"))
    assert '<span class="who">Ann</span>\n        <span class="badge good">Completed</span>' in page
    assert '<span class="who">Bob</span>\n        <span class="badge wait">Invited</span>' in page
    assert "<dt>Role</dt><dd>Second Party</dd>" in page and "<dd>bob@example.com</dd>" in page
    assert f'value="http://signsvc.test/s/{bob["slug"]}"' in page and 'data-copy="link-' in page
    assert f'/s/{ann["slug"]}"' not in page, "a signer who completed needs no link"
    assert "Send the invitation again" in page  # Bob's
    timeline = page[page.index('<ol class="timeline">') :]
    lines = [
        line
        for line in (
            "Submission created",
            "Invitation to Ann kept in the outbox",  # no SMTP server
            "Ann opened the form",
            "Ann completed the form",
            "Invitation to Bob kept in the outbox",
        )
    ]
    assert [timeline.index(line) for line in lines] == sorted(timeline.index(line) for line in lines)
    assert "2026-01-01 12:10 UTC</time> <span>Ann completed the form" in timeline
    assert "Once every signer has completed" in page


async def test_a_declined_signer_shows_the_reason_and_the_submission_declined(api):
    template_id = await template(api)
    console = await signed_in(api)
    submission_id = await sent_from_console(console, template_id)
    ann = (await submission(api, submission_id))["submitters"][0]
    await act(api, ann["slug"], "decline", {"reason": "Not my <contract>"})
    page = text(await console.get(f"/console/submissions/{submission_id}"))
    assert '<span class="badge bad">Declined</span>' in page
    assert '<dd class="reason">Not my &lt;contract&gt;</dd>' in page
    assert "Ann declined: Not my &lt;contract&gt;" in page
    assert "Send the invitation" not in page, "nobody can sign a declined submission"


async def test_resending_an_invitation_queues_a_new_email(api, db):
    template_id = await template(api)
    console = await signed_in(api)
    submission_id = await sent_from_console(console, template_id)
    ann = (await submission(api, submission_id))["submitters"][0]
    assert await invitations(db) == ["ann@example.com"]
    await console.get(f"/console/submissions/{submission_id}")

    reply = await console.post(f"/console/submitters/{ann['id']}/resend")
    assert (reply.status, location(reply)) == (303, f"/console/submissions/{submission_id}?done=signer_invited")
    assert await invitations(db) == ["ann@example.com", "ann@example.com"]
    assert "the new invitation is kept in the outbox" in text(await console.get(location(reply)))  # no SMTP server


async def test_resending_to_a_signer_who_completed_is_refused_with_the_domains_message(api, db):
    template_id = await template(api)
    console = await signed_in(api)
    submission_id = await sent_from_console(console, template_id)
    ann = (await submission(api, submission_id))["submitters"][0]
    await act(api, ann["slug"], "complete", {"values": ANN_VALUES})
    await console.get(f"/console/submissions/{submission_id}")
    reply = await console.post(f"/console/submitters/{ann['id']}/resend")
    assert reply.status == 422 and "Submitter has already completed the submission." in text(reply)
    assert await invitations(db) == ["ann@example.com", "bob@example.com"]


async def test_switching_modes_on_the_page_a_refused_resend_showed_returns_to_the_submission(api, db):
    template_id = await template(api)
    console = await signed_in(api)
    submission_id = await sent_from_console(console, template_id)
    bob = (await submission(api, submission_id))["submitters"][1]
    await console.get(f"/console/submissions/{submission_id}")
    address = f"/console/submitters/{bob['id']}/resend"
    refused = await console.post(address)
    assert refused.status == 422 and f'name="next" value="{address}"' in text(refused)
    landed = await console.get(address, allow_redirects=False)
    assert (landed.status, location(landed)) == (303, f"/console/submissions/{submission_id}")
    switched = await console.post("/console/mode", {"test_mode": "on", "next": address})
    assert location(switched) == address
    other_mode = await console.get(address)
    assert other_mode.status == 404 and "text/html" in other_mode.headers["Content-Type"], (
        "the live signer is not the test account's: the console's not-found page, not a 405"
    )
    assert await invitations(db) == ["ann@example.com"]


async def test_a_signer_whose_turn_has_not_come_is_offered_no_invitation_and_cannot_be_sent_one(api, db):
    template_id = await template(api)
    console = await signed_in(api)
    submission_id = await sent_from_console(console, template_id)
    bob = (await submission(api, submission_id))["submitters"][1]
    page = text(await console.get(f"/console/submissions/{submission_id}"))
    assert page.count("Send the invitation again") == 1 and "Send the invitation</button>" not in page
    reply = await console.post(f"/console/submitters/{bob['id']}/resend")
    assert reply.status == 422 and "It is not this signer&#39;s turn yet" in text(reply)
    assert await invitations(db) == ["ann@example.com"]


async def test_archiving_hides_the_submission_from_the_list_and_the_api_shows_archived_at(api):
    template_id = await template(api)
    console = await signed_in(api)
    submission_id = await sent_from_console(console, template_id)
    page = text(await console.get(f"/console/submissions/{submission_id}"))
    assert f'href="/console/submissions/{submission_id}/archive">Archive…</a>' in page
    confirm = text(await console.get(f"/console/submissions/{submission_id}/archive"))
    assert "Archive this submission?" in confirm and "Archive the submission</button>" in confirm
    assert 'name="confirm"' not in confirm, "restoring undoes it: no box to tick"
    assert (await submission(api, submission_id))["archived_at"] is None, "opening the confirmation archives nothing"

    reply = await console.post(f"/console/submissions/{submission_id}/archive")
    assert location(reply) == f"/console/submissions/{submission_id}?done=submission_archived"
    assert (await submission(api, submission_id))["archived_at"] is not None
    assert '<span class="who">Ann</span>' not in text(await console.get("/console/submissions"))
    archived = text(await console.get(f"/console/submissions/{submission_id}"))
    assert "This submission is archived" in archived and "/s/" not in archived and "Restore</button>" in archived

    restored = await console.post(f"/console/submissions/{submission_id}/restore")
    assert location(restored) == f"/console/submissions/{submission_id}?done=submission_restored"
    assert (await submission(api, submission_id))["archived_at"] is None
    assert '<span class="who">Ann</span>' in text(await console.get("/console/submissions"))


async def test_once_completed_the_page_links_the_signed_document_audit_log_and_combined_document(api, worker):
    template_id = await template(api)
    console = await signed_in(api)
    submission_id = await sent_from_console(console, template_id)
    ann, bob = (await submission(api, submission_id))["submitters"]
    await act(api, ann["slug"], "complete", {"values": ANN_VALUES})
    await act(api, bob["slug"], "complete", {"values": BOB_VALUES})

    producing = text(await console.get(f"/console/submissions/{submission_id}"))
    assert '<span class="badge good">Completed</span>' in producing
    said = await api.get(f"/api/submissions/{submission_id}/pdf")
    assert said.status == 422 and f'<p role="status">{said.json["error"]}</p>' in producing
    await worker.drain()

    page = text(await console.get(f"/console/submissions/{submission_id}"))
    assert "Every signer completed: the submission is completed" in page
    links = re.findall(r'<li><a href="([^"]+)">([^<]+)</a></li>', page.split('<ul class="downloads">')[1])
    assert [label for _, label in links] == [
        "Signed document: nda",
        "Audit log",
        "Combined document (documents and audit log)",
    ]
    for href, _ in links:
        assert href.startswith("/file/")
        data = await fetch(api, html.unescape(href))
        assert data.startswith(b"%PDF")


# Who may see and do what


async def test_another_accounts_submission_template_and_signer_are_the_not_found_page(api, other_account):
    other = api.with_key(other_account.live)
    template_id = await template(other)
    [signer, _] = await send(other, template_id)
    console = await signed_in(api)
    for path in (f"/console/submissions/{signer['submission_id']}", f"/console/templates/{template_id}/send"):
        page = await console.get(path)
        assert page.status == 404 and "<h1>" in text(page), path
    for path in (
        f"/console/submitters/{signer['id']}/resend",
        f"/console/templates/{template_id}/send",
        f"/console/submissions/{signer['submission_id']}/archive",
    ):
        assert (await console.post(path, {"email-0": "x@example.com"})).status == 404, path
    found = await submission(other, signer["submission_id"])
    assert found["archived_at"] is None and len(found["submission_events"]) == 1


async def test_a_live_submission_is_not_found_in_test_mode(api):
    template_id = await template(api)
    console = await signed_in(api)
    submission_id = await sent_from_console(console, template_id)
    await console.post("/console/mode", {"test_mode": "on", "next": "/console"})
    assert (await console.get(f"/console/submissions/{submission_id}")).status == 404
    assert (await console.get(f"/console/templates/{template_id}/send")).status == 404


async def test_posts_without_the_csrf_token_are_refused_and_change_nothing(api, db):
    template_id = await template(api)
    console = await signed_in(api)
    submission_id = await sent_from_console(console, template_id)
    ann = (await submission(api, submission_id))["submitters"][0]
    for path in (
        f"/console/templates/{template_id}/send",
        f"/console/submitters/{ann['id']}/resend",
        f"/console/submissions/{submission_id}/archive",
    ):
        reply = await console.post(path, ANN, csrf=False)
        assert reply.status == 403 and "This form has expired" in text(reply), path
    assert len((await api.get("/api/submissions")).json["data"]) == 1
    assert await invitations(db) == ["ann@example.com"]
    assert (await submission(api, submission_id))["archived_at"] is None


async def test_signed_out_the_pages_send_to_sign_in(api):
    template_id = await template(api)
    from tests.support.console import Console

    browser = Console(api)
    for path in ("/console/submissions", f"/console/templates/{template_id}/send", "/console/submissions/1"):
        reply = await browser.get(path, allow_redirects=False)
        assert reply.status == 303 and location(reply).startswith("/console/sign-in?next="), path
