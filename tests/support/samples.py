"""Sample inputs the PDF tests build: a hand-written form PDF, plain pages, encrypted and turned copies, images."""

from __future__ import annotations

import io

import pypdf
from fpdf import FPDF
from PIL import Image

A4 = (595.28, 841.89)
LETTER = (612.0, 792.0)
RADIO, PUSH, COMBO, EDIT, MULTI = 1 << 15, 1 << 16, 1 << 17, 1 << 18, 1 << 21


class RawPdf:
    """Numbered objects written out with a correct xref table: for the PDFs no library would write."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []

    def reserve(self) -> int:
        self.bodies.append(b"null")
        return len(self.bodies)

    def put(self, number: int, body: str | bytes) -> int:
        self.bodies[number - 1] = body.encode("latin-1") if isinstance(body, str) else body
        return number

    def add(self, body: str | bytes) -> int:
        return self.put(self.reserve(), body)

    def stream(self, data: bytes, entries: str = "") -> int:
        return self.add(b"<< /Length %d %s >>\nstream\n%s\nendstream" % (len(data), entries.encode(), data))

    def output(self, root: int) -> bytes:
        out = bytearray(b"%PDF-1.7\n")
        offsets = []
        for number, body in enumerate(self.bodies, 1):
            offsets.append(len(out))
            out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
        xref = len(out)
        out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(self.bodies) + 1)
        out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
        out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(self.bodies) + 1, root, xref)
        return bytes(out)


def refs(numbers: list[int]) -> str:
    return " ".join(f"{number} 0 R" for number in numbers)


def pages_pdf(*pages: str, pdf: RawPdf | None = None) -> bytes:
    """A PDF of empty pages with the given entries (boxes, /Rotate, /Annots), after `pdf`'s objects."""
    pdf = pdf or RawPdf()
    catalog, root = pdf.reserve(), pdf.reserve()
    numbers = [pdf.add(f"<< /Type /Page /Parent {root} 0 R {entries} >>") for entries in pages]
    pdf.put(root, f"<< /Type /Pages /Kids [{refs(numbers)}] /Count {len(numbers)} >>")
    pdf.put(catalog, f"<< /Type /Catalog /Pages {root} 0 R >>")
    return pdf.output(catalog)


