"""The audit log PDF records who signed what, when and from where."""

import hashlib
import io
import re
import shutil

import pypdf
import pypdfium2
import pytest
from PIL import Image

from signsvc.infra import languages, pdf_calls
from signsvc.pdf import audit_log, font_files, fonts
from signsvc.pdf.errors import PdfError
from tests.support.pdf_text import page_texts
from tests.support.system import CJK_FONT

USER_AGENT = (
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.2 Safari/605.1.15"
)


def png(color=(16, 24, 64, 255), size=(600, 200)):
    output = io.BytesIO()
    Image.new("RGBA", size, color).save(output, "PNG")
    return output.getvalue()


def submitter(name="Ann Lee", email="ann@example.com", **details):
    return {
        "role": "First Party",
        "name": name,
        "email": email,
        "phone": "+1 555 0100",
        "ip": "203.0.113.7",
        "user_agent": USER_AGENT,
        "completed_at": "2026-01-01T12:00:00+00:00",
        "status": "completed",
        "images": [{"label": "Signature", "png": png()}],
        "values": [{"field": "Company", "value": "Acme Inc."}, {"field": "Start date", "value": "2026-02-01"}],
        **details,
    }


def event(minute, text):
    return {"time": f"2026-01-01T12:{minute:02d}:00Z", "text": text}


def make_log(**changes):
    return {
        "words": languages.words("en", ("record.", "audit_log.")),
        "title": "NDA",
        "envelope_id": "5f0c6c4e-9a43-4c2a-8d55-0b6f5a3c1e11",
        "test_mode": False,
        "generated_at": "2026-01-02T09:30:00Z",
        "verify_url": "https://sign.example.com/tools/verify",
        "documents": [
            {
                "name": "NDA.pdf",
                "original_sha256": hashlib.sha256(b"original").hexdigest(),
                "result_sha256": hashlib.sha256(b"result").hexdigest(),
            }
        ],
        "submitters": [submitter()],
        "events": [
            event(0, "Email sent to ann@example.com"),
            event(5, "Form opened by ann@example.com"),
            event(9, "Form completed by ann@example.com"),
        ],
        **changes,
    }


def pages_text(pdf):
    return page_texts(pdf)


def flat(pdf):
    """The whole text with runs of whitespace as one space, so wrapped lines read as written."""
    return " ".join(" ".join(pages_text(pdf)).split())


def image_xobjects(pdf):
    """The images the pages draw, as (width, height) in pixels."""
    found = []
    for page in pypdf.PdfReader(io.BytesIO(pdf)).pages:
        for xobject in page["/Resources"].get("/XObject", {}).values():
            if (xobject := xobject.get_object())["/Subtype"] == "/Image":
                found.append((xobject["/Width"], xobject["/Height"]))
    return found


def font_names(pdf):
    return {
        str(font.get_object()["/BaseFont"])
        for page in pypdf.PdfReader(io.BytesIO(pdf)).pages
        for font in page["/Resources"]["/Font"].values()
    }


def test_every_item_of_the_log_appears_in_the_audit_log():
    log = make_log()
    text = flat(audit_log.render(log))
    document, details = log["documents"][0], log["submitters"][0]
    expected = [
        "Audit Log",
        "NDA",
        "Envelope ID",
        log["envelope_id"],
        "Jan 2, 2026, 9:30:00 AM UTC",
        log["verify_url"],
        document["name"],
        document["original_sha256"],
        document["result_sha256"],
        *(details[key] for key in ("role", "name", "email", "phone", "ip", "user_agent", "status")),
        "Completed at Jan 1, 2026, 12:00:00 PM UTC",
        "Signature",
        "Company Acme Inc.",
        "Start date 2026-02-01",
    ]
    assert [item for item in expected if item not in text] == []


