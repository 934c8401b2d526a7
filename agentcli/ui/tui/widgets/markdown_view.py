"""MarkdownView: one message's Markdown as a single widget, fed delta by delta.

A message is one widget however long it grows (layout cost scales with the number of mounted widgets, so a
widget per block slows every later update). Deltas are only buffered; a flush runs at most about 30 times a
second, re-parses just the open last block and re-renders its lines, and asks for a layout pass only when the
line count changed. Finished blocks keep their rendered lines until the width or the theme changes.

When many blocks finish at once (a burst from a fast stream, a resize of a long message), only a screenful of the
last ones is rendered straight away: the ones above hold an estimated height and are rendered when a line
of theirs is painted, or a few at a time once the stream pauses. The newest text shows without waiting for
everything above it, which nobody is looking at while the answer streams in at the bottom.
"""

from __future__ import annotations

import asyncio
import bisect
import time
from collections.abc import Callable
from functools import partial
from typing import ClassVar

from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

from agentcli.ui.tui.markdown_blocks import BlockRenderer, highlight_all, warm_highlighter, warm_markdown
from agentcli.ui.tui.markdown_split import open_fence, split_blocks

FLUSH_INTERVAL_S = 1 / 30
BURST_FLUSH_INTERVAL_S = 0.25
BURST_CHARS_PER_S = 20_000
"""Past this rate text arrives faster than anyone reads (a model writes ~1 KB/s): the view then updates four times a
second, so laying out and painting a growing answer does not take the time the stream itself needs."""
EAGER_MIN_LINES = 24
"""Lines of newly finished blocks rendered at once at least (a screenful when the screen is taller)."""
BACKFILL_DELAY_S = 0.1
BACKFILL_BUDGET_S = 0.015
HIGHLIGHT_INLINE_LINES = 60
"""A closed fence of up to this many lines is highlighted at once (≈ 15 ms); a longer one shows plain for a moment
while a worker thread highlights it (pygments takes ≈ 0.2 ms a line: typing must not wait for a 500-line file)."""


def flush_interval(arrived_chars: int, elapsed_s: float) -> float:
    """When to show the text next, given how much arrived since the last update and in how long."""
    burst = arrived_chars > BURST_CHARS_PER_S * max(elapsed_s, FLUSH_INTERVAL_S)
    return BURST_FLUSH_INTERVAL_S if burst else FLUSH_INTERVAL_S


