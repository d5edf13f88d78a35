"""The wire's JSON: times as ISO 8601 UTC with milliseconds and `Z`, the same by orjson and by the standard library."""

from datetime import UTC, datetime, timedelta, timezone

from signsvc.wire.encoding import dumps, encoded

NOON = datetime(2026, 3, 4, 12, 0, 0, 123456, tzinfo=UTC)


def test_a_time_shown_many_times_in_one_answer_is_written_the_same_each_time_as_the_standard_library_writes_it():
    same_instant_elsewhere = NOON.astimezone(timezone(timedelta(hours=2)))
    data = {
        "items": [{"created_at": NOON, "updated_at": NOON + timedelta(microseconds=1)} for _ in range(3)],
        "elsewhere": same_instant_elsewhere,
        "later": NOON + timedelta(milliseconds=1),
        "none": None,
    }
    assert encoded(data) == dumps(data).encode()
    assert encoded(data).count(b'"2026-03-04T12:00:00.123Z"') == 7
