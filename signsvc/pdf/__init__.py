"""PDF engines: pure functions from bytes and plain data to bytes and plain data, run in a process pool.

Each raises `PdfError` for an unusable input, and nothing else for one: no library's exception escapes.
"""

from signsvc.pdf.errors import PdfError
from signsvc.pdf.kinds import sniff
from signsvc.pdf.fill import fill_pdf
from signsvc.pdf.forms import inspect_pdf
from signsvc.pdf.images import image_to_pdf
from signsvc.pdf.merge import merge_pdfs
from signsvc.pdf.previews import render_pages
from signsvc.pdf.typed_signature import render_typed_signature
from signsvc.pdf.audit_log import render as render_audit_log
from signsvc.pdf import certificates, seal, verify

__all__ = ["PdfError", "certificates", "fill_pdf", "image_to_pdf", "inspect_pdf", "merge_pdfs",
           "render_audit_log", "render_pages", "render_typed_signature", "seal", "sniff", "verify"]
