"""Filling a part whose tags `wordml` has set apart: values written into their runs, blocks kept, dropped or
repeated with each element of their list bound to the loop's name.

A value is written as text (XML's special characters are text here, never markup): a number as written
(1250, 12.5), true/false, a list of plain values joined by ", ", nothing for a missing value or an object; line
breaks and tabs of a text become Word's; a text that is HTML becomes formatted runs (rich_text.py). What a
rendering may make is bounded: the elements its loops copy and the characters its values write.
"""

from __future__ import annotations

import copy
from typing import Any

import signsvc.templates.docx_variables.expressions as expressions
import signsvc.templates.docx_variables.rich_text as rich_text
from signsvc.templates.docx_variables.problems import DocxProblem, TagProblem
from signsvc.templates.docx_variables.tags import Tag
from signsvc.templates.docx_variables.wordml import MARK, XML_SPACE, W, tag_index

MAX_COPIED_ELEMENTS = 200_000
MAX_WRITTEN_CHARACTERS = 5_000_000
_FORMATS = {"bold": "b", "italic": "i", "underline": "u", "strike": "strike"}


class Budget:
    """What one rendering may still make."""

    def __init__(self) -> None:
        self.elements, self.characters = MAX_COPIED_ELEMENTS, MAX_WRITTEN_CHARACTERS

    def spend(self, tag: Tag, elements: int = 0, characters: int = 0) -> None:
        self.elements -= elements
        self.characters -= characters
        if self.elements < 0:
            raise TagProblem(
                tag.text,
                f"the document would be too large: loops may copy at most {MAX_COPIED_ELEMENTS} elements in all",
            )
        if self.characters < 0:
            raise TagProblem(
                tag.text,
                f"the document would be too large: values may write at most {MAX_WRITTEN_CHARACTERS} characters in all",
            )


class Scope:
    """The variables given, and the elements bound by the loops around a place (the innermost first)."""

    def __init__(self, variables: dict[str, Any], bound: tuple[tuple[str, Any], ...] = ()) -> None:
        self.variables, self.bound = variables, bound

    def within(self, name: str, value: Any) -> Scope:
        return Scope(self.variables, ((name, value), *self.bound))

    def lookup(self, path: str) -> Any:
        first, *rest = path.split(".")
        value = next((v for name, v in self.bound if name == first), self.variables.get(first))
        for part in rest:
            value = value.get(part) if isinstance(value, dict) else None
        return value


def render(parent: Any, tags: list[Tag], scope: Scope, budget: Budget) -> None:
    """Renders the children of `parent` in place (walked sibling by sibling: lxml reaches a child by its index
    only by counting)."""
    child = parent[0] if len(parent) else None
    while child is not None:
        index = tag_index(child)
        if index is None:
            if len(child):
                render(child, tags, scope, budget)
            child = child.getnext()
            continue
        tag = tags[index]
        if tag.kind == "value":
            child = _write_value(child, tag, scope.lookup(tag.path), budget)
        elif tag.kind in ("if", "for"):
            child = _render_block(child, tag, tags, scope, budget)
        else:  # an [[else]] or [[end]] whose block is rendered: never met, kept as nothing
            following = child.getnext()
            parent.remove(child)
            child = following


def _render_block(start: Any, block: Tag, tags: list[Tag], scope: Scope, budget: Budget) -> Any:
    """Replaces the block (its tags and what is between them) with what it renders to; answers the element after."""
    parent = start.getparent()
    content, middle, end = _block_content(start, block)
    following = end.getnext()
    for element in (start, *content, end):
        parent.remove(element)
    holder = parent.makeelement(W + "holder", {})
    if block.kind == "if":
        assert block.condition is not None
        keep = expressions.evaluate(block.condition, scope.lookup)
        holder.extend(content[:middle] if keep else content[middle + 1 :])
        render(holder, tags, scope, budget)
    else:
        for element in _elements(block, scope.lookup(block.path)):
            copies = [copy.deepcopy(item) for item in content]
            budget.spend(block, elements=1 + sum(sum(1 for _ in item.iter()) for item in copies))
            repeat = holder.makeelement(W + "holder", {})
            repeat.extend(copies)
            render(repeat, tags, scope.within(block.element, element), budget)
            holder.extend(list(repeat))
    _put_before(parent, following, list(holder))
    return following


