"""Edit: replace an exact string in a file the model has read, refusing ambiguous or stale edits."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pydantic import Field

from agentcli.tools.base import Tool, ToolCall, ToolFailure, ToolInput, ToolOutput
from agentcli.tools.filestate import remember, require_fresh
from agentcli.tools.paths import resolve
from agentcli.tools.write import unified_patch

SNIPPET_CONTEXT = 4


class EditInput(ToolInput):
    file_path: str = Field(description="The absolute path to the file to modify")
    old_string: str = Field(description="The text to replace")
    new_string: str = Field(description="The text to replace it with (must be different from old_string)")
    replace_all: bool = Field(default=False, description="Replace all occurrences of old_string (default false)")


class EditTool(Tool):
    name = "Edit"
    description = (
        "Performs exact string replacements in files. The file must have been read with the Read tool in this "
        "session and must not have changed since. old_string must match the file exactly (indentation included, "
        "without the line-number prefix Read shows) and must be unique in the file unless replace_all is true; "
        "add surrounding lines to make it unique. An empty old_string creates a new file with new_string."
    )
    input_model = EditInput

    def target_path(self, tool_input: Any) -> str | None:
        return tool_input.file_path

    async def call(self, tool_input: Any, call: ToolCall) -> ToolOutput:
        path = resolve(tool_input.file_path, call.env.project_dir)
        return await asyncio.to_thread(_edit, path, tool_input, call)


def _write(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", encoding="utf-8", newline="") as handle:
            handle.write(text)
    except OSError as exc:
        raise ToolFailure(f"Could not write {path}: {exc.strerror or exc}") from None


def _edit(path: Path, tool_input: EditInput, call: ToolCall) -> ToolOutput:
    old_string, new_string = tool_input.old_string, tool_input.new_string
    if old_string == new_string:
        raise ToolFailure("No changes to make: old_string and new_string are exactly the same.")
    if path.is_dir():
        raise ToolFailure(f"{path} is a directory; give the path of a file.")
    if not path.exists():
        if old_string:
            raise ToolFailure(f"File does not exist: {path}")
        _write(path, new_string)
        remember(path, call.env.state, new_string)
        return _result(path, "", new_string, tool_input, new_string, 0)
    original = require_fresh(path, call.env.state)
    if not old_string:
        if original.strip():
            raise ToolFailure("Cannot create new file - file already exists. Give old_string to edit it.")
        updated, position = new_string, 0
    else:
        if old_string not in original and "\r\n" in original and "\r\n" not in old_string:
            old_string = old_string.replace("\n", "\r\n")  # the model writes \n; the file keeps its own line ends
            new_string = new_string.replace("\n", "\r\n")
        count = original.count(old_string)
        if count == 0:
            raise ToolFailure(f"String to replace not found in file.\nString: {tool_input.old_string}")
        if count > 1 and not tool_input.replace_all:
            raise ToolFailure(
                f"Found {count} matches of the string to replace, but replace_all is false. To replace all "
                "occurrences, set replace_all to true. To replace only one occurrence, please provide more context "
                f"to uniquely identify the instance.\nString: {tool_input.old_string}"
            )
        position = original.index(old_string)
        updated = original.replace(old_string, new_string) if tool_input.replace_all \
            else original.replace(old_string, new_string, 1)
    _write(path, updated)
    remember(path, call.env.state, updated)
    return _result(path, original, updated, tool_input, new_string, position)


def _result(path: Path, original: str, updated: str, tool_input: EditInput, new: str, position: int) -> ToolOutput:
    first = updated.count("\n", 0, position)
    last = first + new.count("\n")
    lines = updated.splitlines()
    start = max(0, first - SNIPPET_CONTEXT)
    end = min(len(lines), last + SNIPPET_CONTEXT + 1)
    snippet = "\n".join(f"{number}\t{line}" for number, line in enumerate(lines[start:end], start + 1))
    verb = "created" if not original and not tool_input.old_string else "updated"
    content = (
        f"The file {path} has been {verb}. Here's the result of running `cat -n` on a snippet of the edited "
        f"file:\n{snippet}"
    )
    if tool_input.replace_all:
        content = f"The file {path} has been updated. All occurrences of the string were replaced."
    return ToolOutput(
        content,
        structured={
            "filePath": str(path),
            "oldString": tool_input.old_string,
            "newString": tool_input.new_string,
            "replaceAll": tool_input.replace_all,
            "patch": unified_patch(path, original, updated),
        },
    )
