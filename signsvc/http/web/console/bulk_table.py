"""A bulk-send file read as a table: a header row and the rows under it, every cell as text, each row with its
number as the spreadsheet shows it (the header is row 1). CSV (UTF-8, commas, semicolons or tabs) and XLSX (its
first sheet, read by openpyxl in read-only mode) are read; the file's size, its rows and its
columns are bounded, and a file beyond them is refused with a message that says which bound. Either is read in a
thread: a 5 MB file takes a while, and the event loop serves other requests meanwhile."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date, datetime, time
from typing import Any

# What a file input offers: CSV and XLSX, by name and by type.
ACCEPTED = ".csv,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
MAX_BYTES = 5 * 1024 * 1024
MAX_ROWS = 2000  # rows of signers, the header not counted
MAX_COLUMNS = 100
MAX_ROW_NUMBER = 1_048_576  # a spreadsheet's last row
MAX_CELL = 10_000  # characters; far beyond any value a field or a signer's contact takes
MAX_UNPACKED = 20 * MAX_BYTES  # an XLSX file's parts, unpacked: its XML is about five times its size
# Blank rows, wherever they are: a sheet of a million empty <row/> elements is refused, not read to its end.
MAX_BLANK_ROWS = MAX_ROWS
_XLSX = b"PK\x03\x04"
_OLD_EXCEL = b"\xd0\xcf\x11\xe0"  # .xls, the format before XLSX


class TableUnreadable(Exception):
    """A file that is no table of ours: `key` is the catalogue's message, `values` its placeholders."""

    def __init__(self, key: str, **values: Any) -> None:
        super().__init__(key)
        self.key, self.values = key, values


@dataclass(frozen=True)
class Row:
    number: int  # as the spreadsheet numbers it: the header is row 1
    cells: tuple[str, ...]

    def cell(self, column: int) -> str:
        return self.cells[column] if column < len(self.cells) else ""


@dataclass(frozen=True)
class Table:
    headers: tuple[str, ...]
    rows: tuple[Row, ...]

    def as_data(self) -> dict[str, Any]:
        """The table as JSON data, as the mapping page carries it to the next post."""
        return {"headers": list(self.headers), "rows": [[row.number, list(row.cells)] for row in self.rows]}

    @classmethod
    def of_data(cls, data: Any) -> Table:
        """A table from `as_data`'s form, its types checked strictly and bounded as a file's are (TableUnreadable
        otherwise): the form that carried it may have been changed."""
        if not (isinstance(data, dict) and set(data) == {"headers", "rows"}):
            raise TableUnreadable("console.bulk.file.unreadable")
        headers, rows = data["headers"], data["rows"]
        if not (_texts(headers) and isinstance(rows, list)):
            raise TableUnreadable("console.bulk.file.unreadable")
        if len(rows) > MAX_ROWS:
            raise TableUnreadable("console.bulk.file.too_many_rows", rows=MAX_ROWS)
        if not all(_carried_row(row) for row in rows):
            raise TableUnreadable("console.bulk.file.unreadable")
        return _bounded(headers, [(number, cells) for number, cells in rows])


def _texts(value: Any) -> bool:
    return isinstance(value, list) and len(value) <= MAX_COLUMNS and all(isinstance(cell, str) for cell in value)


def _carried_row(row: Any) -> bool:
    """[number, [cell, ...]]: the number a row's as the spreadsheet shows it, its cells text."""
    if not (isinstance(row, list) and len(row) == 2):
        return False
    number, cells = row
    return type(number) is int and 1 < number <= MAX_ROW_NUMBER and _texts(cells)


def carried_json(table: Table) -> str:
    """The table as the mapping form carries it."""
    return json.dumps(table.as_data(), ensure_ascii=False, separators=(",", ":"))


def of_carried_json(carried: str) -> Table:
    """The table the mapping form carried back: JSON of plain lists and text, no NaN or Infinity, no deeper
    than `as_data` makes it (TableUnreadable otherwise)."""
    try:
        return Table.of_data(json.loads(carried, parse_constant=_refused_constant))
    except (ValueError, RecursionError):
        raise TableUnreadable("console.bulk.file.unreadable") from None


def _refused_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a value of a table")


