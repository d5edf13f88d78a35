"""Invitations: emails through a real local SMTP server."""

from datetime import timedelta

import pytest

from signsvc.accounts.accounts import DEFAULT_ACCOUNT_NAME
from signsvc.http.appkeys import WORKER
from tests.support.app import TEST_KEY
from tests.support.signing import ANN_VALUES, BOB_VALUES, VIC, act, send, submission, template, template_with_viewer
from tests.support.smtp_server import SmtpServer


def recipients(server: SmtpServer) -> list[str]:
    return [to for received in server.received for to in received.recipients]


def text_of(message) -> str:
    return message.get_body(("plain",)).get_content()


async def test_an_invitation_is_sent_through_smtp_and_then_moves_the_submitter_to_sent(mailing, smtp_server):
    submitters = await send(mailing, await template(mailing))
    assert submitters[0]["status"] == "awaiting", "the email waits in the outbox for its job"
    await mailing.app[WORKER].drain()
    assert recipients(smtp_server) == ["ann@example.com"]
    message = smtp_server.messages[0]
    assert message["Subject"] == "You are invited to sign a document"
    assert f"http://signsvc.test/s/{submitters[0]['slug']}" in text_of(message)
    found = await submission(mailing, 1)
    assert found["submitters"][0]["status"] == "sent"
    assert [e["event_type"] for e in found["submission_events"]] == ["send_email"]


async def test_an_invitation_is_signed_with_the_name_of_the_account_the_key_addresses(mailing, smtp_server):
    await send(mailing, await template(mailing))
    testing = mailing.with_key(TEST_KEY)
    await send(testing, await template(testing))
    await mailing.app[WORKER].drain()
    endings = [text_of(message).rstrip().splitlines()[-1] for message in smtp_server.messages]
    assert endings == [DEFAULT_ACCOUNT_NAME, f"{DEFAULT_ACCOUNT_NAME} (test)"]


async def test_the_next_signers_invitation_after_a_completion_through_the_api_is_signed_by_the_keys_account(
    mailing, smtp_server
):
    testing = mailing.with_key(TEST_KEY)
    ann, _ = await send(testing, await template(testing))
    reply = await testing.put(f"/api/submitters/{ann['id']}", json={"completed": True, "values": ANN_VALUES})
    assert reply.status == 200, reply.json
    await mailing.app[WORKER].drain()
    assert recipients(smtp_server) == ["ann@example.com", "bob@example.com"]
    assert text_of(smtp_server.messages[1]).rstrip().splitlines()[-1] == f"{DEFAULT_ACCOUNT_NAME} (test)"


async def test_a_custom_message_fills_its_variables_and_reply_to_is_set(mailing, smtp_server):
    submitters = await send(
        mailing,
        await template(mailing),
        {"email": "ann@example.com", "name": "Ann"},
        message={
            "subject": "{{template.name}} for {{submitter.name}}",
            "body": "Hi {{submitter.name}}, sign at {{submitter.link}}",
        },
        reply_to="Legal@Example.com",
    )
    await mailing.app[WORKER].drain()
    message = smtp_server.messages[0]
    assert message["Subject"] == "NDA for Ann" and message["Reply-To"] == "legal@example.com"
    assert text_of(message).startswith(f"Hi Ann, sign at http://signsvc.test/s/{submitters[0]['slug']}")


@pytest.mark.parametrize("name", ["محمد", "שרה כהן", "山田 太郎"])
async def test_an_invitation_carries_a_name_in_any_script_as_given_in_its_subject_text_and_html(
    mailing, smtp_server, name
):
    await send(
        mailing,
        await template(mailing),
        {"email": "ann@example.com", "name": name},
        message={"subject": "{{submitter.name}}: شركة محمد", "body": "Hi {{submitter.name}}, شركة محمد"},
    )
    await mailing.app[WORKER].drain()
    message = smtp_server.messages[0]
    assert message["Subject"] == f"{name}: شركة محمد"
    assert text_of(message).startswith(f"Hi {name}, شركة محمد")
    assert f"{name}, شركة محمد" in message.get_body(("html",)).get_content()


async def test_preserved_order_invites_the_next_submitter_when_the_previous_completes(mailing, smtp_server):
    submitters = await send(mailing, await template(mailing))
    await mailing.app[WORKER].drain()
    assert recipients(smtp_server) == ["ann@example.com"]
    await act(mailing, submitters[0]["slug"], "complete", {"values": ANN_VALUES})
    await mailing.app[WORKER].drain()
    assert recipients(smtp_server) == ["ann@example.com", "bob@example.com"]


async def test_random_order_invites_every_submitter_at_once(mailing, smtp_server):
    await send(mailing, await template(mailing), order="random")
    await mailing.app[WORKER].drain()
    assert sorted(recipients(smtp_server)) == ["ann@example.com", "bob@example.com"]


async def test_send_email_false_sends_nothing_and_leaves_submitters_awaiting(mailing, smtp_server):
    submitters = await send(mailing, await template(mailing), order="random", send_email=False)
    await mailing.app[WORKER].drain()
    assert smtp_server.received == [] and [s["status"] for s in submitters] == ["awaiting", "awaiting"]


async def test_a_submitter_with_send_email_false_is_not_invited_but_the_others_are(mailing, smtp_server):
    await send(
        mailing,
        await template(mailing),
        {"email": "ann@example.com", "send_email": False},
        {"email": "bob@example.com"},
        order="random",
    )
    await mailing.app[WORKER].drain()
    assert recipients(smtp_server) == ["bob@example.com"]