def test_events_are_listed_in_time_order_with_utc_times():
    events = [
        {"time": "2026-01-01T14:05:00+02:00", "text": "Form opened by ann@example.com"},
        {"time": "2026-01-01T12:00:00", "text": "Email sent to ann@example.com"},
        {"time": "2026-01-01T12:09:30.123456Z", "text": "Form completed by ann@example.com"},
    ]
    text = flat(audit_log.render(make_log(events=events)))
    rows = [
        "Jan 1, 2026, 12:00:00 PM UTC Email sent to ann@example.com",
        "Jan 1, 2026, 12:05:00 PM UTC Form opened by ann@example.com",
        "Jan 1, 2026, 12:09:30 PM UTC Form completed by ann@example.com",
    ]
    assert all(row in text for row in rows)
    assert [text.index(row) for row in rows] == sorted(text.index(row) for row in rows)


def test_events_of_the_same_second_keep_their_given_order():
    events = [event(0, "Submission created via API"), event(0, "Email sent to ann@example.com")]
    text = flat(audit_log.render(make_log(events=events)))
    assert text.index("Submission created via API") < text.index("Email sent to ann@example.com")


@pytest.mark.parametrize("name", ["Zoë Łukasz", "Иван Петров", "José Muñoz", pytest.param("山田 太郎", marks=CJK_FONT)])
def test_unicode_names_are_extractable(name):
    text = flat(audit_log.render(make_log(submitters=[submitter(name=name, email="zoe@example.com")])))
    assert f"Name {name}" in text


@CJK_FONT
def test_the_cjk_fallback_font_is_embedded_only_when_a_string_needs_it():
    latin = audit_log.render(make_log(submitters=[submitter(name="Zoë Łukasz")]))
    cjk = audit_log.render(make_log(submitters=[submitter(name="Zoë Łukasz"), submitter(name="山田 太郎")]))
    assert not any("CJK" in name for name in font_names(latin))
    assert any("CJK" in name for name in font_names(cjk))


def test_test_mode_marks_every_page():
    events = [event(minute % 60, f"Event number {minute}") for minute in range(120)]
    pages = pages_text(audit_log.render(make_log(test_mode=True, events=events)))
    assert len(pages) > 1
    assert all("Test document, not legally binding" in page for page in pages)


def test_a_live_audit_log_carries_no_test_mark():
    assert "not legally binding" not in flat(audit_log.render(make_log(test_mode=False)))


def test_200_events_flow_onto_several_pages_with_the_table_heading_repeated_and_numbered():
    events = [
        {"time": f"2026-01-01T{10 + number // 60}:{number % 60:02d}:00Z", "text": f"Event number {number}"}
        for number in range(200)
    ]
    pages = pages_text(audit_log.render(make_log(events=events)))
    assert len(pages) >= 4
    assert [re.search(r"Page (\d+) of (\d+)", page).groups() for page in pages] == [
        (str(number), str(len(pages))) for number in range(1, len(pages) + 1)
    ]
    with_events = [page for page in pages if "Event number" in page]
    assert len(with_events) >= 3 and all(re.search(r"Time\s*Event", page) for page in with_events)
    numbers = [int(number) for number in re.findall(r"Event number (\d+)", " ".join(pages))]
    assert numbers == list(range(200))


def test_long_values_wrap_inside_the_page():
    long_value = "word " * 300 + "x" * 400
    log = make_log(
        submitters=[submitter(values=[{"field": "Notes", "value": long_value}], user_agent="UA/" + "y" * 300)],
        events=[event(1, "Comment: " + "long text " * 80)],
    )
    pdf = audit_log.render(log)
    compact = "".join(" ".join(pages_text(pdf)).split())
    assert "".join(long_value.split()) in compact and "UA/" + "y" * 300 in compact
    document = pypdfium2.PdfDocument(pdf)
    for page in document:
        text_page = page.get_textpage()
        boxes = [text_page.get_charbox(index) for index in range(text_page.count_chars())]
        assert all(left > 0 and right < page.get_width() for left, _, right, _ in boxes if right > left)
        text_page.close()
        page.close()
    document.close()


