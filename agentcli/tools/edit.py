"""Edit: replace an exact string in a file the model has read, refusing ambiguous or stale edits."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pydantic import Field

from agentcli.files.anchored import AnchoredFile
from agentcli.files.text import TextFormat, with_newlines
from agentcli.tools.base import Tool, ToolCall, ToolFailure, ToolInput, ToolOutput
from agentcli.tools.filestate import FileTarget, existing, file_target, open_target, refresh, remember, write_text
from agentcli.tools.write import structured_patch, unified_patch

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
        "session. old_string must match the file exactly (indentation included, "
        "without the line-number prefix Read shows) and must be unique in the file unless replace_all is true; "
        "add surrounding lines to make it unique. An empty old_string creates a new file with new_string. The file "
        "keeps its encoding, byte-order mark and line endings. If the file changed on disk since you read it (a "
        "formatter, the user), the edit is made against its current content and you are shown what changed."
    )
    input_model = EditInput

    def target_path(self, tool_input: Any) -> str | None:
        return str(tool_input.file_path)

    async def call(self, tool_input: Any, call: ToolCall) -> ToolOutput:
        return await asyncio.to_thread(_edit_with_refresh, file_target(tool_input.file_path, call), tool_input, call)


def _edit_with_refresh(target: FileTarget, tool_input: EditInput, call: ToolCall) -> ToolOutput:
    """The edit, told what changed on disk since the model read the file (the result or failure starts with it)."""
    changed: list[str] = []
    try:
        with open_target(target) as file:
            output = _edit(target, file, tool_input, call, changed)
    except ToolFailure as exc:
        if changed:
            raise ToolFailure(f"{changed[0]}\n\n{exc}") from None
        raise
    if changed and isinstance(output.content, str):
        output.content = f"{changed[0]}\n\n{output.content}"
    return output


def _edit(
    target: FileTarget, file: AnchoredFile, tool_input: EditInput, call: ToolCall, changed: list[str]
) -> ToolOutput:
    old_string, new_string = tool_input.old_string, tool_input.new_string
    if old_string == new_string:
        raise ToolFailure("No changes to make: old_string and new_string are exactly the same.")
    path = target.shown
    if existing(target, file) is None:
        return _create(target, file, tool_input, call)
    current, note = refresh(target, file, call.env.state)
    if note is not None:
        changed.append(note)
    if current.problem:
        raise ToolFailure(
            f"Cannot edit {path}: {current.problem}. Edit refuses files it cannot read exactly, so that no byte of "
            "them is rewritten by mistake; fix or convert the file first (for example with iconv), or replace it "
            "whole with Write."
        )
    original = current.text
    if not old_string:
        if original.strip():
            raise ToolFailure("Cannot create new file - file already exists. Give old_string to edit it.")
        updated, position = new_string, 0
    else:
        if current.format.newline == "\r\n":  # the model writes \n; the file keeps its own line ends
            if old_string not in original:
                old_string = with_newlines(old_string, "\r\n")
            new_string = with_newlines(new_string, "\r\n")
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
        updated = (
            original.replace(old_string, new_string)
            if tool_input.replace_all
            else original.replace(old_string, new_string, 1)
        )
    write_text(target, file, updated, current.format)
    remember(target, file, call.env.state, updated)
    return _result(path, original, updated, tool_input, new_string, position)


def _create(target: FileTarget, file: AnchoredFile, tool_input: EditInput, call: ToolCall) -> ToolOutput:
    """An Edit with an empty ``old_string`` of a file that does not exist yet creates it."""
    if tool_input.old_string:
        raise ToolFailure(f"File does not exist: {target.shown}")
    write_text(target, file, tool_input.new_string, TextFormat())
    remember(target, file, call.env.state, tool_input.new_string)
    return _result(target.shown, "", tool_input.new_string, tool_input, tool_input.new_string, 0)


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
            "originalFile": original,
            "structuredPatch": structured_patch(original, updated),
            "userModified": False,
        },
    )
