"""What a shape shows besides its own record: the relations `signsvc.loaders` read for a whole page at once."""

from __future__ import annotations

from dataclasses import dataclass, field

from storage.records import ResultDocument, Submission, SubmissionEvent, Submitter, Template, User


@dataclass(frozen=True)
class Related:
    """The relations of some submissions, each by the id it hangs on; a relation a loader did not read is empty."""

    submissions: dict[int, Submission] = field(default_factory=dict)  # by id (those of a page of submitters)
    submitters: dict[int, list[Submitter]] = field(default_factory=dict)  # by submission id, in role order
    templates: dict[int, Template] = field(default_factory=dict)  # by id, those that still exist
    authors: dict[int, User] = field(default_factory=dict)  # by user id
    files: dict[int, dict[str, str]] = field(default_factory=dict)  # by submission id: linkable file names by uuid
    results: dict[int, list[ResultDocument]] = field(default_factory=dict)  # by submission id
    events: dict[int, list[SubmissionEvent]] = field(default_factory=dict)  # by submission id, oldest first

    def template(self, submission: Submission) -> Template | None:
        """The submission's template, while it exists."""
        return None if submission.template_id is None else self.templates.get(submission.template_id)
