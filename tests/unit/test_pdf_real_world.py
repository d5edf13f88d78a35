"""Forms and files as real tools write them: never refused for what their fields get wrong, and the values
filled before upload shown in the result."""

import io
import logging
import re

import pypdf
import pypdfium2 as pdfium
import pytest
from PIL import Image

from signsvc.pdf import fill, forms
from signsvc.templates import template_fields
from tests.support import odd_pdfs
from tests.support.odd_pdfs import AGREE_RECT, CORPUS, PREFILLED, STALE, one_page_form, radio_form, radio_rect
from tests.support.samples import RawPdf, form_pdf

SCALE = 2


def fields_of(data: bytes) -> dict[str, dict]:
    return {field["name"]: field for field in forms.inspect_pdf(data)["fields"]}


def text_of(data: bytes) -> str:
    return "\n".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(data)).pages)


def flattened(data: bytes) -> bytes:
    """The document filled without any submitter value: only what it held before upload."""
    return fill.fill_pdf(data, "document", [], {}, {})


def render(data: bytes) -> Image.Image:
    document = pdfium.PdfDocument(data)
    try:
        return document[0].render(scale=SCALE).to_pil().convert("L")
    finally:
        document.close()


def darkest_in(image: Image.Image, rect: tuple[float, float, float, float], page_height: float = 842) -> int:
    """The darkest pixel inside a rect given in PDF points of an upright page."""
    x0, y0, x1, y1 = rect
    box = (
        round(x0 * SCALE) + 1,
        round((page_height - y1) * SCALE) + 1,
        round(x1 * SCALE) - 1,
        round((page_height - y0) * SCALE) - 1,
    )
    return image.crop(box).getextrema()[0]


def accepted(data: bytes) -> list[dict]:
    """The PDF's fields as template creation checks them."""
    pages = [template_fields.Page("document", len(forms.inspect_pdf(data)["pages"]))]
    return template_fields.fields(
        forms.inspect_pdf(data)["fields"], template_fields.Roles(), pages, "form fields", first_page=0
    )


# A radio option without a name


def test_a_radio_option_without_a_name_is_called_by_its_place_and_logged(caplog):
    with caplog.at_level(logging.WARNING, logger="signsvc.pdf.forms"):
        fields = fields_of(odd_pdfs.radio_with_an_unnamed_option())
    assert fields["payment"]["options"] == ["Option 1", "Card", "Cash"]
    assert [area["option"] for area in fields["payment"]["areas"]] == ["Option 1", "Card", "Cash"]
    assert fields["answer"]["options"] == ["Yes", "Option 2"]
    assert [record.getMessage() for record in caplog.records] == [
        "PDF form: option 1 of the radio field 'payment' has no name; it is called 'Option 1'",
        "PDF form: option 2 of the radio field 'answer' has no name; it is called 'Option 2'",
    ]


def test_a_name_given_to_an_unnamed_option_is_not_one_another_option_has():
    fields = fields_of(radio_form({"group": ["", "Option#201", "#20"]}))
    assert fields["group"]["options"] == ["Option 2", "Option 1", "Option 3"]


def test_buttons_sharing_the_empty_state_share_one_option():
    fields = fields_of(radio_form({"group": ["", "", "Other"]}))
    assert fields["group"]["options"] == ["Option 1", "Other"]
    assert [area["option"] for area in fields["group"]["areas"]] == ["Option 1", "Option 1", "Other"]


@pytest.mark.parametrize("name", ["radio with an unnamed option", "prefilled without appearances"])
def test_the_fields_of_the_failing_forms_pass_template_creations_checks(name):
    assert accepted(CORPUS[name].build())


def test_the_sample_forms_fields_pass_template_creations_checks():
    assert len(accepted(form_pdf())) == len(forms.inspect_pdf(form_pdf())["fields"])


def test_control_characters_in_names_and_options_are_dropped():
    data = one_page_form(
        [
            "/FT /Tx /T (na\\000me\\t) /Rect [72 700 272 720]",
            "/FT /Ch /T (pick) /Opt [(A\\000) (B)] /Rect [72 600 272 620]",
        ]
    )
    fields = fields_of(data)
    assert set(fields) == {"name", "pick"} and fields["pick"]["options"] == ["A", "B"]


def test_a_field_that_cannot_be_understood_is_left_out_and_logged_not_the_pdf(caplog):
    raw = RawPdf()
    script = raw.stream(b'AFDate_FormatEx("dd.mm.yyyy");', "/Filter /NoSuchFilter")  # no reader can decode it
    data = one_page_form(
        [
            f"/FT /Tx /T (date) /AA << /F << /S /JavaScript /JS {script} 0 R >> >> /Rect [72 700 272 720]",
            f"/FT /Tx /T (note) /V {script} 0 R /Rect [72 650 272 670]",
            "/FT /Tx /T (good) /Rect [72 600 272 620]",
        ],
        raw=raw,
    )
    with caplog.at_level(logging.WARNING, logger="signsvc.pdf.forms"):
        assert list(fields_of(data)) == ["good"]
        assert "Form" in text_of(flattened(data))
    assert [record.getMessage().split(", it")[0] for record in caplog.records] == [
        "PDF form: the field 'date' is left out",
        "PDF form: the value of a widget on page 1 is left out",
    ]


# Values filled before upload that their widgets don't show


def test_values_without_an_appearance_or_with_an_empty_one_are_drawn():
    text = text_of(flattened(odd_pdfs.prefilled_without_appearances()))
    for value in PREFILLED:
        assert value in text


def test_a_choice_is_shown_by_its_display_text_not_its_export_value():
    text = text_of(flattened(odd_pdfs.prefilled_without_appearances()))
    assert "Germany" in text and "de" not in text.split()


