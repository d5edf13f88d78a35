"""Opening untrusted PDF bytes with pypdf: every way a file can fail ends in one PdfError with a plain message."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator

import pypdf
from pypdf.errors import FileNotDecryptedError, LimitReachedError

from signsvc.pdf import kinds
from signsvc.pdf.errors import PdfError

MAX_PAGES = 1000
NOT_PDF = "The file is not a PDF"
ENCRYPTED = "The PDF is protected by a password; upload it without the password"
DAMAGED = "The PDF is damaged and can't be read"
NESTED = "The PDF is nested too deeply to be read"
TOO_COMPLEX = "The PDF is too large or too complex to be read"
NO_PAGES = "The PDF has no pages"


@contextlib.contextmanager
def reading(max_pages: int = MAX_PAGES) -> Iterator[None]:
    """Bounds pypdf's work on the page tree, and turns whatever it raises inside into a PdfError.

    pypdf reads lazily, so a damaged object can fail any later call; on hostile input it raises its
    own errors and also KeyError, TypeError and the like, so everything but memory exhaustion is caught.
    """
    try:
        # A page tree that reuses its nodes (a DAG) would otherwise expand to millions of pages.
        with pypdf.apply_configuration(page_tree_maximum_entries=2 * max_pages + 100):
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


def _recursed(error: BaseException | None) -> bool:
    """Whether a RecursionError is in the chain: pypdf wraps it in a PdfReadError."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, RecursionError):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False
