"""The consent certificate PDF records who agreed to which version of a clickwrap, when and from where."""

import hashlib
import re

import pytest

from signsvc.infra import languages, pdf_calls
from signsvc.pdf import consent_certificate, fonts
from signsvc.pdf.errors import PdfError
from tests.support.pdf_text import page_texts
from tests.support.system import CJK_FONT

USER_AGENT = (
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.2 Safari/605.1.15"
)


def person(**changes):
    return {
        "name": "Ann Lee",
        "email": "ann@example.com",
        "external_id": "cust-42",
        "ip": "203.0.113.7",
        "user_agent": USER_AGENT,
        **changes,
    }


def make_data(**changes):
    return {
        "words": languages.words("en", ("record.", "consent_certificate.")),
        "consent_id": "7f3c2a10-4b6e-4d1f-9a8e-2c5b7d9e0f12",
        "title": "Terms of Service",
        "version": 3,
        "test_mode": False,
        "generated_at": "2026-01-02T09:30:00Z",
        "agreed_at": "2026-01-02T10:29:12+01:00",
        "button_text": "I agree",
        "content": "1. Be nice.\n2. Pay on time.",
        "documents": [],
        "person": person(),
        "checkboxes": [
            {"text": "I have read the terms", "required": True, "checked": True},
            {"text": "Send me product news", "required": False, "checked": False},
        ],
        "submission": {"envelope_id": "5f0c6c4e-9a43-4c2a-8d55-0b6f5a3c1e11"},
        "events": [{"time": "2026-01-02T09:29:12Z", "text": "Version 3 agreed to by Ann Lee"}],
        **changes,
    }


def pages_text(pdf):
    return page_texts(pdf)


def flat(pdf):
    """The whole text with runs of whitespace as one space, so wrapped lines read as written."""
    return " ".join(" ".join(pages_text(pdf)).split())


def test_every_section_of_the_consent_appears_in_the_certificate():
    data = make_data()
    text = flat(consent_certificate.render(data))
    expected = [
        "Consent Certificate",
        "Terms of Service",
        f"Consent ID {data['consent_id']}",
        "Version 3",
        "Agreed at Jan 2, 2026, 9:29:12 AM UTC",
        "Button clicked I agree",
        "Generated at Jan 2, 2026, 9:30:00 AM UTC",
        "Agreed by",
        "Name Ann Lee",
        "Email ann@example.com",
        "External ID cust-42",
        "IP address 203.0.113.7",
        f"User agent {USER_AGENT}",
        "Agreement",
        "1. Be nice. 2. Pay on time.",
        "Checkboxes",
        "Checked I have read the terms (required)",
        "Not checked Send me product news",
        "Signing",
        "Envelope ID 5f0c6c4e-9a43-4c2a-8d55-0b6f5a3c1e11",
        "Event Log",
        "Jan 2, 2026, 9:29:12 AM UTC Version 3 agreed to by Ann Lee",
        f"Consent ID: {data['consent_id']}",
    ]
    assert [item for item in expected if item not in text] == []
    assert "(required)" not in text.split("Send me product news")[1]


def test_the_documents_agreed_to_are_listed_with_their_pages_and_hashes():
    documents = [
        {"name": "Terms.pdf", "sha256": hashlib.sha256(b"terms").hexdigest(), "pages": 4},
        {"name": "Privacy.pdf", "sha256": hashlib.sha256(b"privacy").hexdigest(), "pages": 2},
    ]
    text = flat(consent_certificate.render(make_data(content=None, documents=documents)))
    assert all(f"Document {d['name']} Pages {d['pages']} SHA-256 {d['sha256']}" in text for d in documents)


def test_a_long_text_keeps_its_line_breaks_and_runs_over_numbered_pages():
    content = "\n".join(f"Clause {number} of the agreement." for number in range(1, 301))
    pages = pages_text(consent_certificate.render(make_data(content=content)))
    assert len(pages) >= 5
    assert [re.search(r"Page (\d+) of (\d+)", page).groups() for page in pages] == [
        (str(number), str(len(pages))) for number in range(1, len(pages) + 1)
    ]
    clauses = re.findall(r"^Clause (\d+) of the agreement\.$", "\n".join(pages), re.MULTILINE)
    assert clauses == [str(number) for number in range(1, 301)]


def test_markup_in_the_text_is_shown_as_written():
    content = "<b>Bold</b> & <a href='https://evil.example'>link</a> **not bold** <script>alert(1)</script>"
    assert content in flat(consent_certificate.render(make_data(content=content)))


