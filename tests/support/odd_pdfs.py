"""Odd shapes of real-world PDFs, built byte by byte: the corpus the real-world tests upload.

Each builder answers one small PDF whose oddity its docstring names; `CORPUS` lists them with what a test
can check of each. Text is drawn in Helvetica, so that pypdf and pdftotext find it again.
"""

from __future__ import annotations

import io
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import pypdf

from tests.support.samples import RADIO, RawPdf, refs, written

HELVETICA = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
COMB, COMBO, MULTILINE = 1 << 24, 1 << 17, 1 << 12


def text_content(text: str, x: float = 20, y: float = 20, size: float = 12) -> bytes:
    return f"BT /F1 {size} Tf {x} {y} Td ({text}) Tj ET".encode("latin-1")


def one_page_form(
    widgets: list[str],
    *,
    raw: RawPdf | None = None,
    acroform: str = "",
    text: str = "Form",
    media_box: str = "[0 0 595 842]",
) -> bytes:
    """One page with `text` and a widget for each entry of `widgets` (a widget's own entries, which are also
    its field's), after `raw`'s objects."""
    raw = raw or RawPdf()
    catalog, root, font = raw.reserve(), raw.reserve(), raw.add(HELVETICA)
    widget_numbers = [raw.add(f"<< /Type /Annot /Subtype /Widget {entries} >>") for entries in widgets]
    content = raw.stream(text_content(text))
    page = raw.add(
        f"<< /Type /Page /Parent {root} 0 R /MediaBox {media_box} /Contents {content} 0 R "
        f"/Resources << /Font << /F1 {font} 0 R >> >> /Annots [{refs(widget_numbers)}] >>"
    )
    raw.put(root, f"<< /Type /Pages /Kids [{page} 0 R] /Count 1 >>")
    raw.put(
        catalog,
        f"<< /Type /Catalog /Pages {root} 0 R /AcroForm << /Fields [{refs(widget_numbers)}] "
        f"/DR << /Font << /Helv {font} 0 R >> >> /DA (/Helv 0 Tf 0 g) {acroform} >> >>",
    )
    return raw.output(catalog)


# The two classes of forms that failed: a radio option without a name, values without an appearance.


def radio_form(
    groups: dict[str, list[str]], entries: dict[str, str] | None = None, button_entries: str = "/AS /Off"
) -> bytes:
    """One page of radio groups: each name's buttons, in a row, have the given on-states (a small black square
    is the appearance of each); `entries` adds to a group's field dictionary, `button_entries` to every button."""
    raw, entries = RawPdf(), entries or {}
    blank = raw.stream(b"", "/Type /XObject /Subtype /Form /BBox [0 0 14 14]")
    dot = raw.stream(b"0 g 3 3 8 8 re f", "/Type /XObject /Subtype /Form /BBox [0 0 14 14]")
    fields, buttons = [], []
    for row, (name, states) in enumerate(groups.items()):
        parent = raw.reserve()
        kids = [
            raw.add(
                f"<< /Type /Annot /Subtype /Widget /Parent {parent} 0 R /Rect [{radio_rect(row, i)}] "
                f"{button_entries} /AP << /N << /{state} {dot} 0 R /Off {blank} 0 R >> >> >>"
            )
            for i, state in enumerate(states)
        ]
        raw.put(parent, f"<< /FT /Btn /Ff {RADIO} /T ({name}) {entries.get(name, '')} /Kids [{refs(kids)}] >>")
        fields.append(parent)
        buttons += kids
    catalog, root = raw.reserve(), raw.reserve()
    page = raw.add(f"<< /Type /Page /Parent {root} 0 R /MediaBox [0 0 595 842] /Annots [{refs(buttons)}] >>")
    raw.put(root, f"<< /Type /Pages /Kids [{page} 0 R] /Count 1 >>")
    raw.put(catalog, f"<< /Type /Catalog /Pages {root} 0 R /AcroForm << /Fields [{refs(fields)}] >> >>")
    return raw.output(catalog)


