"""Reminders: emails that follow an invitation, due on the service clock, only to signers who still have to act."""

from datetime import timedelta
from typing import Any

import pytest

import storage.submissions as stored
from signsvc.accounts.accounts import DEFAULT_ACCOUNT_NAME
from signsvc.http.appkeys import REMINDERS, WORKER
from signsvc.http.web.console import reminder_settings
from signsvc.infra import errors, jobs
from signsvc.results import audit_log
from signsvc.submissions import reminder_schedule, reminders
from tests.support.console import signed_in
from tests.support.signing import ANN_VALUES, VIC, act, send, submission, template, template_with_viewer
from tests.support.smtp_server import SmtpServer

THREE = {"first_duration": "one_hour", "second_duration": "two_days", "third_duration": "seven_days"}
HOUR = {"first_duration": "one_hour"}


def reminders_to(server: SmtpServer) -> list[str]:
    """The recipients of the reminders the SMTP server received, in order."""
    return [
        to
        for received in server.received
        if received.message["Subject"].startswith("Reminder")
        for to in received.recipients
    ]


async def moved(api, clock, delta: timedelta) -> None:
    """The testing clock moved on by `delta`, and every job due by then run."""
    clock.advance(delta)
    await api.app[WORKER].drain()


async def sent(api, clock, **body: Any) -> list[dict[str, Any]]:
    """A submission of two signers in preserved order, its first invitation sent (the clock does not move)."""
    signers = await send(api, await template(api), **body)
    await api.app[WORKER].drain()
    return signers


async def test_reminders_are_sent_as_the_testing_clock_passes_each_delay_counted_from_the_invitation(
    mailing, smtp_server, clock
):
    await sent(mailing, clock, reminders=THREE)
    await moved(mailing, clock, timedelta(minutes=59))
    assert reminders_to(smtp_server) == []
    await moved(mailing, clock, timedelta(minutes=1))
    assert reminders_to(smtp_server) == ["ann@example.com"]
    await moved(mailing, clock, timedelta(days=2) - timedelta(hours=1))  # two days after the invitation
    assert reminders_to(smtp_server) == ["ann@example.com"] * 2
    await moved(mailing, clock, timedelta(days=5) - timedelta(seconds=1))
    assert len(reminders_to(smtp_server)) == 2
    await moved(mailing, clock, timedelta(seconds=1))  # seven days after the invitation
    assert reminders_to(smtp_server) == ["ann@example.com"] * 3
    await moved(mailing, clock, timedelta(days=60))
    assert len(reminders_to(smtp_server)) == 3
    events = (await submission(mailing, 1))["submission_events"]
    assert [e["event_type"] for e in events] == ["send_email"] + ["send_reminder_email"] * 3


async def test_a_reminder_carries_the_invitation_text_marked_as_a_reminder_and_the_signers_link(
    mailing, smtp_server, clock
):
    signers = await sent(mailing, clock, reminders=HOUR)
    await moved(mailing, clock, timedelta(hours=1))
    reminder = smtp_server.messages[-1]
    assert reminder["Subject"] == "Reminder: You are invited to sign a document"
    assert f"http://signsvc.test/s/{signers[0]['slug']}" in reminder.get_body(("plain",)).get_content()


async def test_an_api_submission_sends_no_reminders_unless_it_asks_even_when_the_account_has_a_schedule(
    mailing, smtp_server, clock, db
):
    await mailing.app[REMINDERS].change_settings(1, HOUR, {})
    await sent(mailing, clock)
    await sent(mailing, clock, reminders=False)
    await moved(mailing, clock, timedelta(days=31))
    assert reminders_to(smtp_server) == []


async def test_reminders_true_follows_the_accounts_schedule(mailing, smtp_server, clock):
    await mailing.app[REMINDERS].change_settings(1, {"first_duration": "four_hours"}, {})
    await sent(mailing, clock, reminders=True)
    await moved(mailing, clock, timedelta(hours=3))
    assert reminders_to(smtp_server) == []
    await moved(mailing, clock, timedelta(hours=1))
    assert reminders_to(smtp_server) == ["ann@example.com"]


