"""Emails and records in their reader's language: a signer's emails in their `language` (else their submission's,
else English), the copies in the submission's, the audit log in the submission's (else its first signer's), a
consent's certificate and email in the language of the page it was given on, console emails in the console's;
dates as the language writes them, in UTC. What the caller wrote (a custom subject and body) stays as written.

The catalogues' completeness is tests/unit/test_catalogue.py."""

import dataclasses
from datetime import timedelta

import storage.emails as stored_emails
import storage.jobs as stored_jobs
import storage.submissions as stored_submissions
from signsvc.accounts import console_users
from signsvc.http.appkeys import CONSOLE_USERS, DB, WORKER
from signsvc.results import audit_log
from tests.api.test_clickwrap_page import agree, clickwrap, consents, open_page
from tests.api.test_template_links import page as link_page
from tests.api.test_template_links import post as link_post
from tests.api.test_template_links import shared, token_of
from tests.support.console import Console, signed_in
from tests.support.pdf_text import page_texts
from tests.support.results import completed_submission, fetch
from tests.support.signing import ANN_VALUES, BOB_VALUES, VIC, act, send, submission, template, template_with_viewer
from tests.support.smtp_server import SmtpServer

POLISH_EXPIRY = "28 listopada 2026, 14:03 UTC"


def text_of(message) -> str:
    return message.get_body(("plain",)).get_content()


def html_of(message) -> str:
    return message.get_body(("html",)).get_content()


def received_by(server: SmtpServer, address: str) -> list:
    return [r.message for r in server.received if address in r.recipients]


def pdf_text(data: bytes) -> str:
    return " ".join(" ".join(page_texts(data)).split())


async def test_an_invitation_in_polish_has_a_polish_subject_text_and_expiry_date(mailing, smtp_server):
    await send(
        mailing,
        await template(mailing),
        {"email": "ann@example.com", "name": "Anna"},
        language="pl",
        expire_at="2026-11-28 14:03:00 UTC",
    )
    await mailing.app[WORKER].drain()
    [message] = smtp_server.messages
    assert message["Subject"] == "Zaproszenie do podpisania dokumentu"
    text = text_of(message)
    assert "Otrzymali Państwo zaproszenie do podpisania dokumentu NDA." in text
    assert "Przejrzyj i podpisz: http://signsvc.test/s/" in text
    assert f"Ten link wygasa {POLISH_EXPIRY}." in text
    html = html_of(message)
    assert '<html lang="pl" dir="ltr">' in html and "dokumentu <strong><bdi>NDA</bdi></strong>" in html


async def test_the_signers_own_language_comes_before_the_submissions(mailing, smtp_server):
    await send(mailing, await template(mailing), {"email": "ann@example.com", "language": "de-AT"}, language="pl")
    await mailing.app[WORKER].drain()
    assert smtp_server.messages[0]["Subject"] == "Sie sind eingeladen, ein Dokument zu unterschreiben"


async def test_a_language_without_a_catalogue_writes_in_english(mailing, smtp_server):
    await send(mailing, await template(mailing), language="ja")
    await mailing.app[WORKER].drain()
    assert smtp_server.messages[0]["Subject"] == "You are invited to sign a document"


async def test_a_signers_language_without_a_catalogue_gives_way_to_the_submissions(mailing, smtp_server):
    await send(mailing, await template(mailing), {"email": "ann@example.com", "language": "ja"}, language="de")
    await mailing.app[WORKER].drain()
    assert smtp_server.messages[0]["Subject"] == "Sie sind eingeladen, ein Dokument zu unterschreiben"


async def test_an_arabic_email_is_right_to_left_in_its_html_and_body_and_aligned_right(mailing, smtp_server):
    await send(mailing, await template(mailing), {"email": "ann@example.com", "name": "Ann"}, language="ar")
    await mailing.app[WORKER].drain()
    [message] = smtp_server.messages
    assert message["Subject"] == "أنت مدعو لتوقيع مستند"
    html = html_of(message)
    assert '<html lang="ar" dir="rtl">' in html
    assert '<body dir="rtl"' in html and "text-align:right" in html
    assert "راجِع ووقِّع" in html and "مرحبًا Ann،" in text_of(message)


async def test_an_arabic_email_keeps_the_names_and_a_custom_message_in_their_own_direction(mailing, smtp_server):
    template_id = await template(mailing, name="Acme Inc. (NDA)")
    await send(mailing, template_id, {"email": "ann@example.com", "name": "Ann Lee Jr."}, language="ar")
    await send(
        mailing,
        template_id,
        {"email": "bob@example.com"},
        language="ar",
        message={"subject": "Sign", "body": "Dear Bob,\nplease sign.\n\nنعم"},
    )
    await mailing.app[WORKER].drain()
    [ann] = received_by(smtp_server, "ann@example.com")
    assert "مرحبًا <bdi>Ann Lee Jr.</bdi>،" in html_of(ann)
    assert "<strong><bdi>Acme Inc. (NDA)</bdi></strong>" in html_of(ann)
    [bob] = received_by(smtp_server, "bob@example.com")
    assert '<p dir="auto">Dear Bob,<br>please sign.</p>' in html_of(bob)
    assert '<p dir="auto">نعم</p>' in html_of(bob)