class MarkdownView(Widget):
    """Streams Markdown: ``append()`` per delta, ``finish()`` once; the text so far is ``source``."""

    DEFAULT_CSS = """
    MarkdownView { height: auto; }

    MarkdownView > .md--h1 {
        color: $markdown-h1-color;
        text-style: bold underline;
    }

    MarkdownView > .md--h2 {
        color: $primary;
        text-style: bold;
    }

    MarkdownView > .md--h3 {
        text-style: bold;
    }

    MarkdownView > .md--code-inline {
        color: $accent;
    }

    MarkdownView > .md--fence {
        background: $surface;
    }

    MarkdownView > .md--bullet {
        color: $primary;
    }

    MarkdownView > .md--quote {
        color: $secondary;
    }

    MarkdownView > .md--hr {
        color: $foreground 35%;
    }

    MarkdownView > .md--link {
        color: $secondary;
        text-style: underline;
    }

    MarkdownView > .md--table-header {
        text-style: bold;
    }

    MarkdownView > .md--table-border {
        color: $foreground 45%;
    }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "md--h1",
        "md--h2",
        "md--h3",
        "md--code-inline",
        "md--fence",
        "md--bullet",
        "md--quote",
        "md--hr",
        "md--link",
        "md--table-header",
        "md--table-border",
    }

    def __init__(
        self,
        markdown: str = "",
        *,
        streaming: bool = False,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._done_sources: list[str] = []
        self._tail = ""
        self._pending: list[str] = [markdown] if markdown else []
        self._finished = not streaming
        self._width = 0
        self._done_lines: list[Strip] = []
        self._blocks: list[list[Strip] | None] = []
        """Per finished block (``_done_sources``), its lines with the separator above it, or None until rendered."""
        self._heights: list[int] = []
        self._starts: list[int] = []
        self._deferred = 0
        self._backfill_handle: asyncio.TimerHandle | None = None
        self._tail_lines: list[Strip] = []
        self._fence_lines: list[Strip] = []
        self._fence_count = 0
        self._flush_handle: asyncio.TimerHandle | None = None
        self._last_flush = 0.0
        self._flush_interval = FLUSH_INTERVAL_S
        self._renderer: BlockRenderer | None = None
        self._generation = 0
        """Counts re-renders (width, theme): highlighting finished for an older one is dropped."""
        self._highlighting = 0
        self.flushes = 0

    # -- feeding ----------------------------------------------------------------------------------------------------

    @property
    def source(self) -> str:
        """Everything appended so far (buffered text included)."""
        return "".join(self._done_sources) + self._tail + "".join(self._pending)

    @property
    def finished(self) -> bool:
        return self._finished

    @property
    def rendered(self) -> bool:
        """True once the text has been laid out at the current width."""
        return bool(self._width) and not self._pending

    @property
    def fully_rendered(self) -> bool:
        """True once every block has its real lines: none still holds an estimated height (they are rendered when
        painted, or a few at a time once the stream pauses)."""
        return self.rendered and not self._deferred and not self._highlighting

    @property
    def line_count(self) -> int:
        """How many lines the message has now (its laid-out height follows on the next layout pass)."""
        return len(self._done_lines) + len(self._tail_lines)

    def recipe(self) -> Callable[[], MarkdownView]:
        """How to build this message again (plain data: a frozen history segment keeps no widget alive)."""
        return partial(MarkdownView, self.source, classes=" ".join(self.classes))

    def append(self, fragment: str) -> None:
        """Add streamed text; it shows within one flush interval."""
        if not fragment:
            return
        self._pending.append(fragment)
        if self._flush_handle is None and self.is_mounted:
            delay = max(0.0, self._last_flush + self._flush_interval - time.monotonic())
            self._flush_handle = asyncio.get_running_loop().call_later(delay, self.flush)

    def finish(self) -> None:
        """The message is complete: render what is left at once, highlighting the last block too."""
        self._finished = True
        self.flush()

    def flush(self) -> None:
        """Bring the rendered lines up to date with the text received so far."""
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        now = time.monotonic()
        if not self._pending and not self._finished:
            self._last_flush = now
            return
        self._flush_interval = flush_interval(sum(map(len, self._pending)), now - self._last_flush)
        self._last_flush = now
        old_height = len(self._done_lines) + len(self._tail_lines)
        if self._pending:
            self._tail += "".join(self._pending)
            self._pending.clear()
        if self._width and self.is_mounted:
            self._advance()
            self.flushes += 1
            self.refresh(layout=len(self._done_lines) + len(self._tail_lines) != old_height)
        else:
            self.refresh(layout=True)

    # -- rendering --------------------------------------------------------------------------------------------------

    @property
    def renderer(self) -> BlockRenderer:
        if self._renderer is None:
            self._renderer = BlockRenderer(self)
            self._renderer.highlight_limit = HIGHLIGHT_INLINE_LINES
        return self._renderer

    def _separator(self, has_above: bool) -> list[Strip]:
        return [Strip.blank(0)] if has_above else []

    def _block_lines(self, index: int, width: int) -> list[Strip]:
        renderer = self.renderer
        renderer.left_plain = []
        lines = renderer.render(self._done_sources[index], width, final=True)
        if renderer.left_plain and self.is_mounted:
            self._highlighting += 1
            self.run_worker(
                self._highlight_later(index, renderer.left_plain, self._generation),
                group="highlight",
                exit_on_error=False,
            )
        return self._separator(index > 0) + lines if lines else []  # a link definition alone shows nothing

    async def _highlight_later(self, index: int, fences: list[tuple[str, str | None]], generation: int) -> None:
        """Highlight a block's long fences in a thread, then put its highlighted lines in place of the plain ones."""
        try:
            ready = await asyncio.to_thread(highlight_all, fences)
        finally:
            self._highlighting -= 1
        if generation != self._generation or not self._width or self._blocks[index] is None:
            return  # rendered again meanwhile (a new width or theme), or about to be
        self.renderer.highlighted.update(ready)
        lines = self._block_lines(index, self._width)
        self.renderer.highlighted.clear()
        changed = len(lines) != self._heights[index]
        self._blocks[index] = lines
        self._heights[index] = len(lines)
        self._join()
        self.refresh(layout=changed)

    def _estimate(self, index: int, width: int) -> int:
        """A deferred block's height until it is rendered: its source lines, wrapped at the width."""
        room = max(1, width - 2)
        lines = self._done_sources[index].strip("\n").split("\n")
        return int(index > 0) + sum(max(1, -(-len(line) // room)) for line in lines)

    def _eager_lines(self) -> int:
        """How many lines of newly finished blocks to render at once: a screenful (the rest is out of sight)."""
        return max(EAGER_MIN_LINES, self.app.size.height) if self.is_attached else EAGER_MIN_LINES

    def _add_blocks(self, sources: list[str], width: int) -> None:
        """Finished blocks: the last screenful rendered now, the ones above it deferred."""
        first = len(self._done_sources)
        self._done_sources.extend(sources)
        rendered: list[list[Strip] | None] = [None] * len(sources)
        room = self._eager_lines()
        for position in range(len(sources) - 1, -1, -1):
            if room <= 0:
                break
            rendered[position] = lines = self._block_lines(first + position, width)
            room -= len(lines)
        for position, lines in enumerate(rendered):
            self._blocks.append(lines)
            if lines is None:
                self._heights.append(self._estimate(first + position, width))
                self._deferred += 1
            else:
                self._heights.append(len(lines))

    def _join(self) -> None:
        """The flat list of finished lines (deferred blocks as blank lines of their estimated height)."""
        lines: list[Strip] = []
        starts: list[int] = []
        blank = Strip.blank(0)
        for block, height in zip(self._blocks, self._heights, strict=True):
            starts.append(len(lines))
            if block is None:
                lines.extend([blank] * height)
            else:
                lines.extend(block)
        self._done_lines, self._starts = lines, starts
        if self._deferred:
            self._schedule_backfill()

    def _render_deferred(self, index: int) -> bool:
        """Render one deferred block; True if its height differed from the estimate."""
        lines = self._block_lines(index, self._width)
        self._blocks[index] = lines
        self._deferred -= 1
        changed = len(lines) != self._heights[index]
        self._heights[index] = len(lines)
        return changed

    def _schedule_backfill(self) -> None:
        if self._backfill_handle is None and self.is_mounted:
            self._backfill_handle = asyncio.get_running_loop().call_later(BACKFILL_DELAY_S, self._backfill)

    def _backfill(self) -> None:
        """Render deferred blocks, nearest the end first, a few milliseconds at a time while the stream pauses."""
        self._backfill_handle = None
        if not self._deferred or not self._width:
            return
        if self._pending or self._flush_handle is not None or time.monotonic() - self._last_flush < BACKFILL_DELAY_S:
            self._schedule_backfill()  # the stream is still coming in, or its last text not yet painted: it goes first
            return
        deadline = time.monotonic() + BACKFILL_BUDGET_S
        changed = False
        for index in range(len(self._blocks) - 1, -1, -1):
            if self._blocks[index] is None:
                changed |= self._render_deferred(index)
                if time.monotonic() > deadline:
                    break
        self._join()
        self.refresh(layout=changed)

    def _advance(self) -> None:
        """Move newly finished blocks into the done lines and re-render the open tail block."""
        done, tail = split_blocks(self._tail) if self._tail else ([], "")
        width = self._width
        if self._finished and tail:
            done, tail = [*done, tail], ""
        self._add_blocks(done, width)
        if done:
            self._fence_lines, self._fence_count = [], 0
            self._join()
        self._tail = tail
        if self._finished:
            self._tail_lines = []
            return
        self._tail_lines = self._separator(bool(self._done_lines) and bool(tail)) + self._render_tail(tail, width)

    def _render_tail(self, tail: str, width: int) -> list[Strip]:
        if not tail.strip():
            return []
        fence = open_fence(tail)
        if fence is None:
            self._fence_lines, self._fence_count = [], 0
            return self.renderer.render(tail, width, final=False)
        if not self._fence_count:
            warm_highlighter(fence[1])  # ready by the time the fence closes
        body = tail.lstrip("\n").partition("\n")[2]
        lines = body.split("\n")
        complete = lines[:-1]
        for line in complete[self._fence_count :]:
            self._fence_lines.extend(self.renderer.plain_code_line(line, width))
        self._fence_count = len(complete)
        partial = self.renderer.plain_code_line(lines[-1], width) if lines[-1] else []
        return self._fence_lines + partial

    def _rerender(self, width: int) -> None:
        """Render everything again (new width or theme): the last blocks now, the rest deferred."""
        self._width = width
        self._generation += 1
        sources, self._done_sources = self._done_sources, []
        self._blocks, self._heights, self._deferred = [], [], 0
        self._add_blocks(sources, width)
        self._join()
        self._fence_lines, self._fence_count = [], 0
        if self._pending:
            self._tail += "".join(self._pending)
            self._pending.clear()
        self._advance()

    def _ensure(self, width: int) -> None:
        if width > 0 and width != self._width:
            self._rerender(width)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._ensure(width)
        return len(self._done_lines) + len(self._tail_lines)

    def render_line(self, y: int) -> Strip:
        self._ensure(self.content_size.width)
        done = self._done_lines
        if y < len(done):
            if self._deferred:
                index = bisect.bisect_right(self._starts, y) - 1
                if self._blocks[index] is None:  # painted: render it now
                    changed = self._render_deferred(index)
                    self._join()
                    done = self._done_lines
                    if changed:
                        self.refresh(layout=True)
                    if y >= len(done):
                        return Strip.blank(0)
            return done[y]
        y -= len(done)
        if y < len(self._tail_lines):
            return self._tail_lines[y]
        return Strip.blank(0)

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        warm_markdown()  # a finished message renders its code too; the next may be a burst
        if self._pending:
            self.flush()

    def on_unmount(self) -> None:
        # The signal holds its subscribers until the next theme change; a removed view must not wait that long.
        self.app.theme_changed_signal.unsubscribe(self)
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        if self._backfill_handle is not None:
            self._backfill_handle.cancel()
            self._backfill_handle = None

    def _theme_changed(self, _theme: object) -> None:
        self._width = 0
        self.refresh(layout=True)