def radio_rect(row: int, button: int) -> str:
    """Where `radio_form` puts a button, in PDF points of its A4-sized page."""
    x, y = 72 + 40 * button, 700 - 50 * row
    return f"{x} {y} {x + 14} {y + 14}"


def radio_with_an_unnamed_option() -> bytes:
    """A radio group "payment" whose first button's on-state is the empty name `/` (the others' are /Card and
    /Cash), and a group "answer" whose buttons' states are indexes into an /Opt whose second entry is empty."""
    return radio_form({"payment": ["", "Card", "Cash"], "answer": ["0", "1"]}, {"answer": "/Opt [(Yes) ()]"})


PREFILLED = ["ACME Ltd", "Berlin", "Germany", "NEW-2", "First line", "Second line"]  # text values, as shown
STALE = "OLD-1"  # what the reference field's appearance still shows
AGREE_RECT = (72, 520, 86, 534)


def prefilled_without_appearances() -> bytes:
    """Values filled before upload as LibreOffice and Evince leave them, under /NeedAppearances true: "company"
    has no appearance, "city" an empty one, the combo box "country" (/V its export value "de") and the comb
    field "zip" and the two lines of "notes" none, "reference" one that still shows an older value, and the box
    "agree" is checked (/V /Yes) without an /AS to pick its "Yes" appearance. "full_name" is empty, for the
    signer."""
    raw = RawPdf()
    empty = raw.stream(b"/Tx BMC EMC", "/Type /XObject /Subtype /Form /BBox [0 0 200 20]")
    stale = raw.stream(
        b"/Tx BMC BT /Helv 12 Tf 2 5 Td (%s) Tj ET EMC" % STALE.encode(),
        "/Type /XObject /Subtype /Form /BBox [0 0 200 20] /Resources << /Font << /Helv << "
        "/Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >>",
    )
    check = raw.stream(b"0 g 2 2 10 10 re f", "/Type /XObject /Subtype /Form /BBox [0 0 14 14]")
    off = raw.stream(b"", "/Type /XObject /Subtype /Form /BBox [0 0 14 14]")
    return one_page_form(
        [
            "/FT /Tx /T (full_name) /Rect [72 760 272 780]",
            "/FT /Tx /T (company) /V (ACME Ltd) /Rect [72 720 272 740] /DA (/Helv 12 Tf 0 g)",
            f"/FT /Tx /T (city) /V (Berlin) /Rect [72 680 272 700] /AP << /N {empty} 0 R >>",
            f"/FT /Ch /Ff {COMBO} /T (country) /V (de) /Opt [[(de) (Germany)] [(fr) (France)]] /Rect [72 640 272 660]",
            f"/FT /Tx /T (reference) /V (NEW-2) /Rect [72 600 272 620] /AP << /N {stale} 0 R >>",
            f"/FT /Tx /T (zip) /Ff {COMB} /MaxLen 5 /V (10115) /Rect [72 560 172 580]",
            f"/FT /Tx /T (notes) /Ff {MULTILINE} /V (First line\\rSecond line) /Rect [300 600 500 700]",
            f"/FT /Btn /T (agree) /V /Yes /Rect [{' '.join(map(str, AGREE_RECT))}] "
            f"/AP << /N << /Yes {check} 0 R /Off {off} 0 R >> >>",
        ],
        raw=raw,
        acroform="/NeedAppearances true",
        text="Prefilled form",
    )


# Odd shapes of page trees and files.


def rotated_pages() -> bytes:
    """Three pages turned 90 and 180 degrees by their own /Rotate, and 270 by their parent /Pages node's,
    each with a text field."""
    raw = RawPdf()
    catalog, root, middle, font = raw.reserve(), raw.reserve(), raw.reserve(), raw.add(HELVETICA)
    pages, widgets = [], []
    for degrees, rotate, parent in [(90, "/Rotate 90", root), (180, "/Rotate 180", root), (270, "", middle)]:
        widgets.append(
            raw.add(f"<< /Type /Annot /Subtype /Widget /FT /Tx /T (turned_{degrees}) /Rect [100 500 300 530] >>")
        )
        content = raw.stream(text_content(f"Turned {degrees}", 100, 600))
        pages.append(
            raw.add(
                f"<< /Type /Page /Parent {parent} 0 R /MediaBox [0 0 612 792] {rotate} "
                f"/Contents {content} 0 R /Resources << /Font << /F1 {font} 0 R >> >> "
                f"/Annots [{widgets[-1]} 0 R] >>"
            )
        )
    raw.put(middle, f"<< /Type /Pages /Parent {root} 0 R /Kids [{pages[2]} 0 R] /Count 1 /Rotate 270 >>")
    raw.put(root, f"<< /Type /Pages /Kids [{pages[0]} 0 R {pages[1]} 0 R {middle} 0 R] /Count 3 >>")
    raw.put(catalog, f"<< /Type /Catalog /Pages {root} 0 R /AcroForm << /Fields [{refs(widgets)}] >> >>")
    return raw.output(catalog)


