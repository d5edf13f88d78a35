"""Reading a PDF's AcroForm: widgets, the field chain above each, inherited entries, and texts as they
can be stored. What `forms` (fields for a template) and `prefilled` (values to draw) share."""

from __future__ import annotations

import contextlib
import logging
import unicodedata
from collections.abc import Iterator
from typing import Any

from pypdf.errors import LimitReachedError, PdfReadError
from pypdf.generic import ArrayObject, DictionaryObject, StreamObject

log = logging.getLogger(__name__)

READ_ONLY, REQUIRED = 1 << 0, 1 << 1  # field flags (/Ff)
COMB, RADIO, PUSH, COMBO, MULTI, MULTILINE = 1 << 24, 1 << 15, 1 << 16, 1 << 17, 1 << 21, 1 << 12
HIDDEN = 1 << 1 | 1 << 5  # annotation flags (/F): Hidden, NoView
MAX_DEPTH = 32  # /Parent chain; a crafted file may make it loop


@contextlib.contextmanager
def left_out_if_broken(what: str) -> Iterator[None]:
    """Leaves out (and logs) a widget or field whose contents can't be understood (a stream in an unknown
    encoding, an entry of an unexpected type), rather than refusing the whole PDF."""
    try:
        yield
    except (MemoryError, RecursionError, LimitReachedError, PdfReadError):
        raise  # the file itself is broken or too much there: filling it would fail too, so reading() refuses it
    except Exception as error:  # pypdf raises many types
        log.warning("PDF form: %s is left out, it can't be read (%s: %s)", what, type(error).__name__, error)


def widgets(page: DictionaryObject) -> Iterator[DictionaryObject]:
    annots = get(page, "/Annots")
    for item in annots if isinstance(annots, ArrayObject) else []:
        annot = item.get_object()
        if get(annot, "/Subtype") == "/Widget":
            yield annot


def chain_of(widget: DictionaryObject) -> list[DictionaryObject]:
    """The widget and the fields above it, nearest first."""
    chain = [widget]
    while "/Parent" in chain[-1] and len(chain) < MAX_DEPTH:
        parent = chain[-1]["/Parent"]
        if not isinstance(parent, DictionaryObject) or any(parent is node for node in chain):
            break
        chain.append(parent)
    return chain


def inherited(chain: list[DictionaryObject], key: str) -> Any:
    return next((node[key] for node in chain if key in node), None)


def get(node: Any, key: str) -> Any:
    """`node[key]`, resolved; None when `node` isn't a dictionary or lacks the key."""
    return node[key] if isinstance(node, DictionaryObject) and key in node else None


def on_state(widget: DictionaryObject) -> str | None:
    normal = get(get(widget, "/AP"), "/N")
    # A stream is a single appearance; only a dictionary of them names the states.
    if not isinstance(normal, DictionaryObject) or isinstance(normal, StreamObject):
        return None
    return next((printable(str(state)[1:]) for state in normal if state != "/Off"), None)


def text_of(item: Any) -> str:
    item = item.get_object()
    if isinstance(item, ArrayObject) and len(item) == 2:
        item = item[1].get_object()
    return printable(item.decode("latin-1") if isinstance(item, bytes) else str(item))


def printable(text: str) -> str:
    """Without control characters: a database can't store NUL, and a name or option can't show the others."""
    return "".join(char for char in text if unicodedata.category(char) != "Cc")


def string_of(value: Any) -> str:
    """A PDF string or text stream (scripts, long values) as text."""
    if isinstance(value, StreamObject):
        return value.get_data().decode("latin-1")
    if isinstance(value, bytes):
        return value.decode("latin-1")
    return str(value) if value is not None else ""


def integer(value: Any) -> int:
    try:
        return int(value.get_object()) if value is not None else 0
    except (TypeError, ValueError, AttributeError, OverflowError):
        return 0
