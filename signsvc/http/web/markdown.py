"""The small, safe Markdown of a field's `title` and `description`, read in one pass (time linear in the text, however
it is written): everything escaped first, so no HTML of the author's reaches the page; bold, italic and code spans,
and links to http(s) and mailto addresses; in a block, paragraphs, line breaks and bulleted lists. Marks always nest
(`***a***` is `<em><strong>a</strong></em>`); a mark that is never closed stays as written."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from markupsafe import Markup, escape

# Link text holds no bracket, so that each try reads only up to the next one.
_LINK = re.compile(r"\[([^\[\]\n]+)\]\(((?:https?://|mailto:)[^\s()]+)\)")
_ITEM = re.compile(r"[ \t]*[-*+][ \t]+(.*)")
_TAGS = {1: "em", 2: "strong"}


def inline(text: object) -> Markup:
    """One line (a title): its marks; line breaks as spaces."""
    return Markup(_marks(str(escape(" ".join(str(text or "").split())))))


def block(text: object) -> Markup:
    """Text of paragraphs (split by blank lines), each a bulleted list when all its lines are items."""
    parts = []
    for lines in _paragraphs(str(text or "")):
        items = [_ITEM.fullmatch(line) for line in lines]
        if all(items):
            parts.append(
                "<ul>" + "".join(f"<li>{_marks(str(escape(item[1])))}</li>" for item in items if item) + "</ul>"
            )
        else:
            parts.append("<p>" + "<br>".join(_marks(str(escape(line.strip()))) for line in lines) + "</p>")
    return Markup("".join(parts))


def _paragraphs(text: str) -> list[list[str]]:
    found: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.strip():
            found[-1].append(line)
        elif found[-1]:
            found.append([])
    return [lines for lines in found if lines]


@dataclass
class _Opener:
    """A run of `*` or `_` that may open marks: the characters not yet used, and the tags opened, innermost last."""

    char: str
    left: int
    tags: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return self.char * self.left + "".join(f"<{tag}>" for tag in reversed(self.tags))


class _Openers:
    """The openers not yet closed, and how many of each character (so that a closer with none is told at once)."""

    def __init__(self) -> None:
        self.stack: list[_Opener] = []
        self.counts = {"*": 0, "_": 0}

    def push(self, opener: _Opener) -> None:
        self.stack.append(opener)
        self.counts[opener.char] += 1

    def nearest(self, char: str) -> _Opener | None:
        """The last opener of `char`; the openers after it are dropped (never closed: they stay as written)."""
        if not self.counts[char]:
            return None
        while self.stack[-1].char != char:
            self.counts[self.stack.pop().char] -= 1
        return self.stack[-1]

    def pop(self) -> None:
        self.counts[self.stack.pop().char] -= 1


def _marks(escaped: str) -> str:
    """The inline marks of escaped text, in one pass over it."""
    out: list[str | _Opener] = []
    openers = _Openers()
    at, closable = 0, True  # closable: a backtick may still close a code span
    while at < len(escaped):
        char = escaped[at]
        if char == "`" and closable:
            end = escaped.find("`", at + 1)
            closable = end > 0
            if end > at + 1:
                out.append(f"<code>{escaped[at + 1 : end]}</code>")
                at = end + 1
                continue
        if char == "[" and (link := _LINK.match(escaped, at)):
            address = link[2]
            out.append(f'<a href="{address}" target="_blank" rel="noopener noreferrer">{_marks(link[1])}</a>')
            at = link.end()
        elif char in "*_":
            end = at
            while end < len(escaped) and escaped[end] == char:
                end += 1
            out.extend(_delimiters(escaped, at, end, openers))
            at = end
        else:
            out.append(char)
            at += 1
    return "".join(map(str, out))


def _delimiters(text: str, start: int, end: int, openers: _Openers) -> list[str | _Opener]:
    """A run of `*` or `_`: the marks it closes (each with the nearest opener of its character), then an opener of
    what is left if it may open."""
    char, count = text[start], end - start
    before, after = text[start - 1] if start else " ", text[end] if end < len(text) else " "
    intraword = char == "_"  # snake_case stays as written
    may_close = not before.isspace() and not (intraword and after.isalnum())
    may_open = not after.isspace() and not (intraword and before.isalnum())
    closing = ""
    while may_close and count and (opener := openers.nearest(char)) is not None:
        used = 2 if count >= 2 and opener.left >= 2 else 1
        opener.left, count = opener.left - used, count - used
        opener.tags.append(_TAGS[used])
        closing += f"</{_TAGS[used]}>"
        if not opener.left:
            openers.pop()
    if count and may_open:
        openers.push(opener := _Opener(char, count))
        return [closing, opener]
    return [closing + char * count]
