"""What the result operations answer, as plain records: the signed files of a completed submission, and whether
the service issued a PDF. Apart from the operations, so that the wire shapes them without reaching a database."""

from __future__ import annotations

from dataclasses import dataclass

from signsvc.infra.pdf_calls import SignatureReport
from storage.records import ResultDocument


@dataclass(frozen=True)
class Completed:
    """The signed files of a completed submission."""

    documents: list[ResultDocument]
    combined: ResultDocument
    audit_log: ResultDocument | None

    @property
    def main(self) -> ResultDocument:
        """The one file that holds every document: the document itself when there is one."""
        return self.documents[0] if len(self.documents) == 1 else self.combined


@dataclass(frozen=True)
class Verification:
    issued_by_service: bool
    checksum_status: str  # "verified" when the service produced a file with this hash, else "not_found"
    sha256: str
    signatures: list[SignatureReport]
