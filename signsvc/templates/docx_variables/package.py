"""A DOCX as a ZIP package: the XML parts that hold text read (bounded) and written back, the rest untouched."""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

from lxml import etree

from signsvc.templates.docx_variables.problems import DocxProblem

MAX_PART_BYTES = 32 * 1024 * 1024  # one XML part, uncompressed
MAX_TOTAL_BYTES = 128 * 1024 * 1024  # every entry of the package, uncompressed
MAX_ENTRIES = 2000
# The parts whose text can hold tags: the body, headers, footers, footnotes and endnotes.
_TEXT_PART = re.compile(r"word/(document|header[0-9]{0,4}|footer[0-9]{0,4}|footnotes|endnotes)\.xml")
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)


class Package:
    def __init__(self, data: bytes) -> None:
        try:
            self._zip = zipfile.ZipFile(io.BytesIO(data))
            self.entries = self._zip.infolist()
        except (zipfile.BadZipFile, ValueError, OSError):
            raise DocxProblem("the file is not a DOCX document (not a ZIP package)") from None
        names = [entry.filename for entry in self.entries]
        if "word/document.xml" not in names:
            raise DocxProblem("the file is not a DOCX document (it has no word/document.xml)")
        if len(self.entries) > MAX_ENTRIES:
            raise DocxProblem(f"the DOCX document has more than {MAX_ENTRIES} parts")
        if sum(entry.file_size for entry in self.entries) > MAX_TOTAL_BYTES:
            raise DocxProblem(f"the DOCX document is larger than {MAX_TOTAL_BYTES // 1024 // 1024} MiB uncompressed")
        self.text_parts = [name for name in names if _TEXT_PART.fullmatch(name)]

    def tree(self, name: str) -> Any:
        """The part's XML (the document's `word/...` parts that hold text)."""
        data = self._read(name)
        if b"<!DOCTYPE" in data[:4096] or b"<!ENTITY" in data:
            raise DocxProblem(f"{name} declares a DTD, which a DOCX document never does")
        try:
            return etree.fromstring(data, _PARSER)
        except etree.XMLSyntaxError as exc:
            raise DocxProblem(f"{name} is not well-formed XML: {exc}") from None

    def written(self, trees: dict[str, Any]) -> bytes:
        """The package with the given parts replaced by their trees, every other entry as it was."""
        output, total = io.BytesIO(), 0
        with zipfile.ZipFile(output, "w", zipfile.ZIP_DEFLATED) as written:
            for entry in self.entries:
                if entry.filename in trees:
                    data = etree.tostring(
                        trees[entry.filename], xml_declaration=True, encoding="UTF-8", standalone=True
                    )
                    if len(data) > MAX_PART_BYTES:
                        raise DocxProblem(
                            f"the rendered {entry.filename} would be larger than {MAX_PART_BYTES // 1024 // 1024} MiB"
                        )
                else:
                    data = self._read(entry.filename, MAX_TOTAL_BYTES - total)
                total += len(data)
                written.writestr(entry, data, compress_type=zipfile.ZIP_DEFLATED)
        return output.getvalue()

    def _read(self, name: str, limit: int = MAX_PART_BYTES) -> bytes:
        """The entry, at most `limit` bytes whatever its header says (a ZIP bomb's header lies)."""
        try:
            with self._zip.open(name) as entry:
                data = entry.read(limit + 1)
        except (zipfile.BadZipFile, NotImplementedError, RuntimeError, OSError, EOFError) as exc:
            raise DocxProblem(f"the DOCX document's {name} cannot be read: {exc}") from None
        if len(data) > limit:
            raise DocxProblem(f"the DOCX document's {name} is larger than the service takes in uncompressed")
        return data