class Form:
    """The sample form: widgets of every kind on pages that are rotated, cropped or inherit their boxes."""

    PAGES = (
        "/MediaBox [0 0 595.28 841.89]",
        "/MediaBox [0 0 612 792] /Rotate 90",
        "/MediaBox [0 0 612 792] /Rotate -90",
        "/MediaBox [0 0 595.28 841.89] /CropBox [50 100 545 741]",
        "",  # /MediaBox [0 0 400 600] and /Rotate 180 come from its parent /Pages node
    )

    def __init__(self) -> None:
        self.pdf = RawPdf()
        self.annots: dict[int, list[int]] = {index: [] for index in range(len(self.PAGES))}
        self.drawn: dict[int, list[tuple]] = {index: [] for index in range(len(self.PAGES))}
        self.fields: list[int] = []
        self.blank = self.pdf.stream(b"", "/Type /XObject /Subtype /Form /BBox [0 0 14 14]")

    def widget(self, page: int, rect: tuple, entries: str = "", parent: int | None = None) -> int:
        self.drawn[page].append(rect)
        link = f"/Parent {parent} 0 R" if parent else ""
        box = " ".join(map(str, rect))
        number = self.pdf.add(f"<< /Type /Annot /Subtype /Widget /Rect [{box}] {entries} {link} >>")
        self.annots[page].append(number)
        return number

    def field(self, page: int, rect: tuple, entries: str) -> None:
        self.fields.append(self.widget(page, rect, entries))

    def parent(self, entries: str, kids: list[tuple]) -> None:
        """A field whose widgets are its kids: kids are (page, rect, widget entries)."""
        number = self.pdf.reserve()
        widgets = [self.widget(page, rect, extra, parent=number) for page, rect, extra in kids]
        self.pdf.put(number, f"<< {entries} /Kids [{refs(widgets)}] >>")
        self.fields.append(number)

    def states(self, *names: str) -> str:
        return "/AP << /N << " + " ".join(f"/{name} {self.blank} 0 R" for name in (*names, "Off")) + " >> >>"

    def output(self) -> bytes:
        pdf = self.pdf
        catalog, root, middle = pdf.reserve(), pdf.reserve(), pdf.reserve()
        pages = []
        for index, entries in enumerate(self.PAGES):
            boxes = " ".join(f"{x0} {y0} {x1 - x0} {y1 - y0} re f" for x0, y0, x1, y1 in self.drawn[index])
            content = pdf.stream(f"0 g {boxes}".encode())
            parent = middle if index == 4 else root
            pages.append(
                pdf.add(
                    f"<< /Type /Page /Parent {parent} 0 R {entries} /Contents {content} 0 R "
                    f"/Annots [{refs(self.annots[index])}] >>"
                )
            )
        pdf.put(
            middle,
            f"<< /Type /Pages /Parent {root} 0 R /Kids [{pages[4]} 0 R] /Count 1 /Rotate 180 "
            f"/MediaBox [0 0 400 600] >>",
        )
        pdf.put(root, f"<< /Type /Pages /Kids [{refs([*pages[:4], middle])}] /Count 5 >>")
        pdf.put(catalog, f"<< /Type /Catalog /Pages {root} 0 R /AcroForm << /Fields [{refs(self.fields)}] >> >>")
        return pdf.output(catalog)


def form_pdf() -> bytes:
    form = Form()
    form.field(0, (72, 720, 300, 744), "/FT /Tx /T (full_name) /Ff 2")
    form.field(0, (72, 680, 172, 700), f"/FT /Tx /T (zip) /Ff {1 << 24} /MaxLen 5")
    form.field(
        0,
        (320, 720, 450, 744),
        '/FT /Tx /T (birth_date) /AA << /F << /S /JavaScript /JS (AFDate_FormatEx\\("mm/dd/yyyy"\\);) >> >>',
    )
    script = form.pdf.stream(b'AFDate_KeystrokeEx("dd.mm.yyyy");')
    form.field(0, (320, 760, 450, 784), f"/FT /Tx /T (start_date) /AA << /K << /S /JavaScript /JS {script} 0 R >> >>")
    form.field(0, (72, 640, 86, 654), f"/FT /Btn /T (agree) /V /Off {form.states('Yes')}")
    colors = ["red", "green", "blue"]
    form.parent(
        f"/FT /Btn /Ff {RADIO} /T (color)",
        [(0, (72 + 28 * i, 600, 86 + 28 * i, 614), form.states(color)) for i, color in enumerate(colors)],
    )
    form.parent(
        f"/FT /Btn /Ff {RADIO} /T (gender) /Opt [(Female) (Male)]",
        [(0, (200 + 28 * i, 600, 214 + 28 * i, 614), form.states(str(i))) for i in range(2)],
    )
    form.parent(
        "/FT /Btn /T (plan)",
        [(0, (72 + 28 * i, 570, 86 + 28 * i, 584), form.states(name)) for i, name in enumerate(["basic", "pro"])],
    )
    form.field(
        0,
        (320, 680, 450, 700),
        f"/FT /Ch /Ff {COMBO} /T (country) /Opt [(Select one...) [(de) (Germany)] [(fr) (France)] (Spain) ()]",
    )
    form.field(0, (320, 560, 450, 620), f"/FT /Ch /Ff {MULTI} /T (toppings) /Opt [(Cheese) (Ham) (Olives)]")
    form.field(0, (460, 560, 540, 620), "/FT /Ch /T (size) /Opt [(S) (M) (L)]")
    form.field(0, (460, 680, 540, 700), f"/FT /Ch /Ff {COMBO | EDIT} /T (city)")
    form.field(0, (72, 100, 272, 160), "/FT /Sig /T (signature)")
    form.field(0, (300, 100, 360, 140), "/FT /Sig /T (Buyer Initials)")
    form.field(0, (460, 730, 540, 750), "/FT /Tx")  # no name at all
    form.parent("/FT /Tx /T (party)", [(0, (72, 500, 300, 520), "/T (name)")])
    form.parent("/FT /Tx /T (reference)", [(0, (460, 780, 560, 800), ""), (1, (300, 500, 400, 520), "")])
    # Skipped: a push button, a hidden widget, filled fields, a read-only field, a signed signature.
    form.field(0, (460, 100, 540, 120), f"/FT /Btn /Ff {PUSH} /T (reset)")
    form.field(0, (460, 140, 540, 160), "/FT /Tx /T (hidden_note) /F 2")
    form.field(0, (460, 180, 540, 200), "/FT /Tx /T (company) /V (ACME Ltd)")
    form.field(0, (460, 220, 540, 240), f"/FT /Btn /T (subscribed) /V /Yes {form.states('Yes')}")
    form.field(0, (460, 260, 540, 280), "/FT /Tx /T (total) /Ff 1")
    form.field(0, (460, 300, 540, 340), "/FT /Sig /T (old_signature) /V << /Type /Sig >>")
    form.field(1, (100, 200, 300, 230), "/FT /Tx /T (turned_right)")
    form.field(2, (100, 200, 300, 230), "/FT /Tx /T (turned_left)")
    form.field(3, (100, 600, 300, 641), "/FT /Tx /T (cropped)")
    form.field(3, (0, 760, 100, 700), "/FT /Tx /T (clipped)")  # corners reversed, partly outside the crop
    form.field(3, (0, 0, 40, 40), "/FT /Tx /T (outside)")
    form.field(4, (50, 500, 150, 550), "/FT /Tx /T (upside_down)")
    return form.output()