async def test_a_custom_message_stays_as_written_around_the_translated_button(mailing, smtp_server):
    await send(
        mailing,
        await template(mailing),
        {"email": "ann@example.com", "name": "Anna"},
        language="pl",
        message={"subject": "Please sign {{template.name}}", "body": "Dear {{submitter.name}}, please sign."},
    )
    await mailing.app[WORKER].drain()
    [message] = smtp_server.messages
    assert message["Subject"] == "Please sign NDA"
    assert text_of(message).startswith("Dear Anna, please sign.")
    assert "Przejrzyj i podpisz" in html_of(message)


async def test_a_reminder_marks_the_invitations_subject_in_the_signers_language(mailing, smtp_server, clock):
    await send(mailing, await template(mailing), language="pl", reminders={"first_duration": "one_hour"})
    await mailing.app[WORKER].drain()
    clock.advance(timedelta(hours=1))
    await mailing.app[WORKER].drain()
    assert smtp_server.messages[-1]["Subject"] == "Przypomnienie: Zaproszenie do podpisania dokumentu"


async def test_the_completed_copy_is_in_each_signers_language_and_the_copies_in_the_submissions(mailing, smtp_server):
    signers = await send(
        mailing,
        await template(mailing),
        {"email": "ann@example.com", "name": "Ann", "language": "pl"},
        {"email": "bob@example.com", "name": "Bob"},
        order="random",
        language="de",
        bcc_completed="archive@example.com",
    )
    for signer, values in zip(signers, (ANN_VALUES, BOB_VALUES), strict=True):
        await act(mailing, signer["slug"], "complete", {"values": values})
    await mailing.app[WORKER].drain()
    [ann] = [m for m in received_by(smtp_server, "ann@example.com") if "podpisany" in m["Subject"]]
    assert ann["Subject"] == "Dokument NDA został podpisany przez: Ann, Bob"
    assert "W załączniku są podpisane dokumenty i dziennik audytu." in text_of(ann)
    for address in ("bob@example.com", "archive@example.com"):
        [copy] = [m for m in received_by(smtp_server, address) if "abgeschlossen" in m["Subject"]]
        assert copy["Subject"] == "NDA wurde von Ann, Bob abgeschlossen"
        assert "Die unterschriebenen Dokumente und das Prüfprotokoll sind angehängt." in text_of(copy)


async def test_a_signer_invited_without_a_language_keeps_the_language_they_opened_the_form_in(mailing, smtp_server):
    [ann, bob] = await send(
        mailing, await template(mailing), {"email": "ann@example.com", "name": "Ann"}, {"email": "bob@example.com"}
    )
    french = {"Accept-Language": "fr-FR,fr;q=0.9,en;q=0.5"}
    assert (await act(mailing, ann["slug"], "view", **french)).json["preferences"]["language"] == "fr"
    assert (await act(mailing, ann["slug"], "view", **{"Accept-Language": "de"})).status == 200  # kept, not changed
    assert (await act(mailing, ann["slug"], "complete", {"values": ANN_VALUES}, **french)).status == 200
    assert (await act(mailing, bob["slug"], "complete", {"values": BOB_VALUES})).status == 200
    await mailing.app[WORKER].drain()
    [copy] = [m for m in received_by(smtp_server, "ann@example.com") if "terminé" in m["Subject"]]
    assert copy["Subject"] == "NDA a été terminé par Ann, bob@example.com"
    assert "Les documents signés et le journal d\u2019audit sont en pièce jointe." in text_of(copy)
    [bobs] = [m for m in received_by(smtp_server, "bob@example.com") if "completed" in m["Subject"]]
    assert bobs["Subject"] == "NDA has been completed by Ann, bob@example.com"
    found = await submission(mailing, ann["submission_id"])
    text = pdf_text(await fetch(mailing, found["audit_log_url"]))
    assert "Journal d\u2019audit" in text and "Journal des événements" in text


async def test_a_signers_language_from_the_api_is_not_replaced_by_the_page(api):
    [ann, _] = await send(
        api, await template(api), {"email": "ann@example.com", "language": "pl"}, {"email": "bob@example.com"}
    )
    assert (await act(api, ann["slug"], "view", **{"Accept-Language": "fr"})).json["preferences"]["language"] == "pl"
    [ann, _] = await send(api, await template(api), language="de")
    assert "language" not in (await act(api, ann["slug"], "view", **{"Accept-Language": "fr"})).json["preferences"]


