"""How a signature's caption (its id, the reason or who signed, the time) fills its box. Each line is sized on its
own: the largest the box's height leaves it, shrunk until it fits the width. The lines that fit at a readable size
are drawn at the smallest of their sizes, alike; a line that would be smaller (a long reason, or who signed) is
wrapped onto rows instead, at the largest size the height left over allows, down to the readable size, and cut
with an ellipsis where even then the box has no more room. So one long line no longer makes every line tiny.
Pure: `measure` answers a text's width at font size 1."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from signsvc.pdf import text_size

READABLE = 5.0  # points: the smallest a caption line is drawn at, wherever the box is tall enough for it
ELLIPSIS = "..."  # in every font
_STEP = 0.9  # each smaller size a wrapped line tries, as a share of the one before

Measure = Callable[[str], float]


@dataclass(frozen=True)
class Row:
    text: str
    size: float  # points


def rows(lines: list[str], width: float, height: float, measure: Measure, *, leading: float) -> list[Row]:
    """The rows the caption's `lines` are drawn on, top to bottom, in a box `width` by `height` points; a row
    takes `leading` times its size in height."""
    largest = text_size.in_box({}, height, len(lines))
    readable = min(READABLE, largest)  # a box too low for readable text keeps the size its height allows
    own = [_fitting(line, width, largest, measure) for line in lines]
    long = [index for index, size in enumerate(own) if size < readable]
    size = min((own[index] for index in range(len(lines)) if index not in long), default=largest)
    room = (height - (len(lines) - len(long)) * size * leading) / len(long) if long else 0.0
    found: list[Row] = []
    for index, line in enumerate(lines):
        if index in long:
            found += _wrapped(line, width, size, readable, room, measure, leading)
        else:
            found.append(Row(line, size))
    return found


def _fitting(line: str, width: float, largest: float, measure: Measure) -> float:
    """The line's size on one row: `largest`, shrunk until it fits the width."""
    wide = measure(line) * largest
    return largest if wide <= width or width <= 0 else largest * width / wide


def _wrapped(
    line: str, width: float, largest: float, readable: float, room: float, measure: Measure, leading: float
) -> list[Row]:
    """A line too wide for one readable row, on as many rows as `room` (points of height) holds."""
    size = largest
    while size > readable:
        texts = _wrap(line, width / size, measure)
        if len(texts) * size * leading <= room:
            return [Row(text, size) for text in texts]
        size = max(size * _STEP, readable)
    texts = _wrap(line, width / readable, measure)
    most = max(1, int(room // (readable * leading)))
    if len(texts) > most:
        texts = [*texts[: most - 1], _cut(texts[most - 1], width / readable, measure)]
    return [Row(text, readable) for text in texts]


def _wrap(text: str, limit: float, measure: Measure) -> list[str]:
    """`text` on rows no wider than `limit` (at size 1): broken between words, and inside a word too long for a
    row of its own."""
    found: list[str] = []
    current = ""
    for word in text.split(" "):
        joined = f"{current} {word}" if current else word
        if measure(joined) <= limit:
            current = joined
            continue
        if current:
            found.append(current)
        while len(word) > 1 and measure(word) > limit:
            cut = _fitting_prefix(word, limit, measure)
            found.append(word[:cut])
            word = word[cut:]
        current = word
    return [*found, current] if current else found


def _fitting_prefix(word: str, limit: float, measure: Measure) -> int:
    """How many of the word's first characters fit `limit` (at least one)."""
    count = 1
    while count < len(word) and measure(word[: count + 1]) <= limit:
        count += 1
    return count


def _cut(text: str, limit: float, measure: Measure) -> str:
    """The last row that fits, ended with an ellipsis: the line goes on beyond the box."""
    while text and measure(text + ELLIPSIS) > limit:
        text = text[:-1]
    return text.rstrip() + ELLIPSIS
