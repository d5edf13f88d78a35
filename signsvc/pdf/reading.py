"""Opening untrusted PDF bytes with pypdf: every way a file can fail ends in one PdfError with a plain message."""

from __future__ import annotations

import contextlib
import io
import itertools
from collections.abc import Iterator

import pypdf
from pypdf.errors import FileNotDecryptedError, LimitReachedError

from signsvc.pdf import kinds
from signsvc.pdf.errors import PdfError

MAX_PAGES = 1000
# Levels of /Pages nodes: balanced trees need about 6 for a million pages; a writer that nests the tree
# one level deeper on every page it appends would reach this at 64 appended pages.
MAX_TREE_DEPTH = 64
NOT_PDF = "The file is not a PDF"
ENCRYPTED = "The PDF is protected by a password; upload it without the password"
DAMAGED = "The PDF is damaged and can't be read"
NESTED = "The PDF is nested too deeply to be read"
TOO_COMPLEX = "The PDF is too large or too complex to be read"
NO_PAGES = "The PDF has no pages"
_MOST_ENTRIES = 2 * MAX_PAGES + 100  # of the page tree that are looked at
TOO_DEEP = f"The PDF's page tree is nested too deeply to be read: more than {MAX_TREE_DEPTH} levels"


@contextlib.contextmanager
def reading(max_pages: int = MAX_PAGES) -> Iterator[None]:
    """Bounds pypdf's work on the page tree, and turns whatever it raises inside into a PdfError.

    pypdf reads lazily, so a damaged object can fail any later call; on hostile input it raises its
    own errors and also KeyError, TypeError and the like, so everything but memory exhaustion is caught.
    """
    try:
        # A page tree that reuses its nodes (a DAG) would otherwise expand to millions of pages. Up to
        # MAX_PAGES are counted even under a lower limit, which the refusal then names with the count.
        with pypdf.apply_configuration(page_tree_maximum_entries=max(2 * max_pages + 100, _MOST_ENTRIES)):
            yield
    except (PdfError, MemoryError):
        raise
    except FileNotDecryptedError as error:
        raise PdfError(ENCRYPTED) from error
    except LimitReachedError as error:
        raise PdfError(TOO_COMPLEX) from error
    except Exception as error:
        raise PdfError(NESTED if _recursed(error) else DAMAGED) from error


def open_pdf(data: bytes, *, max_pages: int = MAX_PAGES) -> pypdf.PdfReader:
    """A reader over `data` with between 1 and `max_pages` pages; call it inside `reading()`."""
    if kinds.sniff(data) != "pdf":
        raise PdfError(NOT_PDF)
    reader = pypdf.PdfReader(io.BytesIO(data))
    # The empty user password opens owner-password-only files, as every viewer does.
    if reader.is_encrypted and reader.decrypt("") == pypdf.PasswordType.NOT_DECRYPTED:
        raise PdfError(ENCRYPTED)
    if _tree_deeper_than(reader, MAX_TREE_DEPTH):
        raise PdfError(TOO_DEEP)
    try:
        count = len(reader.pages)
    except LimitReachedError:
        raise PdfError(too_many_pages(None, max_pages)) from None
    if count > max_pages:
        raise PdfError(too_many_pages(count, max_pages))
    if count == 0:
        raise PdfError(NO_PAGES)
    return reader


def too_many_pages(count: int | None, max_pages: int) -> str:
    return f"The PDF has {count or 'too many'} pages; at most {max_pages} are allowed"


def _tree_deeper_than(reader: pypdf.PdfReader, limit: int) -> bool:
    """Whether the page tree has more than `limit` levels of /Pages nodes, each node looked at once (a tree
    that loops, reuses its nodes or has too many is left to pypdf, which refuses it)."""
    root = reader.root_object["/Pages"].get_object()
    if not isinstance(root, pypdf.generic.DictionaryObject):
        return False  # pypdf refuses it as damaged
    level, seen = {id(root): root}, {id(root)}
    for _ in range(limit):
        kids = itertools.islice((kid.get_object() for node in level.values() for kid in _kids(node)), _MOST_ENTRIES)
        level = {
            id(kid): kid
            for kid in kids
            if isinstance(kid, pypdf.generic.DictionaryObject) and "/Kids" in kid and id(kid) not in seen
        }
        seen.update(level)
    return bool(level)


def _kids(node: pypdf.generic.DictionaryObject) -> list[pypdf.generic.PdfObject]:
    kids = node.get("/Kids")
    kids = kids.get_object() if kids is not None else None
    return list(kids) if isinstance(kids, pypdf.generic.ArrayObject) else []


def _recursed(error: BaseException | None) -> bool:
    """Whether a RecursionError is in the chain: pypdf wraps it in a PdfReadError."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, RecursionError):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False
