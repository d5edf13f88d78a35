"""Right-to-left and complex scripts in the documents: Arabic joined, Hebrew, Devanagari and Thai shaped, and every
run in reading order, as poppler's pdftotext reads them back; the fonts come from the Python packages."""

import configparser
import itertools
import re

import pypdfium2
import pytest

from signsvc.infra import languages
from signsvc.pdf import audit_log, consent_certificate, font_files, fonts
from tests.pdf.test_pdf_audit_log import event, make_log, page_lines, submitter
from tests.pdf.test_pdf_consent_certificate import make_data, person
from tests.pdf.test_pdf_fill import field, filled, sample_pdf
from tests.support.paths import ROOT
from tests.support.pdf_text import page_texts, pdftotext
from tests.support.system import PDFTOTEXT

SIGNERS = ["山田 太郎", "محمد", "דוד", "שרה כהן"]


def flat(text: str) -> str:
    return " ".join(text.split())


@PDFTOTEXT
def test_the_audit_log_names_signers_of_every_script_in_reading_order():
    log = make_log(
        submitters=[submitter(name=name, values=[{"field": "Company", "value": "شركة محمد"}]) for name in SIGNERS]
    )
    text = flat(pdftotext(audit_log.render(log)))
    for name in SIGNERS:
        assert f"Name {name}" in text
    assert "دمحم" not in text and "ןהכ הרש" not in text  # the names backwards, as drawn unshaped
    assert "no installed font" not in text


@PDFTOTEXT
def test_the_audit_log_draws_devanagari_and_thai_names():
    text = flat(pdftotext(audit_log.render(make_log(submitters=[submitter(name="नमस्ते"), submitter(name="สมชาย")]))))
    assert "Name नमस्ते" in text and "Name สมชาย" in text and "no installed font" not in text


@PDFTOTEXT
def test_the_consent_certificate_names_an_arabic_and_a_hebrew_person_in_reading_order():
    for name in ("محمد", "שרה כהן"):
        assert f"Name {name}" in flat(pdftotext(consent_certificate.render(make_data(person=person(name=name)))))


@PDFTOTEXT
@pytest.mark.parametrize("value", ["محمد", "שרה כהן", "山田 太郎", "नमस्ते"])
def test_a_filled_value_in_any_script_reads_in_reading_order(value):
    assert value in pdftotext(filled(sample_pdf(), (field("text", (0, 0.1, 0.1, 0.5, 0.05)), value)))


def test_only_text_in_a_right_to_left_or_complex_script_is_shaped():
    assert not fonts.needs_shaping(["Zoë Łukasz", "Иван", "山田 太郎", "Ωmega"])
    assert all(fonts.needs_shaping([text]) for text in ("محمد", "דוד", "नमस्ते", "สมชาย"))


def test_every_script_the_documents_need_is_drawn_by_a_packaged_font():
    packaged = [
        font_files.packaged(*font_files.PACKAGED_TEXT),
        *(font_files.packaged(*each) for each in font_files.PACKAGED_FALLBACKS),
        font_files.packaged_cjk_font(),
    ]
    assert all(packaged) and [fonts.text_font(), *fonts.fallback_fonts()] == packaged
    drawn = frozenset[int]().union(*(fonts.coverage(path) for path in packaged))
    for sample in ("Ł", "Ж", "Ω", "م", "א", "क", "ก", "山", "あ", "한"):
        assert ord(sample) in drawn, sample


def test_the_font_packages_and_harfbuzz_are_install_requirements():
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    required = {
        line.split(">")[0].split("=")[0].split("<")[0].strip().lower()
        for line in config["options"]["install_requires"].splitlines()
        if line.strip() and not line.strip().startswith("#")
    }
    assert set(font_files.FONT_PACKAGES) <= required


@PDFTOTEXT
def test_an_arabic_audit_log_has_its_words_shaped_in_reading_order():
    words = languages.words("ar", ("record.", "audit_log."))
    # pdftotext puts spaces between some shaped letters: the words are compared without spaces.
    text = pdftotext(audit_log.render(make_log(words=words, language="ar"))).replace(" ", "")
    for key in ("audit_log.title", "record.envelope_id", "record.event_log", "audit_log.completed_at"):
        assert words[key].replace(" ", "") in text, key
    assert "no installed font" not in text and "U+" not in text


@pytest.mark.parametrize("language", ["ar", "en"])
@pytest.mark.parametrize("events", [3, 200])
def test_the_page_count_of_the_footer_sits_a_space_from_its_words(language, events):
    log = make_log(
        words=languages.words(language, ("record.", "audit_log.")),
        language=language,
        events=[event(number % 60, "Form opened") for number in range(events)],
    )
    pdf = audit_log.render(log)
    width = pypdfium2.PdfDocument(pdf)[0].get_size()[0]
    footers = [lines[-1] for lines in page_lines(pdf)]
    assert len(footers) == (1 if events == 3 else 4)
    for page, footer in zip(page_texts(pdf), footers, strict=True):
        assert not re.search(r"\d {2,}|  +\d", page.splitlines()[-1]), "a run of spaces beside a number"
        page_of = sorted((left, right) for char, left, right in footer if left > width / 2)  # "Page n of N"
        assert max(after[0] - before[1] for before, after in itertools.pairwise(page_of)) < 3  # a space at most
