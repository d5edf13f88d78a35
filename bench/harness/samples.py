"""Sample documents: the words of their contract text, a plain one-page PDF for a template whose
document does not matter to the measurement, and RawPdf for PDFs written object by object (the form
fields no library writes). The bench builds its own, so that it does not follow the tests' helpers
around (the one-page PDF and RawPdf are the tests' own, as they were when the figures were taken)."""

from __future__ import annotations

import base64
import random

CONTRACT_WORDS = [
    "agreement",
    "party",
    "parties",
    "shall",
    "hereby",
    "notwithstanding",
    "provided",
    "that",
    "herein",
    "payment",
    "term",
    "services",
    "confidential",
    "obligations",
    "termination",
    "notice",
    "written",
    "consent",
    "governing",
    "law",
    "liability",
    "indemnify",
    "warranty",
    "effective",
    "date",
    "schedule",
    "amendment",
    "assigns",
    "successors",
    "breach",
    "remedy",
]


def sentence(rng: random.Random, words: int) -> str:
    """`words` contract words drawn by `rng`, capitalized, with a full stop."""
    return " ".join(rng.choice(CONTRACT_WORDS) for _ in range(words)).capitalize() + "."


def one_page_pdf() -> bytes:
    """One A4 page reading "Agreement, page 1" (fpdf2, Helvetica 14)."""
    from fpdf import FPDF

    document = FPDF(unit="pt", format="A4")
    document.set_font("helvetica", size=14)
    document.add_page()
    document.cell(text="Agreement, page 1")
    return bytes(document.output())


def b64(data: bytes) -> str:
    """Bytes as the API takes a file: base64 text."""
    return base64.b64encode(data).decode()


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
    """Indirect references to the numbered objects: `3 0 R 4 0 R`."""
    return " ".join(f"{number} 0 R" for number in numbers)


def one_page_template(name: str, document: str, fields: list[tuple[str, str, float]], *, height: float) -> dict:
    """A template body of one plain page whose text fields (`(name, role, y)`) sit one under another, each
    `height` high: for a bench whose measurement does not depend on the document."""
    return {
        "name": name,
        "documents": [
            {
                "name": document,
                "file": b64(one_page_pdf()),
                "fields": [
                    {
                        "name": field,
                        "type": "text",
                        "role": role,
                        "areas": [{"x": 0.1, "y": y, "w": 0.3, "h": height, "page": 1}],
                    }
                    for field, role, y in fields
                ],
            }
        ],
    }