def test_signature_images_are_embedded_fitted_and_upright():
    portrait = io.BytesIO()
    exif = Image.Exif()
    exif[0x0112] = 6  # a phone photo taken turned: shown upright it is 200 wide, 300 tall
    Image.new("RGB", (300, 200), "navy").save(portrait, "JPEG", exif=exif.tobytes())
    images = [
        {"label": "Signature", "png": png((16, 24, 64, 255))},
        {"label": "Initials", "png": png((64, 0, 0, 255))},
        {"label": "Stamp", "png": portrait.getvalue()},
    ]
    found = image_xobjects(audit_log.render(make_log(submitters=[submitter(images=images)])))
    assert sorted(found) == sorted([(600, 200), (600, 200), (200, 300)])


def test_a_broken_image_is_replaced_by_a_note_and_the_log_is_still_produced():
    images = [
        {"label": "Signature", "png": b"\x89PNG\r\n\x1a\nnot really"},
        {"label": "Initials", "png": None},
        {"label": "Stamp", "png": png()},
    ]
    pdf = audit_log.render(make_log(submitters=[submitter(images=images)]))
    assert flat(pdf).count(languages.strings("en")["audit_log.unreadable_image"]) == 2
    assert len(image_xobjects(pdf)) == 1


def test_missing_submitter_details_are_left_out():
    text = flat(
        audit_log.render(
            make_log(submitters=[submitter(phone=None, ip="", completed_at=None, images=[], status="declined")])
        )
    )
    assert "Phone" not in text and "IP address" not in text and "Completed at" not in text
    assert "Status declined" in text


def test_text_from_the_log_cannot_pose_as_the_page_count():
    text = flat(audit_log.render(make_log(events=[event(1, "Page {nb} of \0n\0 pages")])))
    assert "Page {nb} of n pages" in text and "Page 1 of 1" in text


def test_the_same_log_renders_the_same_bytes():
    assert audit_log.render(make_log()) == audit_log.render(make_log())


@pytest.mark.parametrize(
    "changes",
    [
        {"envelope_id": ""},
        {"generated_at": "yesterday"},
        {"events": [{"time": None, "text": "Email sent"}]},
        {"submitters": [submitter(completed_at="2026-13-01")]},
    ],
)
def test_a_log_without_an_envelope_id_or_with_a_time_that_is_not_iso_8601_is_refused(changes):
    with pytest.raises(PdfError):
        audit_log.render(make_log(**changes))


@pytest.mark.parametrize("language", ["xx", "not a language", "de\n", 7])
def test_a_log_in_a_language_babel_does_not_know_is_refused_as_a_pdf_error(language):
    with pytest.raises(PdfError, match="language is not a language code"):
        audit_log.render(make_log(language=language))


def test_the_pool_call_answers_the_pdf_and_its_hash():
    made = pdf_calls.audit_log(make_log())
    pdf, sha256 = made.data, made.sha256
    assert pdf.startswith(b"%PDF-") and sha256 == hashlib.sha256(pdf).hexdigest()
    with pytest.raises(pdf_calls.EngineError, match="ISO 8601"):
        pdf_calls.audit_log(make_log(generated_at="soon"))


def test_without_a_text_font_the_audit_log_names_the_package_to_install(tmp_path, monkeypatch):
    monkeypatch.setattr(font_files, "PACKAGED_TEXT", ("fontpkg_not_installed", "None.ttf"))
    with pytest.raises(fonts.MissingFont, match=r"DejaVuSans\.ttf.*fontpkg-noto-sans"):
        audit_log.render(make_log(), str(tmp_path))


