"""The account's settings for the text drawn beside a signature (`with_signature_id`): whether the reason or
"Digitally signed by" line is drawn (on unless turned off), whether the time is when the signer completed rather
than when the signature was saved, and whether it shows seconds (both off unless turned on). Times are in UTC:
the service knows no signer's timezone."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from storage import Connection, account_settings

REASON = "with_signature_id_reason"
COMPLETED_AT = "with_signature_id_completed_at"
SECONDS = "with_timestamp_seconds"


@dataclass(frozen=True)
class CaptionSettings:
    reason: bool = True
    completed_at: bool = False
    seconds: bool = False


async def of(conn: Connection, account_id: int) -> CaptionSettings:
    return CaptionSettings(
        reason=await account_settings.get(conn, account_id, REASON) is not False,
        completed_at=await account_settings.get(conn, account_id, COMPLETED_AT) is True,
        seconds=await account_settings.get(conn, account_id, SECONDS) is True,
    )


async def save(conn: Connection, account_id: int, settings: CaptionSettings) -> None:
    """Keeps each setting, a default as no setting at all."""
    await account_settings.put(conn, account_id, REASON, None if settings.reason else False)
    await account_settings.put(conn, account_id, COMPLETED_AT, True if settings.completed_at else None)
    await account_settings.put(conn, account_id, SECONDS, True if settings.seconds else None)


def timestamp(at: datetime, settings: CaptionSettings) -> str:
    return f"{at.astimezone(UTC):%Y-%m-%d %H:%M{':%S' if settings.seconds else ''}} UTC"
