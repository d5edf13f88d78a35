"""What a submission is made from: a template's roles, fields and documents, or a one-off submission's own."""

from __future__ import annotations

from dataclasses import dataclass

from signsvc.infra.files import NewFile
from signsvc.templates.documents import IngestedDocument
from storage.records import Template, TemplateDocument
from storage.shapes import Condition, Field, Role

# A document of a submission to be: a template's (its files copied) or one just taken in (its files new).
Document = TemplateDocument | IngestedDocument


@dataclass(frozen=True)
class Basis:
    template: Template | None  # None: a one-off submission, stored without a template
    name: str  # the template's name, or the one-off submission's
    roles: list[Role]
    fields: list[Field]
    documents: list[Document]
    conditions: dict[str, list[Condition]]  # by document uuid: those that apply only while these hold

    @classmethod
    def of_template(cls, template: Template, documents: list[TemplateDocument]) -> Basis:
        conditions = {d.uuid: d.conditions for d in documents if d.conditions}
        return cls(template, template.name, template.roles, template.fields, list(documents), conditions)

    @property
    def new_files(self) -> list[NewFile]:
        """The files of documents just taken in: written before the submission is, recorded with it."""
        return [
            file
            for document in self.documents
            if isinstance(document, IngestedDocument)
            for file in (document.pdf, *document.previews)
        ]

    def document_shapes(self) -> list[dict[str, object]]:
        """Each document's uuid and the conditions it applies under, as the condition rules read them."""
        return [{"uuid": d.uuid, "conditions": self.conditions.get(d.uuid, [])} for d in self.documents]