async def test_no_reminder_goes_to_a_signer_before_their_turn_and_theirs_count_from_their_own_invitation(
    mailing, smtp_server, clock
):
    signers = await sent(mailing, clock, reminders=THREE)
    await moved(mailing, clock, timedelta(hours=3))
    await act(mailing, signers[0]["slug"], "complete", {"values": ANN_VALUES})
    await mailing.app[WORKER].drain()  # Bob's invitation goes now, three hours in
    assert reminders_to(smtp_server) == ["ann@example.com"]
    await moved(mailing, clock, timedelta(minutes=59))
    assert reminders_to(smtp_server) == ["ann@example.com"]
    await moved(mailing, clock, timedelta(minutes=1))
    assert reminders_to(smtp_server) == ["ann@example.com", "bob@example.com"]
    await moved(mailing, clock, timedelta(days=30))
    assert reminders_to(smtp_server) == ["ann@example.com"] + ["bob@example.com"] * 3


async def _complete(api, signers) -> None:
    reply = await act(api, signers[0]["slug"], "complete", {"values": ANN_VALUES})
    assert reply.status == 200, reply.json


async def _decline(api, signers) -> None:
    reply = await act(api, signers[0]["slug"], "decline", {"reason": "No"})
    assert reply.status == 200, reply.json


async def _archive(api, signers) -> None:
    assert (await api.delete("/api/submissions/1")).status == 200


async def _expire(api, signers) -> None:
    reply = await api.put("/api/submissions/1", json={"expire_at": "2026-01-01T12:30:00Z"})
    assert reply.status == 200, reply.json


@pytest.mark.parametrize("ending", [_complete, _decline, _archive, _expire], ids=lambda f: f.__name__[1:])
async def test_no_reminder_after_the_signer_completed_or_declined_or_the_submission_expired_or_was_archived(
    mailing, smtp_server, clock, ending
):
    signers = await sent(mailing, clock, reminders=THREE, order="random")
    await ending(mailing, signers)
    await moved(mailing, clock, timedelta(days=31))
    assert "ann@example.com" not in reminders_to(smtp_server)
    events = (await submission(mailing, 1))["submission_events"]
    assert not [e for e in events if e["event_type"] == "send_reminder_email" and e["submitter_id"] == signers[0]["id"]]


async def test_the_templates_reminder_wording_overrides_the_accounts_with_the_invitations_variables(
    mailing, smtp_server, clock
):
    await mailing.app[REMINDERS].change_settings(
        1, {}, {"subject": "Account reminder", "body": "Account body {{submitter.link}}"}
    )
    template_id = await template(mailing)
    reply = await mailing.put(
        f"/api/templates/{template_id}",
        json={"preferences": {"invitation_reminder_email_subject": "Still waiting on {{template.name}}"}},
    )
    assert reply.status == 200, reply.json
    shown = (await mailing.get(f"/api/templates/{template_id}")).json["preferences"]
    assert shown == {"invitation_reminder_email_subject": "Still waiting on {{template.name}}"}
    signers = await send(mailing, template_id, reminders=HOUR)
    await mailing.app[WORKER].drain()
    await moved(mailing, clock, timedelta(hours=1))
    reminder = smtp_server.messages[-1]
    assert reminder["Subject"] == "Still waiting on NDA"
    text = reminder.get_body(("plain",)).get_content()
    assert text.startswith(f"Account body http://signsvc.test/s/{signers[0]['slug']}")


