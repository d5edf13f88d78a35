"""The files of a bulk send, as the console's tests upload them: a template of one role with a text, a number and a
signature field, and CSV and XLSX files made from rows."""

from __future__ import annotations

import io

import openpyxl


def _area(y: float) -> dict[str, float]:
    return {"x": 0.1, "y": y, "w": 0.3, "h": 0.05, "page": 1}


SIGNER_FIELDS = [
    {"name": "Full Name", "type": "text", "role": "Signer", "areas": [_area(0.1)]},
    {"name": "Amount", "type": "number", "role": "Signer", "areas": [_area(0.2)]},
    {"name": "Signature", "type": "signature", "role": "Signer", "areas": [_area(0.3)]},
]
GOOD_CSV = "Email,Name,Amount,Notes\nann@example.com,Ann Smith,12,first\nbob@example.com,Bob Jones,7,\n"


def csv_of(rows: list[list[str]]) -> bytes:
    return "\n".join(",".join(row) for row in rows).encode() + b"\n"


def xlsx_of(rows: list[list[object]]) -> bytes:
    workbook = openpyxl.Workbook()
    for row in rows:
        workbook.active.append(row)
    data = io.BytesIO()
    workbook.save(data)
    return data.getvalue()