def test_a_text_font_in_the_font_directory_is_used_and_draws_the_headings_without_a_bold(tmp_path):
    shutil.copy(fonts.text_font(), tmp_path / "DejaVuSans.ttf")  # the packaged font, under the name looked for
    pdf = audit_log.render(make_log(), str(tmp_path))
    assert fonts.text_font(str(tmp_path)) == str(tmp_path / "DejaVuSans.ttf")
    assert "Envelope ID" in flat(pdf) and {name.split("+")[-1] for name in font_names(pdf)} == {"NotoSans"}


def test_cjk_text_without_a_fallback_font_is_drawn_as_substitutes_and_noted(monkeypatch):
    monkeypatch.setattr(fonts, "fallback_fonts", lambda font_dir=None: ())
    text = flat(audit_log.render(make_log(submitters=[submitter(name="山田 太郎")])))
    assert "?? ??" in text  # the text font has no white square: a question mark stands for each
    assert "replaced with ?: U+592A, U+5C71, U+7530, U+90CE" in text


@pytest.mark.parametrize("language", sorted(languages.languages()))
def test_the_audit_log_draws_its_words_in_every_language_with_the_packaged_fonts(language):
    words = languages.words(language, ("record.", "audit_log."))
    text = flat(audit_log.render(make_log(words=words, language=language, test_mode=True)))
    assert "U+" not in text, "no character of the words was replaced"
    if language != "ar":  # pypdf reads shaped Arabic out of order: tests/unit/test_right_to_left.py reads it
        assert all(words[key] in text for key in ("audit_log.title", "record.event_log", "record.test_mode"))


def page_lines(pdf: bytes) -> list[list[list[tuple[str, float, float]]]]:
    """The lines of text pdfium reads on each page, top to bottom: each drawn character with its left and right
    edge (characters whose middles are within a third of a line of each other share a line)."""
    found = []
    for page in pypdfium2.PdfDocument(pdf):
        text = page.get_textpage()
        boxes = [(text.get_text_range(i, 1), text.get_charbox(i, loose=True)) for i in range(text.count_chars())]
        drawn = sorted(((box[1] + box[3]) / 2, char, box[0], box[2]) for char, box in boxes if char.strip())
        lines: list[list[tuple[float, str, float, float]]] = []
        for char in reversed(drawn):  # from the top of the page
            if lines and lines[-1][-1][0] - char[0] < 4:
                lines[-1].append(char)
            else:
                lines.append([char])
        found.append([[(char, left, right) for _, char, left, right in line] for line in lines])
    return found


def text_lines(pdf: bytes) -> list[list[tuple[str, float, float]]]:
    """The lines of every page (`page_lines`), one after another."""
    return [line for page in page_lines(pdf) for line in page]


def event_rows(pdf: bytes, marker: str) -> list[tuple[list[float], float]]:
    """Per line of an events table whose every event is `marker` (a character no time or heading has): the right
    edges of the characters drawn left of the event, and the event's left edge. A line of the table without the
    marker (a time wrapped onto a second line) fails."""
    lines = text_lines(pdf)
    marked = [number for number, line in enumerate(lines) if any(char == marker for char, _, _ in line)]
    rows = []
    for line in lines[marked[0] : marked[-1] + 1]:
        starts = [left for char, left, _ in line if char == marker]
        assert starts, f"a line of the table without an event: {''.join(char for char, _, _ in line)!r}"
        rows.append(([right for _, _, right in line if right <= starts[0]], starts[0]))
    return rows


@pytest.mark.parametrize("language", sorted(languages.languages()))
def test_every_time_the_language_writes_stays_on_its_line_and_apart_from_its_event(language):
    times = [f"2026-{month:02d}-28T{hour}:59:59Z" for month in range(1, 13) for hour in (10, 22)]
    log = make_log(
        words=languages.words(language, ("record.", "audit_log.")),
        language=language,
        events=[{"time": time, "text": "#"} for time in times],
    )
    rows = event_rows(audit_log.render(log), "#")
    assert len(rows) == len(times)  # no time wrapped onto a line of its own
    for time_chars, event_left in rows:
        assert time_chars and max(time_chars) + 6 <= event_left
