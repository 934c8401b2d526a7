"""Printing the engine's messages into the terminal's own scrollback.

What is finished (an answer block, a tool call and its result, a notice) is printed once and becomes ordinary
terminal history that the user scrolls, searches and copies with the terminal's own tools. What still changes (the
tail of the answer being streamed, a running command's output, the spinner) lives in one transient rich ``Live``
region under it. Deltas only append to a buffer; the region is redrawn by :meth:`TurnView.tick` at most every
``FRAME_S`` and renders only the last lines of the open block, so a long answer costs the same per frame as a short
one. The region is erased when the turn ends, and the block's Markdown is printed once when the block closes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.live import Live
from rich.segment import Segment, SegmentLines
from rich.text import Text

from agentcli.ui.reader import MessageReader, TurnEnd, history_messages, streamed_input
from agentcli.ui.repl.markdown import AnswerMarkdown, MarkdownTail
from agentcli.ui.summaries import format_elapsed, key_input, patch_lines, result_line, result_text, tail_lines

Message = dict[str, Any]
FRAME_S = 0.1
"""The live region is redrawn at most this often (the spinner turns at the same pace)."""
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
OUTPUT_TAIL_LINES = 5
DIFF_LINES = 8
SHELL_OUTPUT_LINES = 400
"""The most lines of a ``!`` command's output printed (the scrollback keeps them; the rest is counted)."""
REPLAY_MESSAGES = 12


class _Text(MarkdownTail):
    """A streamed answer block: its tail is drawn live, the whole block is printed once when it closes."""

    def __init__(self, view: TurnView) -> None:
        super().__init__()
        self.view = view
        self.closed = False

    def finish(self) -> None:
        if not self.closed:
            self.closed = True
            if self in self.view._open_texts:
                self.view._open_texts.remove(self)
            self.view._print_answer(self.text)


class _Thinking:
    def __init__(self, view: TurnView, text: str, redacted: bool) -> None:
        self.view = view
        self.started = time.monotonic()
        self.parts = [text] if text else []
        self.redacted = redacted
        self.closed = False

    def append(self, fragment: str) -> None:
        self.parts.append(fragment)

    def finish(self, text: str | None = None) -> None:
        if self.closed:
            return
        self.closed = True
        if text is not None:
            self.parts = [text]
        if self in self.view._open_thinking:
            self.view._open_thinking.remove(self)
        self.view._print_thinking(self)


@dataclass
class _Tool:
    view: TurnView
    name: str
    tool_use_id: str
    input: dict[str, Any] | None = None
    json_parts: list[str] = field(default_factory=list)
    header_printed: bool = False
    running_since: float | None = None
    output: str = ""
    done: bool = False
    shows_output: bool = False
    """A command the user ran with ``!``: its output is printed under the result line, not only counted."""

    def append_input_json(self, fragment: str) -> None:
        self.json_parts.append(fragment)

    def input_complete(self, tool_input: dict[str, Any] | None = None) -> None:
        if tool_input is None:
            tool_input = streamed_input(self.json_parts)
        if tool_input is not None and self.input is None:
            self.input = tool_input
        self.view.tool_header(self.tool_use_id)

    def start(self, tool_input: dict[str, Any] | None = None) -> None:
        if isinstance(tool_input, dict):
            self.input = tool_input
        self.view.tool_header(self.tool_use_id)
        self.running_since = time.monotonic()

    def progress(self, elapsed: float, output: str) -> None:
        if self.running_since is None:
            self.running_since = time.monotonic() - elapsed
        self.output = output or self.output

    def finished(self, is_error: bool, duration_ms: int | None = None) -> None:
        self.done = True

    def set_result(self, block: dict[str, Any], structured: dict[str, Any] | None) -> None:
        self.done = True
        self.view._tool_result(self, block, structured)

    def show_output(self) -> None:
        self.shows_output = True


class _Frame:
    """Lines rendered once per frame; the Live region repaints them without rendering the Markdown again."""

    def __init__(self, lines: list[list[Segment]]) -> None:
        self.lines = lines

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield SegmentLines(self.lines, new_lines=True)


