"""Write: create a file or replace one the model has read, creating missing folders on the way."""

from __future__ import annotations

import asyncio
import difflib
from pathlib import Path
from typing import Any

from pydantic import Field

from agentcli.files.text import TextFormat, with_newlines
from agentcli.tools.base import Tool, ToolCall, ToolInput, ToolOutput
from agentcli.tools.filestate import FileTarget, existing, file_target, open_target, remember, require_fresh, write_text


class WriteInput(ToolInput):
    file_path: str = Field(description="The absolute path to the file to write (must be absolute, not relative)")
    content: str = Field(description="The content to write to the file")


def unified_patch(path: Path, old: str, new: str) -> str:
    """A unified diff of the change, for faces and hooks to show."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), fromfile=str(path), tofile=str(path), n=3
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def structured_patch(old: str, new: str) -> list[dict[str, Any]]:
    """The change as Claude Code's ``structuredPatch`` hunks (``oldStart``, ``oldLines``, ``newStart``,
    ``newLines``, ``lines`` prefixed with `` ``/``-``/``+``), which hook scripts parse."""
    before, after = old.splitlines(), new.splitlines()
    hunks: list[dict[str, Any]] = []
    for group in difflib.SequenceMatcher(None, before, after, autojunk=False).get_grouped_opcodes(3):
        lines: list[str] = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [" " + line for line in before[i1:i2]]
                continue
            lines += ["-" + line for line in before[i1:i2]]
            lines += ["+" + line for line in after[j1:j2]]
        first, last = group[0], group[-1]
        hunks.append(
            {
                "oldStart": first[1] + 1,
                "oldLines": last[2] - first[1],
                "newStart": first[3] + 1,
                "newLines": last[4] - first[3],
                "lines": lines,
            }
        )
    return hunks


class WriteTool(Tool):
    name = "Write"
    description = (
        "Writes a file to the local filesystem, replacing it if it exists. The file_path must be absolute. "
        "An existing file must have been read with the Read tool in this session first, and must not have changed "
        "since; otherwise the write fails. Missing parent folders are created. An existing file keeps its encoding, "
        "byte-order mark and line endings (CRLF stays CRLF). Prefer Edit for changing part of an existing file; use "
        "Write for new files or complete rewrites."
    )
    input_model = WriteInput

    def target_path(self, tool_input: Any) -> str | None:
        return str(tool_input.file_path)

    async def call(self, tool_input: Any, call: ToolCall) -> ToolOutput:
        return await asyncio.to_thread(_write, file_target(tool_input.file_path, call), tool_input.content, call)


def _write(target: FileTarget, content: str, call: ToolCall) -> ToolOutput:
    with open_target(target) as file:
        old: str | None = None
        fmt = TextFormat()
        if existing(target, file) is not None:
            current = require_fresh(target, file, call.env.state)
            old, fmt = current.text, current.format
            content = with_newlines(content, fmt.newline)
        write_text(target, file, content, fmt)
        remember(target, file, call.env.state, content)
    path = target.shown
    structured: dict[str, Any] = {
        "type": "create" if old is None else "update",
        "filePath": str(path),
        "content": content,
        "patch": unified_patch(path, old or "", content),
        "structuredPatch": structured_patch(old or "", content),
        "originalFile": old,
    }
    if old is None:
        return ToolOutput(f"File created successfully at: {path}", structured=structured)
    return ToolOutput(f"The file {path} has been updated successfully.", structured=structured)
