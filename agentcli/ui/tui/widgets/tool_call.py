"""ToolCallBlock: one tool call, from the first streamed byte of its input to its result.

The main view shows the tool and its key input, a spinner with elapsed seconds while it runs, the live tail of a
command's output, then one line for the result (a coloured diff for edits, red for errors). The detailed view
adds the full input and the full output.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from textual.content import Content
from textual.widget import Widget

from agentcli.ui.reader import streamed_input
from agentcli.ui.summaries import (
    format_elapsed,
    key_input,
    patch_lines,
    result_line,
    result_text,
    tail_lines,
)

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
LIVE_TAIL_LINES = 5
DIFF_LINES = 12
DETAIL_OUTPUT_LINES = 400
SHELL_OUTPUT_LINES = 20
PAD = "     "


class ToolCallBlock(Widget):
    """A tool call's header, progress and result; ``verbose`` shows everything."""

    DEFAULT_CSS = """
    ToolCallBlock { height: auto; }
    """

    def __init__(
        self, name: str, tool_use_id: str, *, verbose: bool = False, cwd: Path | None = None, classes: str | None = None
    ) -> None:
        super().__init__(classes=classes)
        self.tool_name = name
        self.tool_use_id = tool_use_id
        self.verbose = verbose
        self.cwd = cwd
        self.input: dict[str, Any] | None = None
        self._json_parts: list[str] = []
        self.state = "pending"
        self.started_at: float | None = None
        self.elapsed = 0.0
        self.output_tail = ""
        self.result: dict[str, Any] | None = None
        self.structured: dict[str, Any] | None = None
        self.shows_output = False
        """A command the user ran with ``!``: its output is what they asked to see, so it stays in the main view."""

    _KEPT = ("input", "state", "started_at", "elapsed", "output_tail", "result", "structured", "shows_output")

    def recipe(self) -> Callable[[], ToolCallBlock]:
        """How to build this call's block again (plain data, for frozen history)."""
        return partial(
            ToolCallBlock._restored,
            self.tool_name,
            self.tool_use_id,
            self.verbose,
            self.cwd,
            " ".join(self.classes),
            {name: getattr(self, name) for name in self._KEPT},
        )

    @classmethod
    def _restored(
        cls, name: str, tool_use_id: str, verbose: bool, cwd: Path | None, classes: str, state: dict[str, Any]
    ) -> ToolCallBlock:
        block = cls(name, tool_use_id, verbose=verbose, cwd=cwd, classes=classes)
        for key, value in state.items():
            setattr(block, key, value)
        return block

    # -- updates from the stream -----------------------------------------------------------------------------------

    def append_input_json(self, fragment: str) -> None:
        self._json_parts.append(fragment)

    def input_complete(self, tool_input: dict[str, Any] | None = None) -> None:
        if tool_input is None:
            tool_input = streamed_input(self._json_parts)
        if tool_input is not None:
            self.input = tool_input
        self.refresh(layout=True)

    def start(self, tool_input: dict[str, Any] | None = None) -> None:
        if tool_input is not None:
            self.input = tool_input
        if self.state in ("pending", "waiting"):
            self.state = "running"
            self.started_at = time.monotonic()
        self.refresh(layout=True)

    def progress(self, elapsed: float, output: str) -> None:
        if self.state == "pending":
            self.start()
        self.elapsed = elapsed
        if output:
            self.output_tail = output
        self.refresh(layout=True)

    def finished(self, is_error: bool, duration_ms: int | None = None) -> None:
        if duration_ms is not None:
            self.elapsed = duration_ms / 1000
        if self.result is None:
            self.state = "error" if is_error else "finishing"
        self.refresh(layout=True)

    def set_result(self, block: dict[str, Any], structured: dict[str, Any] | None) -> None:
        self.result = block
        self.structured = structured
        self.state = "error" if block.get("is_error") else "done"
        self.refresh(layout=True)

    def show_output(self) -> None:
        self.shows_output = True
        self.refresh(layout=True)

    @property
    def running(self) -> bool:
        return self.state in ("pending", "running", "finishing")

    def tick(self) -> None:
        """Advance the spinner (called by the view a few times a second while the call runs)."""
        if self.state == "running" and self.started_at is not None:
            self.elapsed = max(self.elapsed, time.monotonic() - self.started_at)
        self.refresh()

    # -- rendering --------------------------------------------------------------------------------------------------

    def _header(self) -> Content:
        if self.state in ("pending", "running", "finishing"):
            frame = SPINNER[int(time.monotonic() * 10) % len(SPINNER)]
            dot = Content.styled(frame + " ", "$accent")
        elif self.state == "error":
            dot = Content.styled("● ", "$error")
        else:
            dot = Content.styled("● ", "$success")
        arg = key_input(self.tool_name, self.input, self.cwd)
        head = Content.assemble(dot, (self.tool_name, "bold"))
        if arg:
            head = head + Content.assemble("(", (arg, "$text"), ")")
        return head

    def _body(self) -> list[Content]:
        lines: list[Content] = []
        lead = "  ⎿  "

        if self.verbose and self.input is not None:
            for line in json.dumps(self.input, indent=2, ensure_ascii=False).splitlines():
                lines.append(Content.styled(PAD + line, "$text-muted"))
        if self.result is None:
            if self.state in ("running", "finishing"):
                lines.append(Content.styled(f"{lead}Running… {format_elapsed(self.elapsed)}", "$text-muted"))
                shown = self.output_tail.splitlines() if self.verbose else tail_lines(self.output_tail, LIVE_TAIL_LINES)
                lines.extend(Content.styled(PAD + line, "$text-muted") for line in shown)
            elif self.state == "waiting":
                lines.append(Content.styled(f"{lead}Waiting for permission…", "$warning"))
            return lines
        error = bool(self.result.get("is_error"))
        summary = result_line(self.tool_name, self.result, self.structured)
        lines.append(Content.styled(lead + summary, "$error" if error else "$text-muted"))
        if not error and self.tool_name in ("Edit", "Write", "MultiEdit"):
            lines += self._diff_lines()
        if self.verbose or self.shows_output:
            lines += self._output_lines(error)
        return lines

    def _diff_lines(self) -> list[Content]:
        diff = patch_lines(self.structured)
        shown = diff if self.verbose else diff[:DIFF_LINES]
        lines = [
            Content.styled(
                PAD + line, "$success" if line.startswith("+") else "$error" if line.startswith("-") else "$text-muted"
            )
            for line in shown
        ]
        if len(diff) > len(shown):
            lines.append(Content.styled(f"{PAD}… {len(diff) - len(shown)} more lines (ctrl+o)", "$text-muted"))
        return lines

    def _output_lines(self, error: bool) -> list[Content]:
        """The result's text: all of it (up to a cap) in the detailed view, the start of it for a ``!`` command."""
        assert self.result is not None
        output = result_text(self.result).rstrip("\n").splitlines()
        limit = DETAIL_OUTPUT_LINES if self.verbose else SHELL_OUTPUT_LINES
        lines = [Content.styled(PAD + line, "$error" if error else "$text") for line in output[:limit]]
        if len(output) > limit:
            hint = "" if self.verbose else " (ctrl+o)"
            lines.append(Content.styled(f"{PAD}… {len(output) - limit} more lines{hint}", "$text-muted"))
        return lines

    def render(self) -> Content:
        return Content("\n").join([self._header(), *self._body()])
