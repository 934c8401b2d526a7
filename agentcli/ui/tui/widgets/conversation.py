"""Conversation: the scrolling list of prompts, answers, tool calls and notices, built from the engine's messages.

The same class draws the main view and the detailed (ctrl+o) transcript; ``verbose`` decides how much of each
message is shown. It reads Claude Code's SDK message shapes, so it can replay a stored log as well as follow a
live turn. ``handle`` never awaits: widgets are mounted in the background and text is buffered, so a burst of
deltas costs microseconds each and the engine is never held up by the screen.

Items are mounted in fixed-size segments. Once a segment is full and all its items have finished, it is frozen
(see :mod:`agentcli.ui.tui.widgets.frozen`): its lines join the one widget that draws the finished history, so a
long session adds next to nothing to each layout pass while an answer streams below it.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from textual import on
from textual.await_remove import AwaitRemove
from textual.containers import Vertical, VerticalScroll
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from agentcli.ui.reader import MessageReader, TurnEnd
from agentcli.ui.tui.widgets.frozen import FrozenBlock, FrozenLines, FrozenPart
from agentcli.ui.tui.widgets.markdown_view import MarkdownView
from agentcli.ui.tui.widgets.notice import NoticeLine
from agentcli.ui.tui.widgets.thinking import ThinkingBlock
from agentcli.ui.tui.widgets.tool_call import ToolCallBlock
from agentcli.ui.tui.widgets.user_prompt import UserPrompt

Message = dict[str, Any]
TICK_S = 0.1
SEGMENT_SIZE = 12
QUIET_S = 0.3
"""Freezing costs a few milliseconds per segment, so it waits for a pause in the stream ..."""
MAX_WAITING_SEGMENTS = 3
"""... unless this many full segments are waiting (a long turn with no pause)."""
FREEZE_BUDGET_S = 0.012
"""Time spent freezing per tick at most, so loading a long session never blocks a frame for long."""


def _discard(widget: Widget) -> AwaitRemove:
    """Remove ``widget`` and drop the lines it and its children painted.

    Textual's styles caches stay reachable from a shared LRU cache after their widget is gone; emptying them first
    keeps a long session from holding every line it ever painted.
    """
    for node in (widget, *widget.walk_children(Widget)):
        node.refresh()
    return widget.remove()


def hook_details(hooks: list[Message], errors: Any = None) -> str:
    """Each hook's command, exit code, duration, error and output, for the detailed transcript."""
    lines: list[str] = []
    for hook in hooks:
        lines.append(f"$ {hook.get('command', '?')}" + (f"   ({hook['source']})" if hook.get("source") else ""))
        status = "timed out" if hook.get("timed_out") else f"exit {hook.get('exit_code', '?')}"
        lines.append(f"  {status} · {(hook.get('duration_ms') or 0) / 1000:.2f} s")
        if hook.get("error"):
            lines.append(f"  error: {hook['error']}")
        for stream in ("stdout", "stderr"):
            text = str(hook.get(stream) or "").rstrip("\n")
            if text:
                lines.append(f"  {stream}:")
                lines.extend(f"    {line}" for line in text.splitlines())
    shown = {str(hook.get("error")) for hook in hooks if hook.get("error")}
    lines.extend(f"error: {error}" for error in errors or [] if str(error) not in shown)
    return "\n".join(lines)


def _runs(indexes: list[int]) -> list[tuple[int, int]]:
    """Consecutive runs in sorted ``indexes`` as (first, last) pairs."""
    runs: list[tuple[int, int]] = []
    for index in indexes:
        if runs and runs[-1][1] == index - 1:
            runs[-1] = (runs[-1][0], index)
        else:
            runs.append((index, index))
    return runs


class Segment(Vertical):
    """A run of consecutive conversation items, live: the newest one grows, older ones wait to be frozen."""

    DEFAULT_CSS = """
    Segment { height: auto; }
    """

    def __init__(self, *children: Widget) -> None:
        super().__init__(*children)
        self.items = len(children)

    def freeze(self) -> FrozenPart | None:
        """What the items paint now and their recipes; None if that can't be kept yet (not laid out)."""
        area = self.content_region
        children = list(self.children)
        recipes = [getattr(child, "recipe", None) for child in children]
        if not area.width or None in recipes:
            return None
        lines = [Strip.blank(0)] * area.height
        for child in children:
            if not child.display:
                continue
            region = child.region
            if not region.width or child.outer_size != region.size:
                return None  # not laid out, or not yet told its size (it would render blank lines)
            x, y = region.x - area.x, region.y - area.y
            if x < 0 or y < 0 or y + region.height > area.height:
                return None
            strips = child.render_lines(Region(0, 0, region.width, region.height))
            if x:
                strips = [Strip.join([Strip.blank(x), strip]) for strip in strips]
            lines[y : y + region.height] = strips
        return FrozenPart(FrozenLines(lines), [recipe() for recipe in recipes if recipe is not None], area.width)


