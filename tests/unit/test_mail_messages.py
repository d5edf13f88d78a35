"""Email messages as composed (invitations, completed copies) and SMTP URLs as read: no app, no database.

The outbox and delivery over SMTP are in tests/api/test_mail.py."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from html import unescape

import pytest

from signsvc.accounts import console_users
from signsvc.accounts.user_links import RESET, SETUP
from signsvc.clickwraps import certificates
from signsvc.infra import languages, mail, smtp
from signsvc.results import emails
from signsvc.submissions import email_verification
from storage.records import Consent
from tests.support.emails import LINK, invite

# Composition


MOMENT = datetime(2026, 11, 28, 14, 3, tzinfo=UTC)


def consent(name: str | None = "Ann", email: str | None = "ann@example.com", version: int = 2) -> Consent:
    return Consent(1, 1, 1, version, name, email, None, None, None, MOMENT, None, "page", [], None, None, None, None)


def every_email(language: str) -> list[mail.Composed]:
    """Every email the service writes, in each of its forms, in `language`."""
    completed = dict(account_name="Acme", template_name="NDA", submitter_names=["Ann"], language=language)
    agreed = dict(account_name="Acme", clickwrap_name="Terms", certificate_url=LINK, language=language)
    link = dict(name="Bob Stone", account_name="Acme", link=LINK, expire_at=MOMENT, language=language)
    return [
        invite(expire_at=MOMENT, language=language),
        invite(submitter_name=None, language=language),
        emails.compose(**completed, documents=[("NDA", LINK)], audit_log_url=LINK),
        emails.compose(**completed, documents=[], audit_log_url=None, attached=True),
        emails.compose(**completed, documents=[], audit_log_url=None, attached=True, public=True),
        certificates.compose(**agreed, consent=consent(), to_author=True),
        certificates.compose(**agreed, consent=consent(name=None, email=None), to_author=True),
        certificates.compose(**agreed, consent=consent(), to_author=False),
        email_verification.compose("NDA", "123456", language),
        console_users.compose(RESET, **link),
        console_users.compose(SETUP, **link, inviter="Ada Admin"),
        console_users.compose(SETUP, **link),
    ]


def english_left(email: mail.Composed, language: str) -> list[str]:
    """The fixed words of the English emails (each part of a string between its placeholders) the email shows,
    but those the language's own string writes alike ("min", a brand)."""
    shown = " ".join([email.subject, email.text, unescape(re.sub(r"<[^>]+>", " ", email.html))])
    english, own = languages.own(languages.DEFAULT), languages.strings(language)
    left = []
    for key, value in english.items():
        if not key.startswith("email."):
            continue
        parts = (part.strip(" ,.:;()") for part in re.split(r"\{[a-z_]+\}", value))
        left += [
            part
            for part in parts
            if re.search(r"[A-Za-z]{2}", part)
            and part not in own[key]
            and re.search(rf"(?<!\w){re.escape(part)}(?!\w)", shown)
        ]
    return left


@pytest.mark.parametrize("language", sorted(languages.languages()))
def test_every_email_renders_in_every_language_with_no_english_left_but_the_names(language):
    """Each email's fixed words from the language's catalogue: no English string of the emails is left in one of
    another language, and every placeholder is filled."""
    composed = every_email(language)
    for email in composed:
        for body in (email.subject, email.text, email.html):
            assert "{" not in body.replace("{{", "") and "}" not in body
        if language != languages.DEFAULT:
            assert not english_left(email, language), email.text
    assert all(f'<html lang="{language}" dir="{languages.direction(language)}">' in email.html for email in composed)


def test_the_english_left_check_finds_an_english_sentence_in_another_language():
    english = every_email("en")[0]
    assert "Review and sign" in english_left(english, "fr")
    assert english_left(every_email("fr")[0], "fr") == []


@pytest.mark.parametrize("language", ["fr", "de", "en"])
def test_the_consent_email_writes_the_version_as_the_certificate_does_without_grouping(language):
    for to_author in (True, False):
        composed = certificates.compose(
            account_name="Acme",
            clickwrap_name="Terms",
            consent=consent(version=12345),
            certificate_url=LINK,
            to_author=to_author,
            language=language,
        )
        assert " 12345)" in composed.text and "12\u00a0345" not in composed.text and "12.345" not in composed.text


@pytest.mark.parametrize(
    ("value", "header"),
    [
        ("NDA\r\nBcc: eve@example.com", "NDA Bcc: eve@example.com"),
        ("A\x00B\x1bC\x7fD\x85E", "A B C D E"),
        ("Terms\u2028of\u2029Service", "Terms of Service"),
        ("  Lease \t agreement  ", "Lease agreement"),
        ("Vertrag für Müller", "Vertrag für Müller"),
    ],
)
def test_a_header_value_is_one_line_without_control_characters(value, header):
    assert mail.header_text(value) == header
    composed = emails.compose(
        account_name="Acme", template_name=value, submitter_names=["Ann"], documents=[], audit_log_url=None, public=True
    )
    assert composed.subject == f"{header} has been completed"


def test_the_completed_copy_of_a_public_page_names_the_template_only_in_its_subject():
    composed = emails.compose(
        account_name="Acme",
        template_name="NDA",
        submitter_names=["Visit spam.example"],
        documents=[],
        audit_log_url=None,
        public=True,
    )
    assert composed.subject == "NDA has been completed" and "Visit spam.example" in composed.text


