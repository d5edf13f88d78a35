"""Validation patterns: the syntax the service and the signing form read alike, in linear time.

The cases are shared with the browser test (tests/browser/test_pattern_cases.py), which runs the signing
form's own `matches()` on them: what one engine answers, the other must.
"""

import asyncio
import json
import random
import time

import pytest

from signsvc.templates import patterns
from tests.support.paths import ROOT

TABLE = json.loads((ROOT / "tests" / "files" / "pattern_cases.json").read_text())
CASES = TABLE["cases"]
REFUSED = TABLE["refused"]


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
    patterns.problem("[0-9]{4}")
    info = patterns._compiled.cache_info()
    assert info.maxsize == patterns.CACHE_SIZE and patterns.problem("[0-9]{4}") is None
    assert patterns._compiled.cache_info().hits == info.hits + 1


async def test_the_first_text_that_does_not_match_is_found_and_refused_patterns_match_everything():
    checks = [("[a-z]+", "abc"), ("(?i)x", "anything"), ("[0-9]+", "12a"), ("b", "c")]
    assert await patterns.first_mismatch(checks) == 2
    assert await patterns.first_mismatch(checks[:2]) is None


async def test_costly_checks_run_off_the_event_loop_which_keeps_running():
    # [ab]*a[ab]{200} on these random a and b defeats RE2's fast engine: several microseconds a character.
    letters = random.Random(1)
    text = "".join(letters.choice("ab") for _ in range(50_000))
    pattern = "[ab]*a[ab]{200}"
    assert patterns.work(pattern, text) > patterns.INLINE_WORK
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.005)
            ticks += 1

    ticking = asyncio.create_task(tick())
    started = time.perf_counter()
    assert await patterns.first_mismatch([(pattern, text)]) in (0, None)
    took = time.perf_counter() - started
    ticking.cancel()
    # Run on the loop, the check would leave no tick in between: the loop went on ticking while RE2 ran.
    assert took > 0.05 and ticks >= 3


async def test_checks_that_would_cost_more_than_the_budget_are_refused_without_running():
    pattern = "[ab]*a[ab]{999}"
    text = "a" * (patterns.MAX_WORK // patterns.work(pattern, "a") + 1)
    started = time.perf_counter()
    with pytest.raises(patterns.Refused, match="values are too long to check against their fields' patterns"):
        await patterns.first_mismatch([(pattern, text)])
    assert time.perf_counter() - started < 0.05
