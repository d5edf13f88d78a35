"""What a `[[...]]` tag says, and how the tags of a document pair up into blocks.

    [[path]]            a value: `name`, `company.name`, `item.price`
    [[if: condition]]   a block kept when the condition holds (expressions.py), up to [[else]] or [[end]]
    [[else]]            the rest of the innermost [[if]] block, kept when the condition does not hold
    [[for: path]]       a block repeated for each element of a list, bound to the singular of the path's last
                        part: [[for:items]] ... [[item.name]] ... [[end]]
    [[end]]             closes the innermost block; [[end:name]] too (the name is for the reader)

Keywords are read in any case; spaces around the tag's text and after `:` are allowed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import signsvc.templates.docx_variables.expressions as expressions
from signsvc.templates.docx_variables.problems import TagProblem

MAX_DEPTH = 20
_IRREGULAR = {
    "people": "person",
    "children": "child",
    "men": "man",
    "women": "woman",
    "mice": "mouse",
    "geese": "goose",
    "feet": "foot",
    "teeth": "tooth",
    "data": "datum",
    "criteria": "criterion",
}


@dataclass
class Tag:
    """One tag: `kind` is value, if, else, for or end; `index` its place among the document's tags."""

    index: int
    text: str  # as written, with its brackets, for messages
    kind: str
    path: str = ""  # value and for
    condition: expressions.Tree | None = None  # if
    element: str = ""  # for: the name each element is bound to
    # Blocks (if, for): the indexes of their else and end tags, and the tags directly inside, in order.
    else_index: int | None = None
    end_index: int = -1
    inside: list[Tag] = field(default_factory=list)


def read(index: int, text: str, content: str) -> Tag:
    """The tag whose text between the brackets is `content`."""
    content = content.strip()
    keyword, colon, rest = content.partition(":")
    keyword = keyword.strip().lower()
    try:
        if colon and keyword == "if":
            return Tag(index, text, "if", condition=expressions.parse(rest))
        if colon and keyword == "for":
            path = rest.strip()
            _check_path(path, "a list's name")
            return Tag(index, text, "for", path=path, element=singular(path.rsplit(".", 1)[-1]))
        if keyword in ("if", "for") and not colon:
            raise expressions.SyntaxProblem(f"expected [[{keyword}: ...]] with a colon")
        if keyword == "else" and not colon:
            return Tag(index, text, "else")
        if keyword == "end":
            return Tag(index, text, "end")
        if not content:
            raise expressions.SyntaxProblem("expected a variable name, if:, for:, else or end")
        _check_path(content, "a variable name")
        return Tag(index, text, "value", path=content)
    except expressions.SyntaxProblem as exc:
        raise TagProblem(text, str(exc)) from None


def _check_path(path: str, what: str) -> None:
    if not path:
        raise expressions.SyntaxProblem(f"expected {what}")
    if not expressions.is_path(path):
        raise expressions.SyntaxProblem(f"{path!r} is not {what} (letters, digits and _, parts joined by .)")


def singular(name: str) -> str:
    """The name a loop binds each element to: items -> item, categories -> category, boxes -> box, people ->
    person; a name that is no plural gets `_item` (data -> datum is irregular; list -> list_item)."""
    lowered = name.lower()
    if lowered in _IRREGULAR:
        return _IRREGULAR[lowered]
    if lowered.endswith("ies") and len(name) > 3:
        return name[:-3] + "y"
    if lowered.endswith(("sses", "xes", "zes", "ches", "shes")):
        return name[:-2]
    if lowered.endswith("s") and not lowered.endswith("ss") and len(name) > 1:
        return name[:-1]
    return f"{name}_item"


def blocks(tags: list[Tag]) -> list[Tag]:
    """The top-level tags, blocks holding theirs: each [[if]]/[[for]] matched with its [[else]] and [[end]]."""
    top: list[Tag] = []
    open_blocks: list[Tag] = []
    for tag in tags:
        container = open_blocks[-1].inside if open_blocks else top
        if tag.kind in ("if", "for"):
            if len(open_blocks) >= MAX_DEPTH:
                raise TagProblem(tag.text, f"blocks nest at most {MAX_DEPTH} levels deep")
            container.append(tag)
            open_blocks.append(tag)
        elif tag.kind == "else":
            _check_else(tag, open_blocks)
            open_blocks[-1].else_index = tag.index
            container.append(tag)
        elif tag.kind == "end":
            if not open_blocks:
                raise TagProblem(tag.text, "there is no [[if:...]] or [[for:...]] to end")
            open_blocks.pop().end_index = tag.index
            container.append(tag)
        else:
            container.append(tag)
    if open_blocks:
        raise TagProblem(open_blocks[-1].text, "is not closed: add [[end]] after the block")
    return top


def _check_else(tag: Tag, open_blocks: list[Tag]) -> None:
    if not open_blocks or open_blocks[-1].kind != "if":
        raise TagProblem(tag.text, "must be inside an [[if:...]] block")
    if open_blocks[-1].else_index is not None:
        raise TagProblem(tag.text, f"{open_blocks[-1].text} already has an [[else]]")
