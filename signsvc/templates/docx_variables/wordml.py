"""The tags of a WordprocessingML part, found and set apart so that rendering works on whole elements.

1. `find`: each paragraph's text is read across its runs (Word splits text into runs wherever formatting, spell
   checking or editing history changes); a tag split across runs is moved whole into the text node it starts in.
2. Each tag then gets a run of its own (`tag run`, marked with the tag's index), formatted as its first character.
3. `place_blocks`: the tags of a block are lifted to the level of the nearest element holding both its ends:
   - within one paragraph, the runs between them are the block;
   - across paragraphs (in the body, a cell, a header...), the paragraphs between them are the block: a paragraph
     holding a tag is split at it, and a part left empty (a tag alone in its paragraph) disappears;
   - in different cells of one row, or in different rows of one table, the rows from the opening tag's to the
     closing tag's are the block (a loop there repeats rows).
   A block whose ends are in places that do not nest so (one in a table cell, the other outside the table) is
   refused.
"""

from __future__ import annotations

import copy
from typing import Any

from signsvc.templates.docx_variables.problems import DocxProblem, TagProblem
from signsvc.templates.docx_variables.tags import Tag

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
MARK = "{urn:signsvc:docx-variables}tag"
XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"
MAX_TAG_LENGTH = 1000
# Elements a block's boundary may split: paragraphs and the inline containers of runs.
SPLITTABLE = {W + name for name in ("p", "hyperlink", "smartTag", "ins", "moveTo", "customXml", "fldSimple", "dir")}
# Children that hold nothing visible: a paragraph or run with only these is empty.
_NO_CONTENT = {
    W + name
    for name in ("pPr", "rPr", "proofErr", "bookmarkStart", "bookmarkEnd", "lastRenderedPageBreak", "permStart")
} | {W + "permEnd"}
_PROPERTIES = {W + "pPr", W + "rPr"}
_MUST_END_WITH_PARAGRAPH = {W + name for name in ("tc", "txbxContent", "hdr", "ftr", "footnote", "endnote")}
_CONTAINER_PROPERTIES = {W + "tcPr"}


class FoundTag:
    """A tag's text and its text node, before it has a run of its own."""

    def __init__(self, text: str, node: Any, offset: int) -> None:
        self.text, self.node, self.offset = text, node, offset


def find(root: Any) -> list[FoundTag]:
    """Every tag of the part, in document order, each moved whole into the text node it starts in."""
    found: list[FoundTag] = []
    for nodes in _paragraph_texts(root):
        found += _gathered(nodes)
    return found


def isolate(found: list[FoundTag]) -> list[Any]:
    """Gives each tag a run of its own, marked with its index among the part's tags; answers the runs."""
    runs: list[Any] = [None] * len(found)
    # From the last: splitting a text node at a tag leaves the text before it, and its earlier tags, in place.
    for position in range(len(found) - 1, -1, -1):
        tag = found[position]
        runs[position] = _split_run(tag.node, tag.offset, len(tag.text))
        runs[position].set(MARK, str(position))
    return runs


def place_blocks(tags: list[Tag], runs: dict[int, Any]) -> None:
    """Lifts each block's tag runs (`runs` by tag index) to the level its content is taken at (outer blocks first)."""
    for tag in tags:
        if tag.kind in ("if", "for"):
            _place(tag, runs)
            place_blocks(tag.inside, runs)


def mend(root: Any) -> None:
    """After rendering: a table cell, text box, header, footer or note that blocks left without a paragraph at its
    end gets an empty one, as Word requires."""
    containers = [root] if root.tag in _MUST_END_WITH_PARAGRAPH else []
    containers += [element for name in _MUST_END_WITH_PARAGRAPH for element in root.iter(name)]
    for container in containers:
        blocks = [child for child in container if isinstance(child.tag, str) and child.tag not in _CONTAINER_PROPERTIES]
        if not blocks or blocks[-1].tag != W + "p":
            container.append(container.makeelement(W + "p", {}))


def tag_index(element: Any) -> int | None:
    mark = element.get(MARK) if isinstance(element.tag, str) else None
    return int(mark) if mark is not None else None


def is_empty(element: Any) -> bool:
    """Holds nothing visible: no text, no break, no drawing; a paragraph ending a section is never empty."""
    for child in element:
        if not isinstance(child.tag, str) or child.tag in _NO_CONTENT:
            if child.tag == W + "pPr" and child.find(W + "sectPr") is not None:
                return False
            continue
        if child.tag == W + "t":
            if child.text:
                return False
        elif child.tag == W + "r" or child.tag in SPLITTABLE:
            if not is_empty(child):
                return False
        else:
            return False
    return True


def _paragraph_texts(root: Any) -> list[list[Any]]:
    """The text nodes of each paragraph (a text box's paragraphs are paragraphs of their own)."""
    paragraphs: dict[Any, list[Any]] = {}
    for node in root.iter(W + "t"):
        paragraph = next(node.iterancestors(W + "p"), None)
        if paragraph is not None:
            paragraphs.setdefault(paragraph, []).append(node)
    return list(paragraphs.values())


def _gathered(nodes: list[Any]) -> list[FoundTag]:
    """The tags of one paragraph's text nodes; each tag's characters are given to the node its first one is in."""
    texts = [node.text or "" for node in nodes]
    text = "".join(texts)
    spans = _spans(text)
    if not spans:
        return []
    owners = [index for index, piece in enumerate(texts) for _ in piece]
    for start, end in spans:
        owners[start:end] = [owners[start]] * (end - start)
    pieces: list[list[str]] = [[] for _ in nodes]
    starts = dict(spans)
    found = []
    for position, char in enumerate(text):
        if position in starts:
            owner = owners[position]
            found.append(FoundTag(text[position : starts[position]], nodes[owner], len(pieces[owner])))
        pieces[owners[position]].append(char)
    for node, piece, before in zip(nodes, pieces, texts, strict=True):
        if "".join(piece) != before:
            node.text = "".join(piece)
            node.set(XML_SPACE, "preserve")
    return found


