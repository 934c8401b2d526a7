"""Markdown source → top-level blocks: where one finished block ends and the next begins.

A streaming answer is split into blocks at every update, so the split must cost little per character. A full block
parse (markdown-it) costs about 0.5 ms per KB — a 200 KB answer arriving in a burst would spend 0.1 s on it
alone. Most boundaries are plain to see from the lines, though: after a blank line, a line that starts in the
first column and is not a list item begins a new top-level block, wherever it is not inside a fence. Those cuts
are found with one scan; markdown-it parses only the text after the last of them. Whatever the scan cannot be
sure of (a fence indented as if inside a list item, a line of HTML, which may hold fences or blank lines) stops
it, and markdown-it takes over from the last sure cut.
"""

from __future__ import annotations

import itertools
import re
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})([^`]*)$")
_LINE_EVENTS = re.compile(
    r"^(?P<fence> {0,3}(?:`{3,}|~{3,})[^\n]*)$"  # a fence's opening or closing line
    r"|^(?P<html> {0,3}<)"  # HTML: some kinds hold blank lines, some hold fence lines
    r"|\n[ \t]*\n(?=\S)",  # a blank line, then a line starting in the first column: maybe a new block
    re.MULTILINE,
)
_LIST_ITEM = re.compile(r"(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)", re.MULTILINE)
_PARSER: MarkdownIt | None = None
_SPLITTER: MarkdownIt | None = None
_BUILDING = threading.Lock()
_FIRST_TEXT = "# a\n\n- *b* `c` [d](e)\n\n| f |\n|---|\n| g |\n"
"""Parsed once by each new parser before it is shared: markdown-it compiles its rule chains on first use, and two
threads doing that at once could each see the other's half-built chains."""


def parser() -> MarkdownIt:
    """CommonMark with tables and strikethrough (parsed lazily: the import stays off the first frame)."""
    global _PARSER
    if _PARSER is None:
        with _BUILDING:
            if _PARSER is None:
                from markdown_it import MarkdownIt

                built = MarkdownIt("commonmark").enable(["table", "strikethrough"])
                built.parse(_FIRST_TEXT)
                _PARSER = built
    return _PARSER


def _splitter() -> MarkdownIt:
    """Block structure only: inline parsing is a third of the cost and splitting needs none."""
    global _SPLITTER
    if _SPLITTER is None:
        kind = type(parser())
        with _BUILDING:
            if _SPLITTER is None:
                built = kind("commonmark").enable(["table", "strikethrough"]).disable(["inline", "text_join"])
                built.parse(_FIRST_TEXT)
                _SPLITTER = built
    return _SPLITTER


def warm_parser() -> None:
    """Import markdown-it and build both parsers ahead of the first answer (≈ 40 ms the first time); safe from any
    thread."""
    _splitter()


def sure_cuts(text: str) -> list[int]:
    """Offsets in ``text`` where a top-level block certainly begins, in order, found without parsing."""
    cuts: list[int] = []
    fence: tuple[str, int] | None = None  # the open top-level fence's character and length
    for event in _LINE_EVENTS.finditer(text):
        line = event["fence"]
        if line is not None:
            marks = line.lstrip(" ")
            run = len(marks) - len(marks.lstrip(marks[0]))
            if fence is None:
                if marks[0] == "`" and "`" in marks[run:]:
                    continue  # backticks in the info string: an inline code span, not a fence
                if len(line) != len(marks):
                    break  # indented: maybe a list item's fence, which a first-column line would end
                fence = (marks[0], run)
            elif marks[0] == fence[0] and run >= fence[1] and not marks[run:].strip():
                fence = None
            continue
        if fence is not None:
            continue
        if event["html"] is not None:
            break
        start = event.end()
        if _LIST_ITEM.match(text, start) is not None:
            continue  # a list item after a blank line continues a list above it
        if text.find("\n", start) < 0:
            break  # the line is still arriving: "1" may yet become "1. item"
        if cuts or not text[:start].isspace():  # leading blank lines belong to the first block
            cuts.append(start)
    return cuts


def split_blocks(text: str) -> tuple[list[str], str]:
    """Split ``text`` into finished top-level blocks and the last (still open) block, by source lines.

    Each piece keeps its own trailing blank lines, so ``"".join(done) + tail == text``. A finished piece may
    hold several blocks where the scan cut no finer; it renders the same as those blocks one by one.
    """
    if open_fence(text) is not None:
        return [], text
    cuts = sure_cuts(text)
    offset = cuts[-1] if cuts else 0
    done = [text[a:b] for a, b in itertools.pairwise([0, *cuts])] if cuts else []
    rest = text[offset:]
    tokens = _splitter().parse(rest)
    starts = [tok.map[0] for tok in tokens if tok.level == 0 and tok.map is not None and tok.nesting >= 0]
    if len(starts) < 2:
        return done, rest
    lines = rest.splitlines(keepends=True)
    line_cuts = [0, *starts[1:]]
    done += ["".join(lines[a:b]) for a, b in itertools.pairwise(line_cuts)]
    return done, "".join(lines[line_cuts[-1] :])


def open_fence(text: str) -> tuple[str, str] | None:
    """If ``text`` is a code fence that has not been closed yet: its marker and info string."""
    first, _, rest = text.lstrip("\n").partition("\n")
    match = _FENCE_OPEN.match(first)
    if match is None:
        return None
    marker = match.group(1)
    for line in rest.split("\n"):
        stripped = line.strip()
        if stripped.startswith(marker) and set(stripped) == {marker[0]}:
            return None
    return marker, match.group(2).strip()
