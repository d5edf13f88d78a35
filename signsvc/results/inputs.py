"""What producing a submission's documents reads, once per job: its original documents, the files its
values name, and whether its account is a test account."""

from __future__ import annotations

from dataclasses import dataclass, field

import storage.accounts as stored_accounts
import storage.files as stored_files
import storage.submissions as stored_submissions
from signsvc.infra.files import Files
from signsvc.results import audit_log, document_id
from signsvc.submissions import field_values, signature_modes
from storage import Database
from storage.records import Submission, Submitter
from storage.shapes import SubmissionDocument


@dataclass(frozen=True)
class Original:
    """A document as the submission was sent: its record in the submission, its hash and its content."""

    document: SubmissionDocument
    sha256: str
    pdf: bytes


@dataclass(frozen=True)
class Inputs:
    """The originals; the image values' contents and every value file's name, by blob uuid; test mode."""

    originals: list[Original]
    images: dict[str, bytes]
    filenames: dict[str, str]
    test_mode: bool
    captions: dict[str, list[str]] = field(default_factory=dict)  # beside signatures, by field uuid
    document_id: str | None = None  # when the account draws signature ids


async def read(db: Database, files: Files, submission: Submission, submitters: list[Submitter]) -> Inputs:
    attachments = await stored_submissions.attachments_of(db, submission.id)
    fields = field_values.named(submission.fields)
    values = {uuid: value for submitter in submitters for uuid, value in submitter.field_values.items()}
    wanted = {str(values[f["uuid"]]) for f in fields if f["type"] in audit_log.IMAGE_TYPES and values.get(f["uuid"])}
    originals = []
    for document in submission.documents:
        blob = await stored_files.required_blob(db, document["blob_id"])
        originals.append(Original(document, blob.sha256, await files.read(blob)))
    account = await stored_accounts.required_account(db, submission.account_id)
    images = {
        a.uuid: await files.read(await stored_files.required_blob(db, a.blob_id))
        for a in attachments
        if a.uuid in wanted
    }
    captions = await signature_modes.captions(db, fields, submitters)
    with_id = await signature_modes.ids_by_default(db, account.id)
    return Inputs(
        originals,
        images,
        {a.uuid: a.filename for a in attachments},
        account.is_test,
        captions,
        document_id.of(submission.slug) if with_id else None,
    )
