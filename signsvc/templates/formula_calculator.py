"""A formula's tree computed: numbers are IEEE doubles, as in the signing form (pages/static/formulas.js), and every
rule below is the same there, down to the messages.

Every number, given or computed, stays within ±1e15 ("number out of range"); division or modulo by zero, a
function outside its domain (`sqrt(-1)`, `log(0)`) and a wrong type are errors, never a crash. Results are shown
`plain`: rounded half away from zero to 10 decimals, trailing zeros dropped, no exponent, no separators.
`round`, `roundup` (towards +infinity) and `rounddown` (towards -infinity) round the number's shortest decimal
form (`round(2.675, 2)` is 2.68, as written), to -15..15 places. Texts are at most 10,000 characters.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_UP, Decimal, localcontext
from typing import Any

from signsvc.templates.formula_syntax import FormulaError, Tree

LIMIT = 1e15
MAX_TEXT = 10_000
OUT_OF_RANGE = "number out of range"
Lookup = Callable[[str], Any]  # a field's value by uuid, as the formula sees it


def evaluate(tree: Tree, lookup: Lookup) -> Any:
    """The value of a tree: a float, a text, a boolean, None or a list; `FormulaError` when it has none."""
    kind = tree[0]
    if kind == "num":
        return checked(tree[1])
    if kind in ("str", "bool"):
        return tree[1]
    if kind == "null":
        return None
    if kind == "ref":
        return lookup(tree[1])
    if kind == "list":
        return [evaluate(item, lookup) for item in tree[1]]
    if kind == "neg":
        return -_number(evaluate(tree[1], lookup), "-")
    if kind == "pct":
        return _number(evaluate(tree[1], lookup), "%") / 100
    if kind == "op":
        return _operation(tree[1], tree[2], tree[3], lookup)
    return _call(tree[1], tree[2], lookup)


def plain(number: float) -> str:
    """A number as results show it: `0.1 + 0.2` is "0.3", `1/3` is "0.3333333333", `2.50` is "2.5"; "number out of
    range" beyond ±1e15."""
    rounded = Decimal(abs(checked(number))).quantize(Decimal("1e-10"), rounding=ROUND_HALF_UP)
    text = f"{rounded:f}".rstrip("0").rstrip(".")
    return text if text == "0" or number >= 0 else f"-{text}"


def stored(number: float) -> int | float:
    """A number result as a value is stored: what `plain` shows, an integer when whole."""
    text = plain(number)
    return int(text) if "." not in text else float(text)


