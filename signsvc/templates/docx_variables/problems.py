"""The errors of the `[[...]]` language: each a 422 whose message names the tag and what is wrong."""

from __future__ import annotations

from signsvc.infra import errors


class DocxProblem(errors.Invalid):
    """The DOCX cannot be read or rendered."""


class TagProblem(DocxProblem):
    def __init__(self, tag: str, problem: str) -> None:
        super().__init__(f"{_shortened(tag)}: {problem}")

    def __reduce__(self) -> tuple[type[DocxProblem], tuple[str]]:
        """Sent back from a pool worker as the problem it is, with its message."""
        return DocxProblem, (self.message,)


def _shortened(tag: str) -> str:
    return tag if len(tag) <= 80 else f"{tag[:60]}...{tag[-10:]}"