def _block_content(start: Any, block: Tag) -> tuple[list[Any], int, Any]:
    """The elements between a block's opening and its [[end]], where its [[else]] is among them (their number when
    it has none), and its [[end]]."""
    content: list[Any] = []
    middle = None
    element = start.getnext()
    while element is not None:
        index = tag_index(element)
        if index == block.end_index:
            return content, len(content) if middle is None else middle, element
        if index is not None and index == block.else_index:
            middle = len(content)
        content.append(element)
        element = element.getnext()
    raise DocxProblem(f"{block.text}: its [[end]] could not be found beside it in the document")


def _put_before(parent: Any, following: Any, elements: list[Any]) -> None:
    """Puts the elements where they go: before `following`, or at the end of `parent` when it is None."""
    for element in elements:
        if following is None:
            parent.append(element)
        else:
            following.addprevious(element)


def _elements(block: Tag, value: Any) -> list[Any]:
    """What a loop repeats over: a list's elements; nothing for a missing value; one object as a list of itself."""
    if value is None:
        return []
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        return [value]
    raise TagProblem(block.text, f"{block.path} must be a list, not {type(value).__name__}")


def _write_value(run: Any, tag: Tag, value: Any, budget: Budget) -> Any:
    """Replaces the tag's run with the value's runs; answers the element after them."""
    text = shown(value)
    budget.spend(tag, characters=len(text))
    pieces = rich_text.pieces(text) if rich_text.looks_like_html(text) else [rich_text.Piece(text)]
    properties = run.find(W + "rPr")
    runs = [_run(run, properties, piece) for piece in pieces if piece.text] or [_run(run, properties, None)]
    parent, following = run.getparent(), run.getnext()
    parent.remove(run)
    _put_before(parent, following, runs)
    return following


def _run(like: Any, properties: Any, piece: rich_text.Piece | None) -> Any:
    run = like.makeelement(W + "r", {key: value for key, value in like.attrib.items() if key != MARK})
    if properties is not None or (piece and piece.formats):
        formats = copy.deepcopy(properties) if properties is not None else run.makeelement(W + "rPr", {})
        for name in sorted(piece.formats if piece else ()):
            if formats.find(W + _FORMATS[name]) is None:
                formats.append(
                    formats.makeelement(W + _FORMATS[name], {W + "val": "single"} if name == "underline" else {})
                )
        run.append(formats)
    _append_text(run, without_tags(piece.text) if piece else "")
    return run


def without_tags(text: str) -> str:
    """A value's text that cannot open a `{{...}}` text tag, alone or beside other text: a space parts a `{` of the
    value from the `{` after it, and from whatever is before or after the value when it begins or ends with `{`.
    (A zero-width character would not do: the converted PDF does not keep it, and the braces would touch again.)"""
    text = text.replace("{{", "{ {").replace("{{", "{ {")
    if text.startswith("{"):
        text = " " + text
    return text + " " if text.endswith("{") else text


def _append_text(run: Any, text: str) -> None:
    """Text with its line breaks and tabs as Word's elements."""
    for line_number, line in enumerate(text.split("\n")):
        if line_number:
            run.append(run.makeelement(W + "br", {}))
        for part_number, part in enumerate(line.split("\t")):
            if part_number:
                run.append(run.makeelement(W + "tab", {}))
            if part:
                node = run.makeelement(W + "t", {XML_SPACE: "preserve"})
                node.text = part
                run.append(node)


def shown(value: Any) -> str:
    """A value as the text it writes: only characters XML can hold."""
    if value is None or isinstance(value, dict):
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    if isinstance(value, list):
        return ", ".join(shown(item) for item in value if not isinstance(item, dict | list))
    return _xml_characters(str(value).replace("\r\n", "\n").replace("\r", "\n"))


def _xml_characters(text: str) -> str:
    if text.isprintable():
        return text
    return "".join(char for char in text if _allowed(char))


def _allowed(char: str) -> bool:
    point = ord(char)
    return char in "\t\n" or (0x20 <= point < 0xD800) or (0xE000 <= point <= 0xFFFD) or point > 0xFFFF