def _spans(text: str) -> list[tuple[int, int]]:
    """Where the tags of a paragraph's text are: `[[` ... `]]`, the brackets of each pair maybe apart by spaces."""
    spans = []
    position = 0
    while (start := _pair(text, "[", position)) is not None:
        opened, after_open = start
        end = _pair(text, "]", after_open)
        if end is None:
            raise TagProblem(text[opened : opened + 40] + "...", "is not closed by ]] in its paragraph")
        if end[0] - after_open > MAX_TAG_LENGTH:
            raise TagProblem(text[opened : opened + 40] + "...", f"a tag holds at most {MAX_TAG_LENGTH} characters")
        spans.append((opened, end[1]))
        position = end[1]
    return spans


def _pair(text: str, bracket: str, position: int) -> tuple[int, int] | None:
    """The next two `bracket`s with only spaces between, from `position`: where they start and end."""
    while (first := text.find(bracket, position)) >= 0:
        after = first + 1
        while after < len(text) and text[after].isspace():
            after += 1
        if after < len(text) and text[after] == bracket:
            return first, after + 1
        position = first + 1
    return None


def _split_run(node: Any, offset: int, length: int) -> Any:
    """Splits the run holding text node `node` into the run before the tag, the tag's run and the run after it."""
    run = node.getparent()
    if run is None or run.tag != W + "r":
        raise DocxProblem("a tag's text is outside a run: the document is not valid WordprocessingML")
    text = node.text or ""
    properties = run.find(W + "rPr")
    before = _shell(run, properties)
    for child in list(run):
        if child is node:
            break
        if child is not properties:
            before.append(child)
    after_node = copy.copy(node)
    after_node.text = text[offset + length :]
    node.text = text[:offset]
    for part in (node, after_node):
        part.set(XML_SPACE, "preserve")
    before.append(node)
    tag_run = _shell(run, properties)
    tag_run.append(_text_node(node, text[offset : offset + length]))
    node_place = 1 if properties is not None else 0
    run.insert(node_place, after_node)
    run.addprevious(before)
    run.addprevious(tag_run)
    for part in (before, run):
        if is_empty(part):
            part.getparent().remove(part)
    return tag_run


def _shell(element: Any, properties: Any) -> Any:
    """An element of the same kind and attributes, holding a copy of `properties` (pPr or rPr)."""
    shell = element.makeelement(element.tag, dict(element.attrib))
    if properties is not None:
        shell.append(copy.deepcopy(properties))
    return shell


def _text_node(like: Any, text: str) -> Any:
    node = like.makeelement(W + "t", {XML_SPACE: "preserve"})
    node.text = text
    return node


def _place(block: Tag, runs: dict[int, Any]) -> None:
    start, end = runs[block.index], runs[block.end_index]
    between = [runs[block.else_index]] if block.else_index is not None else []
    common = _common_ancestor(start, end)
    if common.tag in (W + "tr", W + "tbl"):
        _place_rows(block, common if common.tag == W + "tbl" else common.getparent(), start, between, end)
        return
    for run in (start, *between, end):
        _lift(run, common, block)


def _common_ancestor(one: Any, other: Any) -> Any:
    ancestors = set(one.iterancestors())
    return next(element for element in other.iterancestors() if element in ancestors)


def _lift(run: Any, level: Any, block: Tag) -> None:
    """Moves the tag run up to be a child of `level`, splitting each element on the way at it."""
    while (parent := run.getparent()) is not level:
        if parent is None or parent.tag not in SPLITTABLE:
            raise TagProblem(
                block.text,
                "the block's tags must be in one paragraph, in paragraphs of one cell or of the body, or in rows of "
                "one table",
            )
        _split_at(parent, run)


def _split_at(parent: Any, child: Any) -> None:
    """`parent` split in two around `child`, which then stands between the halves; an empty half is removed."""
    properties = next((c for c in parent if isinstance(c.tag, str) and c.tag in _PROPERTIES), None)
    before = _shell(parent, properties)
    section = before.find(f"{W}pPr/{W}sectPr")
    if section is not None:  # a section ends with the last paragraph of its split: the second half
        section.getparent().remove(section)
    for item in list(parent):
        if item is child:
            break
        if item is not properties:
            before.append(item)
    parent.addprevious(before)
    parent.addprevious(child)
    for half in (before, parent):
        if is_empty(half):
            half.getparent().remove(half)


def _place_rows(block: Tag, table: Any, start: Any, between: list[Any], end: Any) -> None:
    """Marks a block over table rows: its tag runs leave their cells, and marks stand before the first row, before
    the [[else]]'s row, and after the last row."""
    rows = [_row_of(run, table, block) for run in (start, *between, end)]
    if between and rows[1] is rows[0]:
        raise TagProblem(block.text, "over table rows, [[else]] must be in a later row than the opening tag")
    for run in (start, *between, end):
        run.getparent().remove(run)
    rows[0].addprevious(start)
    if between:
        rows[1].addprevious(between[0])
    rows[-1].addnext(end)


def _row_of(run: Any, table: Any, block: Tag) -> Any:
    row = next((r for r in run.iterancestors(W + "tr") if r.getparent() is table), None)
    if row is None:
        raise TagProblem(block.text, "the block's tags must be in rows of one table")
    return row