async def test_an_invitation_is_retried_while_the_smtp_server_is_down(mailing, smtp_server, clock):
    await smtp_server.stop()
    await send(mailing, await template(mailing))
    await mailing.app[WORKER].drain()
    assert (await submission(mailing, 1))["submitters"][0]["status"] == "awaiting"
    await smtp_server.start()
    clock.advance(timedelta(minutes=2))
    await mailing.app[WORKER].drain()
    assert recipients(smtp_server) == ["ann@example.com"]
    assert (await submission(mailing, 1))["submitters"][0]["status"] == "sent"


async def test_bcc_completed_receives_a_copy_once_every_submitter_finished(mailing, smtp_server):
    submitters = await send(mailing, await template(mailing), order="random", bcc_completed="archive@example.com")
    await act(mailing, submitters[0]["slug"], "complete", {"values": ANN_VALUES})
    await mailing.app[WORKER].drain()
    assert "archive@example.com" not in recipients(smtp_server)
    await act(mailing, submitters[1]["slug"], "complete", {"values": BOB_VALUES})
    await mailing.app[WORKER].drain()
    copy = smtp_server.received[-1]
    assert copy.recipients == ["archive@example.com"]
    assert copy.message["Subject"] == "NDA has been completed by Ann, Bob"


async def test_submitters_and_bcc_completed_receive_the_signed_documents_and_audit_log_attached(mailing, smtp_server):
    submitters = await send(mailing, await template(mailing), order="random", bcc_completed="archive@example.com")
    for submitter, values in zip(submitters, (ANN_VALUES, BOB_VALUES), strict=True):
        await act(mailing, submitter["slug"], "complete", {"values": values})
    await mailing.app[WORKER].drain()
    copies = [r for r in smtp_server.received if r.message["Subject"] == "NDA has been completed by Ann, Bob"]
    assert [copy.recipients for copy in copies] == [["ann@example.com"], ["bob@example.com"], ["archive@example.com"]]
    for copy in copies:
        files = {part.get_filename(): part.get_content() for part in copy.message.iter_attachments()}
        assert sorted(files) == ["NDA - Audit Log.pdf", "NDA - nda.pdf"]
        assert all(data.startswith(b"%PDF-") for data in files.values())
        assert "The signed documents and the audit log are attached." in text_of(copy.message)


async def test_a_viewer_gets_the_usual_invitation_when_its_turn_comes_in_preserved_order(mailing, smtp_server):
    ann, vic, _bob = await send(
        mailing,
        await template_with_viewer(mailing, at=1),
        {"email": "ann@example.com"},
        VIC,
        {"email": "bob@example.com"},
    )
    await mailing.app[WORKER].drain()
    assert recipients(smtp_server) == ["ann@example.com"]
    await act(mailing, ann["slug"], "complete", {"values": ANN_VALUES})
    await mailing.app[WORKER].drain()
    assert sorted(recipients(smtp_server)[1:]) == ["bob@example.com", "vic@example.com"]
    [invitation] = [r.message for r in smtp_server.received if r.recipients == ["vic@example.com"]]
    assert invitation["Subject"] == "You are invited to sign a document"
    assert f"http://signsvc.test/s/{vic['slug']}" in text_of(invitation)


async def test_a_viewer_receives_the_completed_email_with_the_documents_attached(mailing, smtp_server):
    ann, _vic, bob = await send(
        mailing,
        await template_with_viewer(mailing),
        {"email": "ann@example.com", "name": "Ann"},
        VIC,
        {"email": "bob@example.com", "name": "Bob"},
        order="random",
    )
    for signer, values in ((ann, ANN_VALUES), (bob, BOB_VALUES)):
        await act(mailing, signer["slug"], "complete", {"values": values})
    await mailing.app[WORKER].drain()
    copies = [r for r in smtp_server.received if r.message["Subject"] == "NDA has been completed by Ann, Bob"]
    assert [copy.recipients for copy in copies] == [["ann@example.com"], ["vic@example.com"], ["bob@example.com"]]
    files = {part.get_filename(): part.get_content() for part in copies[1].message.iter_attachments()}
    assert sorted(files) == ["NDA - Audit Log.pdf", "NDA - nda.pdf"]


async def test_a_submitter_who_asked_for_no_email_gets_no_completed_copy(mailing, smtp_server):
    await send(
        mailing,
        await template(mailing),
        {"email": "ann@example.com", "completed": True, "send_email": False},
        {"email": "bob@example.com", "completed": True},
    )
    await mailing.app[WORKER].drain()
    assert recipients(smtp_server) == ["bob@example.com"]


async def test_send_copy_email_gives_the_completed_copy_to_a_submitter_not_invited(mailing, smtp_server):
    await send(
        mailing,
        await template(mailing),
        {"email": "ann@example.com", "send_copy_email": True},
        {"email": "bob@example.com", "completed": True, "send_copy_email": False},
        send_email=False,
    )
    ann = (await mailing.get("/api/submitters?q=ann@example.com")).json["data"][0]
    assert ann["preferences"]["send_copy_email"] is True
    await act(mailing, ann["slug"], "complete", {"values": ANN_VALUES})
    await mailing.app[WORKER].drain()
    assert recipients(smtp_server) == ["ann@example.com"]


async def test_bcc_completed_is_not_sent_when_the_submission_sends_no_email(mailing, smtp_server):
    await send(
        mailing,
        await template(mailing),
        {"email": "ann@example.com", "completed": True},
        {"email": "bob@example.com", "completed": True},
        send_email=False,
        bcc_completed="archive@example.com",
    )
    await mailing.app[WORKER].drain()
    assert smtp_server.received == []