async def test_the_templates_reminder_body_fills_the_signers_name_and_account(mailing, smtp_server, clock):
    template_id = await template(mailing)
    body = "Hi {{submitter.name}}, {{account.name}} waits for {{template.name}}: {{submitter.link}}"
    reply = await mailing.put(
        f"/api/templates/{template_id}", json={"preferences": {"invitation_reminder_email_body": body}}
    )
    assert reply.status == 200, reply.json
    signers = await send(mailing, template_id, reminders=HOUR)
    await mailing.app[WORKER].drain()
    await moved(mailing, clock, timedelta(hours=1))
    text = smtp_server.messages[-1].get_body(("plain",)).get_content()
    assert text.startswith(f"Hi Ann, {DEFAULT_ACCOUNT_NAME} waits for NDA: http://signsvc.test/s/{signers[0]['slug']}")


@pytest.mark.parametrize(
    ("reminders", "field", "words"),
    [
        ({"first_duration": "ten_minutes"}, "reminders.first_duration", "must be one of one_hour"),
        ({"first_duration": 3600}, "reminders.first_duration", "must be one of"),
        ({"fourth_duration": "one_hour"}, "reminders.fourth_duration", "is not a reminder"),
        (
            {"first_duration": "two_days", "second_duration": "one_hour"},
            "reminders.second_duration",
            "must be longer than first_duration",
        ),
        ("one_hour", "reminders", "must be an object"),
    ],
)
async def test_a_bad_reminders_schedule_is_refused_with_422_naming_the_field(api, reminders, field, words):
    reply = await api.post(
        "/api/submissions",
        json={"template_id": await template(api), "submitters": [{"email": "a@example.com"}], "reminders": reminders},
    )
    assert reply.status == 422 and reply.json["error"].startswith(f"{field} ") and words in reply.json["error"]


async def test_a_template_preference_that_is_not_known_or_not_text_is_refused_naming_it(api):
    template_id = await template(api)
    reply = await api.put(f"/api/templates/{template_id}", json={"preferences": {"reminder_subject": "x"}})
    assert reply.status == 422 and reply.json["error"].startswith("preferences.reminder_subject ")
    reply = await api.put(
        f"/api/templates/{template_id}", json={"preferences": {"invitation_reminder_email_body": ["x"]}}
    )
    assert reply.status == 422 and reply.json["error"].startswith("preferences.invitation_reminder_email_body ")


async def test_submissions_emails_passes_reminders_to_each_submission(mailing, smtp_server, clock):
    reply = await mailing.post(
        "/api/submissions/emails",
        json={"template_id": await template(mailing), "emails": "a@example.com, b@example.com", "reminders": HOUR},
    )
    assert reply.status == 200, reply.json
    await mailing.app[WORKER].drain()
    await moved(mailing, clock, timedelta(hours=1))
    assert sorted(reminders_to(smtp_server)) == ["a@example.com", "b@example.com"]


async def test_a_reminder_job_run_twice_sends_one_reminder(mailing, smtp_server, clock, db):
    signers = await sent(mailing, clock, reminders=HOUR)
    async with db.transaction() as tx:  # the same reminder again, as when its first run's process died
        payload = {"submitter_id": signers[0]["id"], "number": 1}
        await jobs.enqueue(tx, clock, reminder_schedule.SEND_JOB, payload, run_at=clock.now() + timedelta(hours=1))
    await moved(mailing, clock, timedelta(hours=1))
    assert reminders_to(smtp_server) == ["ann@example.com"]


async def test_each_reminder_is_a_line_of_the_audit_log(mailing, clock, db):
    signers = await sent(mailing, clock, reminders=THREE)
    await moved(mailing, clock, timedelta(days=2))
    found = await stored.required_submission(db, 1)
    log = audit_log.log(
        found,
        await stored.submitters_of(db, 1),
        await stored.events_of(db, 1),
        documents=[],
        images={},
        filenames={},
        test_mode=False,
        generated_at=clock.now(),
    )
    lines = [event["text"] for event in log["events"]]
    assert lines.count(f"Reminder email sent to {signers[0]['email']}") == 2


