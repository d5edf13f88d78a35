"""The one error the PDF engines raise for an unusable input."""


class PdfError(ValueError):
    """An upload can't be used; the message says why, in words an API user can act on."""
