"""Printing the engine's messages into the terminal's own scrollback.

What is finished (an answer block, a tool call and its result, a notice) is printed once and becomes ordinary
terminal history that the user scrolls, searches and copies with the terminal's own tools. What still changes (the
tail of the answer being streamed, a running command's output, the spinner) lives in one transient rich ``Live``
region under it. Deltas only append to a buffer; the region is redrawn by :meth:`TurnView.tick` at most every
``FRAME_S`` and renders only the last lines of the open block, so a long answer costs the same per frame as a short
one. The region is erased when the turn ends, and the block's Markdown is printed once when the block closes.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.live import Live
from rich.segment import Segment, SegmentLines
from rich.text import Text

from agentcli.ui.repl.markdown import AnswerMarkdown, MarkdownTail
from agentcli.ui.tui.summaries import format_elapsed, key_input, patch_lines, result_line, tail_lines

Message = dict[str, Any]
FRAME_S = 0.1
"""The live region is redrawn at most this often (the spinner turns at the same pace)."""
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
OUTPUT_TAIL_LINES = 5
DIFF_LINES = 8
REPLAY_MESSAGES = 12
INTERRUPTED = "Interrupted by user"


@dataclass
class _Tool:
    name: str
    tool_use_id: str
    input: dict[str, Any] | None = None
    json_parts: list[str] = field(default_factory=list)
    header_printed: bool = False
    running_since: float | None = None
    output: str = ""
    done: bool = False


@dataclass
class _Thinking:
    started: float
    parts: list[str] = field(default_factory=list)
    redacted: bool = False


class _Frame:
    """Lines rendered once per frame; the Live region repaints them without rendering the Markdown again."""

    def __init__(self, lines: list[list[Segment]]) -> None:
        self.lines = lines

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield SegmentLines(self.lines, new_lines=True)


def make_console(file: IO[str] | None = None, *, width: int | None = None, height: int | None = None,
                 terminal: bool | None = None) -> Console:
    """The console the REPL prints with (the terminal, or ``file`` without colours): no guessing at highlights or
    emoji codes in what the model wrote."""
    return Console(file=file, width=width, height=height, force_terminal=terminal, highlight=False, emoji=False,
                   color_system="auto" if file is None else None)


def one_line(text: str, limit: int) -> str:
    """``text`` with its whitespace collapsed, cut to ``limit`` characters: a preview that never wraps."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: max(1, limit - 1)] + "…"


