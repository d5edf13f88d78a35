"""Values drawn into documents and their own forms flattened."""

import io
import itertools
import struct
import time
import zlib
from pathlib import Path

import pypdf
import pypdfium2 as pdfium
import pytest
from PIL import Image, ImageChops, ImageDraw, ImageOps

from signsvc.infra import pdf_calls
from signsvc.pdf import caption_layout, font_files, fonts, value_text
from signsvc.pdf.errors import PdfError
from signsvc.pdf.fill import fill_pdf
from tests.support.pdf_text import page_texts
from tests.support.samples import RawPdf, form_pdf, jpeg_with_orientation, pages_pdf, refs, text_pdf
from tests.support.system import CJK_FONT

DOC = "document-1"
SCALE = 1.5
SLACK = 2  # pixels of anti-aliasing allowed around an area
_numbers = itertools.count()
PAGES = {
    "upright": "/MediaBox [0 0 595 842]",
    "turned 90": "/MediaBox [0 0 612 792] /Rotate 90",
    "turned 270": "/MediaBox [0 0 612 792] /Rotate 270",
    "upside down": "/MediaBox [0 0 400 600] /Rotate 180",
    "cropped": "/MediaBox [0 0 595 842] /CropBox [50 100 545 741]",
    "cropped and turned": "/MediaBox [0 0 600 800] /CropBox [100 100 400 700] /Rotate 90",
}


def sample_pdf(content: bytes = b"0.8 g 60 120 200 300 re f 0 0 1 rg 300 400 50 50 re f") -> bytes:
    """The pages of PAGES, each with some drawing of its own."""
    raw = RawPdf()
    entries = [f"{spec} /Contents {raw.stream(content)} 0 R" for spec in PAGES.values()]
    return pages_pdf(*entries, pdf=raw)


def field(kind, *areas, **extra):
    """A stored field (template_fields' shape) with areas given as (page, x, y, w, h[, extra area keys])."""
    return {
        "uuid": f"{kind}-{next(_numbers)}",
        "submitter_uuid": "role-1",
        "name": kind,
        "type": kind,
        "required": True,
        "readonly": False,
        "preferences": extra.pop("preferences", {}),
        "areas": [
            {"x": x, "y": y, "w": w, "h": h, "attachment_uuid": DOC, "page": page, **dict(*more)}
            for page, x, y, w, h, *more in areas
        ],
        **extra,
    }


def filled(pdf, *pairs, files=None, **options):
    """`pdf` with each (field, value) of `pairs` filled."""
    fields = [each for each, _ in pairs]
    return fill_pdf(pdf, DOC, fields, {each["uuid"]: value for each, value in pairs}, files or {}, **options)


def render(pdf: bytes, page: int = 0, forms: bool = False) -> Image.Image:
    """The page as displayed; with `forms`, its form fields drawn too, as a viewer shows them."""
    document = pdfium.PdfDocument(pdf)
    if forms:
        document.init_forms()
    try:
        return document[page].render(scale=SCALE).to_pil().convert("RGB")
    finally:
        document.close()


def pixels(image: Image.Image, area: tuple, slack: int = 0) -> tuple[int, int, int, int]:
    """The pixel box of a relative (x, y, w, h) area on a rendered page, widened by `slack`."""
    x, y, w, h = area
    width, height = image.size
    return (
        max(0, int(x * width) - slack),
        max(0, int(y * height) - slack),
        min(width, int((x + w) * width) + 1 + slack),
        min(height, int((y + h) * height) + 1 + slack),
    )


def changes(before: Image.Image, after: Image.Image) -> Image.Image:
    """A mask of the pixels that differ."""
    return ImageChops.difference(before, after).convert("L").point(lambda level: 255 if level else 0)


def changed_only_inside(before, after, areas) -> bool:
    """Some pixels changed inside each area, and none anywhere else."""
    mask = changes(before, after)
    outside = mask.copy()
    draw = ImageDraw.Draw(outside)
    for area in areas:
        draw.rectangle(pixels(mask, area, SLACK), fill=0)
    return outside.getbbox() is None and all(mask.crop(pixels(mask, area)).getbbox() for area in areas)


def text_of(pdf: bytes, page: int = 0) -> str:
    return page_texts(pdf)[page]


