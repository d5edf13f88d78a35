"""A value written as HTML, as formatted text: the runs a value tag becomes.

What is kept: text; bold (`b`, `strong`), italic (`i`, `em`), underline (`u`), strike-through (`s`, `strike`, `del`);
line breaks for `br` and between blocks (`p`, `div`, `h1`-`h6`, which are bold, `li`, `tr`); list items begin with
"• " (`ul`) or their number (`ol`); table cells are apart by a tab. Links keep their text. Everything else (styles,
images, other tags) is left out, and the text of `script` and `style` too. The value stays within the paragraph of
its tag: blocks become lines of it, not paragraphs of their own.
"""

from __future__ import annotations

from dataclasses import dataclass
from html.parser import HTMLParser

_INLINE = {"b": "bold", "strong": "bold", "i": "italic", "em": "italic", "u": "underline"}
_INLINE |= {"s": "strike", "strike": "strike", "del": "strike"}
_BLOCKS = {"p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "li", "tr", "ul", "ol", "table", "blockquote"}
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_HIDDEN = {"script", "style", "head", "title"}
_KNOWN = {*_INLINE, *_BLOCKS, "br", "span", "a", "td", "th", "html", "body", "font", "sup", "sub"}


@dataclass(frozen=True)
class Piece:
    """A stretch of text with one format; `text` is "\n" for a line break and "\t" for a tab."""

    text: str
    formats: frozenset[str] = frozenset()


def looks_like_html(value: str) -> bool:
    """A text that begins with an HTML tag this module knows and ends with `>`: "<p>Hi</p>", not "<John>"."""
    stripped = value.strip()
    if not (stripped.startswith("<") and stripped.endswith(">")):
        return False
    words = stripped[1:12].split(">")[0].split()
    return bool(words) and words[0].rstrip("/").lower() in _KNOWN


def pieces(html: str) -> list[Piece]:
    reader = _Reader()
    reader.feed(html)
    reader.close()
    found = reader.found
    while found and found[-1].text == "\n":
        found.pop()
    while found and found[0].text == "\n":
        found.pop(0)
    return found


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[Piece] = []
        self.open: list[str] = []
        self.lists: list[list[int]] = []  # each open list: [number of the next item] for `ol`, [] for `ul`
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _HIDDEN:
            self.hidden += 1
        elif tag == "br":
            self.found.append(Piece("\n"))
        elif tag in ("ul", "ol"):
            self.lists.append([1] if tag == "ol" else [])
        if tag in _BLOCKS:
            self._line()
        if tag == "li":
            self._bullet()
        elif tag in ("td", "th") and self.found and self.found[-1].text != "\n":
            self.found.append(Piece("\t"))
        if tag in _INLINE or tag in _HEADINGS or tag == "th":
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN:
            self.hidden = max(self.hidden - 1, 0)
        elif tag in ("ul", "ol") and self.lists:
            self.lists.pop()
        if tag in self.open:
            del self.open[len(self.open) - 1 - self.open[::-1].index(tag)]
        if tag in _BLOCKS:
            self._line()

    def handle_data(self, data: str) -> None:
        if self.hidden or not data:
            return
        text = " ".join(data.split()) if not data.isspace() else " "
        if data[:1].isspace() and not text.startswith(" ") and text != " ":
            text = " " + text
        if data[-1:].isspace() and not text.endswith(" "):
            text += " "
        if text == " " and (not self.found or self.found[-1].text in ("\n", "\t")):
            return
        self.found.append(Piece(text, self._formats()))

    def _formats(self) -> frozenset[str]:
        return frozenset("bold" if tag in _HEADINGS or tag == "th" else _INLINE[tag] for tag in self.open)

    def _line(self) -> None:
        if self.found and self.found[-1].text != "\n":
            self.found.append(Piece("\n"))

    def _bullet(self) -> None:
        if self.lists and self.lists[-1]:
            number = self.lists[-1][0]
            self.lists[-1][0] += 1
            self.found.append(Piece(f"{number}. "))
        else:
            self.found.append(Piece("\u2022 "))