async def test_without_smtp_a_reminder_is_kept_in_the_outbox_and_recorded(api, clock):
    await sent(api, clock, reminders=HOUR)
    await moved(api, clock, timedelta(hours=1))
    reply = await api.get("/api/submissions/1")
    assert [e["event_type"] for e in reply.json["submission_events"]] == ["send_email", "send_reminder_email"]


async def test_the_accounts_of_a_key_keep_their_own_settings(api):
    await api.app[REMINDERS].change_settings(1, HOUR, {"subject": "Live", "body": ""})
    assert await api.app[REMINDERS].settings(2) == ({}, {})
    assert await api.app[REMINDERS].settings(1) == (HOUR, {"subject": "Live"})


async def test_the_console_saves_the_accounts_reminder_delays_in_three_selects(api, clock):
    console = await signed_in(api)
    page = await console.get("/console/settings/reminders")
    assert page.status == 200
    html = page.body.decode()
    for slot in reminder_schedule.SLOTS:
        assert f'<label for="{slot}"' in html and f'<select id="{slot}" name="{slot}"' in html
    for key in reminder_schedule.DURATIONS:  # each of the reference's durations, in each of the three selects
        assert html.count(f'<option value="{key}"') == 3
    reply = await console.post(
        "/console/settings/reminders",
        {"first_duration": "one_hour", "second_duration": "", "third_duration": "two_days", "subject": "", "body": ""},
    )
    assert reply.status == 303, reply.body
    assert (await api.app[REMINDERS].settings(1))[0] == {"first_duration": "one_hour", "third_duration": "two_days"}
    html = (await console.get("/console/settings/reminders")).body.decode()
    assert '<option value="one_hour" selected>' in html


async def test_the_console_refuses_delays_out_of_order_beside_the_select(api):
    console = await signed_in(api)
    await console.get("/console/settings/reminders")
    reply = await console.post(
        "/console/settings/reminders", {"first_duration": "two_days", "second_duration": "one_hour"}
    )
    assert reply.status == 422
    html = reply.body.decode()
    assert 'aria-describedby="second_duration-problem"' in html
    assert (
        "Choose a delay longer than the reminder before it" in html and "(each counts from the invitation)" not in html
    )


async def test_a_submission_sent_from_the_console_follows_the_accounts_schedule(api, clock):
    await api.app[REMINDERS].change_settings(1, {"first_duration": "two_hours"}, {})
    console = await signed_in(api)
    template_id = await template(api)
    await console.get(f"/console/templates/{template_id}/send")
    form = {"email-0": "ann@example.com", "email-1": "bob@example.com", "order": "preserved", "send_email": "on"}
    reply = await console.post(f"/console/templates/{template_id}/send", form)
    assert reply.status == 303, reply.body
    await api.app[WORKER].drain()
    await moved(api, clock, timedelta(hours=2))
    events = (await submission(api, 1))["submission_events"]
    assert [e["event_type"] for e in events] == ["send_email", "send_reminder_email"]


async def test_a_viewer_gets_no_reminders_while_the_signers_do(mailing, smtp_server, clock):
    ann = {"email": "ann@example.com", "name": "Ann", "role": "First Party"}
    bob = {"email": "bob@example.com", "name": "Bob", "role": "Second Party"}
    await send(mailing, await template_with_viewer(mailing), ann, VIC, bob, reminders=THREE, order="random")
    await mailing.app[WORKER].drain()
    assert sorted(to for received in smtp_server.received for to in received.recipients) == [
        "ann@example.com",
        "bob@example.com",
        "vic@example.com",
    ], "the viewer is invited"
    await moved(mailing, clock, timedelta(days=31))
    assert sorted(reminders_to(smtp_server)) == ["ann@example.com"] * 3 + ["bob@example.com"] * 3


