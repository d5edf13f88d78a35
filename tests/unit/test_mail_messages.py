"""Email messages as composed (invitations, completed copies) and SMTP URLs as read: no app, no database.

The outbox and delivery over SMTP are in tests/api/test_mail.py."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from signsvc.clickwraps import certificates
from signsvc.infra import languages, mail, smtp
from signsvc.results import emails
from signsvc.submissions import email_verification
from storage.records import Consent
from tests.support.emails import LINK, invite

# Composition


@pytest.mark.parametrize("language", sorted(languages.languages()))
def test_every_email_renders_in_every_language_with_no_english_left_but_the_names(language):
    """Each email's fixed words from the language's catalogue: none is left untranslated (a word English only
    would show) and every placeholder is filled."""
    moment = datetime(2026, 11, 28, 14, 3, tzinfo=UTC)
    consent = Consent(
        1, 1, 1, 2, "Ann", "ann@example.com", None, None, None, moment, None, "page", [], None, None, None, None
    )
    composed = [
        invite(expire_at=moment, language=language),
        emails.compose(
            account_name="Acme",
            template_name="NDA",
            submitter_names=["Ann"],
            documents=[("NDA", LINK)],
            audit_log_url=LINK,
            language=language,
        ),
        certificates.compose(
            account_name="Acme",
            clickwrap_name="Terms",
            consent=consent,
            certificate_url=LINK,
            to_author=True,
            language=language,
        ),
        email_verification.compose("NDA", "123456", language),
    ]
    for email in composed:
        for body in (email.subject, email.text, email.html):
            assert "{" not in body.replace("{{", "") and "}" not in body
        if language != "en":
            assert not {"Thanks", "Hi", "invited", "expires", "completed", "agreed", "verification"} & set(
                re.findall(r"[A-Za-z]+", email.subject + email.text)
            ), email.text
    assert f'<html lang="{language}" dir="{"rtl" if language == "ar" else "ltr"}">' in composed[0].html


@pytest.mark.parametrize("language", ["fr", "de", "en"])
def test_the_consent_email_writes_the_version_as_the_certificate_does_without_grouping(language):
    moment = datetime(2026, 11, 28, 14, 3, tzinfo=UTC)
    consent = Consent(
        1, 1, 1, 12345, "Ann", "ann@example.com", None, None, None, moment, None, "page", [], None, None, None, None
    )
    for to_author in (True, False):
        composed = certificates.compose(
            account_name="Acme",
            clickwrap_name="Terms",
            consent=consent,
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
