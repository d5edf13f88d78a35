"""A field's value as text, the same on the documents and on the signing page: dates in the field's
format, numbers in theirs. Light: no PDF library is loaded."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

DATE_FORMAT = "DD/MM/YYYY"
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
CURRENCIES = {"usd": "$", "eur": "€", "gbp": "£"}
# Read in capitals only, as DocuSeal writes them: "DD de MMMM de YYYY" keeps its "de", "HH:mm" is no month.
DATE_TOKENS = re.compile(r"YYYY|YY|MMMM|MMM|MM|M|DD|D")


def text_of(kind: str, value: object, preferences: dict[str, Any]) -> str:
    """A value of a field of type `kind` as its field's `preferences` (`format`) show it."""
    if kind == "date":
        return format_date(value, preferences.get("format") or DATE_FORMAT)
    if kind == "number":
        return format_number(value, preferences.get("format"))
    return str(value)


def format_date(value: object, format: str) -> str:
    """A stored date ("YYYY-MM-DD") in a format such as "DD/MM/YYYY" or "MMMM D, YYYY"; other values as given."""
    try:
        day = date.fromisoformat(str(value)[:10])
    except ValueError:
        return str(value)
    parts = {
        "YYYY": f"{day.year:04d}",
        "YY": f"{day.year % 100:02d}",
        "MMMM": MONTHS[day.month - 1],
        "MMM": MONTHS[day.month - 1][:3],
        "MM": f"{day.month:02d}",
        "M": str(day.month),
        "DD": f"{day.day:02d}",
        "D": str(day.day),
    }
    return DATE_TOKENS.sub(lambda token: parts[token.group()], format)


def format_number(value: object, format: str | None) -> str:
    """A number in the format its field names: usd "$1,000.00", dot "1.000,5", percent "50%"..."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    sign = "-" if value < 0 else ""
    if format in CURRENCIES:
        return f"{sign}{CURRENCIES[format]}{abs(value):,.2f}"
    whole, _, decimals = (str(abs(value)) if isinstance(value, int) else f"{abs(value):.15g}").partition(".")
    if "e" in whole:  # too large or small for separators to help
        return f"{sign}{whole}"
    grouped = f"{int(whole):,}"
    separators = {"comma": (",", "."), "dot": (".", ","), "space": (" ", ",")}.get(format or "", ("", "."))
    text = sign + grouped.replace(",", separators[0]) + (separators[1] + decimals if decimals else "")
    return {"percent": f"{text}%", "percent_space": f"{text} %"}.get(format or "", text)
