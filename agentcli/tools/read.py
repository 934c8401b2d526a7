"""Read: a file's lines, numbered like ``cat -n``, so the model can cite and edit them exactly."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pydantic import Field

from agentcli.tools.base import FileSnapshot, Tool, ToolCall, ToolFailure, ToolInput, ToolOutput
from agentcli.tools.paths import resolve

DEFAULT_LIMIT = 2000
MAX_LINE_CHARS = 2000
MAX_FILE_BYTES = 10 * 1024 * 1024
BINARY_SNIFF_BYTES = 8192


class ReadInput(ToolInput):
    file_path: str = Field(description="The absolute path to the file to read")
    offset: int | None = Field(default=None, description="The line number to start reading from (1-based)")
    limit: int | None = Field(default=None, description="The number of lines to read")


class ReadTool(Tool):
    name = "Read"
    description = (
        "Reads a file from the local filesystem. The file_path parameter must be an absolute path. "
        f"By default it reads up to {DEFAULT_LIMIT} lines from the start of the file; use offset and limit for long "
        f"files. Lines longer than {MAX_LINE_CHARS} characters are cut. Results are numbered like `cat -n` "
        "(line number, tab, line). Reading a directory or a binary file is an error; use Bash `ls` for directories."
    )
    input_model = ReadInput

    def is_read_only(self, tool_input: Any) -> bool:
        return True

    def target_path(self, tool_input: Any) -> str | None:
        return tool_input.file_path

    async def call(self, tool_input: Any, call: ToolCall) -> ToolOutput:
        path = resolve(tool_input.file_path, call.env.project_dir)
        return await asyncio.to_thread(_read, path, tool_input, call)


def _read(path: Path, tool_input: ReadInput, call: ToolCall) -> ToolOutput:
    if not path.exists():
        raise ToolFailure(f"File does not exist: {path}")
    if path.is_dir():
        raise ToolFailure(f"{path} is a directory, not a file. Use Bash with `ls` to list a directory.")
    stat = path.stat()
    if stat.st_size > MAX_FILE_BYTES and tool_input.offset is None and tool_input.limit is None:
        raise ToolFailure(
            f"File is too large to read at once ({stat.st_size} bytes). Use offset and limit to read part of it."
        )
    with path.open("rb") as handle:
        head = handle.read(BINARY_SNIFF_BYTES)
        if b"\x00" in head:
            raise ToolFailure(f"{path} looks like a binary file; Read only shows text.")
        data = head + handle.read()
    text = data.decode("utf-8", errors="replace")
    call.env.state.read_files[str(path)] = FileSnapshot(stat.st_mtime_ns, stat.st_size, text)
    if not text:
        return ToolOutput(
            "<system-reminder>The file exists but is empty.</system-reminder>",
            structured={
                "type": "text",
                "file": {"filePath": str(path), "numLines": 0, "startLine": 1, "totalLines": 0},
            },
        )
    lines = text.splitlines()
    start = max(1, tool_input.offset or 1)
    limit = tool_input.limit if tool_input.limit and tool_input.limit > 0 else DEFAULT_LIMIT
    selected = lines[start - 1 : start - 1 + limit]
    if not selected:
        raise ToolFailure(f"The file has {len(lines)} lines; offset {start} is past the end.")
    out = []
    for number, line in enumerate(selected, start):
        if len(line) > MAX_LINE_CHARS:
            line = line[:MAX_LINE_CHARS] + "… [line truncated]"
        out.append(f"{number}\t{line}")
    shown_end = start + len(selected) - 1
    if shown_end < len(lines):
        out.append(f"\n[Showing lines {start}-{shown_end} of {len(lines)}. Use offset and limit to read more.]")
    return ToolOutput(
        "\n".join(out),
        structured={
            "type": "text",
            "file": {"filePath": str(path), "numLines": len(selected), "startLine": start, "totalLines": len(lines)},
        },
    )
