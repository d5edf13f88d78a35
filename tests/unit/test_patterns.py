"""Validation patterns: the syntax the service and the signing form read alike, in linear time.

The cases are shared with the browser test (tests/browser/test_pattern_cases.py), which runs the signing
form's own `matches()` on them: what one engine answers, the other must.
"""

import asyncio
import json
import random
import time
from collections.abc import Awaitable
from typing import TypeVar

import pytest

from signsvc.infra import errors
from signsvc.templates import pattern_syntax, patterns
from tests.support.paths import ROOT

_T = TypeVar("_T")

TABLE = json.loads((ROOT / "tests" / "files" / "pattern_cases.json").read_text())
CASES = TABLE["cases"]
REFUSED = TABLE["refused"]


async def with_ticks(awaitable: Awaitable[_T]) -> tuple[_T, float, int]:
    """What the awaitable answered, the seconds it took and how often a 5 ms timer ticked on the loop meanwhile:
    work run on the loop leaves no tick in between."""
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.005)
            ticks += 1

    ticking = asyncio.create_task(tick())
    started = time.perf_counter()
    try:
        return await awaitable, time.perf_counter() - started, ticks
    finally:
        ticking.cancel()


def case_id(case: dict) -> str:
    return f"{case['pattern'][:40]!r} on {case['text'][:20]!r}"


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_the_service_answers_each_shared_case_as_the_table_says(case):
    assert patterns.problem(case["pattern"]) is None
    assert patterns.matches(case["pattern"], case["text"]) is case["match"]


@pytest.mark.parametrize("case", REFUSED, ids=lambda case: repr(case["pattern"][:40]))
def test_a_pattern_outside_the_shared_syntax_is_refused_with_its_reason(case):
    problem = patterns.problem(case["pattern"])
    assert problem is not None and case["reason"] in problem
    assert patterns.matches(case["pattern"], "anything") is None  # stored before: no pattern


def test_a_pattern_that_backtracks_in_other_engines_runs_in_linear_time():
    started = time.perf_counter()
    assert patterns.matches("(a|aa)+", "a" * 10_000 + "!") is False
    assert patterns.matches("(a+)+b", "a" * 10_000) is False
    assert time.perf_counter() - started < 0.1


def test_a_text_with_a_lone_surrogate_matches_no_pattern():
    assert patterns.matches(".*", "a\ud800") is False


def test_the_reasons_name_where_the_pattern_goes_wrong():
    assert patterns.problem("ab(?i)c") == "has (?i at 3: inline flags and other (? groups are not supported"
    assert patterns.problem("x" * 1001) == "is longer than 1000 characters"


def test_compiled_patterns_are_kept_in_a_bounded_cache():
    for n in range(patterns.CACHE_SIZE + 10):
        assert patterns.problem(f"[0-9]{{4}}x{n}") is None
    assert len(patterns._CACHE) == patterns.CACHE_SIZE
    assert "[0-9]{4}x0" not in patterns._CACHE and f"[0-9]{{4}}x{patterns.CACHE_SIZE + 9}" in patterns._CACHE


def test_a_pattern_far_beyond_the_program_limit_is_refused_before_compiling():
    started = time.perf_counter()
    problems = [patterns.problem(f"\\p{{L}}{{1000}}{n}") for n in range(100)]
    took = time.perf_counter() - started
    assert all(problem is not None and problem.startswith("is too large") for problem in problems)
    assert took < 0.5  # RE2 took 75-107 ms to fail on each of them


def test_a_pattern_re2_refuses_for_size_fails_within_its_memory_limit():
    # Under the estimate's bound, so compiled: with RE2's default memory it took 75-107 ms to fail.
    started = time.perf_counter()
    problems = [patterns.problem(f"\\p{{L}}{{70}}{n}") for n in range(10)]
    took = time.perf_counter() - started
    assert all(problem is not None and "too large" in problem for problem in problems)
    assert took < 0.5


def test_the_estimate_is_not_below_what_accepted_patterns_compile_to():
    for pattern in (".{1000}", "\\p{L}{20}", "[\\p{L}\\d]{5,10}", "(\\s{50}){20}", "(?:ab){3,}"):
        compiled = patterns._compiled(pattern)
        assert not isinstance(compiled, str), compiled
        translated = pattern_syntax.translated(pattern)
        assert isinstance(translated, str)
        assert compiled.programsize / 2 <= patterns._estimate(translated) <= patterns.MAX_ESTIMATE


