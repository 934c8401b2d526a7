"""Conversation: the scrolling list of prompts, answers, tool calls and notices, built from the engine's messages.

The same class draws the main view and the detailed (ctrl+o) transcript; ``verbose`` decides how much of each
message is shown. It reads Claude Code's SDK message shapes, so it can replay a stored log as well as follow a
live turn. ``handle`` never awaits: widgets are mounted in the background and text is buffered, so a burst of
deltas costs microseconds each and the engine is never held up by the screen.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.containers import Vertical, VerticalScroll
from textual.widget import Widget

from agentcli.ui.tui.widgets.markdown_view import MarkdownView
from agentcli.ui.tui.widgets.notice import NoticeLine
from agentcli.ui.tui.widgets.thinking import ThinkingBlock
from agentcli.ui.tui.widgets.tool_call import ToolCallBlock
from agentcli.ui.tui.widgets.user_prompt import UserPrompt

Message = dict[str, Any]
TICK_S = 0.1
SEGMENT_SIZE = 24


def _user_text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text"]
        if texts and not any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return "\n".join(texts)
    return None


class Segment(Vertical):
    """A run of consecutive conversation items.

    Textual re-arranges a container only when its own children change, so once a segment is full its layout is
    cached: streaming into the newest segment lays out a few dozen widgets, not the whole session.
    """

    DEFAULT_CSS = """
    Segment { height: auto; }
    """


class Conversation(VerticalScroll):
    """Follows the engine's messages and keeps the newest at the bottom (unless the user scrolled up)."""

    DEFAULT_CSS = """
    Conversation { height: 1fr; }
    """

    def __init__(self, *, verbose: bool = False, cwd: Path | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self.verbose = verbose
        self.cwd = cwd
        self._blocks: dict[int, Widget] = {}
        self._streamed: set[str] = set()
        self._message_id: str | None = None
        self._tools: dict[str, ToolCallBlock] = {}
        self._running_tools: set[ToolCallBlock] = set()
        self.can_focus = False
        self._segment: Segment | None = None
        self._segment_items = 0

    def on_mount(self) -> None:
        self.anchor()
        self.set_interval(TICK_S, self._tick)

    def _tick(self) -> None:
        for block in list(self._running_tools):
            if block.running:
                block.tick()
            else:
                self._running_tools.discard(block)

    # -- building blocks --------------------------------------------------------------------------------------------

    def add(self, widget: Widget) -> Widget:
        """Mount at the end (background mount: callers never wait for the screen)."""
        if self._segment is None or self._segment_items >= SEGMENT_SIZE:
            self._segment = Segment()
            self._segment_items = 0
            self.mount(self._segment)
        self._segment.mount(widget)
        self._segment_items += 1
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
        return self._tools.get(tool_use_id)

    def new_tool(self, name: str, tool_use_id: str) -> ToolCallBlock:
        block = ToolCallBlock(name, tool_use_id, verbose=self.verbose, cwd=self.cwd)
        self._tools[tool_use_id] = block
        self._running_tools.add(block)
        self.add(block)
        return block

    # -- the message router -----------------------------------------------------------------------------------------

    def handle(self, message: Message) -> None:
        """Show one SDK message (stream events included)."""
        kind = message.get("type")
        if kind == "stream_event":
            self._stream_event(message["event"])
        elif kind == "assistant":
            self._assistant(message)
        elif kind == "user":
            self._user(message)
        elif kind == "system":
            self._system(message)
        elif kind == "result":
            self._result(message)

    def _stream_event(self, event: Message) -> None:
        kind = event.get("type")
        if kind == "content_block_delta":
            block = self._blocks.get(event.get("index", -1))
            delta = event.get("delta") or {}
            delta_type = delta.get("type")
            if delta_type == "text_delta" and isinstance(block, MarkdownView):
                block.append(delta.get("text", ""))
            elif delta_type == "thinking_delta" and isinstance(block, ThinkingBlock):
                block.append(delta.get("thinking", ""))
            elif delta_type == "input_json_delta" and isinstance(block, ToolCallBlock):
                block.append_input_json(delta.get("partial_json", ""))
        elif kind == "content_block_start":
            self._block_start(event.get("index", 0), event.get("content_block") or {})
        elif kind == "content_block_stop":
            block = self._blocks.get(event.get("index", -1))
            if isinstance(block, MarkdownView):
                block.finish()
            elif isinstance(block, ToolCallBlock):
                block.input_complete()
        elif kind == "message_start":
            self._message_id = (event.get("message") or {}).get("id")
            if self._message_id:
                self._streamed.add(self._message_id)
            self._blocks = {}

    def _block_start(self, index: int, block: Message) -> None:
        kind = block.get("type")
        widget: Widget | None = None
        if kind == "text":
            view = MarkdownView(block.get("text", ""), streaming=True, classes="assistant")
            widget = self.add(view)
        elif kind in ("thinking", "redacted_thinking"):
            widget = self.add(ThinkingBlock(block.get("thinking", ""), verbose=self.verbose,
                                            redacted=kind == "redacted_thinking"))
        elif kind in ("tool_use", "server_tool_use"):
            widget = self.new_tool(str(block.get("name", "?")), str(block.get("id", "")))
        if widget is not None:
            self._blocks[index] = widget

    def _assistant(self, message: Message) -> None:
        body = message.get("message") or {}
        if message.get("isApiErrorMessage"):
            text = "".join(b.get("text", "") for b in body.get("content", []) if b.get("type") == "text")
            self.add_notice(text or "API error", "error")
            return
        if body.get("id") in self._streamed:
            for index, block in enumerate(body.get("content") or []):
                widget = self._blocks.get(index)
                if isinstance(widget, MarkdownView) and not widget.finished:
                    widget.finish()
                elif isinstance(widget, ThinkingBlock):
                    widget.finish(block.get("thinking"))
                elif isinstance(widget, ToolCallBlock):
                    widget.input_complete(block.get("input"))
            self._blocks = {}
            return
        for block in body.get("content") or []:
            kind = block.get("type")
            if kind == "text" and block.get("text"):
                self.add(MarkdownView(block["text"], classes="assistant"))
            elif kind in ("thinking", "redacted_thinking"):
                thinking = ThinkingBlock(block.get("thinking", ""), verbose=self.verbose,
                                         redacted=kind == "redacted_thinking")
                thinking.done = True
                self.add(thinking)
            elif kind == "tool_use":
                tool = self.new_tool(str(block.get("name", "?")), str(block.get("id", "")))
                tool.input_complete(block.get("input") or {})

    def _user(self, message: Message) -> None:
        body = message.get("message") or {}
        content = body.get("content")
        if message.get("isMeta"):
            if self.verbose:
                self.add_notice("Added to the conversation by agentcli:", "info", detail=_user_text(content) or "")
            return
        if isinstance(content, list):
            results = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
            for block in results:
                tool = self._tools.get(str(block.get("tool_use_id")))
                structured = message.get("tool_use_result") if len(results) == 1 else None
                if tool is not None:
                    tool.set_result(block, structured if isinstance(structured, dict) else None)
                    self._running_tools.discard(tool)
            if results:
                return
        text = _user_text(content)
        if text is not None:
            self.add_prompt(text)

    def _system(self, message: Message) -> None:
        subtype = message.get("subtype")
        if subtype == "tool_started":
            tool = self._tools.get(str(message.get("tool_use_id"))) or self.new_tool(
                str(message.get("tool_name", "?")), str(message.get("tool_use_id", "")))
            tool.start(message.get("tool_input"))
        elif subtype == "tool_progress":
            tool = self._tools.get(str(message.get("tool_use_id")))
            if tool is not None:
                tool.progress(float(message.get("elapsed_time_seconds") or 0), str(message.get("output") or ""))
        elif subtype == "tool_finished":
            tool = self._tools.get(str(message.get("tool_use_id")))
            if tool is not None:
                tool.finished(bool(message.get("is_error")), message.get("duration_ms"))
        elif subtype == "stream_discarded":
            self._discard_stream()
        elif subtype == "warning":
            self.add_notice(f"⚠ {message.get('message', '')}", "warning")
        elif subtype == "compact_boundary":
            self.add_notice("── earlier messages were summarised to free context ──", "info")
        elif subtype == "init":
            if self.verbose:
                self.add_notice(f"Session {message.get('session_id', '')} · {message.get('model', '')} · "
                                f"{message.get('cwd', '')} · tools: {', '.join(message.get('tools') or [])}")
        elif self.verbose:
            self._system_detail(message)

    def _system_detail(self, message: Message) -> None:
        subtype = str(message.get("subtype"))
        if subtype == "api_retry":
            delay = (message.get("retry_delay_ms") or 0) / 1000
            self.add_notice(
                f"API retry {message.get('attempt')}/{message.get('max_retries')} in {delay:.1f} s "
                f"({message.get('error_status') or ''} {message.get('error') or ''})".rstrip(), "warning")
            return
        if subtype.startswith("hook"):
            name = message.get("hook_name") or message.get("hook_event") or subtype
            detail = "\n".join(str(message[key]) for key in ("stdout", "stderr", "output") if message.get(key))
            outcome = message.get("outcome") or message.get("exit_code", "")
            self.add_notice(f"Hook {name} {outcome}".rstrip(), "info", detail=detail)
            return
        skip = {"type", "subtype", "session_id", "uuid"}
        fields = ", ".join(f"{key}={value}" for key, value in message.items() if key not in skip)
        self.add_notice(f"{subtype}: {fields}"[:2000], "info")

    def _discard_stream(self) -> None:
        """A retry threw away what was streamed: drop it here and leave a marker."""
        for widget in self._blocks.values():
            if isinstance(widget, ToolCallBlock):
                self._tools.pop(widget.tool_use_id, None)
                self._running_tools.discard(widget)
            if self.verbose:
                widget.add_class("-discarded")
            else:
                widget.remove()
        self._blocks = {}
        self.add_notice("(a partial answer was discarded; retrying)", "info")

    def _result(self, message: Message) -> None:
        for tool in list(self._running_tools):
            if tool.result is None:
                tool.finished(True)
        self._running_tools.clear()
        errors = [str(e) for e in message.get("errors") or []]
        if message.get("is_error"):
            if "Interrupted by user" in errors:
                self.add_notice("⎿  Interrupted · tell agentcli what to do instead", "warning")
            for error in errors:
                if error != "Interrupted by user":
                    self.add_notice(error, "error")
        if self.verbose:
            cost = float(message.get("total_cost_usd") or 0)
            self.add_notice(
                f"Result: {message.get('subtype')} · {message.get('num_turns', 0)} request(s) · "
                f"{(message.get('duration_ms') or 0) / 1000:.1f} s · ${cost:.4f} session", "info")
