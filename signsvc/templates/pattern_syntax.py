"""The syntax of text fields' validation patterns: one that the signing form (JavaScript's `RegExp` with the `u`
flag, as `^(?:pattern)$`) and the service (RE2, in time linear in the text) read the same way.

A pattern is read here by that syntax and written again for RE2 where the two differ (`.`, `\\s`, `\\u`
escapes); anything outside it, anything RE2 cannot run (backreferences, lookaround) and anything the
engines read differently (`(?i)`, `(?P<name>`, `\\A`, `\\z`, `[[:alpha:]]`, `\\pL` ...) is refused with
the reason. The accepted syntax:

- characters stand for themselves, except `^ $ \\ . * + ? ( ) [ ] { } |`, which are escaped with `\\`
  to stand for themselves (as may be `/`); `^` and `$` anchor at the start and end of the text;
- `.` is any character but a line break (`\\n`, `\\r`, U+2028, U+2029);
- `\\d \\D \\w \\W \\s \\S \\b \\B` as JavaScript has them (`\\d` and `\\w` ASCII; `\\s` Unicode spaces);
- `\\t \\n \\v \\f \\r`, `\\xHH`, `\\uHHHH`, `\\u{H...}` (never a surrogate);
- `\\p{..}` and `\\P{..}` with a general category (`L`, `Lu`, `Nd` ...) or `Script=Name` / `sc=Name` with
  a script's long name (`Latin`, `Greek`);
- classes `[...]` and `[^...]`, not empty, with ranges and the escapes above; `-` first or last, else `\\-`;
  a `[` inside is `\\[`;
- groups `(...)`, `(?:...)`, `(?<name>...)`; alternatives `|`;
- repetitions `* + ? {n} {n,} {n,m}` (n and m at most 1,000), lazy with a `?` after them.
"""

from __future__ import annotations

import string

MAX_LENGTH = 1000  # characters of a pattern
MAX_REPEAT = 1000  # RE2's own limit on a repetition's count
MAX_DEPTH = 100  # groups inside groups
_SYNTAX = set("^$\\.*+?()[]{}|/")
_CONTROLS = {"t": 9, "n": 10, "v": 11, "f": 12, "r": 13}
_SPACE_RANGES = (
    (0x09, 0x0D),
    (0x20, 0x20),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
)
_LINE_BREAKS = ((0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029))
_CATEGORIES = {
    "C",
    "Cc",
    "Cf",
    "Co",
    "Cs",
    "L",
    "Ll",
    "Lm",
    "Lo",
    "Lt",
    "Lu",
    "M",
    "Mc",
    "Me",
    "Mn",
    "N",
    "Nd",
    "Nl",
    "No",
    "P",
    "Pc",
    "Pd",
    "Pe",
    "Pf",
    "Pi",
    "Po",
    "Ps",
    "S",
    "Sc",
    "Sk",
    "Sm",
    "So",
    "Z",
    "Zl",
    "Zp",
    "Zs",
}
_NAME_START = set(string.ascii_letters + "_$")
_NAME_REST = _NAME_START | set(string.digits)


class Refused(ValueError):
    """A pattern outside the accepted syntax, with the reason."""


def translated(pattern: str) -> str | Refused:
    if len(pattern) > MAX_LENGTH:
        return Refused(f"is longer than {MAX_LENGTH} characters")
    try:
        return _Reader(pattern).translated()
    except Refused as refused:
        return refused