def test_an_invitation_has_the_default_subject_and_names_the_template_and_link():
    composed = invite(expire_at=datetime(2026, 2, 3, 4, 5, tzinfo=UTC))
    assert composed.subject == "You are invited to sign a document"
    for body in (composed.text, composed.html):
        assert "NDA" in body and LINK in body and "Bob Stone" in body
        assert "February 3, 2026, 4:05\u00a0AM UTC" in body


def test_custom_message_variables_are_substituted_in_any_case_with_spaces_inside_braces():
    composed = invite(
        expire_at=datetime(2026, 2, 3, 4, 5, tzinfo=UTC),
        message={
            "subject": "Please sign {{ Template.Name }} for {{account.name}}",
            "body": "Dear {{SUBMITTER.NAME}} <{{ submitter.email }}>,\n{{submitter.link}}\nby {{submission.expire_at}}",
        },
    )
    assert composed.subject == "Please sign NDA for Acme"
    assert composed.text == f"Dear Bob Stone <bob@example.com>,\n{LINK}\nby February 3, 2026, 4:05\u00a0AM UTC\n"


def test_unknown_variables_in_a_custom_message_are_left_as_typed():
    composed = invite(message={"subject": "{{sender.name}} asks", "body": "Hi {{ who.knows }}, {{template.name}}"})
    assert composed.subject == "{{sender.name}} asks"
    assert composed.text.startswith("Hi {{ who.knows }}, NDA")


def test_values_from_users_are_html_escaped():
    composed = invite(submitter_name="<script>alert(1)</script>", template_name="<b>NDA</b>", account_name="A&B")
    assert "<script>" not in composed.html and "<b>NDA" not in composed.html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in composed.html and "A&amp;B" in composed.html
    assert "<script>alert(1)</script>" in composed.text, "the text version is text, not markup"


def test_a_custom_body_is_escaped_in_html_with_its_line_breaks_kept_and_the_link_as_a_button():
    composed = invite(message={"body": "Hello <b>{{submitter.name}}</b>,\nplease sign.\n\nThanks"})
    paragraphs = '<p dir="auto">Hello &lt;b&gt;Bob Stone&lt;/b&gt;,<br>please sign.</p>\n<p dir="auto">Thanks</p>'
    assert paragraphs in composed.html
    assert re.search(rf'<a href="{re.escape(LINK)}"[^>]*>Review and sign</a>', composed.html)


def test_a_custom_body_without_the_link_gets_it_appended_in_text():
    assert invite(message={"body": "Please sign."}).text == f"Please sign.\n\n{LINK}\n"
    assert invite(message={"body": "Sign at {{submitter.link}} today."}).text == f"Sign at {LINK} today.\n"


def test_a_subject_stays_on_one_line_whatever_the_values():
    assert (
        invite(message={"subject": "Sign {{submitter.name}}"}, submitter_name="Bob\r\nBcc: x@y").subject
        == "Sign Bob Bcc: x@y"
    )


def test_a_completed_copy_says_who_completed_it_with_links_to_documents_and_audit_log():
    composed = emails.compose(
        account_name="Acme",
        template_name="NDA",
        submitter_names=["Bob", "<Ann>"],
        documents=[("nda", "http://signsvc.test/file/t/nda.pdf")],
        audit_log_url="http://signsvc.test/file/a/audit.pdf",
    )
    assert composed.subject == "NDA has been completed by Bob, <Ann>"
    assert "NDA has been completed by Bob, <Ann>." in composed.text
    assert "http://signsvc.test/file/t/nda.pdf" in composed.text and "audit.pdf" in composed.text
    assert '<a href="http://signsvc.test/file/t/nda.pdf">nda</a>' in composed.html
    assert "Bob, &lt;Ann&gt;" in composed.html


# SMTP URL


def test_an_smtp_url_gives_host_port_and_percent_decoded_credentials():
    server = smtp.parse_smtp_url("smtp://ada%40example.com:p%40ss%3Aword@mail.example.com:2525")
    assert server == smtp.Server("mail.example.com", 2525, "ada@example.com", "p@ss:word", implicit_tls=False)
    assert "p@ss" not in repr(server)


def test_an_smtp_url_without_port_uses_the_port_of_its_kind():
    assert smtp.parse_smtp_url("smtps://u:p@mail.example.com").port == 465
    assert smtp.parse_smtp_url("smtps://u:p@mail.example.com").implicit_tls
    assert smtp.parse_smtp_url("smtp://u:p@mail.example.com").port == 587
    assert smtp.parse_smtp_url("smtp://localhost").port == 25


@pytest.mark.parametrize(
    "url",
    [
        "http://mail.example.com",
        "smtp://",
        "smtp://host:port",
        "smtp://host:99999",
        "smtp://:secret@host",
        "smtp://host/path",
        "mail.example.com:25",
    ],
)
def test_a_bad_smtp_url_is_a_clear_error_without_its_password(url):
    with pytest.raises(ValueError, match="SIGNSVC_SMTP_URL") as raised:
        smtp.parse_smtp_url(url)
    assert "secret" not in str(raised.value)