class Conversation(VerticalScroll):
    """Follows the engine's messages and keeps the newest at the bottom (unless the user scrolled up)."""

    DEFAULT_CSS = """
    Conversation { height: 1fr; }
    """

    def __init__(self, *, verbose: bool = False, cwd: Path | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self.verbose = verbose
        self.cwd = cwd
        self.reader = ConversationReader(self)
        self._running_tools: set[ToolCallBlock] = set()
        self.can_focus = False
        self._segments: list[Widget] = []
        self._last_message = 0.0

    def on_mount(self) -> None:
        self.anchor()
        self.set_interval(TICK_S, self._tick)
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def on_unmount(self) -> None:
        self.app.theme_changed_signal.unsubscribe(self)

    async def _tick(self) -> None:
        for block in list(self._running_tools):
            if block.running:
                block.tick()
            else:
                self._running_tools.discard(block)
        await self._freeze_finished()

    # -- frozen segments --------------------------------------------------------------------------------------------

    def _settled(self, widget: Widget) -> bool:
        """True when ``widget`` will not change any more (so its lines can be kept)."""
        if isinstance(widget, ToolCallBlock):
            return not widget.running and widget.state != "waiting"
        if isinstance(widget, UserPrompt):
            return not widget.has_class("-queued")
        live = self.reader.is_open(widget)
        if isinstance(widget, MarkdownView):
            # Every block at its real height and laid out so: a block still deferred would be kept as blank lines.
            laid_out = widget.fully_rendered and widget.content_size.height == widget.line_count
            return laid_out and (widget.finished or not live)
        if isinstance(widget, ThinkingBlock):
            return widget.done or not live
        return True

    async def _freeze_finished(self) -> None:
        """Freeze full segments whose items have all finished (never the newest one, which still grows)."""
        segments = self._segments
        waiting = [(index, s) for index, s in enumerate(segments[:-1]) if isinstance(s, Segment)]
        if not waiting or not self.screen.is_current:
            return
        if time.monotonic() - self._last_message < QUIET_S and len(waiting) <= MAX_WAITING_SEGMENTS:
            return
        deadline = 0.0
        frozen: dict[int, FrozenPart] = {}
        for index, segment in waiting:
            children = list(segment.children)
            if not segment.is_mounted or not all(self._settled(child) for child in children):
                continue
            part = segment.freeze()
            if part is None:
                continue
            frozen[index] = part
            for child in children:
                if isinstance(child, ToolCallBlock) and self.reader.tools.get(child.tool_use_id) is child:
                    del self.reader.tools[child.tool_use_id]
            # The first capture of a tick may wait for Textual to map every widget (after a scroll); that is
            # paid once, so the budget for more starts after it.
            deadline = deadline or time.monotonic() + FREEZE_BUDGET_S
            if time.monotonic() > deadline:
                break
        # Each run of newly frozen segments joins the frozen blocks on either side; replace from the end so the
        # indexes of earlier runs stay valid.
        for first, last in reversed(_runs(sorted(frozen))):
            parts = [frozen[index] for index in range(first, last + 1)]
            start, end = first, last + 1
            before = segments[start - 1] if start else None
            if isinstance(before, FrozenBlock):
                start -= 1
                parts = before.parts + parts
            after = segments[end] if end < len(segments) - 1 else None
            if isinstance(after, FrozenBlock):
                parts += after.parts
                end += 1
            await self._replace(start, end, [FrozenBlock(parts)])

    async def _replace(self, start: int, end: int, widgets: list[Widget]) -> None:
        """Put ``widgets`` where segments ``start:end`` are, in one frame (never both, never neither)."""
        old = self._segments[start:end]
        self._segments[start:end] = widgets
        with self.app.batch_update():
            await self.mount_all(widgets, before=old[0])
            for widget in old:
                await _discard(widget)

    @on(FrozenBlock.Stale)
    async def _rebuild(self, event: FrozenBlock.Stale) -> None:
        """Build a stale part's items again where it is (they are frozen again once laid out)."""
        event.stop()
        block = event.block
        if block not in self._segments or not block.is_mounted:
            return
        index = event.part
        part = block.parts[index]
        old_height = len(part.lines)
        top = block.virtual_region.y + block.starts[index]
        # Keep what the reader is looking at in place when a part above it changes height.
        above = top < self.scroll_y < self.max_scroll_y
        live = Segment(*(recipe() for recipe in part.recipes))
        widgets: list[Widget] = [live]
        if index:
            widgets.insert(0, FrozenBlock(block.parts[:index]))
        if index + 1 < len(block.parts):
            widgets.append(FrozenBlock(block.parts[index + 1 :]))
        position = self._segments.index(block)
        await self._replace(position, position + 1, widgets)
        for child in live.children:
            if isinstance(child, ToolCallBlock):
                self.reader.tools.setdefault(child.tool_use_id, child)
        if above:

            def keep_position() -> None:
                delta = live.outer_size.height - old_height
                if delta:
                    self.scroll_to(y=self.scroll_y + delta, animate=False, release_anchor=False)

            self.call_after_refresh(keep_position)

    def _theme_changed(self, _theme: object) -> None:
        for segment in self._segments:
            if isinstance(segment, FrozenBlock):
                segment.mark_stale()

    @property
    def frozen_items(self) -> int:
        return sum(segment.items for segment in self._segments if isinstance(segment, FrozenBlock))

    @property
    def unfrozen_history(self) -> int:
        """Full segments not frozen yet (waiting for an item to finish, for layout, or for a pause)."""
        return sum(1 for segment in self._segments[:-1] if isinstance(segment, Segment))

    def clear(self) -> None:
        """Remove everything (another session is about to be shown)."""
        for segment in self._segments:
            _discard(segment)
        self._segments = []
        self.reader.reset()
        self._running_tools.clear()

    # -- building blocks --------------------------------------------------------------------------------------------

    def add(self, widget: Widget) -> Widget:
        """Mount at the end (background mount: callers never wait for the screen)."""
        segment = self._segments[-1] if self._segments else None
        if not isinstance(segment, Segment) or segment.items >= SEGMENT_SIZE:
            segment = Segment()
            self._segments.append(segment)
            self.mount(segment)
        segment.mount(widget)
        segment.items += 1
        return widget

    def add_prompt(self, text: str, *, queued: bool = False, shell: bool = False) -> UserPrompt:
        prompt = UserPrompt(text, queued=queued, shell=shell)
        self.add(prompt)
        self.anchor()
        return prompt

    def add_notice(self, text: str, kind: str = "info", detail: str = "") -> NoticeLine:
        notice = NoticeLine(text, kind, detail=detail)
        self.add(notice)
        return notice

    def tool(self, tool_use_id: str) -> ToolCallBlock | None:
        tool = self.reader.tools.get(tool_use_id)
        return tool if isinstance(tool, ToolCallBlock) else None

    def new_tool(self, name: str, tool_use_id: str) -> ToolCallBlock:
        block = ToolCallBlock(name, tool_use_id, verbose=self.verbose, cwd=self.cwd)
        self._running_tools.add(block)
        self.add(block)
        return block

    # -- the message router -----------------------------------------------------------------------------------------

    def handle(self, message: Message) -> None:
        """Show one SDK message (stream events included)."""
        self._last_message = time.monotonic()
        self.reader.handle(message)


class ConversationReader(MessageReader):
    """The shared reader, drawing into a :class:`Conversation`."""

    def __init__(self, view: Conversation) -> None:
        super().__init__()
        self.view = view
        self.verbose = view.verbose

    def new_text(self, text: str, *, streaming: bool) -> MarkdownView:
        view = MarkdownView(text, streaming=streaming, classes="assistant")
        self.view.add(view)
        return view

    def new_thinking(self, text: str, *, redacted: bool, done: bool) -> ThinkingBlock:
        block = ThinkingBlock(text, verbose=self.verbose, redacted=redacted, done=done)
        self.view.add(block)
        return block

    def new_tool(self, name: str, tool_use_id: str) -> ToolCallBlock:
        return self.view.new_tool(name, tool_use_id)

    def show_prompt(self, text: str) -> None:
        self.view.add_prompt(text)

    def show_notice(self, text: str, kind: str = "info", detail: str = "") -> None:
        self.view.add_notice(text, kind, detail=detail)

    def drop_blocks(self, blocks: list[Any]) -> None:
        for widget in blocks:
            if isinstance(widget, ToolCallBlock):
                self.view._running_tools.discard(widget)
            if self.verbose:
                widget.add_class("-discarded")
            else:
                widget.remove()

    def show_hooks(self, message: Message) -> None:
        """Hooks that ran for one event: a line when one failed; every hook's command and output in detail."""
        event = str(message.get("hook_event") or ("Stop" if message.get("subtype") == "stop_hook_summary" else "Hook"))
        failed = bool(message.get("has_errors"))
        if not self.verbose:
            if failed:
                self.show_notice(f"{event} hook error · ctrl+o to see", "error")
            return
        hooks = [hook for hook in message.get("hooks") or [] if isinstance(hook, dict)]
        title = f"{event} hooks · {len(hooks)} ran" + (" · failed" if failed else "")
        if message.get("prevented"):
            title += " · stopped the turn" + (f": {message['stop_reason']}" if message.get("stop_reason") else "")
        self.show_notice(title, "error" if failed else "info", detail=hook_details(hooks, message.get("errors")))

    def show_retry(self, message: Message) -> None:
        if self.verbose:
            super().show_retry(message)

    def show_system_detail(self, message: Message) -> None:
        if not self.verbose:
            return
        subtype = str(message.get("subtype"))
        if subtype == "init":
            self.show_notice(
                f"Session {message.get('session_id', '')} · {message.get('model', '')} · "
                f"{message.get('cwd', '')} · tools: {', '.join(message.get('tools') or [])}"
            )
            return
        skip = {"type", "subtype", "session_id", "uuid"}
        fields = ", ".join(f"{key}={value}" for key, value in message.items() if key not in skip)
        self.show_notice(f"{subtype}: {fields}"[:2000], "info")

    def show_turn_end(self, end: TurnEnd) -> None:
        for tool in list(self.view._running_tools):
            if tool.result is None:
                tool.finished(True)
        self.view._running_tools.clear()
        self.view.add_notice(end.line(), "turn-end")
