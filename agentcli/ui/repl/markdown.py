"""Markdown for the REPL: the answer being streamed, and how finished answers are laid out.

The live region shows only the last lines of the answer being streamed, so :class:`MarkdownTail` keeps the text as
lines and remembers where code fences open and close: a tail that starts inside a fence gets its opening line back
and still renders as code, without the text being scanned again.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Any, ClassVar

from rich.markdown import Heading, Markdown

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


class _LeftHeading(Heading):
    """Headings flush left, as in the rest of the transcript (rich centres ``#`` titles)."""

    LEVEL_ALIGN: ClassVar[dict[str, Any]] = dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6"), "left")


class AnswerMarkdown(Markdown):
    """rich's Markdown with left-aligned headings."""

    elements: ClassVar[dict[str, Any]] = {**Markdown.elements, "heading_open": _LeftHeading}


class MarkdownTail:
    """One streaming text block: its whole text, and its last lines as Markdown that renders on its own.

    Appending is cheap (no parsing); complete lines are kept as a list, with the lines that open or close a code
    fence, so the tail can reopen a fence it starts inside without scanning the text again.
    """

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._lines: list[str] = []
        self._partial: list[str] = []
        self._toggles: list[int] = []
        self._open: str | None = None
        self.version = 0

    def append(self, text: str) -> None:
        """Add a delta; only a delta with a newline does any work beyond keeping it."""
        if not text:
            return
        self.version += 1
        self._parts.append(text)
        if "\n" not in text:
            self._partial.append(text)
            return
        pieces = ("".join(self._partial) + text).split("\n")
        self._partial = [pieces[-1]] if pieces[-1] else []
        for line in pieces[:-1]:
            self._add_line(line)

    def _add_line(self, line: str) -> None:
        index = len(self._lines)
        self._lines.append(line)
        match = _FENCE.match(line)
        if match is None:
            return
        marker = match.group(1)
        if self._open is None:
            self._open = marker
            self._toggles.append(index)
            return
        stripped = line.strip()
        if set(stripped) == {self._open[0]} and len(stripped) >= len(self._open):
            self._open = None
            self._toggles.append(index)

    @property
    def text(self) -> str:
        """The whole block (joined once, when it is printed)."""
        return "".join(self._parts)

    def tail(self, max_lines: int) -> tuple[str, bool]:
        """The last ``max_lines`` lines (an open code fence re-opened on top), and whether lines were left out."""
        partial = "".join(self._partial)
        count = len(self._lines) + (1 if partial else 0)
        start = max(0, count - max(1, max_lines))
        shown = self._lines[start:]
        if partial:
            shown = [*shown, partial]
        inside = bisect_left(self._toggles, start)
        if inside % 2:
            shown = [self._lines[self._toggles[inside - 1]], *shown]
        return "\n".join(shown), start > 0
