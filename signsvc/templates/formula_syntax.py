"""The calculator grammar of a field's `preferences.formula`, read into a tree: the same grammar, the same trees
and the same messages as the signing form's reader (pages/static/formulas.js), tested on one table of cases
(tests/files/formula_cases.json).

Precedence, low to high: `and or && ||` < `= == != <> < > <= >=` < `+ - | & << >>` < `* / %` < `^` and the
postfix percent `%` < unary `-` and `+`. `^` groups from the right, the rest from the left. A `%` after an
operand is modulo when an operand follows it, else a percent (`50%` is 0.5). Literals: numbers (`1.5`, `.5`,
`1e3`, `0x1F`), texts in double or single quotes (no escapes), `true`, `false`, `null`, lists `{1, 2, 3}`; a field
is `{{uuid}}`; comments `/* ... */`. Names of functions and words are read in any case.

Trees are tuples: `("num", 1.5)`, `("str", "a")`, `("bool", True)`, `("null",)`, `("ref", uuid)`,
`("list", [trees])`, `("neg", tree)`, `("pct", tree)`, `("op", "+", left, right)`, `("call", name, [trees])`.
Reading is bounded: the text's length, how deeply it nests, a number's digits.
"""

from __future__ import annotations

import re
from typing import Any

MAX_LENGTH = 2000  # characters of a formula, not counting what its references name
MAX_NESTING = 100  # the reader inside itself: brackets, lists, calls, signs (about 50 brackets deep)
MAX_HEIGHT = 200  # operations inside one another once read: a sum of 200 terms
_REFERENCE = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
# One token at a place, the first alternative that matches: the same order as the signing form's reader.
_TOKEN = re.compile(
    r"""(?P<space>[ \t\r\n]+)
    |(?P<comment>/\*.*?\*/)|(?P<open_comment>/\*)
    |(?P<ref>\{\{.*?\}\})|(?P<open_ref>\{\{)
    |(?P<str>"[^"]*"|'[^']*')|(?P<open_str>["'])
    |(?P<num>0[xX][0-9a-fA-F]{1,13}|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)
    |(?P<name>[A-Za-z_][A-Za-z0-9_]*)
    |(?P<op>&&|\|\||==|!=|<>|<=|>=|<<|>>|[=<>+\-*/%^|&])
    |(?P<punctuation>[(){},])""",
    re.DOTALL | re.VERBOSE,
)
_UNCLOSED = {"open_comment": "the comment", "open_ref": "the field reference", "open_str": "the text"}
_BINARY = {
    **dict.fromkeys(("and", "or", "&&", "||"), 0),
    **dict.fromkeys(("=", "==", "!=", "<>", "<", ">", "<=", ">="), 5),
    **dict.fromkeys(("+", "-", "|", "&", "<<", ">>"), 10),
    **dict.fromkeys(("*", "/", "%"), 20),
    "^": 30,
}
_STARTS = {"num", "str", "name", "ref", "(", "{"}  # tokens that begin an operand after a `%` (then it is modulo)
# Each function with its fewest and most arguments (None: any number).
ARITY: dict[str, tuple[int, int | None]] = {
    **dict.fromkeys(("abs", "sqrt", "cbrt", "sin", "cos", "tan", "asin", "acos", "atan"), (1, 1)),
    **dict.fromkeys(("sinh", "cosh", "tanh", "exp", "log2", "log10", "floor", "ceil", "not"), (1, 1)),
    **dict.fromkeys(("length", "upcase", "downcase", "trim"), (1, 1)),
    **dict.fromkeys(("round", "roundup", "rounddown", "log"), (1, 2)),
    **dict.fromkeys(("atan2", "pow", "left", "right", "contains"), (2, 2)),
    **dict.fromkeys(("min", "max", "avg", "hypot", "and", "or", "xor"), (1, None)),
    **dict.fromkeys(("sum", "count", "concat"), (0, None)),
    **dict.fromkeys(("pi", "e"), (0, 0)),
    "if": (3, 3),
    "mid": (3, 3),
}

Tree = tuple[Any, ...]
TOO_DEEP = "the formula nests too deeply"


