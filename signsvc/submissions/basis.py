"""What a submission is made from: a template's roles, fields and documents, or a one-off submission's own."""

from __future__ import annotations

from dataclasses import dataclass, field

import storage.templates as stored_templates
from signsvc.infra.files import NewFile
from signsvc.templates.documents import IngestedDocument
from storage import Connection
from storage.records import Template, TemplateDocument
from storage.shapes import Condition, Field, Role

# A document of a submission to be: a template's (its files copied) or one just taken in (its files new).
Document = TemplateDocument | IngestedDocument


@dataclass(frozen=True)
class Basis:
    """A template's documents are read where they are used (the copy, in the transaction that writes the
    submission); a one-off submission's are here."""

    template: Template | None  # None: a one-off submission, stored without a template
    name: str  # the template's name, or the one-off submission's
    roles: list[Role]
    fields: list[Field]
    documents: list[Document]  # a one-off submission's
    conditions: dict[str, list[Condition]]  # by document uuid: those that apply only while these hold
    filled: dict[str, IngestedDocument] = field(default_factory=dict)  # a template's dynamic documents, filled
    email_2fa: bool = False  # a one-off submission's: a template of its `template_ids` requires email verification

    @classmethod
    def of_template(cls, template: Template) -> Basis:
        return cls(template, template.name, template.roles, template.fields, [], {})

    @property
    def new_files(self) -> list[NewFile]:
        """The files of documents just taken in: written before the submission is, recorded with it."""
        return [
            file
            for document in (*self.documents, *self.filled.values())
            if isinstance(document, IngestedDocument)
            for file in (document.pdf, *document.previews)
        ]

    async def documents_in(self, conn: Connection) -> list[Document]:
        """The documents: a template's as they are now (its dynamic ones as filled for this submission)."""
        if self.template is None:
            return self.documents
        return [self.filled.get(d.uuid, d) for d in await stored_templates.list_documents(conn, self.template.id)]

    def conditions_of(self, document: Document) -> list[Condition]:
        """When the document applies."""
        return document.conditions if isinstance(document, TemplateDocument) else self.conditions.get(document.uuid, [])