async def test_the_audit_log_is_in_polish_for_a_polish_submission(api, worker):
    found = await completed_submission(api, worker, language="pl")
    text = pdf_text(await fetch(api, found["audit_log_url"]))
    for words in (
        "Dziennik audytu",
        "ID koperty",
        "Data wygenerowania 1 sty 2026, 12:00:00 UTC",
        "Podpisujący: Zoë Łukasz (First Party)",
        "Status Zakończono",
        "Dziennik zdarzeń",
        "Utworzono wysyłkę przez API",
        "Formularz oznaczony przez API jako zakończony: ann@example.com",
        "Wysyłka zakończona: wszyscy podpisujący zakończyli swoją część",
        "Strona 1 z",
    ):
        assert words in text, words
    assert "Audit Log" not in text and "Event Log" not in text


async def test_the_audit_log_says_no_invitation_was_sent_to_a_viewer_never_emailed_nor_opened(api, worker):
    ann = {"email": "ann@example.com", "name": "Ann", "values": ANN_VALUES, "completed": True}
    bob = {"email": "bob@example.com", "name": "Bob", "values": BOB_VALUES, "completed": True}
    await send(api, await template_with_viewer(api), ann, VIC, bob, send_email=False)
    await worker.drain()
    found = await submission(api, 1)
    text = pdf_text(await fetch(api, found["audit_log_url"]))
    assert "Signer: Vic (Viewer)" in text and "Status No invitation sent" in text and "Not invited" not in text


async def test_the_audit_log_speaks_the_first_signers_language_when_the_submission_has_none(api, worker):
    ann = {"email": "ann@example.com", "name": "Ann", "values": ANN_VALUES, "completed": True, "language": "fr"}
    bob = {"email": "bob@example.com", "name": "Bob", "values": BOB_VALUES, "completed": True, "language": "de"}
    found = await completed_submission(api, worker, ann, bob)
    text = pdf_text(await fetch(api, found["audit_log_url"]))
    assert "Journal d\u2019audit" in text and "Journal des événements" in text


async def test_a_consent_given_on_a_german_page_has_a_german_certificate_and_email_and_an_english_one_for_the_author(
    api, worker, db
):
    terms = await clickwrap(api)
    german = {"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"}
    page = await api.with_key(None).get(f"/c/{terms['slug']}", headers={"Accept": "text/html", **german})
    assert (await agree(api, terms["slug"], page=page, **german)).status == 200
    await worker.drain()
    [consent] = await consents(api, terms["id"])
    text = pdf_text(await fetch(api, consent["certificate_url"]))
    for words in (
        "Zustimmungsnachweis",
        "Zugestimmt am 01.01.2026, 12:00:00 UTC",
        "Zugestimmt von",
        "Kontrollkästchen",
        "Angekreuzt I read the privacy notice (Pflicht)",
        "Nicht angekreuzt Send me news",
        "Ada Lovelace hat Version 1 zugestimmt",
    ):
        assert words in text, words
    emails = {
        e.to_address: e for e in await stored_emails.list_emails(db, 1, limit=10) if e.kind == "consent_certificate"
    }
    assert emails["ada@example.com"].subject == "Sie haben Terms of Service zugestimmt"
    assert "am 1. Januar 2026, 12:00 UTC zugestimmt" in emails["ada@example.com"].text_body
    author = (await api.get("/api/user")).json["email"]
    assert emails[author].subject == "New consent to Terms of Service"


async def test_an_event_of_no_signer_the_audit_log_has_is_told_without_a_person_in_each_language(api, db):
    await send(api, await template(api))
    submission = await stored_submissions.required_submission(db, 1)
    bob = (await stored_submissions.submitters_of(db, 1))[1:]  # Ann's invitation names a signer the log does not have
    for language, sentence in (("es", "Correo enviado"), ("it", "Email inviata"), ("pt", "E-mail enviado")):
        log = audit_log.log(
            dataclasses.replace(submission, preferences={"language": language}),
            bob,
            await stored_submissions.events_of(db, 1),
            documents=[],
            images={},
            filenames={},
            test_mode=False,
            generated_at=submission.created_at,
        )
        assert log["events"][1]["text"] == sentence


async def test_a_consent_without_a_name_or_an_address_is_told_without_a_person(api, worker):
    terms = await clickwrap(api, require_name=False, require_email=False)
    for accepted, words in (("de", "Version 1 zugestimmt"), ("it", "Versione 1 accettata"), ("pt", "Versão 1 aceita")):
        headers = {"Accept-Language": accepted}
        page = await api.with_key(None).get(f"/c/{terms['slug']}", headers={"Accept": "text/html", **headers})
        assert (await agree(api, terms["slug"], {"checkbox-0": "yes"}, page=page, **headers)).status == 200
        await worker.drain()
        consent = (await consents(api, terms["id"]))[0]
        text = pdf_text(await fetch(api, consent["certificate_url"]))
        assert words in text and "person" not in text.lower() and "pessoa" not in text