def png(size=(300, 100), bar=True) -> bytes:
    """A transparent PNG with an opaque black bar across its middle, like a drawn signature."""
    image = Image.new("RGBA", size, (0, 0, 0, 0))
    if bar:
        ImageDraw.Draw(image).rectangle((0, size[1] * 2 // 5, size[0], size[1] * 3 // 5), fill=(0, 0, 0, 255))
    output = io.BytesIO()
    image.save(output, "PNG")
    return output.getvalue()


@pytest.mark.parametrize("page", range(len(PAGES)), ids=list(PAGES))
def test_values_land_inside_their_areas_on_upright_rotated_and_cropped_pages(page):
    pdf = sample_pdf()
    text, check, picture = (0.1, 0.1, 0.5, 0.06), (0.7, 0.1, 0.08, 0.06), (0.2, 0.6, 0.6, 0.2)
    result = filled(
        pdf,
        (field("text", (page, *text)), "Zoë Łukasz"),
        (field("checkbox", (page, *check)), True),
        (field("signature", (page, *picture)), "sig"),
        files={"sig": png()},
    )
    assert changed_only_inside(render(pdf, page), render(result, page), [text, check, picture])
    others = [index for index in range(len(PAGES)) if index != page]
    assert all(render(pdf, index) == render(result, index) for index in others[:2])


def test_values_land_inside_their_area_on_a_page_that_inherits_its_box_and_rotation():
    pdf, area = form_pdf(), (0.1, 0.1, 0.5, 0.06)  # page 5 takes /MediaBox and /Rotate 180 from its /Pages node
    result = filled(pdf, (field("text", (4, *area)), "Zoë Łukasz"))
    assert changed_only_inside(render(pdf, 4), render(result, 4), [area])


def test_one_signature_in_areas_on_several_pages():
    pdf, area = sample_pdf(), (0.1, 0.1, 0.3, 0.1)
    result = filled(pdf, (field("signature", *[(page, *area) for page in range(3)]), "sig"), files={"sig": png()})
    assert all(changed_only_inside(render(pdf, page), render(result, page), [area]) for page in range(3))


def test_original_content_streams_stay_byte_for_byte():
    for pdf in (sample_pdf(), text_pdf("compressed by fpdf2", "second page")):
        result = filled(pdf, (field("text", (0, 0.1, 0.1, 0.5, 0.05), (1, 0.1, 0.1, 0.5, 0.05)), "Иван"))
        before, after = pypdf.PdfReader(io.BytesIO(pdf)), pypdf.PdfReader(io.BytesIO(result))
        for old, new in zip(before.pages, after.pages, strict=True):
            # The bytes as stored in the file, encoded as they are, with the same filter.
            stored = [(stream.get("/Filter"), stream._data) for stream in contents(old)]
            assert stored[0] in [(stream.get("/Filter"), stream._data) for stream in contents(new)]
            assert stored[0][1] in result


def contents(page):
    streams = page["/Contents"]
    return [each.get_object() for each in streams] if isinstance(streams, pypdf.generic.ArrayObject) else [streams]


def test_the_pdfs_own_form_fields_are_flattened():
    result = filled(form_pdf(), (field("text", (0, 0.1, 0.1, 0.3, 0.03)), "Bob"))
    reader = pypdf.PdfReader(io.BytesIO(result))
    assert "/AcroForm" not in reader.trailer["/Root"]
    subtypes = [annot.get_object()["/Subtype"] for page in reader.pages for annot in page.get("/Annots") or []]
    assert "/Widget" not in subtypes


def form_with_filled_fields() -> bytes:
    """One page whose fields were filled before upload, each appearance a black box filling its /Rect: a text
    field at [100 700 300 740], a checked box (its "Yes" state) at [100 600 120 620], and a hidden field."""
    raw = RawPdf()
    black = raw.stream(b"0 g 0 0 100 20 re f", "/Type /XObject /Subtype /Form /BBox [0 0 100 20]")
    blank = raw.stream(b"", "/Type /XObject /Subtype /Form /BBox [0 0 100 20]")
    widgets = [
        raw.add(
            f"<< /Type /Annot /Subtype /Widget /FT /Tx /T (company) /V (ACME) /Rect [100 700 300 740] "
            f"/AP << /N {black} 0 R >> >>"
        ),
        raw.add(
            f"<< /Type /Annot /Subtype /Widget /FT /Btn /T (agree) /V /Yes /AS /Yes /Rect [100 600 120 620] "
            f"/AP << /N << /Yes {black} 0 R /Off {blank} 0 R >> >> >>"
        ),
        raw.add(
            f"<< /Type /Annot /Subtype /Widget /FT /Tx /T (secret) /V (x) /F 2 /Rect [300 300 400 320] "
            f"/AP << /N {black} 0 R >> >>"
        ),
    ]
    catalog, root = raw.reserve(), raw.reserve()
    page = raw.add(f"<< /Type /Page /Parent {root} 0 R /MediaBox [0 0 595 842] /Annots [{refs(widgets)}] >>")
    raw.put(root, f"<< /Type /Pages /Kids [{refs([page])}] /Count 1 >>")
    raw.put(catalog, f"<< /Type /Catalog /Pages {root} 0 R /AcroForm << /Fields [{refs(widgets)}] >> >>")
    return raw.output(catalog)


def test_values_filled_before_upload_stay_visible_after_flattening():
    pdf = form_with_filled_fields()
    result = filled(pdf, (field("text", (0, 0.1, 0.5, 0.3, 0.03)), "Bob"))
    assert pypdf.PdfReader(io.BytesIO(result)).pages[0].get("/Annots") in (None, [])
    after = render(result)
    for x, y in [(200, 720), (110, 610)]:  # inside the text field's and the checked box's /Rect
        assert after.getpixel((int(x * SCALE), int((842 - y) * SCALE))) == (0, 0, 0)
    assert after.getpixel((int(350 * SCALE), int((842 - 310) * SCALE))) == (255, 255, 255)  # hidden: not shown
    assert changed_only_inside(render(pdf, forms=True), after, [(0.1, 0.5, 0.3, 0.03)])


@pytest.mark.parametrize("name", ["Zoë Łukasz", "Иван", pytest.param("山田 太郎", marks=CJK_FONT)])
def test_unicode_names_are_extractable_text(name):
    result = filled(sample_pdf(), (field("text", (0, 0.1, 0.1, 0.5, 0.05)), name))
    assert name in text_of(result)


def test_cjk_text_without_a_fallback_font_is_drawn_as_substitutes(monkeypatch):
    monkeypatch.setattr(fonts, "fallback_fonts", lambda font_dir=None: ())
    assert "Zoë ??" in text_of(filled(sample_pdf(), (field("text", (0, 0.1, 0.1, 0.5, 0.05)), "Zoë 山田")))


def test_characters_no_font_has_are_shown_as_a_visible_substitute():
    result = filled(sample_pdf(), (field("text", (0, 0.1, 0.1, 0.5, 0.05)), "Bob \U00013000"))  # an Egyptian hieroglyph
    assert "Bob \u25a1" in text_of(result)


def test_long_text_shrinks_to_fit_its_area():
    pdf, area = sample_pdf(), (0.1, 0.1, 0.2, 0.02)
    result = filled(pdf, (field("text", (0, *area)), "A rather long company name, Limited " * 3))
    assert changed_only_inside(render(pdf), render(result), [area])


def test_a_checkbox_shows_a_mark_when_true_and_nothing_when_false():
    pdf = sample_pdf()
    on, off = field("checkbox", (0, 0.1, 0.1, 0.05, 0.04)), field("checkbox", (0, 0.3, 0.1, 0.05, 0.04))
    assert changed_only_inside(render(pdf), render(filled(pdf, (on, True), (off, False))), [(0.1, 0.1, 0.05, 0.04)])


def option_field(kind, count=3, *, placed=True):
    options = [{"uuid": f"option-{index}", "value": f"Choice {index}"} for index in range(count)]
    areas = [(0, 0.1 + 0.1 * index, 0.3, 0.05, 0.04, {"option_uuid": f"option-{index}"}) for index in range(count)]
    return field(kind, *(areas if placed else [(0, 0.1, 0.3, 0.6, 0.04)]), options=options)


def option_area(index):
    return 0.1 + 0.1 * index, 0.3, 0.05, 0.04


def test_a_radio_mark_lands_in_the_chosen_options_area():
    pdf = sample_pdf()
    assert changed_only_inside(render(pdf), render(filled(pdf, (option_field("radio"), "Choice 1"))), [option_area(1)])


def test_multiple_marks_land_in_each_chosen_options_area():
    pdf = sample_pdf()
    result = filled(pdf, (option_field("multiple"), ["Choice 0", "Choice 2"]))
    assert changed_only_inside(render(pdf), render(result), [option_area(0), option_area(2)])


def test_multiple_without_option_areas_is_comma_joined_text():
    result = filled(sample_pdf(), (option_field("multiple", placed=False), ["Choice 0", "Choice 2"]))
    assert "Choice 0, Choice 2" in text_of(result)


def test_cells_hold_one_character_each():
    pdf, cell = sample_pdf(), 0.05
    cells = field("cells", (0, 0.1, 0.2, 0.25, 0.04, {"cell_w": cell}))
    before, after = render(pdf), render(filled(pdf, (cells, "12345")))
    areas = [(0.1 + index * cell, 0.2, cell, 0.04) for index in range(5)]
    assert changed_only_inside(before, after, areas)


def test_cells_without_a_cell_width_share_the_area():
    pdf = sample_pdf()
    result = filled(pdf, (field("cells", (0, 0.1, 0.2, 0.3, 0.04)), "ABC"))
    assert changed_only_inside(render(pdf), render(result), [(0.1 + index * 0.1, 0.2, 0.1, 0.04) for index in range(3)])
    assert [char for char in text_of(result) if char.isupper()] == ["A", "B", "C"]


def test_a_signature_png_keeps_its_transparency():
    pdf = pages_pdf("/MediaBox [0 0 600 800] /Contents 1 0 R", pdf=red_page())
    area = (0.25, 0.25, 0.5, 0.5 * 600 / 3 / 800)  # the PNG's 3:1 shape, so it fills the area
    after = render(filled(pdf, (field("signature", (0, *area)), "sig"), files={"sig": png()}))
    left, top, right, bottom = pixels(after, area)
    assert after.getpixel((left + 10, top + 5)) == (255, 0, 0)  # transparent: the page shows through
    assert after.getpixel(((left + right) // 2, (top + bottom) // 2)) == (0, 0, 0)


def red_page() -> RawPdf:
    raw = RawPdf()
    raw.stream(b"1 0 0 rg 0 0 600 800 re f")
    return raw


@pytest.mark.parametrize("orientation", [1, 3, 5, 6, 8])
def test_a_jpeg_is_drawn_as_its_exif_orientation_shows_it(orientation):
    jpeg = jpeg_with_orientation(orientation)
    expected = ImageOps.exif_transpose(Image.open(io.BytesIO(jpeg)))
    width = 0.2
    area = (0.3, 0.3, width, width * 600 / 800 * expected.height / expected.width)
    after = render(
        filled(pages_pdf("/MediaBox [0 0 600 800]"), (field("image", (0, *area)), "photo"), files={"photo": jpeg})
    )
    left, top, right, bottom = pixels(after, area)
    for x, y in [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)]:
        shown = after.getpixel((int(left + x * (right - left)), int(top + y * (bottom - top))))
        wanted = expected.getpixel((int(x * expected.width), int(y * expected.height)))
        assert sum(abs(a - b) for a, b in zip(shown, wanted, strict=True)) < 60


def test_a_phones_multi_picture_jpeg_is_embedded_as_jpeg():
    output, photo = io.BytesIO(), Image.effect_noise((1200, 800), 40).convert("RGB")
    photo.save(output, "MPO", save_all=True, append_images=[photo], quality=90)
    pdf = sample_pdf()
    result = filled(pdf, (field("image", (0, 0.1, 0.1, 0.6, 0.3)), "photo"), files={"photo": output.getvalue()})
    assert len(result) - len(pdf) < len(output.getvalue())


def huge_png() -> bytes:
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 30_000, 30_000, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(b""))
        + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize(
    "data, message",
    [
        (b"\x89PNG\r\n\x1a\nnot really", "The image can't be read"),
        (png()[:120], "The image can't be read"),
        (huge_png(), r"The image is 30000x30000 pixels \(900.0 megapixels\); at most 50 megapixels are allowed"),
    ],
)
def test_a_broken_or_enormous_image_is_refused_with_pdf_error(data, message):
    with pytest.raises(PdfError, match=message):
        filled(sample_pdf(), (field("signature", (0, 0.1, 0.1, 0.3, 0.1)), "sig"), files={"sig": data})


def test_an_image_value_without_its_file_is_refused():
    with pytest.raises(PdfError, match="missing"):
        filled(sample_pdf(), (field("image", (0, 0.1, 0.1, 0.3, 0.1)), "gone"))


@pytest.mark.parametrize(
    "format, text",
    [
        (None, "05/03/2026"),
        ("DD/MM/YYYY", "05/03/2026"),
        ("MM/DD/YYYY", "03/05/2026"),
        ("YYYY-MM-DD", "2026-03-05"),
        ("DD.MM.YYYY", "05.03.2026"),
        ("MMMM D, YYYY", "March 5, 2026"),
        ("D MMM YYYY", "5 Mar 2026"),
    ],
)
def test_a_date_is_written_in_the_fields_format(format, text):
    date = field("date", (0, 0.1, 0.1, 0.5, 0.05), preferences={"format": format} if format else {})
    assert text in text_of(filled(sample_pdf(), (date, "2026-03-05")))


@pytest.mark.parametrize(
    "format, value, text",
    [
        (None, 1000.5, "1000.5"),
        ("usd", 1000, "$1,000.00"),
        ("eur", 1234.5, "€1,234.50"),
        ("gbp", -2, "-£2.00"),
        ("comma", 1000.5, "1,000.5"),
        ("dot", 1000.5, "1.000,5"),
        ("space", 1000.5, "1 000,5"),
        ("percent", 50, "50%"),
        ("percent_space", 12.5, "12.5 %"),
    ],
)
def test_a_number_is_written_in_the_fields_format(format, value, text):
    assert value_text.format_number(value, format) == text


def test_a_number_field_shows_its_formatted_value():
    number = field("number", (0, 0.1, 0.1, 0.5, 0.05), preferences={"format": "usd"})
    assert "$1,000.00" in text_of(filled(sample_pdf(), (number, 1000)))


def test_a_stamp_without_a_value_shows_the_submitter_name_role_and_time():
    stamp = field("stamp", (0, 0.1, 0.1, 0.4, 0.1))
    result = fill_pdf(
        sample_pdf(),
        DOC,
        [stamp],
        {},
        {},
        stamp={"name": "Zoë Łukasz", "role": "Buyer", "time": "2026-03-05 10:00 UTC"},
    )
    assert "Zoë Łukasz" in text_of(result) and "Buyer 2026-03-05 10:00 UTC" in text_of(result)


def test_a_stamp_per_role_is_written_in_that_roles_stamp_fields():
    stamp = field("stamp", (0, 0.1, 0.1, 0.4, 0.1))
    result = fill_pdf(sample_pdf(), DOC, [stamp], {}, {}, stamp={"role-1": {"name": "Иван", "role": "Seller"}})
    assert "Иван" in text_of(result)


def test_a_file_field_shows_its_filenames():
    files = field("file", (0, 0.1, 0.1, 0.5, 0.05))
    result = filled(sample_pdf(), (files, ["f1", "f2"]), filenames={"f1": "contract.docx", "f2": "id.png"})
    assert "contract.docx, id.png" in text_of(result)


SIGNATURE_ID = "ID: 0123456789abcdef0123456789abcdef"
SAVED_AT = "2026-01-01 10:00 UTC"


def caption_rows(reason: str) -> list[tuple[str, float]]:
    """The rows of a signature's caption as a reader finds them: (text, font size in points)."""
    signature = field("signature", (0, 0.1, 0.1, 0.3, 0.08))  # the caption below: room for two rows of reason
    caption = {signature["uuid"]: [SIGNATURE_ID, f"Reason: {reason}", SAVED_AT]}
    result = filled(pages_pdf("/MediaBox [0 0 612 792]"), (signature, "sig"), files={"sig": png()}, captions=caption)
    found: list[tuple[str, float]] = []

    def read(text, cm, tm, font, size):  # cm and tm are unscaled here: the overlay's page is upright
        if text.strip():
            found.append((text.strip(), size))

    pypdf.PdfReader(io.BytesIO(result)).pages[0].extract_text(visitor_text=read)
    return found


def test_a_long_reason_is_wrapped_and_cut_in_the_caption_and_leaves_the_other_lines_their_size():
    short = dict(caption_rows("Approved"))
    rows = caption_rows(("On behalf of the board of directors " * 6)[:192])  # "Reason: " and this: 200
    sized = dict(rows)
    assert sized[SIGNATURE_ID] == sized[SAVED_AT] == short[SIGNATURE_ID] == short[SAVED_AT]
    assert sized[SIGNATURE_ID] > caption_layout.READABLE
    reason_rows = [(text, size) for text, size in rows if text not in (SIGNATURE_ID, SAVED_AT)]
    assert len(reason_rows) > 1 and reason_rows[0][0].startswith("Reason: On behalf of the board")
    assert all(size >= caption_layout.READABLE for _, size in reason_rows)
    assert reason_rows[-1][0].endswith("...")  # more than the box holds at the readable size


def test_a_caption_line_too_long_for_one_row_wraps_at_the_largest_size_its_room_holds():
    def measure(text: str) -> float:
        return 0.5 * len(text)

    rows = caption_layout.rows(["ID: 1", "word " * 12 + "a" * 30, "at noon"], 100, 60, measure, leading=1.25)
    first, *wrapped, last = rows
    assert (first.text, last.text) == ("ID: 1", "at noon")
    assert first.size == last.size == 60 * 0.65 / 3  # the height's share: both fit their width at it
    assert "".join(row.text for row in wrapped).replace(" ", "") == "word" * 12 + "a" * 30
    assert all(row.text == row.text.strip() for row in wrapped)  # broken between words, and inside a long one
    assert len({row.size for row in wrapped}) == 1 and caption_layout.READABLE < wrapped[0].size < first.size
    assert sum(row.size * 1.25 for row in rows) <= 60
    assert all(measure(row.text) * row.size <= 100 for row in rows)


FOOTER = "Test document, not legally binding"
FOOTER_PAGES = [PAGES["upright"], PAGES["turned 90"], PAGES["cropped"]]


def footer_sample() -> bytes:
    """An upright, a turned (/Rotate 90) and a cropped page, each with some drawing of its own."""
    raw, content = RawPdf(), b"0.8 g 60 120 200 300 re f 0 0 1 rg 300 400 50 50 re f"
    return pages_pdf(*[f"{spec} /Contents {raw.stream(content)} 0 R" for spec in FOOTER_PAGES], pdf=raw)


def footer_strip(image: Image.Image) -> tuple[float, float, float, float]:
    """The relative area the footer may use: the bottom 24 points of the displayed page, across it."""
    strip = 24 * SCALE / image.height
    return 0.0, 1 - strip, 1.0, strip


def footer_pixels(before: Image.Image, after: Image.Image) -> tuple[int, int, int, int]:
    """The pixel box, on the page, of what changed in the footer's strip."""
    left, top, right, bottom = pixels(after, footer_strip(after))
    x0, y0, x1, y1 = changes(before, after).crop((left, top, right, bottom)).getbbox()
    return left + x0, top + y0, left + x1, top + y1


def test_a_footer_is_written_small_in_red_and_centred_at_the_bottom_of_every_page():
    pdf, area = footer_sample(), (0.1, 0.1, 0.5, 0.06)
    result = filled(pdf, (field("text", (0, *area)), "Zoë"), footer=FOOTER)
    for page in range(len(FOOTER_PAGES)):
        assert FOOTER in " ".join(text_of(result, page).split())
        before, after = render(pdf, page), render(result, page)
        assert changed_only_inside(before, after, [footer_strip(after)] + ([area] if page == 0 else []))
        left, top, right, bottom = footer_pixels(before, after)
        assert abs((left + right) / 2 - after.width / 2) < 3 and after.height - bottom < 12 * SCALE
        assert 5 * SCALE < bottom - top < 10 * SCALE  # an 8 pt line
        darkest = min((after.getpixel((x, y)) for x in range(left, right) for y in range(top, bottom)), key=sum)
        assert darkest[0] > 150 and darkest[1] < 100 and darkest[2] < 100


def test_a_footer_leaves_the_original_content_streams_byte_for_byte():
    pdf = footer_sample()
    result = fill_pdf(pdf, DOC, [], {}, {}, footer=FOOTER)
    before, after = pypdf.PdfReader(io.BytesIO(pdf)), pypdf.PdfReader(io.BytesIO(result))
    for old, new in zip(before.pages, after.pages, strict=True):
        assert contents(old)[0]._data in [stream._data for stream in contents(new)]


def test_without_a_footer_no_footer_text_is_written():
    pdf = footer_sample()
    result = filled(pdf, (field("text", (0, 0.1, 0.1, 0.5, 0.06)), "Zoë"))
    assert all(FOOTER not in text_of(result, page) for page in range(len(FOOTER_PAGES)))
    assert all(render(result, page) == render(pdf, page) for page in (1, 2))


def test_areas_on_other_documents_are_left_out():
    pdf, text = sample_pdf(), field("text", (0, 0.1, 0.1, 0.5, 0.05))
    text["areas"][0]["attachment_uuid"] = "another-document"
    assert render(filled(pdf, (text, "Bob"))) == render(pdf)


def test_an_area_on_a_page_the_document_lacks_is_refused():
    with pytest.raises(PdfError, match="page 9"):
        filled(sample_pdf(), (field("text", (8, 0.1, 0.1, 0.5, 0.05)), "Bob"))


def test_a_hundred_page_document_fills_a_value_on_every_page(capsys):
    pdf = text_pdf(*[f"Page {number}" for number in range(1, 101)])
    fields = [field("text", (page, 0.1, 0.5, 0.5, 0.04)) for page in range(100)]
    start = time.perf_counter()
    result = fill_pdf(pdf, DOC, fields, {each["uuid"]: "Zoë Łukasz" for each in fields}, {})
    with capsys.disabled():
        print(f"\n100 pages filled in {time.perf_counter() - start:.2f} s")
    reader = pypdf.PdfReader(io.BytesIO(result))
    assert len(reader.pages) == 100 and "Zoë Łukasz" in reader.pages[99].extract_text()


def test_a_file_that_is_not_a_pdf_is_refused():
    with pytest.raises(PdfError, match="not a PDF"):
        fill_pdf(b"hello", DOC, [], {}, {})


def test_the_pool_call_answers_the_pdf_and_its_hash_and_engine_errors():
    filled = pdf_calls.fill_pdf(sample_pdf(), DOC, [], {}, {})
    result, sha256 = filled.data, filled.sha256
    assert result.startswith(b"%PDF") and len(sha256) == 64
    image = field("image", (0, 0.1, 0.1, 0.3, 0.1))
    with pytest.raises(pdf_calls.EngineError, match="missing"):
        pdf_calls.fill_pdf(sample_pdf(), DOC, [image], {image["uuid"]: "gone"}, {})


def test_fonts_are_looked_for_in_the_font_directory_first(tmp_path):
    (tmp_path / "nested").mkdir()
    (tmp_path / "nested" / "DejaVuSans.ttf").write_bytes(Path(fonts.check()).read_bytes())
    assert fonts.locate(fonts.TEXT, str(tmp_path)) == str(tmp_path / "nested" / "DejaVuSans.ttf")
    assert fonts.locate(fonts.TEXT, str(tmp_path / "missing")) is None
    assert fonts.check(str(tmp_path / "missing")) == font_files.packaged(*font_files.PACKAGED_TEXT)


def test_the_start_check_fails_clearly_without_a_text_font(monkeypatch, tmp_path):
    monkeypatch.setattr(font_files, "PACKAGED_TEXT", ("fontpkg_not_installed", "None.ttf"))
    with pytest.raises(fonts.MissingFont, match=r"DejaVuSans\.ttf.*pip install fontpkg-noto-sans"):
        fonts.check(str(tmp_path))


def test_the_start_check_refuses_a_file_that_is_not_a_font(tmp_path):
    (tmp_path / "DejaVuSans.ttf").write_bytes(b"not a font")
    with pytest.raises(fonts.MissingFont, match="can't be read"):
        fonts.check(str(tmp_path))