def test_details_that_are_missing_are_left_out():
    data = make_data(
        person=person(external_id=None, ip="", user_agent=None),
        button_text=None,
        submission=None,
        checkboxes=None,
        events=None,
    )
    text = flat(consent_certificate.render(data))
    assert all(
        gone not in text
        for gone in ("External ID", "IP address", "User agent", "Button clicked", "Signing", "Checkboxes")
    )
    assert "Name Ann Lee" in text and "Event Log" in text


def test_control_characters_are_dropped_and_cannot_pose_as_the_page_count():
    text = flat(consent_certificate.render(make_data(title="Terms\x07 of\x1b Service", content="Page \0n\0 of us")))
    assert "Terms of Service" in text and "Page n of us" in text and "Page 1 of 1" in text


@CJK_FONT
def test_cjk_text_is_drawn_with_the_fallback_font_and_the_text_after_it_with_the_text_font():
    content = "\n".join(f"第{number}条 同意します\nClause {number} agreed." for number in range(40))
    pages = pages_text(consent_certificate.render(make_data(person=person(name="山田 太郎"), content=content)))
    text = "\n".join(pages)
    assert len(pages) > 1 and "Name 山田 太郎" in text
    assert re.findall(r"^第(\d+)条 同意します$", text, re.MULTILINE) == [str(number) for number in range(40)]
    assert re.findall(r"^Clause (\d+) agreed\.$", text, re.MULTILINE) == [str(number) for number in range(40)]


def test_test_mode_marks_every_page():
    content = "\n".join(f"Clause {number}" for number in range(120))
    pages = pages_text(consent_certificate.render(make_data(test_mode=True, content=content)))
    assert len(pages) > 1 and all("Test document, not legally binding" in page for page in pages)
    assert "not legally binding" not in flat(consent_certificate.render(make_data()))


def test_the_same_consent_renders_the_same_bytes():
    assert consent_certificate.render(make_data()) == consent_certificate.render(make_data())


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        ({"consent_id": None}, "consent_id"),
        ({"consent_id": " "}, "consent_id"),
        ({"version": None}, "version"),
        ({"version": "3"}, "version"),
        ({"agreed_at": "yesterday"}, "agreed_at"),
        ({"generated_at": None}, "generated_at"),
        ({"events": [{"time": "2026-13-01", "text": "Agreed"}]}, r"events\[0\]\.time"),
    ],
)
def test_a_consent_without_a_required_key_or_with_a_bad_time_is_refused_naming_the_key(changes, named):
    with pytest.raises(PdfError, match=named):
        consent_certificate.render(make_data(**changes))


def test_the_pool_call_answers_the_pdf_and_its_hash():
    made = pdf_calls.consent_certificate(make_data())
    assert made.data.startswith(b"%PDF-") and made.sha256 == hashlib.sha256(made.data).hexdigest()
    with pytest.raises(pdf_calls.EngineError, match="agreed_at"):
        pdf_calls.consent_certificate(make_data(agreed_at="soon"))


def test_a_name_no_installed_font_draws_is_a_substitute_and_noted_in_the_event_log(monkeypatch):
    monkeypatch.setattr(fonts, "fallback_fonts", lambda font_dir=None: ())
    text = flat(consent_certificate.render(make_data(person=person(name="山田 太郎"))))
    assert "?? ??" in text
    assert "replaced with ?: U+592A, U+5C71, U+7530, U+90CE" in text


@pytest.mark.parametrize("language", sorted(languages.languages()))
def test_the_certificate_draws_its_words_in_every_language_with_the_packaged_fonts(language):
    words = languages.words(language, ("record.", "consent_certificate."))
    text = flat(consent_certificate.render(make_data(words=words, language=language)))
    assert "U+" not in text, "no character of the words was replaced"
    if language != "ar":  # pypdf reads shaped Arabic out of order: tests/unit/test_right_to_left.py reads it
        assert all(words[key] in text for key in ("consent_certificate.title", "consent_certificate.checkboxes"))


def test_a_certificate_in_a_language_babel_does_not_know_is_refused_as_a_pdf_error():
    with pytest.raises(PdfError, match="language is not a language code"):
        consent_certificate.render(make_data(language="zz-Unknown"))


def test_a_certificate_without_its_words_is_refused():
    with pytest.raises(PdfError, match="needs its words"):
        consent_certificate.render(make_data(words=None))
