"""Finished conversation history kept as lines instead of widgets.

Textual lays out and maps every mounted widget on each layout pass, and every widget is a few hundred Python
objects that each full garbage collection walks. A long session would slow every frame of the answer streaming
below it. So once a run of items has finished, the conversation keeps only what they painted, in a compact form,
plus a recipe of plain data per item to build the widgets again. Consecutive finished runs share one widget.

After a resize or a theme change the kept lines are stale. A stale part is rebuilt from its recipes only when it
is painted, so only the history a person actually looks at is rendered again.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from rich.segment import Segment as RichSegment
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget


class FrozenLines:
    """Rendered lines as a style table and, per line, its text with (start, end, style index) runs.

    Strings and tuples of ints are invisible to Python's cycle collector; thousands of ``Strip`` objects (each with
    its own caches) would make every full garbage collection, a pause of the whole interface, slower.
    """

    __slots__ = ("_lines", "_styles")

    def __init__(self, strips: Iterable[Strip]) -> None:
        styles: list[Any] = []
        index: dict[Any, int] = {}
        lines: list[tuple[str, tuple[int, ...]]] = []
        for strip in strips:
            texts: list[str] = []
            runs: list[int] = []
            position = 0
            for text, style, control in strip:
                if control or not text:
                    continue
                key = index.get(style)
                if key is None:
                    key = index[style] = len(styles)
                    styles.append(style)
                texts.append(text)
                runs += (position, position + len(text), key)
                position += len(text)
            lines.append(("".join(texts), tuple(runs)))
        self._lines = lines
        self._styles = styles

    def __len__(self) -> int:
        return len(self._lines)

    def strip(self, y: int) -> Strip:
        text, runs = self._lines[y]
        styles = self._styles
        return Strip([RichSegment(text[runs[i] : runs[i + 1]], styles[runs[i + 2]]) for i in range(0, len(runs), 3)])


@dataclass
class FrozenPart:
    """What one run of items painted at ``width``, and how to build those items again."""

    lines: FrozenLines
    recipes: list[Callable[[], Widget]]
    width: int
    stale: bool = False


class FrozenBlock(Widget):
    """Consecutive frozen parts drawn as one widget with no children."""

    DEFAULT_CSS = """
    FrozenBlock { height: auto; width: 1fr; }
    """

    class Stale(Message):
        """A stale part is on screen and should be built again."""

        def __init__(self, block: FrozenBlock, part: int) -> None:
            super().__init__()
            self.block = block
            self.part = part

    def __init__(self, parts: list[FrozenPart]) -> None:
        super().__init__()
        self.parts = parts
        self.starts: list[int] = []
        height = 0
        for part in parts:
            self.starts.append(height)
            height += len(part.lines)
        self._height = height
        self._asked = False

    @property
    def items(self) -> int:
        return sum(len(part.recipes) for part in self.parts)

    def mark_stale(self) -> None:
        """The kept lines no longer match the theme."""
        for part in self.parts:
            part.stale = True
        self.refresh()

    def on_resize(self, event: events.Resize) -> None:
        changed = False
        for part in self.parts:
            if part.width != event.size.width and not part.stale:
                part.stale = changed = True
        if changed:
            self.refresh()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self._height

    def render_line(self, y: int) -> Strip:
        if y >= self._height:
            return Strip.blank(0)
        index = bisect.bisect_right(self.starts, y) - 1
        part = self.parts[index]
        if part.stale and not self._asked:
            self._asked = True
            self.post_message(self.Stale(self, index))
        return part.lines.strip(y - self.starts[index])

    def get_line_filters(self) -> Any:
        # The kept lines went through the filters when the items painted them.
        return []
