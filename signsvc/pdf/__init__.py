"""PDF engines: pure functions from bytes and plain data to bytes and plain data, run in a process pool.

Each raises `PdfError` (`signsvc.pdf.errors`) for an unusable input, and nothing else for one: no
library's exception escapes. Import the engine module you need: this package itself loads nothing,
so the server process can read `font_files` without the PDF libraries.
"""
