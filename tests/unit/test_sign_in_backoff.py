"""The wait after failed sign-ins of one email from one address."""

from datetime import timedelta

from signsvc.accounts.sign_in_backoff import FREE_FAILURES, wait_after


def test_a_few_failures_wait_nothing_then_each_one_more_doubles_the_wait_up_to_an_hour():
    assert [wait_after(n) for n in range(FREE_FAILURES + 1)] == [timedelta(0)] * (FREE_FAILURES + 1)
    waits = [wait_after(FREE_FAILURES + n) for n in range(1, 8)]
    assert waits[:6] == [timedelta(minutes=m) for m in (1, 2, 4, 8, 16, 32)]
    assert waits[6] == timedelta(hours=1) == wait_after(10_000)
