"""Text fields' validation patterns run in RE2, in time linear in the text: compiled within one budget per
request in one thread per process, kept in a bounded cache, and checked on the event loop when cheap, in that
thread when costly. The syntax they are written in, and its translation for RE2, is `pattern_syntax`."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, TypeVar

from signsvc.infra import errors
from signsvc.templates import pattern_syntax

if TYPE_CHECKING:  # imported where the first pattern is compiled: a start compiles none
    import re2

# Instructions of RE2's program: at most what a pattern costs for each character it reads (`.{1000}` is 21,004).
MAX_PROGRAM = 25_000
# A request's pattern checks cost at most this many units (characters checked times program size): about a
# second of one thread on the patterns that defeat RE2's fast engine, far beyond any honest form's.
MAX_WORK = 100_000_000
INLINE_WORK = 200_000  # checks that cost less run on the event loop (well under a millisecond); others in a thread
# The thread of the costly checks: one per process, so however many signers save at once they take one core at
# most, waiting their turn off the event loop.
_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="patterns")
CACHE_SIZE = 1024  # patterns kept compiled
# RE2's memory for one pattern (program and fast-engine cache); its default, 8 MiB, would let the cache grow to
# gigabytes, and a pattern it refuses for size would take 100 ms to fail rather than about 12.
MAX_MEMORY = 1 << 20
# A pattern whose estimated program (counted from its RE2 form before compiling) is larger than this is refused
# unread: compiling it would only fail, slowly.
MAX_ESTIMATE = 4 * MAX_PROGRAM
# What compiling a request's new patterns may cost, in estimated program steps (each pattern counts at least
# COMPILE_FLOOR): about half a second of the patterns' thread; a form of a thousand simple patterns fits.
MAX_COMPILE_WORK = 1_000_000
COMPILE_FLOOR = 1000
# Requests waiting for the patterns' thread at once; one more is answered 503 with Retry-After.
MAX_QUEUED = 16
RETRY_AFTER_SECONDS = 2

Refused = pattern_syntax.Refused
_PROPERTY = re.compile(r"\\[pP]\{(\w+)\}")
_CACHE: OrderedDict[str, re2._Regexp | str] = OrderedDict()
_CACHE_LOCK = threading.Lock()  # the cache is filled from the patterns' thread and the event loop
# The patterns a request compiled with `prepare`, kept for the rest of its task whatever the shared cache evicts.
_PREPARED: contextvars.ContextVar[dict[str, re2._Regexp | str] | None] = contextvars.ContextVar(
    "patterns", default=None
)
_T = TypeVar("_T")
_queued = 0  # requests waiting for or running in the patterns' thread (read and written on the event loop)


class Busy(errors.Unavailable):
    """The patterns' thread has as many checks waiting as it may: sent again a little later, the request runs."""

    message = "The server is checking many other fields' patterns: send this request again in a few seconds"
    retry_after = RETRY_AFTER_SECONDS


def found_in(body: object) -> list[str]:
    """The distinct patterns of a request's body: every string `pattern` of a `validation` object, and every
    `validation_pattern` (DocuSeal's name), however deep, in the order they are written."""
    found: dict[str, None] = {}
    stack = [body]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(reversed(item))
        elif isinstance(item, dict):
            rules = item.get("validation")
            for pattern in (rules.get("pattern") if isinstance(rules, dict) else None, item.get("validation_pattern")):
                if isinstance(pattern, str) and pattern:
                    found[pattern] = None
            stack.extend(reversed(item.values()))
    return list(found)


async def prepare(found: Iterable[str], *, checked: bool = True) -> None:
    """Compiles the patterns a request will check, off the event loop when any is new, and keeps them for the
    rest of the request's task, so that `problem` and `matches` then compile nothing on the loop. Refuses
    (422) patterns whose compiling would cost more than MAX_COMPILE_WORK together; Busy (503) when the
    patterns' thread has MAX_QUEUED requests waiting. `checked`: the request refuses its first refused pattern
    (a new template's), so none after it need compiling; not for stored ones, which count as no pattern."""
    wanted = list(dict.fromkeys(found))
    known = {pattern: result for pattern in wanted if (result := _cached(pattern)) is not None}
    new = [pattern for pattern in wanted if pattern not in known]
    if new:
        try:
            if sum(max(COMPILE_FLOOR, len(pattern)) for pattern in new) > MAX_COMPILE_WORK:
                raise Refused("fields have too many patterns to read in one request")
            known.update(await _in_thread(_compile_all, new, checked))
        except Refused as refused:
            raise errors.Invalid(f"{refused}: send fewer or simpler patterns") from None
    _PREPARED.set({**(_PREPARED.get() or {}), **known})


def _compile_all(new: list[str], checked: bool) -> dict[str, re2._Regexp | str]:
    """Compiles in order within MAX_COMPILE_WORK estimated steps (Refused past it); when `checked`, up to the
    first refused pattern: the request is refused there, naming its field."""
    done: dict[str, re2._Regexp | str] = {}
    spent = 0
    for pattern in new:
        translated = pattern_syntax.translated(pattern)
        estimate = _estimate(translated) if not isinstance(translated, Refused) else 0
        spent += max(COMPILE_FLOOR, estimate if estimate <= MAX_ESTIMATE else 0)  # refused unread: no compiling
        if spent > MAX_COMPILE_WORK:
            raise Refused("fields have too many costly patterns to read in one request")
        done[pattern] = _compiled(pattern)
        if checked and isinstance(done[pattern], str):
            break
    return done


async def _in_thread(function: Callable[..., _T], *args: object) -> _T:
    """`function(*args)` in the patterns' thread, or Busy when MAX_QUEUED requests wait for it already."""
    global _queued
    if _queued >= MAX_QUEUED:
        raise Busy()
    _queued += 1
    try:
        return await asyncio.get_running_loop().run_in_executor(_THREAD, function, *args)
    finally:
        _queued -= 1


