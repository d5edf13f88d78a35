"""An email the testing extension shows, as a plain record (apart from `Kit`, which reads it, so that the wire
shapes it without reaching a database)."""

from __future__ import annotations

from dataclasses import dataclass

from storage.outbound_records import Email


@dataclass(frozen=True)
class CapturedEmail:
    """An email of the outbox with what a test looks for in it: the links it holds and its attachments."""

    email: Email
    links: list[str]
    attachments: list[str]

    @property
    def id(self) -> int:
        return self.email.id