async def test_after_a_signers_email_changes_no_reminder_goes_to_the_address_never_invited(mailing, smtp_server, clock):
    signers = await sent(mailing, clock, reminders=THREE)
    await moved(mailing, clock, timedelta(hours=1))
    assert reminders_to(smtp_server) == ["ann@example.com"]
    reply = await mailing.put(f"/api/submitters/{signers[0]['id']}", json={"email": "ann.new@example.com"})
    assert reply.status == 200, reply.json
    await moved(mailing, clock, timedelta(days=31))
    assert reminders_to(smtp_server) == ["ann@example.com"]


async def test_send_email_false_set_after_the_invitation_stops_the_signers_reminders(mailing, smtp_server, clock):
    signers = await sent(mailing, clock, reminders=THREE, order="random")
    reply = await mailing.put(f"/api/submitters/{signers[0]['id']}", json={"send_email": False})
    assert reply.status == 200, reply.json
    await moved(mailing, clock, timedelta(days=31))
    assert reminders_to(smtp_server) == ["bob@example.com"] * 3


async def test_whether_a_reminder_was_sent_is_asked_of_its_signer_and_number_alone(mailing, clock, db):
    signers = await sent(mailing, clock, reminders=THREE, order="random")
    await moved(mailing, clock, timedelta(hours=1))
    ann, bob = signers[0]["id"], signers[1]["id"]
    assert await stored.reminder_sent(db, 1, ann, reminders.EVENT, 1)
    assert await stored.reminder_sent(db, 1, bob, reminders.EVENT, 1)
    assert not await stored.reminder_sent(db, 1, ann, reminders.EVENT, 2)
    assert not await stored.reminder_sent(db, 1, ann, "send_email", 1)


@pytest.mark.parametrize(("field", "limit"), [("subject", 255), ("body", 10_000)])
async def test_the_accounts_reminder_wording_is_refused_beyond_the_templates_limits_beside_its_field(api, field, limit):
    with pytest.raises(errors.Invalid, match=f"^{field} must be at most {limit} characters"):
        await api.app[REMINDERS].change_settings(1, {}, {field: "x" * (limit + 1)})
    await api.app[REMINDERS].change_settings(1, {}, {field: "x" * limit})
    console = await signed_in(api)
    await console.get("/console/settings/reminders")
    reply = await console.post("/console/settings/reminders", {field: "y" * (limit + 1)})
    assert reply.status == 422
    html = reply.body.decode()
    assert f'aria-describedby="{field}-problem"' in html and f"Shorten this to at most {limit} characters." in html
    assert (await api.app[REMINDERS].settings(1))[1] == {field: "x" * limit}


async def test_a_delay_the_selects_do_not_offer_is_refused_in_words_of_its_own(api):
    console = await signed_in(api)
    await console.get("/console/settings/reminders")
    reply = await console.post("/console/settings/reminders", {"first_duration": "ten_minutes"})
    assert reply.status == 422
    html = reply.body.decode()
    assert 'aria-describedby="first_duration-problem"' in html
    assert "Choose one of the delays offered." in html and "Choose a delay longer" not in html


async def timeline(site, clock) -> str:
    """The console's page of a submission whose first signer got one reminder."""
    await sent(site, clock, reminders=HOUR)
    await moved(site, clock, timedelta(hours=1))
    console = await signed_in(site)
    return (await console.get("/console/submissions/1")).body.decode()


async def test_the_console_timeline_shows_each_reminder_sent(mailing, smtp_server, clock):
    html = await timeline(mailing, clock)
    assert "Reminder sent to Ann" in html and "send_reminder_email" not in html


async def test_the_console_timeline_says_a_reminder_was_kept_in_the_outbox_without_smtp(api, clock):
    html = await timeline(api, clock)
    assert "Reminder to Ann kept in the outbox (not sent: no SMTP server)" in html
    assert "send_reminder_email" not in html


def test_the_consoles_duration_labels_are_the_schedules_durations():
    assert list(reminder_settings.DURATION_LABELS) == list(reminder_schedule.DURATIONS)
