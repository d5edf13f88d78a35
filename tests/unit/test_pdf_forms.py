"""Reading a PDF's pages and form fields for template creation."""

import io
import time

import pytest
from PIL import Image, ImageStat

from signsvc.pdf import forms, previews
from signsvc.pdf.errors import PdfError
from tests.support.samples import A4, LETTER, RawPdf, form_pdf, pages_pdf

W, H = A4


def area(page, x, y, w, h, **extra):
    return {"page": page, "x": x, "y": y, "w": w, "h": h, **extra}


def on_a4(x0, y0, x1, y1, **extra):
    """An area of page 0 (A4, upright) from its rect in PDF points."""
    return area(0, x0 / W, (H - y1) / H, (x1 - x0) / W, (y1 - y0) / H, **extra)


def field(name, type, *areas, required=False, **extra):
    return {"name": name, "type": type, "required": required, **extra, "areas": list(areas)}


EXPECTED = [
    field("full_name", "text", on_a4(72, 720, 300, 744), required=True),
    field("zip", "cells", on_a4(72, 680, 172, 700, cell_w=100 / W / 5), cell_count=5),
    field("birth_date", "date", on_a4(320, 720, 450, 744), preferences={"format": "MM/DD/YYYY"}),
    field("start_date", "date", on_a4(320, 760, 450, 784), preferences={"format": "DD.MM.YYYY"}),
    field("agree", "checkbox", on_a4(72, 640, 86, 654)),
    field(
        "color",
        "radio",
        *[on_a4(72 + 28 * i, 600, 86 + 28 * i, 614, option=color) for i, color in enumerate(["red", "green", "blue"])],
        options=["red", "green", "blue"],
    ),
    field(
        "gender",
        "radio",
        on_a4(200, 600, 214, 614, option="Female"),
        on_a4(228, 600, 242, 614, option="Male"),
        options=["Female", "Male"],
    ),
    field(
        "plan",
        "radio",
        on_a4(72, 570, 86, 584, option="basic"),
        on_a4(100, 570, 114, 584, option="pro"),
        options=["basic", "pro"],
    ),
    field("country", "select", on_a4(320, 680, 450, 700), options=["Germany", "France", "Spain"]),
    field("toppings", "multiple", on_a4(320, 560, 450, 620), options=["Cheese", "Ham", "Olives"]),
    field("size", "select", on_a4(460, 560, 540, 620), options=["S", "M", "L"]),
    field("city", "text", on_a4(460, 680, 540, 700)),
    field("signature", "signature", on_a4(72, 100, 272, 160)),
    field("Buyer Initials", "initials", on_a4(300, 100, 360, 140)),
    field("", "text", on_a4(460, 730, 540, 750)),
    field("party.name", "text", on_a4(72, 500, 300, 520)),
    # Page 1 turns 90° clockwise: user space x runs down the displayed page, y runs right.
    field("reference", "text", on_a4(460, 780, 560, 800), area(1, 500 / 792, 300 / 612, 20 / 792, 100 / 612)),
    field("turned_right", "text", area(1, 200 / 792, 100 / 612, 30 / 792, 200 / 612)),
    # Page 2 has /Rotate -90, that is 270: x runs up the displayed page, y runs left.
    field("turned_left", "text", area(2, 562 / 792, 312 / 612, 30 / 792, 200 / 612)),
    # Page 3 shows only its CropBox [50 100 545 741].
    field("cropped", "text", area(3, 50 / 495, 100 / 641, 200 / 495, 41 / 641)),
    field("clipped", "text", area(3, 0, 0, 50 / 495, 41 / 641)),
    # Page 4 inherits /Rotate 180 and /MediaBox [0 0 400 600] from its /Pages node.
    field("upside_down", "text", area(4, 250 / 400, 500 / 600, 100 / 400, 50 / 600)),
]


def rounded(value):
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, dict):
        return {key: rounded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [rounded(item) for item in value]
    return value


def test_pages_are_measured_as_displayed():
    assert forms.inspect_pdf(form_pdf())["pages"] == [
        {"width": W, "height": H},
        {"width": LETTER[1], "height": LETTER[0]},
        {"width": LETTER[1], "height": LETTER[0]},
        {"width": 495, "height": 641},
        {"width": 400, "height": 600},
    ]


def test_every_fillable_widget_becomes_a_field_with_relative_areas():
    assert rounded(forms.inspect_pdf(form_pdf())["fields"]) == rounded(EXPECTED)


@pytest.mark.parametrize("name", ["reset", "hidden_note", "company", "subscribed", "total", "old_signature", "outside"])
def test_widgets_no_submitter_fills_are_left_out(name):
    """Push buttons, hidden widgets, filled or read-only fields, signed signatures, widgets off the page."""
    assert name not in [field["name"] for field in forms.inspect_pdf(form_pdf())["fields"]]


def test_areas_sit_where_pdfium_draws_the_widgets():
    """Each widget rect is painted black on the sample pages: every area must frame a black box."""
    data = form_pdf()
    images = [Image.open(io.BytesIO(jpeg)).convert("L") for jpeg in previews.render_pages(data)]
    for field in forms.inspect_pdf(data)["fields"]:
        for place in field["areas"]:
            assert_boxed(images[place["page"]], place), field["name"]


def assert_boxed(image, place):
    width, height = image.size
    left, top = place["x"] * width, place["y"] * height
    right, bottom = left + place["w"] * width, top + place["h"] * height
    assert mean(image, left + 3, top + 3, right - 3, bottom - 3) < 40
    for box in [
        (left - 5, top, left - 2, bottom),
        (right + 2, top, right + 5, bottom),
        (left, top - 5, right, top - 2),
        (left, bottom + 2, right, bottom + 5),
    ]:
        if box[0] >= 0 and box[1] >= 0 and box[2] <= width and box[3] <= height:
            assert mean(image, *box) > 215


def mean(image, *box):
    return ImageStat.Stat(image.crop(tuple(round(edge) for edge in box))).mean[0]


def test_a_parent_loop_ends_the_name_walk():
    pdf = RawPdf()
    widget, parent = pdf.reserve(), pdf.reserve()
    pdf.put(widget, f"<< /Type /Annot /Subtype /Widget /Rect [10 10 110 30] /T (x) /Parent {parent} 0 R >>")
    pdf.put(parent, f"<< /FT /Tx /T (loop) /Parent {widget} 0 R >>")
    data = pages_pdf(f"/MediaBox [0 0 200 200] /Annots [{widget} 0 R]", pdf=pdf)
    assert [field["name"] for field in forms.inspect_pdf(data)["fields"]] == ["loop.x"]


def test_a_pdf_without_a_form_has_no_fields():
    result = forms.inspect_pdf(pages_pdf("/MediaBox [0 0 300 400]"))
    assert result == {"pages": [{"width": 300, "height": 400}], "fields": []}


def test_a_missing_or_broken_mediabox_falls_back_to_letter_like_viewers():
    result = forms.inspect_pdf(pages_pdf("", "/MediaBox [0 0 0 0] /Rotate 45"))
    assert result["pages"] == [{"width": 612, "height": 792}] * 2


def test_inspecting_ten_pages_is_quick():
    pages = [f"/MediaBox [0 0 595 842] /Rotate {90 * (i % 4)}" for i in range(10)]
    started = time.perf_counter()
    assert len(forms.inspect_pdf(pages_pdf(*pages))["pages"]) == 10
    assert time.perf_counter() - started < 1


def test_errors_are_pdf_errors():
    with pytest.raises(PdfError, match="not a PDF"):
        forms.inspect_pdf(b"plain text")