async def test_a_consent_page_in_english_gives_an_english_certificate(api, worker):
    terms = await clickwrap(api)
    await agree(api, terms["slug"], page=await open_page(api, terms["slug"]))
    await worker.drain()
    [consent] = await consents(api, terms["id"])
    assert "Consent Certificate" in pdf_text(await fetch(api, consent["certificate_url"]))


async def test_a_console_invitation_is_in_the_language_of_the_console_that_sent_it(api):
    admin = await signed_in(api)
    french = {"Accept-Language": "fr"}
    await admin.get("/console/users", headers=french)
    form = {"email": "bob@example.com", "first_name": "Bob", "last_name": "Stone"}
    assert (await admin.post("/console/users/invite", form, headers=french)).status == 303
    [email] = [
        e for e in await stored_emails.list_emails(api.app[DB], 1, limit=10) if e.to_address == "bob@example.com"
    ]
    assert email.subject == "Invitation à signsvc"
    assert "Admin User vous invite à rejoindre le compte signsvc." in email.text_body
    assert "Définir votre mot de passe : http://signsvc.test/console/setup/" in email.text_body


async def test_an_invitation_sent_again_from_the_console_is_in_the_language_of_that_console(api):
    admin = await signed_in(api)
    await admin.get("/console/users")
    form = {"email": "bob@example.com", "first_name": "Bob", "last_name": "Stone"}
    assert (await admin.post("/console/users/invite", form)).status == 303
    bob = await api.app[CONSOLE_USERS].find_by_email("bob@example.com")
    dutch = {"Accept-Language": "nl-NL,nl;q=0.9"}
    await admin.get("/console/users", headers=dutch)
    assert (await admin.post(f"/console/users/{bob.id}/invitation", headers=dutch)).status == 303
    first, again = sorted(
        (e for e in await stored_emails.list_emails(api.app[DB], 1, limit=10) if e.to_address == "bob@example.com"),
        key=lambda email: email.id,
    )
    assert first.subject == "You are invited to signsvc" and again.subject == "U bent uitgenodigd voor signsvc"
    assert "Admin User heeft u uitgenodigd voor het account signsvc." in again.text_body


async def test_a_password_reset_is_emailed_in_the_language_of_the_page_that_asked_for_it(mailing, smtp_server):
    await (await signed_in(mailing)).post("/console/sign-out")
    console = Console(mailing)
    polish = {"Accept-Language": "pl"}
    await console.get("/console/reset", headers=polish)
    assert (await console.post("/console/reset", {"email": "admin@example.com"}, headers=polish)).status == 200
    jobs = [job for number in range(1, 50) if (job := await stored_jobs.get_job(mailing.app[DB], number))]
    [reset] = [job for job in jobs if job.kind == console_users.RESET_JOB]
    assert reset.payload == {"email": "admin@example.com", "language": "pl"}
    await mailing.app[WORKER].drain()
    [message] = smtp_server.messages
    assert message["Subject"] == "Zmiana hasła"
    assert "Ustaw nowe hasło: http://signsvc.test/console/reset/" in text_of(message)


async def test_a_verification_code_is_emailed_in_the_language_of_the_page_that_asked_for_it(api, db):
    [ann, _] = await send(
        api, await template(api), {"email": "ann@example.com", "require_email_2fa": True}, {"email": "bob@example.com"}
    )
    spanish = {"Accept-Language": "es-ES,es;q=0.9"}
    path = f"/s/{ann['slug']}/verification/send"
    sent = await api.with_key(None).post(path, data={}, headers=spanish, allow_redirects=False)
    assert sent.status == 200
    [email] = await stored_emails.list_emails(db, 1, limit=1)
    assert (email.kind, email.subject) == ("verification_code", "Su código de verificación")
    assert "Su código de verificación para abrir NDA:" in email.text_body and "10 min" in email.text_body


async def test_a_visitor_of_a_shared_link_keeps_the_pages_language_on_their_submitter(api):
    slug = await shared(api)
    polish = {"Accept-Language": "pl-PL,pl;q=0.9"}
    token = token_of(await link_page(api, f"/d/{slug}", **polish))
    started = await link_post(api, slug, {"form_token": token, "name": "Anna", "email": "anna@example.com"}, **polish)
    [found] = (await api.get("/api/submissions")).json["data"]
    [submitter] = (await api.get(f"/api/submissions/{found['id']}")).json["submitters"]
    assert started.status == 303 and submitter["preferences"]["language"] == "pl"
