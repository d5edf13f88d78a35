"""Retry schedules as pure rules: the jobs' backoff, and the webhook deliveries' schedule from the spec.

The jobs and deliveries that follow them are in tests/api/test_jobs.py and tests/api/test_webhook_delivery.py."""

import itertools
from datetime import timedelta

from signsvc.infra import retries
from signsvc.infra.retries import Backoff


def test_backoff_doubles_from_one_minute():
    backoff = Backoff()
    assert [backoff.delay(n) for n in range(1, 5)] == [timedelta(minutes=m) for m in (1, 2, 4, 8)]
    assert backoff.delay(30) == timedelta(hours=6)


def test_backoff_answers_the_next_time_until_its_attempts_are_used(clock):
    backoff = Backoff(attempts=3)
    assert backoff.next_at(1, clock) == clock.now() + timedelta(minutes=1)
    assert backoff.next_at(2, clock) == clock.now() + timedelta(minutes=2)
    assert backoff.next_at(3, clock) is None


def test_retries_follow_the_spec_schedule(clock):
    """1, 2, 4, 8 ... minutes: 12 attempts over 34.1 hours; form.completed 14 attempts over 5.7 days."""
    for event_type, attempts, span_minutes in (("template.updated", 12, 2047), ("form.completed", 14, 8191)):
        schedule, start, failures = retries.webhook_delivery(event_type), clock.now(), 0
        moments = [start]
        while (moment := schedule.next_at(failures + 1, clock)) is not None:
            failures += 1
            clock.set(moment)
            moments.append(moment)
        gaps = [(b - a).total_seconds() / 60 for a, b in itertools.pairwise(moments)]
        assert len(moments) == attempts and gaps[:4] == [1, 2, 4, 8]
        assert (moments[-1] - start).total_seconds() / 60 == span_minutes
