"""The account's extra recipients of completed documents: set in the console (beside the outbox), they get the
completed email as the signers do (the signed documents and the audit log attached), once each however often
their address is named, only when the submission sends email, and only for their own account's submissions."""

import re
from html import unescape

import storage.emails as stored_emails
from signsvc.http.appkeys import DB, WORKER
from tests.support.app import TEST_KEY
from tests.support.console import location, signed_in
from tests.support.signing import ANN_VALUES, BOB_VALUES, act, send, template
from tests.support.smtp_server import SmtpServer

PAGE = "/console/outbox/copies"
SUBJECT = "NDA has been completed by Ann, Bob"


def text(reply) -> str:
    shown = re.sub(r"<(script|title)\b.*?</\1>", " ", reply.body.decode(), flags=re.S)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", shown)).split())


def entered(reply) -> str:
    return unescape(re.search(r'<textarea id="addresses"[^>]*>(.*?)</textarea>', reply.body.decode(), re.S).group(1))


async def save(console, addresses: str):
    await console.get(PAGE)
    return await console.post(PAGE, {"addresses": addresses})


async def completed(api, **body) -> None:
    """A submission whose two signers complete it; the jobs that make and mail its documents run."""
    submitters = await send(
        api,
        await template(api),
        {"email": "ann@example.com", "name": "Ann"},
        {"email": "bob@example.com", "name": "Bob"},
        order="random",
        **body,
    )
    for submitter, values in zip(submitters, (ANN_VALUES, BOB_VALUES), strict=True):
        await act(api, submitter["slug"], "complete", {"values": values})
    await api.app[WORKER].drain()


def copies_to(server: SmtpServer) -> list[str]:
    return [to for r in server.received if r.message["Subject"] == SUBJECT for to in r.recipients]


async def test_the_console_saves_the_extra_recipients_and_shows_them_again(api):
    console = await signed_in(api)
    outbox = (await console.get("/console/outbox")).body.decode()
    assert f'<a href="{PAGE}">Who else gets copies of completed documents</a>' in outbox
    reply = await save(console, "Archive@Example.com, legal@example.com\nlegal@example.com")
    assert (reply.status, location(reply)) == (303, f"{PAGE}?done=completed_recipients_saved")
    shown = await console.get(location(reply))
    assert "Saved: these addresses get copies of completed documents" in text(shown)
    assert entered(shown) == "archive@example.com\nlegal@example.com"


async def test_an_address_that_is_not_one_is_refused_by_name_and_nothing_is_saved(api):
    console = await signed_in(api)
    await save(console, "archive@example.com")
    reply = await save(console, "legal@example.com, not-an-address")
    assert reply.status == 422
    assert "not-an-address is not an email address" in text(reply)
    assert entered(reply) == "legal@example.com, not-an-address"  # what was typed, to correct
    assert entered(await console.get(PAGE)) == "archive@example.com"


async def test_more_than_five_addresses_are_refused(api):
    console = await signed_in(api)
    reply = await save(console, " ".join(f"p{n}@example.com" for n in range(6)))
    assert reply.status == 422 and "At most 5 addresses" in text(reply)


async def test_an_empty_list_clears_the_extra_recipients(mailing, smtp_server):
    console = await signed_in(mailing)
    await save(console, "archive@example.com")
    assert (await save(console, "")).status == 303
    assert entered(await console.get(PAGE)) == ""
    await completed(mailing)
    assert copies_to(smtp_server) == ["ann@example.com", "bob@example.com"]


async def test_extra_recipients_get_the_completed_copy_with_the_documents_as_the_signers_do(mailing, smtp_server):
    await save(await signed_in(mailing), "archive@example.com legal@example.com")
    await completed(mailing)
    assert copies_to(smtp_server) == ["ann@example.com", "bob@example.com", "archive@example.com", "legal@example.com"]
    for copy in [r for r in smtp_server.received if r.message["Subject"] == SUBJECT]:
        files = {part.get_filename(): part.get_content() for part in copy.message.iter_attachments()}
        assert sorted(files) == ["NDA - Audit Log.pdf", "NDA - nda.pdf"]
        assert all(data.startswith(b"%PDF-") for data in files.values())


async def test_each_address_gets_one_copy_when_bcc_signers_and_extra_recipients_name_it_again(mailing, smtp_server):
    await save(await signed_in(mailing), "archive@example.com, Bob@example.com")
    await completed(mailing, bcc_completed="archive@example.com")
    assert copies_to(smtp_server) == ["ann@example.com", "bob@example.com", "archive@example.com"]


async def test_no_extra_copy_when_the_submission_sends_no_email(mailing, smtp_server):
    await save(await signed_in(mailing), "archive@example.com")
    await send(
        mailing,
        await template(mailing),
        {"email": "ann@example.com", "completed": True},
        {"email": "bob@example.com", "completed": True},
        send_email=False,
        bcc_completed="bcc@example.com",
    )
    await mailing.app[WORKER].drain()
    assert smtp_server.received == []


async def test_another_accounts_submissions_send_no_copy_to_this_accounts_recipients(mailing, smtp_server):
    await save(await signed_in(mailing), "archive@example.com")
    await completed(mailing.with_key(TEST_KEY))  # the linked test account: an account of its own
    assert "archive@example.com" not in copies_to(smtp_server)
    assert copies_to(smtp_server) == ["ann@example.com", "bob@example.com"]


async def test_without_smtp_each_extra_recipients_copy_is_kept_in_the_outbox(api):
    await save(await signed_in(api), "archive@example.com")
    await completed(api)
    emails = await stored_emails.list_emails(api.app[DB], 1, limit=100)
    copies = sorted((e.to_address, e.status) for e in emails if e.kind == "completed_copy")
    assert copies == [("ann@example.com", "kept"), ("archive@example.com", "kept"), ("bob@example.com", "kept")]