class TurnView:
    """Shows a session's messages: permanent lines in the scrollback, the changing part in a transient region."""

    def __init__(self, console: Console, cwd: Path | None = None) -> None:
        self.console = console
        self.cwd = cwd
        self._live: Live | None = None
        self._active = False
        self._paused = False
        self._turn_started = 0.0
        self._blocks: dict[int, MarkdownTail | _Thinking | _Tool] = {}
        self._streamed: set[str] = set()
        self._tools: dict[str, _Tool] = {}
        self._last_header: str | None = None
        self._session_cost = 0.0
        self._frame_key: tuple[Any, ...] | None = None
        self._frame_lines: list[list[Segment]] = []
        self.retry_note = ""
        self.turns = 0
        """Results shown so far (one per prompt)."""

    # -- printing ---------------------------------------------------------------------------------------------------

    def print(self, renderable: RenderableType = "", *, gap: bool = False, clip: bool = False) -> None:
        """Print into the scrollback (above the live region, when there is one); ``clip`` keeps it to one line per
        line, cut with an ellipsis at the terminal's edge."""
        if gap:
            self.console.print()
        if clip:
            self.console.print(renderable, no_wrap=True, overflow="ellipsis")
        else:
            self.console.print(renderable)
        self._last_header = None

    def notice(self, text: str, style: str = "dim") -> None:
        """A line of agentcli's own (dim: it is about the session, not from the model)."""
        self.print(Text(text, style=style))

    def warning(self, text: str) -> None:
        """Something the user should know but need not act on now."""
        self.print(Text(f"⚠ {text}", style="yellow"))

    def error(self, text: str) -> None:
        """Something that failed, in red so it stands out in a long scrollback."""
        self.print(Text(text, style="red"))

    # -- the turn and its live region -------------------------------------------------------------------------------

    def begin_turn(self) -> None:
        """A prompt was sent: the live region (spinner, answer tail, running commands) appears under the output."""
        self._tools = {}
        self._streamed = set()
        self._active = True
        self._turn_started = time.monotonic()
        self.retry_note = ""
        self._start_live()

    def end_turn(self) -> None:
        """Print what was still open (an interrupted answer) and erase the live region."""
        self._flush_blocks()
        self._active = False
        self._stop_live()

    def pause(self) -> None:
        """Erase the live region so a question can use the terminal; :meth:`resume` brings it back."""
        self._paused = True
        self._stop_live()

    def resume(self) -> None:
        """The question is answered: the live region comes back if the turn is still running."""
        self._paused = False
        if self._active:
            self._start_live()

    def _start_live(self) -> None:
        if self._live is None and not self._paused:
            self._frame_key = None
            self._live = Live(self._render_frame(), console=self.console, auto_refresh=False, transient=True,
                              redirect_stdout=False, redirect_stderr=False, vertical_overflow="crop")
            self._live.start(refresh=True)

    def _stop_live(self) -> None:
        live, self._live = self._live, None
        if live is not None:
            live.stop()

    def tick(self) -> None:
        """Redraw the live region (called every ``FRAME_S`` while a turn runs)."""
        if self._live is not None and self.console.is_interactive:
            self._live.update(self._render_frame(), refresh=True)

    def _render_frame(self) -> _Frame:
        now = time.monotonic()
        width = self.console.width
        height = self.console.height
        body_key = (width, height, *(b.version for b in self._blocks.values() if isinstance(b, MarkdownTail)))
        if body_key != self._frame_key:
            self._frame_key = body_key
            parts = [self._tail(block) for block in self._blocks.values() if isinstance(block, MarkdownTail)]
            options = self.console.options.update_width(width)
            self._frame_lines = self.console.render_lines(Group(*parts), options, pad=False) if parts else []
        status: list[RenderableType] = []
        for block in self._blocks.values():
            if isinstance(block, _Thinking):
                status.append(Text(f"✻ Thinking… {format_elapsed(now - block.started)}", style="dim italic"))
        for tool in self._tools.values():
            if tool.running_since is not None and not tool.done:
                label = f"  ⎿  Running {tool.name}… {format_elapsed(now - tool.running_since)}"
                status.append(Text(label, style="dim"))
                status += [Text.from_ansi(f"     {line}", style="dim") for line in
                           tail_lines(tool.output, OUTPUT_TAIL_LINES)]
        frame = SPINNER[int(now / FRAME_S) % len(SPINNER)]
        note = f" · {self.retry_note}" if self.retry_note else ""
        status.append(Text.assemble((f"{frame} ", "cyan"), (f"Working… {format_elapsed(now - self._turn_started)}"
                                                            f"{note} · esc to interrupt", "dim")))
        options = self.console.options.update(no_wrap=True, overflow="ellipsis")
        status_lines: list[list[Segment]] = []
        for item in status:
            status_lines += self.console.render_lines(item, options, pad=False)
        # Wrapped lines can outgrow the screen: the answer's oldest lines give way, the status lines stay.
        room = max(0, height - 1 - len(status_lines))
        return _Frame(self._frame_lines[-room:] + status_lines if room else status_lines[-(height - 1):])

    def _tail(self, block: MarkdownTail) -> RenderableType:
        rows = max(3, self.console.height - 8)
        text, cut = block.tail(rows)
        markdown = AnswerMarkdown(text)
        return Group(Text("…", style="dim"), markdown) if cut else markdown

    # -- messages ---------------------------------------------------------------------------------------------------

    def handle(self, message: Message) -> None:
        """Show one SDK message (stream events included)."""
        kind = message.get("type")
        if kind == "stream_event":
            self._stream_event(message.get("event") or {})
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
            if delta_type == "text_delta" and isinstance(block, MarkdownTail):
                block.append(delta.get("text", ""))
            elif delta_type == "thinking_delta" and isinstance(block, _Thinking):
                block.parts.append(delta.get("thinking", ""))
            elif delta_type == "input_json_delta" and isinstance(block, _Tool):
                block.json_parts.append(delta.get("partial_json", ""))
            self.retry_note = ""
        elif kind == "content_block_start":
            self._block_start(event.get("index", 0), event.get("content_block") or {})
        elif kind == "content_block_stop":
            self._block_stop(event.get("index", -1))
        elif kind == "message_start":
            message_id = (event.get("message") or {}).get("id")
            if message_id:
                self._streamed.add(str(message_id))
            self._blocks = {}
            self.retry_note = ""

    def _block_start(self, index: int, block: Message) -> None:
        kind = block.get("type")
        if kind == "text":
            tail = MarkdownTail()
            tail.append(str(block.get("text") or ""))
            self._blocks[index] = tail
        elif kind in ("thinking", "redacted_thinking"):
            self._blocks[index] = _Thinking(time.monotonic(), [str(block.get("thinking") or "")],
                                            redacted=kind == "redacted_thinking")
        elif kind in ("tool_use", "server_tool_use"):
            tool = _Tool(str(block.get("name", "?")), str(block.get("id", "")))
            self._tools[tool.tool_use_id] = tool
            self._blocks[index] = tool

    def _block_stop(self, index: int) -> None:
        block = self._blocks.pop(index, None)
        if isinstance(block, MarkdownTail):
            self._print_answer(block.text)
        elif isinstance(block, _Thinking):
            self._print_thinking(block)
        elif isinstance(block, _Tool):
            if block.json_parts:
                try:
                    parsed = json.loads("".join(block.json_parts))
                except ValueError:
                    parsed = None
                if isinstance(parsed, dict):
                    block.input = parsed
            self.tool_header(block.tool_use_id)

    def _flush_blocks(self) -> None:
        for index in list(self._blocks):
            block = self._blocks[index]
            if isinstance(block, MarkdownTail | _Thinking):
                self._block_stop(index)
        self._blocks = {}

    def _print_answer(self, text: str) -> None:
        if text.strip():
            self.print(AnswerMarkdown(text), gap=True)

    def _print_thinking(self, block: _Thinking) -> None:
        seconds = time.monotonic() - block.started
        text = "(redacted)" if block.redacted else one_line("".join(block.parts), self.console.width)
        label = f"✻ Thought for {seconds:.1f} s" if seconds >= 0.05 else "✻ Thought"
        self.print(Text(f"{label}: {text}" if text else label, style="dim italic"), gap=True, clip=True)

    def tool_header(self, tool_use_id: str, name: str | None = None, tool_input: dict[str, Any] | None = None,
                    *, again: bool = False) -> None:
        """The call's one line (tool and key input); printed once, or ``again`` above a result that follows
        something else."""
        tool = self._tools.get(tool_use_id)
        if tool is None:
            tool = self._tools[tool_use_id] = _Tool(name or "?", tool_use_id, tool_input)
        elif tool.input is None and tool_input is not None:
            tool.input = tool_input
        if tool.header_printed and not again:
            return
        first = not tool.header_printed
        tool.header_printed = True
        argument = key_input(tool.name, tool.input, self.cwd)
        line = Text.assemble(("● ", "cyan"), (tool.name, "bold"), f"({argument})" if argument else "")
        self.print(line, gap=first, clip=True)
        self._last_header = tool_use_id

    def _assistant(self, message: Message) -> None:
        body = message.get("message") or {}
        if message.get("isApiErrorMessage"):
            text = "".join(str(b.get("text", "")) for b in body.get("content") or [] if b.get("type") == "text")
            self.error(text or "API error")
            return
        if str(body.get("id")) in self._streamed:
            self._flush_blocks()
            for block in body.get("content") or []:
                if block.get("type") == "tool_use" and isinstance(block.get("input"), dict):
                    tool = self._tools.get(str(block.get("id")))
                    if tool is not None and tool.input is None:
                        tool.input = block["input"]
            return
        for block in body.get("content") or []:
            kind = block.get("type")
            if kind == "text":
                self._print_answer(str(block.get("text") or ""))
            elif kind in ("thinking", "redacted_thinking"):
                self._print_thinking(_Thinking(time.monotonic(), [str(block.get("thinking") or "")],
                                               redacted=kind == "redacted_thinking"))
            elif kind in ("tool_use", "server_tool_use"):
                self.tool_header(str(block.get("id", "")), str(block.get("name", "?")), block.get("input"))

    def _user(self, message: Message) -> None:
        if message.get("isMeta"):
            return
        content = (message.get("message") or {}).get("content")
        if isinstance(content, str):
            self.print(Text(f"❯ {content}", style="bold"), gap=True)
            return
        if not isinstance(content, list):
            return
        results = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
        for block in results:
            structured = message.get("tool_use_result") if len(results) == 1 else None
            self._tool_result(block, structured if isinstance(structured, dict) else None)
        if not results:
            texts = [str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text"
                     and not str(b.get("text", "")).startswith("<system-reminder>")]
            if texts:
                self.print(Text(f"❯ {' '.join(texts)}", style="bold"), gap=True)

    def _tool_result(self, block: Message, structured: dict[str, Any] | None) -> None:
        tool_use_id = str(block.get("tool_use_id"))
        tool = self._tools.get(tool_use_id)
        name = tool.name if tool is not None else "?"
        if tool is not None:
            tool.done = True
        if self._last_header != tool_use_id:
            self.tool_header(tool_use_id, name, again=True)
        error = bool(block.get("is_error"))
        summary = result_line(name, block, structured)
        self.console.print(Text.from_ansi(f"  ⎿  {summary}", style="red" if error else "dim"), no_wrap=True,
                           overflow="ellipsis")
        if not error and name in ("Edit", "Write", "MultiEdit"):
            diff = [line for line in patch_lines(structured) if not line.startswith("@@")]
            for line in diff[:DIFF_LINES]:
                style = "green" if line.startswith("+") else "red" if line.startswith("-") else "dim"
                self.console.print(Text(f"     {line}", style=style), no_wrap=True, overflow="ellipsis")
            if len(diff) > DIFF_LINES:
                self.console.print(Text(f"     … {len(diff) - DIFF_LINES} more lines", style="dim"))
        self._last_header = None

    def _system(self, message: Message) -> None:
        subtype = message.get("subtype")
        if subtype == "tool_started":
            tool_use_id = str(message.get("tool_use_id"))
            self.tool_header(tool_use_id, str(message.get("tool_name", "?")), message.get("tool_input"))
            tool = self._tools[tool_use_id]
            if isinstance(message.get("tool_input"), dict):
                tool.input = message["tool_input"]
            tool.running_since = time.monotonic()
        elif subtype == "tool_progress":
            tool = self._tools.get(str(message.get("tool_use_id")))
            if tool is not None:
                if tool.running_since is None:
                    tool.running_since = time.monotonic() - float(message.get("elapsed_time_seconds") or 0)
                tool.output = str(message.get("output") or tool.output)
        elif subtype == "tool_finished":
            tool = self._tools.get(str(message.get("tool_use_id")))
            if tool is not None:
                tool.done = True
        elif subtype == "api_retry":
            delay = (message.get("retry_delay_ms") or 0) / 1000
            why = message.get("error_status") or message.get("error") or ""
            line = f"  ⎿  Retrying in {delay:.1f} s · attempt {message.get('attempt')}/{message.get('max_retries')}"
            self.print(Text(f"{line} ({why})" if why else line, style="yellow"))
            self.retry_note = f"retry {message.get('attempt')}/{message.get('max_retries')}"
        elif subtype == "stream_discarded":
            for block in self._blocks.values():
                if isinstance(block, _Tool):
                    self._tools.pop(block.tool_use_id, None)
            self._blocks = {}
            self.notice("  (a partial answer was discarded; retrying)")
        elif subtype == "warning":
            self.warning(str(message.get("message", "")))
        elif subtype in ("hook_summary", "stop_hook_summary"):
            for error in message.get("errors") or []:
                self.warning(f"{message.get('hook_event', 'hook')} hook: {error}")
        elif subtype == "compact_boundary":
            self.notice("── earlier messages were summarised to free context ──")

    def _result(self, message: Message) -> None:
        self._flush_blocks()
        self.turns += 1
        errors = [str(e) for e in message.get("errors") or []]
        if message.get("is_error"):
            if INTERRUPTED in errors:
                self.print(Text("  ⎿  Interrupted · tell agentcli what to do instead", style="yellow"))
            for error in errors:
                if error != INTERRUPTED:
                    self.error(error)
        total = float(message.get("total_cost_usd") or 0)
        turn_cost, self._session_cost = total - self._session_cost, total
        turns = int(message.get("num_turns") or 0)
        seconds = (message.get("duration_ms") or 0) / 1000
        self.print(Text(f"✻ {seconds:.1f} s · {turns} turn{'' if turns == 1 else 's'} · ${turn_cost:.4f} "
                        f"(session ${total:.4f})", style="dim"), gap=True)
        self.console.print()

    def set_session_cost(self, cost: float) -> None:
        """The cost already spent (a resumed or restarted session), so the next turn's line shows its own share."""
        self._session_cost = cost

    # -- a resumed session ------------------------------------------------------------------------------------------

    def replay(self, messages: list[Message]) -> None:
        """The end of a resumed conversation, printed as finished blocks."""
        start = max(0, len(messages) - REPLAY_MESSAGES)
        if start:
            self.notice(f"… {start} earlier message{'s' if start != 1 else ''}")
        for index, param in enumerate(messages[start:], start):
            if param.get("role") == "assistant":
                self.handle({"type": "assistant", "message": {"id": f"history_{index}", **param}})
            else:
                self.handle({"type": "user", "message": param})