def test_a_comb_value_is_drawn_one_character_per_cell():
    text = text_of(flattened(odd_pdfs.prefilled_without_appearances()))
    assert "1 0 1 1 5" in text


def test_an_out_of_date_appearance_under_need_appearances_gives_way_to_the_value():
    text = text_of(flattened(odd_pdfs.prefilled_without_appearances()))
    assert "NEW-2" in text and STALE not in text


def test_a_checked_box_without_the_state_that_shows_it_gets_a_check():
    data = odd_pdfs.prefilled_without_appearances()
    assert darkest_in(render(data), AGREE_RECT) > 200
    assert darkest_in(render(flattened(data)), AGREE_RECT) < 100


def test_a_radio_button_chosen_by_an_empty_state_without_its_appearance_shown_gets_a_check():
    data = radio_form({"payment": ["", "Card"]}, {"payment": "/V /"}, button_entries="")
    result = render(flattened(data))
    first, second = (tuple(map(float, radio_rect(0, button).split())) for button in (0, 1))
    assert darkest_in(result, first) < 100 and darkest_in(result, second) > 200


def test_a_value_its_appearance_shows_is_not_drawn_again():
    raw = RawPdf()
    font = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
    shown = raw.stream(
        b"BT /Helv 12 Tf 2 5 Td (ACME Ltd) Tj ET",
        f"/Type /XObject /Subtype /Form /BBox [0 0 200 20] /Resources << /Font << /Helv {font} >> >>",
    )
    data = one_page_form(
        [f"/FT /Tx /T (company) /V (ACME Ltd) /Rect [72 720 272 740] /AP << /N {shown} 0 R >>"], raw=raw
    )
    assert text_of(flattened(data)).count("ACME Ltd") == 1


def test_a_prefilled_field_is_not_a_field_for_the_signer():
    assert list(fields_of(odd_pdfs.prefilled_without_appearances())) == ["full_name"]


# The corpus of odd shapes


def xref_points_at_its_objects(data: bytes) -> bool:
    """Whether each entry of the (only) xref table gives where its object starts."""
    table = data[data.rindex(b"\nxref\n") :]
    entries = [int(offset) for offset in re.findall(rb"(\d{10}) 00000 n", table)]
    return all(data[offset:].startswith(b"%d 0 obj" % number) for number, offset in enumerate(entries, 1))


ODDITIES = {  # that each odd PDF really has its oddity, which a reader would otherwise never meet
    "rotated pages": lambda data: b"/Count 1 /Rotate 270" in data,
    "tiny page": lambda data: b"/MediaBox [0 0 10 10]" in data,
    "inherited attributes": lambda data: (
        b"/Count 2 /MediaBox [0 0 300 400] /Resources" in data
        and b"/Type /Page /Parent 2 0 R /Contents 5 0 R >>" in data
    ),
    "broken xref": lambda data: not xref_points_at_its_objects(data),
    "object streams": lambda data: b"/Type /ObjStm" in data and b"/T (name)" not in data and b"\nxref\n" not in data,
    "incremental update": lambda data: data.count(b"%%EOF") == 2 and b"/Prev" in data,
    "encrypted with an empty user password": lambda data: pypdf.PdfReader(io.BytesIO(data)).is_encrypted,
}


@pytest.mark.parametrize("name", list(ODDITIES))
def test_each_odd_pdf_has_its_oddity(name):
    assert ODDITIES[name](CORPUS[name].build())


@pytest.mark.parametrize("name", list(CORPUS))
def test_each_odd_pdf_gives_its_pages_and_fields(name):
    odd = CORPUS[name]
    found = forms.inspect_pdf(odd.build())
    assert len(found["pages"]) == odd.pages
    assert [field["name"] for field in found["fields"]] == list(odd.fields)


@pytest.mark.parametrize("name", list(CORPUS))
def test_each_odd_pdf_is_filled_with_its_text_and_every_value(name):
    odd, data = CORPUS[name], CORPUS[name].build()
    areas = [
        {**area, "attachment_uuid": "document"}
        for field in forms.inspect_pdf(data)["fields"]
        for area in field["areas"][:1]
    ]
    fields = [{"uuid": str(index), "type": "text", "areas": [area]} for index, area in enumerate(areas)]
    result = fill.fill_pdf(data, "document", fields, {str(index): f"Value {index}" for index in range(len(areas))}, {})
    text = text_of(result)
    assert len(pypdf.PdfReader(io.BytesIO(result)).pages) == odd.pages
    assert all(f"Value {index}" in text for index in range(len(areas)))
    assert all(shown in text for shown in odd.text)


def test_the_second_revision_of_an_updated_file_is_the_one_read():
    text = text_of(flattened(odd_pdfs.incremental_update()))
    assert "Revision two" in text and "Revision one" not in text


def test_rotated_pages_measure_as_displayed_even_when_the_turn_is_inherited():
    assert forms.inspect_pdf(odd_pdfs.rotated_pages())["pages"] == [
        {"width": 792, "height": 612},
        {"width": 612, "height": 792},
        {"width": 792, "height": 612},
    ]


def test_inherited_boxes_and_resources_survive_filling():
    data = odd_pdfs.inherited_attributes()
    assert forms.inspect_pdf(data)["pages"] == [{"width": 300, "height": 400}] * 2
    field = {
        "uuid": "1",
        "type": "text",
        "areas": [{"x": 0.1, "y": 0.1, "w": 0.5, "h": 0.1, "page": 1, "attachment_uuid": "document"}],
    }
    text = text_of(fill.fill_pdf(data, "document", [field], {"1": "Drawn"}, {}))
    assert "Inherited page 2" in text and "Drawn" in text