def tiny_page() -> bytes:
    """One page of 10 by 10 points, with a text field over most of it."""
    return one_page_form(["/FT /Tx /T (tiny) /Rect [1 1 9 9]"], text="", media_box="[0 0 10 10]")


def inherited_attributes() -> bytes:
    """Two pages that take their /MediaBox (300 by 400) and /Resources (the font their text uses) from their
    /Pages node, without a form."""
    raw = RawPdf()
    catalog, root, font = raw.reserve(), raw.reserve(), raw.add(HELVETICA)
    contents = [raw.stream(text_content(f"Inherited page {number}", 20, 300)) for number in (1, 2)]
    pages = [raw.add(f"<< /Type /Page /Parent {root} 0 R /Contents {content} 0 R >>") for content in contents]
    raw.put(
        root,
        f"<< /Type /Pages /Kids [{refs(pages)}] /Count 2 /MediaBox [0 0 300 400] "
        f"/Resources << /Font << /F1 {font} 0 R >> >> >>",
    )
    raw.put(catalog, f"<< /Type /Catalog /Pages {root} 0 R >>")
    return raw.output(catalog)


def broken_xref() -> bytes:
    """A one-field form whose xref table puts every object 7 bytes before where it starts (as files edited by
    hand or by a broken tool are): readers must find the objects themselves."""
    data = one_page_form(["/FT /Tx /T (name) /Rect [72 700 272 720]"], text="Broken xref")
    start = int(re.search(rb"startxref\n(\d+)", data).group(1))  # type: ignore[union-attr]
    table = re.sub(rb"(\d{10}) 00000 n", lambda m: b"%010d 00000 n" % (int(m.group(1)) - 7), data[start:])
    return data[:start] + table


def object_streams() -> bytes:
    """A one-field form written as PDF 1.5 compresses: every object but the content stream inside a compressed
    object stream, found through a cross-reference stream instead of a table."""
    raw = RawPdf()
    data = one_page_form(["/FT /Tx /T (name) /Rect [72 700 272 720]"], raw=raw, text="Object streams")
    root = int(re.search(rb"/Root (\d+) 0 R", data).group(1))  # type: ignore[union-attr]
    return _compressed(raw.bodies, root)