class FormulaError(Exception):
    """Why a formula cannot be read or computed, in words shared with the signing form."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def parse(text: str) -> Tree:
    """The tree of a formula; `FormulaError` saying what is wrong and where (counting characters from 1)."""
    return read(text)[0]


def read(text: str) -> tuple[Tree, int]:
    """The tree of a formula and its height (how many operations deep it goes, 1 for a single value)."""
    if written_length(text) > MAX_LENGTH:
        raise FormulaError(f"the formula is longer than {MAX_LENGTH} characters")
    return _Parser(tokens(text)).whole()


def written_length(text: str) -> int:
    """A formula's length, not counting what its references name: the same whether they name a field by its
    name (as written) or by its uuid (as stored)."""
    return len(_REFERENCE.sub("{{}}", text))


def tokens(text: str) -> list[tuple[str, Any, int]]:
    """`(kind, value, position)`: kinds num, str, name (lower case), ref, op, punctuation as itself, end."""
    found: list[tuple[str, Any, int]] = []
    at = 0
    while at < len(text):
        token = _TOKEN.match(text, at)
        if token is None:
            raise FormulaError(f"unexpected character '{text[at]}' at {at + 1}")
        kind, start, word = token.lastgroup, at + 1, token.group()
        if kind in _UNCLOSED:
            raise FormulaError(f"{_UNCLOSED[kind]} at {start} is not closed")
        if kind == "ref":
            found.append(("ref", word[2:-2].strip(), start))
        elif kind == "str":
            found.append(("str", word[1:-1], start))
        elif kind == "num":
            found.append(("num", _number(word, start), start))
        elif kind == "name":
            found.append(("name", word.lower(), start))
        elif kind == "op":
            found.append(("op", word, start))
        elif kind == "punctuation":
            found.append((word, word, start))
        at = token.end()
    found.append(("end", None, len(text) + 1))
    return found


def _number(text: str, start: int) -> float:
    if text[:2].lower() == "0x":
        return float(int(text, 16))
    if len(text) > 40:
        raise FormulaError(f"the number at {start} has too many digits")
    return float(text)


class _Parser:
    def __init__(self, found: list[tuple[str, Any, int]]) -> None:
        self.found, self.at, self.depth = found, 0, 0
        self.heights: dict[int, int] = {}

    def whole(self) -> tuple[Tree, int]:
        if self._peek()[0] == "end":
            raise FormulaError("the formula is empty")
        tree = self.expression(0)
        kind, value, position = self._peek()
        if kind != "end":
            raise FormulaError(f"unexpected {_shown(kind, value)} at {position}")
        return tree, self.heights.get(id(tree), 1)

    def expression(self, lowest: int) -> Tree:
        self._nest()
        left = self.operand()
        while True:
            kind, value, _ = self._peek()
            operator = value if kind in ("op", "name") else None
            level = _BINARY.get(operator) if isinstance(operator, str) else None
            if level is None or level < lowest:
                self.depth -= 1
                return left
            self.at += 1
            if operator == "%" and not self._starts_operand():
                left = self._node(("pct", left), left)
                continue
            right = self.expression(level if operator == "^" else level + 1)
            left = self._node(("op", _CANONICAL.get(str(operator), operator), left, right), left, right)

    def operand(self) -> Tree:
        self._nest()
        kind, value, position = self._next()
        if kind == "op" and value in ("-", "+"):
            inner = self.operand()
            tree: Tree = self._node(("neg", inner), inner) if value == "-" else inner
        elif kind in ("num", "str", "ref"):
            tree = (kind, value)
        elif kind == "(":
            tree = self.expression(0)
            self._expect(")")
        elif kind == "{":
            items = self._items("}")
            tree = self._node(("list", items), *items)
        elif kind == "name":
            tree = self._named(value, position)
        else:
            raise FormulaError(f"expected a value at {position}, found {_shown(kind, value)}")
        self.depth -= 1
        return tree

    def _starts_operand(self) -> bool:
        kind, value, _ = self._peek()
        return kind in _STARTS and not (kind == "name" and value in ("and", "or"))

    def _node(self, tree: Tree, *children: Tree) -> Tree:
        """`tree`, its height kept (by identity: every node stays in the tree being read)."""
        height = 1 + max((self.heights.get(id(child), 1) for child in children), default=0)
        if height > MAX_HEIGHT:
            raise FormulaError(TOO_DEEP)
        self.heights[id(tree)] = height
        return tree

    def _named(self, name: str, position: int) -> Tree:
        if self._peek()[0] == "(":
            self.at += 1
            return self._call(name, position, self._items(")"))
        words: dict[str, Tree] = {"true": ("bool", True), "false": ("bool", False), "null": ("null",)}
        if name in words:
            return words[name]
        raise FormulaError(f"unknown name '{name}' at {position}")

    def _call(self, name: str, position: int, arguments: list[Tree]) -> Tree:
        if name not in ARITY:
            raise FormulaError(f"unknown function {name}() at {position}")
        fewest, most = ARITY[name]
        if len(arguments) < fewest or (most is not None and len(arguments) > most):
            raise FormulaError(f"{name}() takes {_count(fewest, most)}, not {len(arguments)}")
        return self._node(("call", name, arguments), *arguments)

    def _items(self, closer: str) -> list[Tree]:
        items: list[Tree] = []
        if self._peek()[0] == closer:
            self.at += 1
            return items
        while True:
            items.append(self.expression(0))
            kind, value, position = self._next()
            if kind == closer:
                return items
            if kind != ",":
                raise FormulaError(f"expected , or {closer} at {position}, found {_shown(kind, value)}")

    def _expect(self, kind: str) -> None:
        found, value, position = self._next()
        if found != kind:
            raise FormulaError(f"expected {kind} at {position}, found {_shown(found, value)}")

    def _nest(self) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise FormulaError(TOO_DEEP)

    def _peek(self) -> tuple[str, Any, int]:
        return self.found[self.at]

    def _next(self) -> tuple[str, Any, int]:
        token = self.found[self.at]
        if token[0] != "end":
            self.at += 1
        return token


_CANONICAL = {"&&": "and", "||": "or", "==": "=", "<>": "!="}


def _shown(kind: str, value: Any) -> str:
    if kind == "end":
        return "the end"
    if kind == "num":
        return "a number"
    if kind == "str":
        return "a text"
    if kind == "ref":
        return "a field"
    return f"'{value}'"


def _count(fewest: int, most: int | None) -> str:
    if most is None:
        return f"at least {fewest} argument{'s' if fewest != 1 else ''}"
    if fewest == most:
        return f"{fewest} argument{'s' if fewest != 1 else ''}"
    return f"{fewest} to {most} arguments"


def references(tree: Tree) -> list[str]:
    """The field references of a tree, in the order written."""
    if tree[0] == "ref":
        return [tree[1]]
    found: list[str] = []
    for part in tree[1:]:
        for item in part if isinstance(part, list) else [part]:
            if isinstance(item, tuple):
                found += references(item)
    return found