def problem(pattern: str) -> str | None:
    """Why a pattern is refused, or None when it is accepted."""
    found = _compiled(pattern)
    return found if isinstance(found, str) else None


def matches(pattern: str, text: str) -> bool | None:
    """Whether all of `text` matches; None for a refused pattern (one stored before it was refused)."""
    found = _compiled(pattern)
    if isinstance(found, str):
        return None
    try:
        return found.fullmatch(text) is not None
    except UnicodeEncodeError:  # a lone surrogate: the signing form (patterns.js) refuses such text too
        return False


def work(pattern: str, text: str) -> int:
    """What checking `text` costs at most, in units of MAX_WORK; nothing for a refused pattern."""
    found = _compiled(pattern)
    return 0 if isinstance(found, str) else len(text.encode(errors="surrogatepass")) * found.programsize


async def first_mismatch(checks: Sequence[tuple[str, str]]) -> int | None:
    """The index of the first `(pattern, text)` whose text does not match (refused patterns match
    everything). Refuses (Refused) checks that would cost more than MAX_WORK; runs costly ones in the
    patterns' thread, where RE2 lets go of the interpreter, so the event loop keeps serving."""
    await prepare((pattern for pattern, _ in checks), checked=False)
    total = sum(work(pattern, text) for pattern, text in checks)
    if total > MAX_WORK:
        raise Refused("values are too long to check against their fields' patterns")
    if total <= INLINE_WORK:
        return _first_mismatch(checks, _PREPARED.get() or {})
    return await _in_thread(_first_mismatch, checks, _PREPARED.get() or {})


def _first_mismatch(checks: Sequence[tuple[str, str]], prepared: dict[str, re2._Regexp | str]) -> int | None:
    token = _PREPARED.set(prepared)  # the thread runs outside the request's context
    try:
        return next((index for index, (pattern, text) in enumerate(checks) if matches(pattern, text) is False), None)
    finally:
        _PREPARED.reset(token)


def _cached(pattern: str) -> re2._Regexp | str | None:
    """A pattern's RE2 program or refusal if the request prepared it or the cache holds it; None otherwise."""
    found = (_PREPARED.get() or {}).get(pattern)
    if found is not None:
        return found
    with _CACHE_LOCK:
        found = _CACHE.get(pattern)
        if found is not None:
            _CACHE.move_to_end(pattern)
        return found


def _compiled(pattern: str) -> re2._Regexp | str:
    """The RE2 program of a pattern, or why it is refused (compiled now when neither prepared nor cached)."""
    found = _cached(pattern)
    if found is None:
        found = _compile(pattern)
        with _CACHE_LOCK:
            _CACHE[pattern] = found
            while len(_CACHE) > CACHE_SIZE:
                _CACHE.popitem(last=False)
    return found


def _compile(pattern: str) -> re2._Regexp | str:
    translated = pattern_syntax.translated(pattern)
    if isinstance(translated, Refused):
        return str(translated)
    if (estimate := _estimate(translated)) > MAX_ESTIMATE:
        return f"is too large: it would make a program of about {estimate} steps, at most {MAX_PROGRAM}"
    import re2

    try:
        compiled = re2.compile(translated, _options())
    except re2.error as error:
        reason = error.args[0] if error.args else ""
        return f"cannot be read: {reason.decode() if isinstance(reason, bytes) else reason}"
    if compiled.programsize > MAX_PROGRAM:
        return f"is too large: it makes a program of {compiled.programsize} steps, at most {MAX_PROGRAM}"
    return compiled


def _estimate(translated: str) -> int:
    """About how many steps RE2's program of a pattern (as `_Reader` writes it) takes, without compiling it: each
    atom half its written length (a `\\p{..}` its own program's size) times its repetitions' counts, nested."""
    frames, at = [[0, 0]], 0  # per open group: its steps so far and its last atom's
    while at < len(translated):
        char, start = translated[at], at
        at += 1
        if char == "(":
            at += 2  # `?:`: `_Reader` writes only such groups
            frames.append([0, 0])
            continue
        if char == ")":
            inner = frames.pop()[0]
            frames[-1][0] += inner
            frames[-1][1] = inner
            continue
        if char == "|":
            frames[-1][1] = 0
            continue
        if char in "*+?":
            continue  # one copy, already counted
        if char == "{":
            end = translated.index("}", at)
            low, _, high = translated[at:end].partition(",")
            copies = int(high or low) + (1 if _ and not high else 0)
            frames[-1][0] += frames[-1][1] * (copies - 1)
            at = end + 1
            continue
        if char == "[":
            while translated[at] != "]":
                at += 2 if translated[at] == "\\" else 1
            at += 1
        elif char == "\\":
            at = translated.index("}", at) + 1 if translated[at + 1 : at + 2] == "{" else at + 1
        atom = translated[start:at]
        weight = len(atom.encode()) // 2 + 1 + sum(_property_size(name) for name in _PROPERTY.findall(atom))
        frames[-1][0] += weight
        frames[-1][1] = weight
    return frames[0][0]


@functools.lru_cache(maxsize=512)  # the categories and scripts, with room for names that are neither
def _property_size(name: str) -> int:
    """The program size of one `\\p{name}` (0 for a name RE2 does not know: the pattern is refused)."""
    import re2

    try:
        return int(re2.compile(f"\\p{{{name}}}", _options()).programsize)
    except re2.error:
        return 0


@functools.cache
def _options() -> re2.Options:
    """The options every pattern is compiled with."""
    import re2

    options = re2.Options()
    options.log_errors = False
    options.max_mem = MAX_MEMORY
    return options