def _compressed(bodies: list[bytes], root: int) -> bytes:
    out, entries = bytearray(b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n"), [(0, 0, 65535)]
    inside = [number for number, body in enumerate(bodies, 1) if b"stream\n" not in body]
    packed = len(bodies) + 1  # the object stream's number; the xref stream's is the next
    for number, body in enumerate(bodies, 1):
        if number in inside:
            entries.append((2, packed, inside.index(number)))
        else:
            entries.append((1, len(out), 0))
            out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    header, objects = b"", b""
    for number in inside:
        header += b"%d %d " % (number, len(objects))
        objects += bodies[number - 1] + b"\n"
    entries.append((1, len(out), 0))
    stream = zlib.compress(header + objects)
    out += (
        b"%d 0 obj\n<< /Type /ObjStm /N %d /First %d /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream\n"
        b"endobj\n" % (packed, len(inside), len(header), len(stream), stream)
    )
    xref_at = len(out)
    entries.append((1, xref_at, 0))
    table = zlib.compress(
        b"".join(
            bytes([kind]) + first.to_bytes(4, "big") + second.to_bytes(2, "big") for kind, first, second in entries
        )
    )
    out += (
        b"%d 0 obj\n<< /Type /XRef /Size %d /W [1 4 2] /Root %d 0 R /Filter /FlateDecode /Length %d >>\n"
        b"stream\n%s\nendstream\nendobj\n" % (packed + 1, packed + 2, root, len(table), table)
    )
    out += b"startxref\n%d\n%%%%EOF\n" % xref_at
    return bytes(out)


def incremental_update() -> bytes:
    """A one-field form ("name", text "Revision one") with a second revision appended, as a viewer saves
    changes: the page now shows "Revision two" and also has a field "city"."""
    raw = RawPdf()
    data = one_page_form(["/FT /Tx /T (name) /Rect [72 700 272 720]"], raw=raw, text="Revision one")
    catalog, root, font, name, _, page = range(1, 7)
    previous = int(re.search(rb"startxref\n(\d+)", data).group(1))  # type: ignore[union-attr]
    revised = bytearray(data)
    city, content = len(raw.bodies) + 1, len(raw.bodies) + 2
    changed = {
        city: b"<< /Type /Annot /Subtype /Widget /FT /Tx /T (city) /Rect [72 650 272 670] >>",
        content: b"<< /Length %d >>\nstream\n%s\nendstream"
        % (len(text_content("Revision two")), text_content("Revision two")),
        page: b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] /Contents %d 0 R /Resources << /Font << /F1 "
        b"%d 0 R >> >> /Annots [%d 0 R %d 0 R] >>" % (root, content, font, name, city),
        catalog: b"<< /Type /Catalog /Pages %d 0 R /AcroForm << /Fields [%d 0 R %d 0 R] >> >>" % (root, name, city),
    }
    offsets = {}
    for number, body in sorted(changed.items()):
        offsets[number] = len(revised)
        revised += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref_at = len(revised)
    revised += b"xref\n"
    for number, offset in sorted(offsets.items()):
        revised += b"%d 1\n%010d 00000 n \n" % (number, offset)
    revised += b"trailer\n<< /Size %d /Root %d 0 R /Prev %d >>\nstartxref\n%d\n%%%%EOF\n" % (
        content + 1,
        catalog,
        previous,
        xref_at,
    )
    return bytes(revised)


def encrypted_with_an_empty_user_password() -> bytes:
    """A one-field form encrypted (RC4, 128 bits, as Acrobat long did) with an owner password only: any viewer
    opens it without asking."""
    writer = pypdf.PdfWriter(
        clone_from=io.BytesIO(one_page_form(["/FT /Tx /T (name) /Rect [72 700 272 720]"], text="Encrypted"))
    )
    writer.encrypt("", "owner", algorithm="RC4-128")
    return written(writer)


@dataclass(frozen=True)
class OddPdf:
    """A corpus entry: its pages, the fields its form gives a template, and the text its pages show."""

    build: Callable[[], bytes]
    pages: int
    fields: tuple[str, ...]
    text: tuple[str, ...] = ()


CORPUS = {
    "radio with an unnamed option": OddPdf(radio_with_an_unnamed_option, 1, ("payment", "answer")),
    "prefilled without appearances": OddPdf(
        prefilled_without_appearances, 1, ("full_name",), ("Prefilled form", *PREFILLED)
    ),
    "rotated pages": OddPdf(
        rotated_pages, 3, ("turned_90", "turned_180", "turned_270"), ("Turned 90", "Turned 180", "Turned 270")
    ),
    "tiny page": OddPdf(tiny_page, 1, ("tiny",)),
    "inherited attributes": OddPdf(inherited_attributes, 2, (), ("Inherited page 1", "Inherited page 2")),
    "broken xref": OddPdf(broken_xref, 1, ("name",), ("Broken xref",)),
    "object streams": OddPdf(object_streams, 1, ("name",), ("Object streams",)),
    "incremental update": OddPdf(incremental_update, 1, ("name", "city"), ("Revision two",)),
    "encrypted with an empty user password": OddPdf(
        encrypted_with_an_empty_user_password, 1, ("name",), ("Encrypted",)
    ),
}
