"""The conditions of `[[if: ...]]`: read into a tree by a parser of our own (no eval), then evaluated.

    condition := or
    or        := and { ("OR" | "||") and }                 AND/OR in any case
    and       := unary { ("AND" | "&&") unary }
    unary     := "!" unary | primary
    primary   := "(" or ")" | value [ op value ]
    op        := "==" | "=" | "!=" | ">" | "<" | ">=" | "<="   ("=" is "==")
    value     := path | "text" | 'text' | number | true | false

Trees are tuples: `("path", "a.b")`, `("lit", value)`, `("not", tree)`, `("and", left, right)`,
`("or", left, right)`, `("cmp", op, left, right)`. Reading is bounded: a condition's length and how deeply it nests.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

MAX_LENGTH = 1000
MAX_NESTING = 32
COMPARISONS = ("==", "!=", ">=", "<=", ">", "<")

Tree = tuple[Any, ...]


class SyntaxProblem(ValueError):
    """What is wrong with a condition, in words; the caller adds the tag."""


def is_path(text: str) -> bool:
    """`name` or `a.b.c`: each part a letter or `_`, then letters, digits or `_`."""
    return all(_is_identifier(part) for part in text.split("."))


def _is_identifier(part: str) -> bool:
    return bool(part) and (part[0].isalpha() or part[0] == "_") and all(c.isalnum() or c == "_" for c in part)


def parse(text: str) -> Tree:
    if len(text) > MAX_LENGTH:
        raise SyntaxProblem(f"a condition has at most {MAX_LENGTH} characters")
    tokens = list(_tokens(text))
    if not tokens:
        raise SyntaxProblem("expected a condition")
    parser = _Parser(tokens)
    tree = parser.or_expression(0)
    if parser.position < len(tokens):
        raise SyntaxProblem(f"unexpected {_shown(tokens[parser.position])}")
    return tree


def paths(tree: Tree) -> Iterator[tuple[str, str | None]]:
    """Each path a condition reads, with the type its use suggests: "boolean" when tested alone, the type of
    a literal it is compared with, None otherwise."""
    kind = tree[0]
    if kind == "path":
        yield tree[1], "boolean"
    elif kind == "not":
        yield from paths(tree[1])
    elif kind in ("and", "or"):
        yield from paths(tree[1])
        yield from paths(tree[2])
    elif kind == "cmp":
        left, right = tree[2], tree[3]
        for one, other in ((left, right), (right, left)):
            if one[0] == "path":
                yield one[1], _literal_type(other[1]) if other[0] == "lit" else None


def _literal_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    return "number" if isinstance(value, int | float) else "string"


def evaluate(tree: Tree, lookup: Callable[[str], Any]) -> bool:
    kind = tree[0]
    if kind == "not":
        return not evaluate(tree[1], lookup)
    if kind == "and":
        return bool(evaluate(tree[1], lookup) and evaluate(tree[2], lookup))
    if kind == "or":
        return bool(evaluate(tree[1], lookup) or evaluate(tree[2], lookup))
    if kind == "cmp":
        return compare(tree[1], _value(tree[2], lookup), _value(tree[3], lookup))
    return truthy(_value(tree, lookup))


def truthy(value: Any) -> bool:
    """Missing, null, false, 0, empty text, the text "false", empty lists and objects are false."""
    if isinstance(value, str):
        return value.strip() != "" and value.strip().lower() != "false"
    return bool(value)


def compare(op: str, left: Any, right: Any) -> bool:
    """Numbers compare as numbers (a text that reads as one too, "1250.00" > 1000), booleans with booleans (and the
    texts "true"/"false"), the rest as texts; a missing value equals only another missing value or empty text."""
    left, right = _comparable(left, right)
    if op == "==":
        return bool(left == right)
    if op == "!=":
        return bool(left != right)
    both_numbers = _is_number(left) and _is_number(right)  # an int and a float compare exactly
    if (type(left) is not type(right) and not both_numbers) or left is None:
        return False
    if op == ">":
        return bool(left > right)
    if op == "<":
        return bool(left < right)
    if op == ">=":
        return bool(left >= right)
    return bool(left <= right)


def _comparable(left: Any, right: Any) -> tuple[Any, Any]:
    if left is None or right is None:
        return ("" if left is None else left), ("" if right is None else right)
    numbers = _number(left), _number(right)
    if (_is_number(left) or _is_number(right)) and None not in numbers:
        return numbers
    if isinstance(left, bool) or isinstance(right, bool):
        return _boolean(left), _boolean(right)
    return _text(left), _text(right)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _number(value: Any) -> int | float | None:
    """A value as a number to compare; an int stays one, so that one too large for a float compares exactly."""
    if _is_number(value):
        return value  # type: ignore[no-any-return]
    if isinstance(value, str) and len(value) <= 50:
        try:
            return float(value.strip().replace(",", ""))
        except ValueError:
            return None
    return None


def _boolean(value: Any) -> Any:
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return value


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else str(value)


def _value(tree: Tree, lookup: Callable[[str], Any]) -> Any:
    return lookup(tree[1]) if tree[0] == "path" else tree[1]


# Tokens: ("op", text) for operators and brackets, ("word", text) for AND/OR, ("path", text), ("lit", value).
Token = tuple[str, Any]


def _tokens(text: str) -> Iterator[Token]:
    position = 0
    while position < len(text):
        char = text[position]
        if char.isspace():
            position += 1
        elif char in "\"'":
            end = text.find(char, position + 1)
            if end < 0:
                raise SyntaxProblem(f"the text opened by {char} at character {position + 1} is not closed")
            yield "lit", text[position + 1 : end]
            position = end + 1
        elif text.startswith(("&&", "||", "==", "!=", ">=", "<="), position):
            yield "op", _OPERATORS[text[position : position + 2]]
            position += 2
        elif char in "()!<>=":
            yield "op", "==" if char == "=" else char
            position += 1
        elif char.isdigit() or (char == "-" and position + 1 < len(text) and text[position + 1].isdigit()):
            end = _number_end(text, position + 1)
            literal = text[position:end]
            yield "lit", float(literal) if "." in literal else int(literal)
            position = end
        elif char.isalpha() or char == "_":
            end = position + 1
            while end < len(text) and (text[end].isalnum() or text[end] in "_."):
                end += 1
            yield _word(text[position:end])
            position = end
        else:
            raise SyntaxProblem(f"unexpected character {char!r}")


_OPERATORS = {"&&": "and", "||": "or", "==": "==", "!=": "!=", ">=": ">=", "<=": "<="}


def _number_end(text: str, position: int) -> int:
    seen_point = False
    while position < len(text) and (text[position].isdigit() or (text[position] == "." and not seen_point)):
        seen_point = seen_point or text[position] == "."
        position += 1
    if text[position - 1] == ".":
        raise SyntaxProblem(f"{text[:position]!r} is not a number")
    return position


def _word(word: str) -> Token:
    lowered = word.lower()
    if lowered in ("and", "or"):
        return "op", lowered
    if word in ("true", "false"):
        return "lit", word == "true"
    if not is_path(word):
        raise SyntaxProblem(f"{word!r} is not a variable name")
    return "path", word


def _shown(token: Token) -> str:
    kind, value = token
    if kind == "op":
        return str(value).upper() if value in ("and", "or") else str(value)
    if kind == "lit":
        return repr(value) if isinstance(value, str) else str(value).lower()
    return str(value)


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens, self.position = tokens, 0

    def or_expression(self, depth: int) -> Tree:
        tree = self.and_expression(depth)
        while self._takes("or"):
            tree = ("or", tree, self.and_expression(depth))
        return tree

    def and_expression(self, depth: int) -> Tree:
        tree = self.unary(depth)
        while self._takes("and"):
            tree = ("and", tree, self.unary(depth))
        return tree

    def unary(self, depth: int) -> Tree:
        if depth > MAX_NESTING:
            raise SyntaxProblem(f"a condition nests at most {MAX_NESTING} levels")
        if self._takes("!"):
            return ("not", self.unary(depth + 1))
        if self._takes("("):
            tree = self.or_expression(depth + 1)
            if not self._takes(")"):
                raise SyntaxProblem("expected ) to close (")
            return tree
        left = self._operand(self._previous_text())
        token = self._peek()
        if token is not None and token[0] == "op" and token[1] in COMPARISONS:
            self.position += 1
            return ("cmp", token[1], left, self._operand(f"after {token[1]}"))
        return left

    def _operand(self, where: str) -> Tree:
        token = self._peek()
        if token is None or token[0] not in ("path", "lit"):
            found = f", found {_shown(token)}" if token is not None else ""
            raise SyntaxProblem(f"expected a value {where}{found}".replace("  ", " "))
        self.position += 1
        return token

    def _previous_text(self) -> str:
        if self.position == 0:
            return "at the start"
        return f"after {_shown(self.tokens[self.position - 1])}"

    def _peek(self) -> Token | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def _takes(self, op: str) -> bool:
        token = self._peek()
        if token is not None and token == ("op", op):
            self.position += 1
            return True
        return False