def test_a_checks_cost_counts_the_bytes_re2_reads():
    assert patterns.work("[a-zé]*", "é" * 10) == 2 * patterns.work("[a-zé]*", "e" * 10)


def test_the_patterns_of_a_body_are_found_in_the_order_they_are_written():
    body = {
        "documents": [
            {"fields": [{"validation": {"pattern": "a"}}, {"validation_pattern": "b"}]},
            {"fields": [{"validation": {"pattern": "a"}, "x": {"validation": {"pattern": "c"}}}]},
        ]
    }
    assert patterns.found_in(body) == ["a", "b", "c"]


async def test_new_patterns_are_compiled_off_the_event_loop_which_keeps_running():
    found = [f"\\p{{L}}{{20}}{n}" for n in range(40)]  # about 15 ms each to compile, near the program limit
    _, took, ticks = await with_ticks(patterns.prepare(found))
    assert all(patterns.problem(pattern) is None for pattern in found)
    assert took > 0.05 and ticks >= 3


async def test_a_request_whose_new_patterns_cost_more_than_the_budget_is_refused():
    found = [f"\\p{{L}}{{20}}y{n}" for n in range(patterns.MAX_COMPILE_WORK // 20_000 + 1)]
    with pytest.raises(errors.Invalid, match="fields have too many costly patterns to read in one request"):
        await patterns.prepare(found)


async def test_a_request_stops_compiling_at_its_first_refused_pattern():
    found = ["[0-9]+z", "(?i)z", "[0-9]+zz"]
    await patterns.prepare(found)
    assert "[0-9]+z" in patterns._CACHE and "[0-9]+zz" not in patterns._CACHE
    await patterns.prepare(found, checked=False)
    assert "[0-9]+zz" in patterns._CACHE


async def test_a_check_past_the_queued_limit_is_answered_busy(monkeypatch):
    monkeypatch.setattr(patterns, "MAX_QUEUED", 1)
    letters = random.Random(2)
    text = "".join(letters.choice("ab") for _ in range(20_000))
    first = asyncio.create_task(patterns.first_mismatch([("[ab]*a[ab]{200}", text)]))
    await asyncio.sleep(0)
    with pytest.raises(patterns.Busy) as busy:
        await patterns.first_mismatch([("[ab]*a[ab]{201}", text)])
    assert busy.value.status == 503 and busy.value.retry_after == patterns.RETRY_AFTER_SECONDS
    await first
    assert await patterns.first_mismatch([("[ab]*a[ab]{201}", text)]) in (0, None)


async def test_the_first_text_that_does_not_match_is_found_and_refused_patterns_match_everything():
    checks = [("[a-z]+", "abc"), ("(?i)x", "anything"), ("[0-9]+", "12a"), ("b", "c")]
    assert await patterns.first_mismatch(checks) == 2
    assert await patterns.first_mismatch(checks[:2]) is None


async def test_costly_checks_run_off_the_event_loop_which_keeps_running():
    # [ab]*a[ab]{200} on these random a and b defeats RE2's fast engine: several microseconds a character.
    # 200,000 of them: about 150 ms on a fast machine (50,000 took under the 50 ms asked for below on one).
    letters = random.Random(1)
    text = "".join(letters.choice("ab") for _ in range(200_000))
    pattern = "[ab]*a[ab]{200}"
    assert patterns.work(pattern, text) > patterns.INLINE_WORK
    found, took, ticks = await with_ticks(patterns.first_mismatch([(pattern, text)]))
    assert found in (0, None)
    # Run on the loop, the check would leave no tick in between: the loop went on ticking while RE2 ran.
    assert took > 0.05 and ticks >= 3


async def test_checks_that_would_cost_more_than_the_budget_are_refused_without_running():
    pattern = "[ab]*a[ab]{999}"
    text = "a" * (patterns.MAX_WORK // patterns.work(pattern, "a") + 1)
    started = time.perf_counter()
    with pytest.raises(patterns.Refused, match="values are too long to check against their fields' patterns"):
        await patterns.first_mismatch([(pattern, text)])
    assert time.perf_counter() - started < 0.05
