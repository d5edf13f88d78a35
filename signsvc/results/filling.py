"""Drawing submitters' values into a submission's documents (in the PDF pool)."""

from __future__ import annotations

import functools

from signsvc.infra import pdf_calls
from signsvc.infra.pdf_calls import Hashed
from signsvc.infra.pool import PdfPool
from signsvc.results import document_id
from signsvc.results.inputs import Inputs
from signsvc.submissions import condition_values, field_values
from storage.records import Submission, Submitter
from storage.shapes import SubmissionDocument


async def fill(
    pool: PdfPool, font_dir: str | None, submission: Submission, submitters: list[Submitter], inputs: Inputs
) -> list[tuple[SubmissionDocument, Hashed]]:
    """Each document of the submission with the values of `submitters` drawn in; stamp fields show who
    completed and when. Test-mode documents, and those of an account drawing signature ids, carry a footer on
    every page; the document id is also the PDF's `/DocumentID` info."""
    roles = {submitter.role_uuid for submitter in submitters}
    values = {uuid: value for submitter in submitters for uuid, value in submitter.field_values.items()}
    fields = [f for f in field_values.named(submission.fields) if f.get("submitter_uuid") in roles]
    fields = condition_values.visible_fields(submission, fields, values)  # a field that does not apply is not drawn
    stamp = {
        s.role_uuid: {
            "name": s.name or s.email or s.phone or s.role,
            "role": s.role,
            "time": f"{s.completed_at:%Y-%m-%d %H:%M:%S} UTC",
        }
        for s in submitters
        if s.completed_at
    }
    draw = functools.partial(
        pdf_calls.fill_pdf,
        filenames=inputs.filenames,
        stamp=stamp,
        font_dir=font_dir,
        footer=document_id.footer(test_mode=inputs.test_mode, document_id=inputs.document_id),
        info={"/DocumentID": inputs.document_id} if inputs.document_id else None,
        captions=inputs.captions,
    )
    return [
        (
            original.document,
            await pool.run(draw, original.pdf, original.document["uuid"], fields, values, inputs.images),
        )
        for original in inputs.originals
    ]