async def read(data: bytes) -> Table:
    """The table of a CSV or XLSX file."""
    if len(data) > MAX_BYTES:
        raise TableUnreadable("console.bulk.file.too_large", megabytes=MAX_BYTES // (1024 * 1024))
    if not data.strip():
        raise TableUnreadable("console.bulk.file.empty")
    if data.startswith(_OLD_EXCEL):
        raise TableUnreadable("console.bulk.file.old_excel")
    return await asyncio.to_thread(_xlsx if data.startswith(_XLSX) else _csv, data)


def _csv(data: bytes) -> Table:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise TableUnreadable("console.bulk.file.not_unicode") from None
    if "\x00" in text:
        raise TableUnreadable("console.bulk.file.unreadable")
    lines = csv.reader(io.StringIO(text, newline=""), dialect=_dialect(text))
    try:
        return _table(lines)
    except csv.Error:
        raise TableUnreadable("console.bulk.file.unreadable") from None


def _dialect(text: str) -> type[csv.Dialect]:
    """Commas, or the semicolons or tabs spreadsheets write where the comma is the decimal sign."""
    try:
        return csv.Sniffer().sniff(text[:4096].partition("\n")[0], delimiters=",;\t")
    except csv.Error:
        return csv.excel


def _xlsx(data: bytes) -> Table:
    """The first sheet of a workbook; read-only mode streams its rows, so a large sheet is never held whole (its
    shared strings are: the unpacked size is bounded first)."""
    import openpyxl  # imported here: only a bulk send needs it, and it takes a while to load

    _bounded_unpacked(data)
    try:
        workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception:  # a damaged or foreign file fails anywhere in zlib, zipfile, XML or openpyxl
        raise TableUnreadable("console.bulk.file.unreadable") from None
    try:
        sheet = workbook.worksheets[0]
        # The <dimension> a sheet declares is not trusted: read-only mode would pad every row to its width.
        sheet.reset_dimensions()
        return _table(_sheet_lines(sheet.iter_rows(max_col=MAX_COLUMNS + 1, values_only=True)))
    except TableUnreadable:
        raise
    except Exception:
        raise TableUnreadable("console.bulk.file.unreadable") from None
    finally:
        workbook.close()


def _bounded_unpacked(data: bytes) -> None:
    """Refuses a workbook whose parts would unpack to more than MAX_UNPACKED bytes (zipfile reads no part past
    the size it declares, so the declared sizes bound what is read)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            unpacked = sum(part.file_size for part in archive.infolist())
    except Exception:  # as in `_xlsx`: any way a damaged archive fails
        raise TableUnreadable("console.bulk.file.unreadable") from None
    if unpacked > MAX_UNPACKED:
        raise TableUnreadable("console.bulk.file.too_large", megabytes=MAX_BYTES // (1024 * 1024))


def _sheet_lines(rows: Iterable[tuple[Any, ...]]) -> Iterator[list[str]]:
    """Each row of a sheet (read no wider than MAX_COLUMNS + 1) trimmed of its empty cells, then as text; a row
    with a value past MAX_COLUMNS refuses the file there."""
    for values in rows:
        end = len(values)
        while end and _blank(values[end - 1]):
            end -= 1
        if end > MAX_COLUMNS:
            raise TableUnreadable("console.bulk.file.too_many_columns", columns=MAX_COLUMNS)
        yield [_text(value) for value in values[:end]]


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _text(value: Any) -> str:
    """A cell as text: a whole number without its ".0", a date as ISO 8601 (2026-09-01), nothing as ""."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, datetime):
        return value.date().isoformat() if value.time() == time() else value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return str(value)


def _table(lines: Iterable[list[str]]) -> Table:
    """The header and the rows under it, blank rows left out (their numbers kept for the rows after them); stops
    reading as soon as the file has more rows, or more blank rows, than a bulk send takes."""
    header: list[str] | None = None
    rows: list[tuple[int, list[str]]] = []
    blank = 0
    for number, line in enumerate(lines, start=1):
        cells = _trimmed(line)
        if not cells:
            blank += 1
            if blank > MAX_BLANK_ROWS:
                raise TableUnreadable("console.bulk.file.too_many_blank_rows", rows=MAX_BLANK_ROWS)
        elif header is None:
            header = cells
        else:
            rows.append((number, cells))
            if len(rows) > MAX_ROWS:
                raise TableUnreadable("console.bulk.file.too_many_rows", rows=MAX_ROWS)
    if header is None:
        raise TableUnreadable("console.bulk.file.empty")
    return _bounded(header, rows)


def _trimmed(cells: list[str]) -> list[str]:
    """The row without the empty cells at its end (a sheet's formatted but empty columns); [] for a blank row."""
    end = len(cells)
    while end and not cells[end - 1].strip():
        end -= 1
    return cells[:end]


def _bounded(headers: list[str], rows: list[tuple[int, list[str]]]) -> Table:
    if not rows:
        raise TableUnreadable("console.bulk.file.no_rows")
    if len(rows) > MAX_ROWS:
        raise TableUnreadable("console.bulk.file.too_many_rows", rows=MAX_ROWS)
    width = max(len(headers), *(len(cells) for _, cells in rows))
    if width > MAX_COLUMNS:
        raise TableUnreadable("console.bulk.file.too_many_columns", columns=MAX_COLUMNS)
    if any(len(cell) > MAX_CELL for _, cells in rows for cell in cells):
        raise TableUnreadable("console.bulk.file.long_cell", characters=MAX_CELL)
    padded = [header.strip() for header in headers] + [""] * (width - len(headers))
    return Table(
        headers=tuple(padded),
        rows=tuple(Row(number, tuple(cell.strip() for cell in cells)) for number, cells in rows),
    )