class _Reader:
    """Reads a pattern by the accepted syntax and writes it for RE2."""

    def __init__(self, pattern: str) -> None:
        self.pattern, self.at, self.names = pattern, 0, set[str]()

    def translated(self) -> str:
        result = self._alternatives(0)
        if self.at < len(self.pattern):  # only a `)` stops the alternatives early
            raise Refused(f"has a ) without its ( at {self.at + 1}")
        return result

    def _peek(self, offset: int = 0) -> str:
        at = self.at + offset
        return self.pattern[at] if at < len(self.pattern) else ""

    def _take(self) -> str:
        if self.at >= len(self.pattern):
            raise Refused("ends too early")
        self.at += 1
        return self.pattern[self.at - 1]

    def _alternatives(self, depth: int) -> str:
        parts = [self._sequence(depth)]
        while self._peek() == "|":
            self.at += 1
            parts.append(self._sequence(depth))
        return "|".join(parts)

    def _sequence(self, depth: int) -> str:
        out = []
        while self._peek() not in ("", "|", ")"):
            atom, repeatable = self._atom(depth)
            out.append(atom + self._repetition(repeatable))
        return "".join(out)

    def _atom(self, depth: int) -> tuple[str, bool]:
        """An atom as RE2 writes it, and whether it may be repeated (anchors may not)."""
        start, char = self.at, self._take()
        if char == "(":
            return self._group(depth + 1, start), True
        if char == "[":
            return self._class(), True
        if char == "\\":
            escape = self._escape(in_class=False)
            return escape, escape not in ("\\b", "\\B")
        if char == ".":
            return _class_of(_LINE_BREAKS, negated=True), True
        if char in "^$":
            return char, False
        if char in "*+?":
            raise Refused(f"has {char} with nothing to repeat at {start + 1}")
        if char == "{":
            raise Refused(f"has a {{ that starts no repetition at {start + 1}: write \\{{ for the character")
        if char in "]}":
            raise Refused(f"has a {char} without its opening at {start + 1}: write \\{char} for the character")
        return _literal(ord(char)), True

    def _group(self, depth: int, start: int) -> str:
        if depth > MAX_DEPTH:
            raise Refused(f"has groups nested deeper than {MAX_DEPTH}")
        if self._peek() == "?":
            self._group_kind(start)
        inner = self._alternatives(depth)
        if self._peek() != ")":
            raise Refused(f"has a ( without its ) at {start + 1}")
        self.at += 1
        return f"(?:{inner})"

    def _group_kind(self, start: int) -> None:
        """Reads what follows `(?`: only `:` and a name are accepted."""
        head = self.pattern[self.at : self.at + 3]
        if head.startswith("?:"):
            self.at += 2
        elif head in ("?<=", "?<!") or head[:2] in ("?=", "?!"):
            raise Refused(f"has a lookaround at {start + 1}, which is not supported")
        elif head.startswith("?<"):
            self.at += 2
            self._group_name(start)
        elif head.startswith("?P"):
            raise Refused(f"has (?P at {start + 1}: name a group as (?<name>...)")
        else:
            raise Refused(f"has ({head[:2]} at {start + 1}: inline flags and other (? groups are not supported")

    def _group_name(self, start: int) -> None:
        end = self.pattern.find(">", self.at)
        name = self.pattern[self.at : end] if end >= 0 else ""
        if not name or name[0] not in _NAME_START or not set(name) <= _NAME_REST:
            raise Refused(f"has a group name at {start + 1} that is not letters, digits, _ or $")
        if name in self.names:
            raise Refused(f"names two groups {name}")
        self.names.add(name)
        self.at = end + 1

    def _repetition(self, repeatable: bool) -> str:
        start, char = self.at, self._peek()
        if char in ("*", "+", "?"):
            self.at += 1
            found = char
        elif char == "{" and (bounds := self._bounds()) is not None:
            found = bounds
        else:
            return ""
        if not repeatable:
            raise Refused(f"repeats an anchor at {start + 1}")
        if self._peek() == "?":
            self.at += 1
            found += "?"
        if self._peek() in ("*", "+", "?") or (self._peek() == "{" and self._bounds(move=False) is not None):
            raise Refused(f"repeats a repetition at {self.at + 1}: put it in a group first")
        return found

    def _bounds(self, move: bool = True) -> str | None:
        """`{n}`, `{n,}` or `{n,m}` at the position, else None."""
        end = self.pattern.find("}", self.at)
        body = self.pattern[self.at + 1 : end] if end >= 0 else ""
        low, comma, high = body.partition(",")
        if not (low.isascii() and low.isdigit() and (not high or (high.isascii() and high.isdigit()))):
            return None
        if int(low) > MAX_REPEAT or (high and int(high) > MAX_REPEAT):
            raise Refused(f"repeats more than {MAX_REPEAT} times at {self.at + 1}")
        if high and int(high) < int(low):
            raise Refused(f"has a repetition {{{body}}} out of order at {self.at + 1}")
        if move:
            self.at = end + 1
        return "{" + str(int(low)) + comma + (str(int(high)) if high else "") + "}"

    def _escape(self, in_class: bool) -> str:
        """What follows a `\\`, as RE2 writes it (the inside of a class when `in_class`)."""
        start, char = self.at - 1, self._take()
        if char in "dDwW":
            return "\\" + char
        if char == "s":
            return _class_of(_SPACE_RANGES, negated=False, bare=in_class)
        if char == "S":
            return _class_of(_SPACE_RANGES, negated=True, bare=in_class)
        if char in "bB" and not in_class:
            return "\\" + char
        if char in _CONTROLS:
            return _literal(_CONTROLS[char])
        if char in "pP":
            return self._property(char, start)
        if char in "xu":
            return _literal(self._code_point(char, start))
        if char in _SYNTAX or (in_class and char == "-"):
            return _literal(ord(char))
        if char.isdigit() or char == "k":
            raise Refused(f"has a backreference or octal escape \\{char} at {start + 1}, which is not supported")
        raise Refused(
            f"has \\{char} at {start + 1}, which is not supported"
            + (" inside [...]" if in_class and char in "bB" else "")
        )

    def _code_point(self, kind: str, start: int) -> int:
        if kind == "u" and self._peek() == "{":
            end = self.pattern.find("}", self.at)
            digits = self.pattern[self.at + 1 : end] if end >= 0 else ""
            self.at = end + 1
        else:
            digits = self.pattern[self.at : self.at + (2 if kind == "x" else 4)]
            self.at += len(digits)
            if len(digits) != (2 if kind == "x" else 4):
                digits = ""
        if not digits or not all(c in string.hexdigits for c in digits) or int(digits, 16) > 0x10FFFF:
            raise Refused(f"has \\{kind} at {start + 1} without its hexadecimal digits")
        code = int(digits, 16)
        if 0xD800 <= code <= 0xDFFF:
            raise Refused(f"has a surrogate \\{kind} at {start + 1}: write the character as \\u{{...}}")
        return code

    def _property(self, kind: str, start: int) -> str:
        end = self.pattern.find("}", self.at)
        if self._peek() != "{" or end < 0:
            raise Refused(f"has \\{kind} at {start + 1} without {{...}}: write \\{kind}{{L}}")
        name = self.pattern[self.at + 1 : end]
        self.at = end + 1
        key, _, value = name.rpartition("=")
        if (
            key in ("Script", "sc")
            and value.isascii()
            and value.replace("_", "").isalpha()
            and value not in _CATEGORIES
            and value != "Any"
        ) or (not key and name in _CATEGORIES):
            return f"\\{kind}{{{value}}}"
        raise Refused(
            f"has \\{kind}{{{name}}} at {start + 1}: only general categories such as \\{kind}{{L}} and "
            f"scripts such as \\{kind}{{Script=Latin}} are supported"
        )

    def _class(self) -> str:
        start = self.at - 1
        negated = self._peek() == "^"
        self.at += negated
        if self._peek() == "]":
            raise Refused(f"has an empty class at {start + 1}")
        items: list[str] = []
        while self._peek() != "]":
            if self._peek() == "":
                raise Refused(f"has a [ without its ] at {start + 1}")
            items.append(self._class_item(first=not items))
        self.at += 1
        return ("[^" if negated else "[") + "".join(items) + "]"

    def _class_item(self, first: bool) -> str:
        start = self.at
        low, single = self._class_atom(first)
        if self._peek() != "-" or self._peek(1) in ("]", ""):
            return low
        self.at += 1
        high, high_single = self._class_atom(first=False)
        if single is None or high_single is None:
            raise Refused(f"has a range at {start + 1} whose end is a class: write \\- for the character")
        if high_single < single:
            raise Refused(f"has a range out of order at {start + 1}")
        return f"{low}-{high}"

    def _class_atom(self, first: bool) -> tuple[str, int | None]:
        """One character of a class as RE2 writes it and its code point (None for a class such as `\\d`)."""
        start, char = self.at, self._take()
        if char == "\\":
            escape = self._escape(in_class=True)
            code = _code_of(escape)
            return escape, code
        if char == "[":
            raise Refused(f"has a [ inside [...] at {start + 1}: write \\[ for the character")
        if char == "-" and not (first or self._peek() == "]"):
            raise Refused(f"has a - inside [...] at {start + 1} that is neither first nor last: write \\-")
        return _literal(ord(char)), ord(char)


def _literal(code: int) -> str:
    char = chr(code)
    return char if char.isascii() and char.isalnum() else f"\\x{{{code:x}}}"


def _code_of(written: str) -> int | None:
    """The code point of a character as `_literal` writes it, None for anything else."""
    if written.startswith("\\x{") and written.count("\\") == 1:
        return int(written[3:-1], 16)
    return ord(written) if len(written) == 1 else None


def _class_of(ranges: tuple[tuple[int, int], ...], *, negated: bool, bare: bool = False) -> str:
    """A class of the code point ranges (or of all others); `bare`: its inside, to go in another class."""
    if negated and bare:
        ranges, negated = _complement(ranges), False
    inside = "".join(_literal(low) if low == high else f"{_literal(low)}-{_literal(high)}" for low, high in ranges)
    return inside if bare else ("[^" if negated else "[") + inside + "]"


def _complement(ranges: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    found, next_code = [], 0
    for low, high in ranges:
        if low > next_code:
            found.append((next_code, low - 1))
        next_code = high + 1
    found.append((next_code, 0x10FFFF))
    return tuple(found)