def text_pdf(*texts: str, size: tuple[float, float] = A4) -> bytes:
    """One page per text, written on it."""
    pdf = FPDF(unit="pt", format=size)
    pdf.set_font("helvetica", size=24)
    for text in texts:
        pdf.add_page()
        pdf.cell(text=text)
    return bytes(pdf.output())


def turned(data: bytes, page: int, degrees: int) -> bytes:
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(data))
    writer.pages[page].rotate(degrees)
    return written(writer)


def encrypted(data: bytes, user: str, owner: str = "owner") -> bytes:
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(data))
    writer.encrypt(user, owner, algorithm="AES-256")
    return written(writer)


def written(writer: pypdf.PdfWriter) -> bytes:
    output = io.BytesIO()
    writer.write(output)
    return output.getvalue()


def image_bytes(format: str, size: tuple[int, int] = (300, 200), color: str = "red", **options) -> bytes:
    output = io.BytesIO()
    Image.new("RGB", size, color).save(output, format=format, **options)
    return output.getvalue()


def quarters(size: tuple[int, int] = (120, 80)) -> Image.Image:
    """An image whose four quarters have four colours, so any turn or flip shows."""
    image, (width, height) = Image.new("RGB", size), size
    for x, y, color in [(0, 0, "red"), (1, 0, "lime"), (0, 1, "blue"), (1, 1, "yellow")]:
        image.paste(color, (x * width // 2, y * height // 2, (x + 1) * width // 2, (y + 1) * height // 2))
    return image


def jpeg_with_orientation(orientation: int) -> bytes:
    """A JPEG of `quarters()` whose EXIF orientation tag is `orientation` (1 to 8)."""
    output, exif = io.BytesIO(), Image.Exif()
    exif[0x0112] = orientation
    quarters().save(output, "JPEG", exif=exif.tobytes(), quality=95)
    return output.getvalue()