def text(value: Any) -> str:
    """A value as interpolated into a text: numbers `plain`, true/false, nothing for null."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return plain(value)
    if value is None:
        return ""
    if isinstance(value, list):
        raise FormulaError("a list cannot be used as text")
    return str(value)


def checked(number: float) -> float:
    """The number, if within ±1e15 ("number out of range" otherwise), never -0."""
    if not math.isfinite(number) or abs(number) > LIMIT:
        raise FormulaError(OUT_OF_RANGE)
    return number + 0.0  # never -0.0: it would show as "-0"


def _number(value: Any, what: str) -> float:
    if isinstance(value, float):
        return value
    raise FormulaError(f"{what} needs numbers")


def _truth(value: Any, what: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, float):
        return value != 0
    if value is None:
        return False
    raise FormulaError(f"{what} needs true or false")


def _operation(operator: str, left: Tree, right: Tree, lookup: Lookup) -> Any:
    if operator in ("and", "or"):
        first = _truth(evaluate(left, lookup), operator)
        if first == (operator == "or"):
            return first
        return _truth(evaluate(right, lookup), operator)
    a, b = evaluate(left, lookup), evaluate(right, lookup)
    if operator in ("=", "!="):
        return _equal(a, b) == (operator == "=")
    if operator == "+" and (isinstance(a, str) or isinstance(b, str)):
        return _bounded(text(a) + text(b))
    if operator == "+" and not (isinstance(a, float) and isinstance(b, float)):
        raise FormulaError("+ needs numbers or text")
    x, y = _number(a, operator), _number(b, operator)
    if operator in _COMPARE:
        return _COMPARE[operator](x, y)
    if operator in ("|", "&", "<<", ">>"):
        return _bits(operator, x, y)
    return checked(_ARITHMETIC[operator](x, y))


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, list) or isinstance(b, list):
        raise FormulaError("= cannot compare lists")
    if isinstance(a, float) and isinstance(b, float):
        return plain(a) == plain(b)  # equal as shown: 0.1 + 0.2 = 0.3
    return type(a) is type(b) and a == b


def _divide(x: float, y: float) -> float:
    if y == 0:
        raise FormulaError("division by zero")
    return x / y


def _modulo(x: float, y: float) -> float:
    if y == 0:
        raise FormulaError("division by zero")
    return math.fmod(x, y)  # the sign of x, as JavaScript's %


def _power(x: float, y: float, what: str = "^") -> float:
    if x == 0 and y < 0:
        raise FormulaError("division by zero")
    if x < 0 and not y.is_integer():
        raise FormulaError(f"{what} cannot take these numbers")
    try:
        return math.pow(x, y)
    except OverflowError:
        raise FormulaError(OUT_OF_RANGE) from None


_ARITHMETIC: dict[str, Callable[[float, float], float]] = {
    "+": lambda x, y: x + y,
    "-": lambda x, y: x - y,
    "*": lambda x, y: x * y,
    "/": _divide,
    "%": _modulo,
    "^": _power,
}
_COMPARE: dict[str, Callable[[float, float], bool]] = {
    "<": lambda x, y: x < y,
    ">": lambda x, y: x > y,
    "<=": lambda x, y: x <= y,
    ">=": lambda x, y: x >= y,
}


def _bits(operator: str, x: float, y: float) -> float:
    if not (x.is_integer() and y.is_integer()):
        raise FormulaError(f"{operator} needs whole numbers")
    a, b = int(x), int(y)
    if operator in ("<<", ">>") and not 0 <= b <= 63:
        raise FormulaError(f"{operator} shifts by 0 to 63 places")
    result = {"|": a | b, "&": a & b, "<<": a << b, ">>": a >> b}[operator]
    if abs(result) > LIMIT:
        raise FormulaError(OUT_OF_RANGE)
    return float(result)


def _call(name: str, arguments: list[Tree], lookup: Lookup) -> Any:
    if name == "if":
        condition = _truth(evaluate(arguments[0], lookup), "if()")
        return evaluate(arguments[1] if condition else arguments[2], lookup)
    if name in ("and", "or"):  # in order, and no further than needed, as the operators
        for argument in arguments:
            if _truth(evaluate(argument, lookup), f"{name}()") == (name == "or"):
                return name == "or"
        return name == "and"
    values = [evaluate(argument, lookup) for argument in arguments]
    if name in _MATH:
        return _math(name, values)
    return _FUNCTIONS[name](name, values)


def _math(name: str, values: list[Any]) -> float:
    numbers = [_number(value, f"{name}()") for value in values]
    domain, compute = _MATH[name]
    if not domain(*numbers):
        raise FormulaError(f"{name}() cannot take these numbers")
    try:
        result = compute(*numbers)
    except OverflowError:
        raise FormulaError(OUT_OF_RANGE) from None
    return checked(result)


def _any(*_: float) -> bool:
    return True


def _log(x: float, base: float | None = None) -> float:
    return math.log(x) if base is None else math.log(x) / math.log(base)


_MATH: dict[str, tuple[Callable[..., bool], Callable[..., float]]] = {
    "abs": (_any, abs),
    "sqrt": (lambda x: x >= 0, math.sqrt),
    "cbrt": (_any, math.cbrt),
    "sin": (_any, math.sin),
    "cos": (_any, math.cos),
    "tan": (_any, math.tan),
    "asin": (lambda x: -1 <= x <= 1, math.asin),
    "acos": (lambda x: -1 <= x <= 1, math.acos),
    "atan": (_any, math.atan),
    "sinh": (lambda x: abs(x) <= 700, math.sinh),
    "cosh": (lambda x: abs(x) <= 700, math.cosh),
    "tanh": (_any, math.tanh),
    "exp": (lambda x: x <= 700, math.exp),
    "log": (lambda x, base=math.e: x > 0 and base > 0 and base != 1, _log),
    "log2": (lambda x: x > 0, math.log2),
    "log10": (lambda x: x > 0, math.log10),
    "floor": (_any, lambda x: float(math.floor(x))),
    "ceil": (_any, lambda x: float(math.ceil(x))),
    "atan2": (_any, math.atan2),
    "hypot": (_any, math.hypot),
    "pow": (lambda x, y: not (x == 0 and y < 0) and (x >= 0 or y.is_integer()), math.pow),
    "pi": (_any, lambda: math.pi),
    "e": (_any, lambda: math.e),
}


def _flat(values: list[Any]) -> list[Any]:
    return [item for value in values for item in (_flat(value) if isinstance(value, list) else [value])]


def _numbers(name: str, values: list[Any], *, fewest: int = 0) -> list[float]:
    numbers = [_number(value, f"{name}()") for value in _flat(values)]
    if len(numbers) < fewest:
        raise FormulaError(f"{name}() needs at least one number")
    return numbers


def _added(numbers: list[float]) -> float:
    """Left to right, as the form adds (no compensated sum: the two would differ in the last digits)."""
    total = 0.0
    for number in numbers:
        total += number
    return total


def _rounded(name: str, values: list[Any]) -> float:
    number = _number(values[0], f"{name}()")
    places = _number(values[1], f"{name}()") if len(values) > 1 else 0.0
    if not (places.is_integer() and -15 <= places <= 15):
        raise FormulaError(f"{name}() rounds to a whole number of places from -15 to 15")
    mode = {"round": ROUND_HALF_UP, "roundup": ROUND_CEILING, "rounddown": ROUND_FLOOR}[name]
    with localcontext() as context:
        context.prec = 60
        exact = Decimal(repr(number)).quantize(Decimal(1).scaleb(-int(places)), rounding=mode)
    return checked(float(exact))


def _texts(name: str, values: list[Any]) -> list[str]:
    if any(isinstance(value, list) for value in values):
        raise FormulaError(f"{name}() needs text")
    return [text(value) for value in values]


def _count_of(name: str, value: Any) -> int:
    number = _number(value, f"{name}()")
    if not (number.is_integer() and number >= 0):
        raise FormulaError(f"{name}() needs a whole number of characters, 0 or more")
    return int(number)


def _mid(name: str, values: list[Any]) -> str:
    [whole] = _texts(name, values[:1])
    start = _number(values[1], f"{name}()")
    if not (start.is_integer() and start >= 1):
        raise FormulaError(f"{name}() starts at a whole number from 1")
    first = min(int(start), len(whole) + 1) - 1
    return whole[first : first + _count_of(name, values[2])]


def _concat(name: str, values: list[Any]) -> str:
    return _bounded("".join(_texts(name, values)))


def _bounded(found: str) -> str:
    """The text, if it is at most 10,000 characters (a change of case may lengthen it: ß is SS)."""
    if len(found) > MAX_TEXT:
        raise FormulaError(f"a text is longer than {MAX_TEXT} characters")
    return found


def _xor(name: str, values: list[Any]) -> bool:
    return sum(_truth(value, f"{name}()") for value in values) % 2 == 1


def _right(name: str, values: list[Any]) -> str:
    whole, count = _texts(name, values[:1])[0], _count_of(name, values[1])
    return whole[max(len(whole) - count, 0) :]


_FUNCTIONS: dict[str, Callable[[str, list[Any]], Any]] = {
    "min": lambda name, values: min(_numbers(name, values, fewest=1)),
    "max": lambda name, values: max(_numbers(name, values, fewest=1)),
    "sum": lambda name, values: checked(_added(_numbers(name, values))),
    "avg": lambda name, values: checked(_added(n := _numbers(name, values, fewest=1)) / len(n)),
    "count": lambda name, values: float(len(_flat(values))),
    "round": _rounded,
    "roundup": _rounded,
    "rounddown": _rounded,
    "not": lambda name, values: not _truth(values[0], f"{name}()"),
    "xor": _xor,
    "length": lambda name, values: float(len(_texts(name, values)[0])),
    "upcase": lambda name, values: _bounded(_texts(name, values)[0].upper()),
    "downcase": lambda name, values: _bounded(_texts(name, values)[0].lower()),
    "trim": lambda name, values: _texts(name, values)[0].strip(" \t\r\n"),
    "concat": _concat,
    "left": lambda name, values: _texts(name, values[:1])[0][: _count_of(name, values[1])],
    "right": _right,
    "mid": _mid,
    "contains": lambda name, values: (lambda texts: texts[1] in texts[0])(_texts(name, values)),
}