def make_console(
    file: IO[str] | None = None, *, width: int | None = None, height: int | None = None, terminal: bool | None = None
) -> Console:
    """The console the REPL prints with (the terminal, or ``file`` without colours): no guessing at highlights or
    emoji codes in what the model wrote."""
    return Console(
        file=file,
        width=width,
        height=height,
        force_terminal=terminal,
        highlight=False,
        emoji=False,
        color_system="auto" if file is None else None,
    )


def one_line(text: str, limit: int) -> str:
    """``text`` with its whitespace collapsed, cut to ``limit`` characters: a preview that never wraps."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: max(1, limit - 1)] + "…"


class TurnView(MessageReader):
    """Shows a session's messages: permanent lines in the scrollback, the changing part in a transient region."""

    def __init__(self, console: Console, cwd: Path | None = None) -> None:
        super().__init__()
        self.console = console
        self.cwd = cwd
        self._live: Live | None = None
        self._active = False
        self._paused = False
        self._turn_started = 0.0
        self._open_texts: list[_Text] = []
        self._open_thinking: list[_Thinking] = []
        self._last_header: str | None = None
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
        self.tools = {}
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
            self._live = Live(
                self._render_frame(),
                console=self.console,
                auto_refresh=False,
                transient=True,
                redirect_stdout=False,
                redirect_stderr=False,
                vertical_overflow="crop",
            )
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
        body_key = (width, height, *(block.version for block in self._open_texts))
        if body_key != self._frame_key:
            self._frame_key = body_key
            parts = [self._tail(block) for block in self._open_texts]
            options = self.console.options.update_width(width)
            self._frame_lines = self.console.render_lines(Group(*parts), options, pad=False) if parts else []
        status: list[RenderableType] = []
        for block in self._open_thinking:
            status.append(Text(f"✻ Thinking… {format_elapsed(now - block.started)}", style="dim italic"))
        for tool in self.tools.values():
            if not isinstance(tool, _Tool):
                continue
            if tool.running_since is not None and not tool.done:
                label = f"  ⎿  Running {tool.name}… {format_elapsed(now - tool.running_since)}"
                status.append(Text(label, style="dim"))
                status += [
                    Text.from_ansi(f"     {line}", style="dim") for line in tail_lines(tool.output, OUTPUT_TAIL_LINES)
                ]
        frame = SPINNER[int(now / FRAME_S) % len(SPINNER)]
        note = f" · {self.retry_note}" if self.retry_note else ""
        status.append(
            Text.assemble(
                (f"{frame} ", "cyan"),
                (f"Working… {format_elapsed(now - self._turn_started)}{note} · esc to interrupt", "dim"),
            )
        )
        options = self.console.options.update(no_wrap=True, overflow="ellipsis")
        status_lines: list[list[Segment]] = []
        for item in status:
            status_lines += self.console.render_lines(item, options, pad=False)
        # Wrapped lines can outgrow the screen: the answer's oldest lines give way, the status lines stay.
        room = max(0, height - 1 - len(status_lines))
        return _Frame(self._frame_lines[-room:] + status_lines if room else status_lines[-(height - 1) :])

    def _tail(self, block: MarkdownTail) -> RenderableType:
        rows = max(3, self.console.height - 8)
        text, cut = block.tail(rows)
        markdown = AnswerMarkdown(text)
        return Group(Text("…", style="dim"), markdown) if cut else markdown

    # -- the reader's hooks -------------------------------------------------------------------------------------------

    def new_text(self, text: str, *, streaming: bool) -> _Text:
        block = _Text(self)
        block.append(text)
        if streaming:
            self._open_texts.append(block)
            self.retry_note = ""
        return block

    def new_thinking(self, text: str, *, redacted: bool, done: bool) -> _Thinking:
        block = _Thinking(self, text, redacted)
        if done:
            block.finish()
        else:
            self._open_thinking.append(block)
        return block

    def new_tool(self, name: str, tool_use_id: str) -> _Tool:
        tool = self.tools[tool_use_id] = _Tool(self, name, tool_use_id)  # its header and live lines look it up
        return tool

    def show_prompt(self, text: str) -> None:
        self.print(Text(f"❯ {text}", style="bold"), gap=True)

    def show_notice(self, text: str, kind: str = "info", detail: str = "") -> None:
        if kind == "error":
            self.error(text)
        elif kind == "warning":
            self.print(Text(text, style="yellow"))
        else:
            self.notice(text, style="green" if kind == "success" else "dim")
        if detail:
            self.notice(detail if kind != "error" else f"  {detail}")

    def show_retry(self, message: Message) -> None:
        super().show_retry(message)
        self.retry_note = f"retry {message.get('attempt')}/{message.get('max_retries')}"

    def drop_blocks(self, blocks: list[Any]) -> None:
        self._open_texts = [block for block in self._open_texts if block not in blocks]
        self._open_thinking = [block for block in self._open_thinking if block not in blocks]

    def show_turn_end(self, end: TurnEnd) -> None:
        self._flush_blocks()
        self.turns += 1
        self.print(Text(end.line(), style="dim"), gap=True)
        self.console.print()

    def _flush_blocks(self) -> None:
        for text in list(self._open_texts):
            text.finish()
        for thinking in list(self._open_thinking):
            thinking.finish()

    def _print_answer(self, text: str) -> None:
        if text.strip():
            self.print(AnswerMarkdown(text), gap=True)

    def _print_thinking(self, block: _Thinking) -> None:
        seconds = time.monotonic() - block.started
        text = "(redacted)" if block.redacted else one_line("".join(block.parts), self.console.width)
        label = f"✻ Thought for {seconds:.1f} s" if seconds >= 0.05 else "✻ Thought"
        self.print(Text(f"{label}: {text}" if text else label, style="dim italic"), gap=True, clip=True)

    def tool_header(
        self,
        tool_use_id: str,
        name: str | None = None,
        tool_input: dict[str, Any] | None = None,
        *,
        again: bool = False,
    ) -> None:
        """The call's one line (tool and key input); printed once, or ``again`` above a result that follows
        something else."""
        tool = self.tools.get(tool_use_id)
        if not isinstance(tool, _Tool):
            tool = _Tool(self, name or "?", tool_use_id, tool_input)
            self.tools[tool_use_id] = tool
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

    def _tool_result(self, tool: _Tool, block: Message, structured: dict[str, Any] | None) -> None:
        tool_use_id = tool.tool_use_id
        name = tool.name
        if self._last_header != tool_use_id:
            self.tool_header(tool_use_id, name, again=True)
        error = bool(block.get("is_error"))
        if tool.shows_output:
            self._print_output(result_text(block), error)
            self._last_header = None
            return
        summary = result_line(name, block, structured)
        self.console.print(
            Text.from_ansi(f"  ⎿  {summary}", style="red" if error else "dim"), no_wrap=True, overflow="ellipsis"
        )
        if not error and name in ("Edit", "Write", "MultiEdit"):
            diff = [line for line in patch_lines(structured) if not line.startswith("@@")]
            for line in diff[:DIFF_LINES]:
                style = "green" if line.startswith("+") else "red" if line.startswith("-") else "dim"
                self.console.print(Text(f"     {line}", style=style), no_wrap=True, overflow="ellipsis")
            if len(diff) > DIFF_LINES:
                self.console.print(Text(f"     … {len(diff) - DIFF_LINES} more lines", style="dim"))
        self._last_header = None

    def _print_output(self, text: str, error: bool) -> None:
        """A ``!`` command's output in place of the result line, as it printed it (up to ``SHELL_OUTPUT_LINES``)."""
        lines = text.rstrip("\n").splitlines() or [""]
        shown = "\n".join(("  ⎿  " if n == 0 else "     ") + line for n, line in enumerate(lines[:SHELL_OUTPUT_LINES]))
        self.console.print(Text.from_ansi(shown, style="red" if error else ""))
        if len(lines) > SHELL_OUTPUT_LINES:
            self.console.print(Text(f"     … {len(lines) - SHELL_OUTPUT_LINES} more lines", style="dim"))

    # -- a resumed session ------------------------------------------------------------------------------------------

    def replay(self, messages: list[Message]) -> None:
        """The end of a resumed conversation, printed as finished blocks."""
        start = max(0, len(messages) - REPLAY_MESSAGES)
        if start:
            self.notice(f"… {start} earlier message{'s' if start != 1 else ''}")
        for message in history_messages(messages)[start:]:
            self.handle(message)
