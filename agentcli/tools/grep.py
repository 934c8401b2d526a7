"""Grep: search file contents with ripgrep when it is installed, and with a pure-Python search otherwise.

Both back ends take the same input and print the same formats, so the model sees no difference: paths are
absolute, file lists are newest first, very long lines are cut, binary files and .git are skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sysconfig
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from agentcli.tools.base import Tool, ToolCall, ToolFailure, ToolInput, ToolOutput
from agentcli.tools.grep_python import MAX_COLUMNS, GrepQuery, python_grep, sort_newest_first
from agentcli.tools.paths import resolve

RG_TIMEOUT_S = 60.0


class GrepInput(ToolInput):
    pattern: str = Field(description="The regular expression pattern to search for in file contents")
    path: str | None = Field(default=None, description="File or folder to search in. Defaults to the project folder.")
    glob: str | None = Field(default=None, description='Only search files matching this glob, e.g. "*.{ts,tsx}"')
    type: str | None = Field(default=None, description="Only search files of this type, e.g. py, js, rust, go, java")
    output_mode: Literal["content", "files_with_matches", "count"] | None = Field(
        default=None,
        description='"content" shows matching lines, "files_with_matches" (default) the files, "count" match counts',
    )
    before: int | None = Field(default=None, alias="-B", ge=0, description="Lines to show before each match (content)")
    after: int | None = Field(default=None, alias="-A", ge=0, description="Lines to show after each match (content)")
    context: int | None = Field(default=None, alias="-C", ge=0, description="Lines to show around each match (content)")
    line_numbers: bool | None = Field(default=None, alias="-n", description="Show line numbers (content; default true)")
    case_insensitive: bool | None = Field(default=None, alias="-i", description="Case insensitive search")
    multiline: bool | None = Field(default=None, description="Let patterns span lines and . match newlines")
    head_limit: int | None = Field(default=None, ge=0, description="Only the first N lines or entries of the output")


def find_ripgrep() -> str | None:
    """``rg`` on PATH, or installed beside this Python (a virtualenv's bin folder is often not on PATH)."""
    found = shutil.which("rg")
    if found:
        return found
    candidate = Path(sysconfig.get_path("scripts")) / "rg"
    return str(candidate) if candidate.is_file() and os.access(candidate, os.X_OK) else None


class GrepTool(Tool):
    name = "Grep"
    description = (
        'Searches file contents with regular expressions (ripgrep syntax, e.g. "log.*Error", "function\\s+\\w+"). '
        'Filter files with glob ("*.js", "**/*.tsx") or type (py, js, rust…). output_mode: '
        '"files_with_matches" (default; newest first), "content" (matching lines, with -A/-B/-C context and -n '
        'line numbers), or "count". Literal braces need escaping ("interface\\{\\}"). Set multiline for '
        "patterns that span lines. Use this instead of running grep or rg with Bash."
    )
    input_model = GrepInput

    def is_read_only(self, tool_input: Any) -> bool:
        return True

    def target_path(self, tool_input: Any) -> str | None:
        return tool_input.path or "."

    async def call(self, tool_input: Any, call: ToolCall) -> ToolOutput:
        root = resolve(tool_input.path or ".", call.env.project_dir)
        if not root.exists():
            raise ToolFailure(f"Path does not exist: {root}")
        query = GrepQuery(
            pattern=tool_input.pattern,
            root=root,
            mode=tool_input.output_mode or "files_with_matches",
            glob=tool_input.glob,
            file_type=tool_input.type,
            before=tool_input.context if tool_input.context is not None else tool_input.before,
            after=tool_input.context if tool_input.context is not None else tool_input.after,
            line_numbers=tool_input.line_numbers is not False,
            ignore_case=bool(tool_input.case_insensitive),
            multiline=bool(tool_input.multiline),
        )
        rg = find_ripgrep()
        if rg is not None:
            lines = await _ripgrep(rg, query)
        else:
            lines = await asyncio.to_thread(python_grep, query)
        if call.env.read_denied is not None:
            lines = _without_denied(lines, call.env.read_denied)
        return _format(query, lines, tool_input.head_limit)


def _without_denied(lines: list[str], denied: Callable[[Path], bool]) -> list[str]:
    """Lines of files a deny rule covers left out (a line starts with its file's path, then ``:`` or ``-``)."""
    verdicts: dict[str, bool] = {}

    def hidden(line: str) -> bool:
        for end in [len(line)] + [i for i, char in enumerate(line) if char in ":-"]:
            path = line[:end]
            if path in verdicts:
                return verdicts[path]
            if os.path.isfile(path):
                verdicts[path] = denied(Path(path))
                return verdicts[path]
        return False

    return [line for line in lines if not hidden(line)]


async def _ripgrep(rg: str, query: GrepQuery) -> list[str]:
    args = [
        rg,
        "--no-config",
        "--color=never",
        "--hidden",
        "--glob=!.git",
        "--glob=!.hg",
        "--glob=!.svn",
        f"--max-columns={MAX_COLUMNS}",
        "--max-columns-preview",
        "--no-messages",
    ]
    if query.ignore_case:
        args.append("-i")
    if query.multiline:
        args += ["-U", "--multiline-dotall"]
    if query.glob:
        args += [f"--glob={query.glob}"]
    if query.file_type:
        args += ["--type", query.file_type]
    if query.mode == "files_with_matches":
        args.append("--files-with-matches")
    elif query.mode == "count":
        args += ["--count", "--with-filename"]
    else:
        args += ["--with-filename", "--line-number" if query.line_numbers else "--no-line-number"]
        if query.before:
            args += ["-B", str(query.before)]
        if query.after:
            args += ["-A", str(query.after)]
    args += ["-e", query.pattern, "--", str(query.root)]
    proc = await asyncio.create_subprocess_exec(
        *args, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    try:
        stdout, stderr = await asyncio.wait_for(proc.communicate(), RG_TIMEOUT_S)
    except BaseException:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await asyncio.shield(proc.wait())
        raise
    if proc.returncode not in (0, 1) and not stdout:
        message = stderr.decode("utf-8", "replace").strip() or f"ripgrep exited with status {proc.returncode}"
        raise ToolFailure(message)
    lines = stdout.decode("utf-8", "replace").splitlines()
    if query.mode == "files_with_matches":
        lines = sort_newest_first(lines)
    return lines


def _format(query: GrepQuery, lines: list[str], head_limit: int | None) -> ToolOutput:
    total = len(lines)
    if head_limit:
        lines = lines[:head_limit]
    limited = (
        f"\n\n[Showing the first {len(lines)} of {total} lines; raise head_limit to see more.]"
        if len(lines) < total
        else ""
    )
    structured: dict[str, Any] = {"mode": query.mode, "numLines": total}
    if query.mode == "files_with_matches":
        structured.update(filenames=lines, numFiles=total)
        if not total:
            return ToolOutput("No files found", structured=structured)
        noun = "file" if total == 1 else "files"
        return ToolOutput(f"Found {total} {noun}\n" + "\n".join(lines) + limited, structured=structured)
    if query.mode == "count":
        matches = 0
        for line in lines:
            with contextlib.suppress(ValueError):
                matches += int(line.rsplit(":", 1)[1])
        structured.update(numMatches=matches, numFiles=total)
        if not total:
            return ToolOutput("No matches found", structured=structured)
        noun = "file" if total == 1 else "files"
        summary = f"\n\nFound {matches} total matching lines across {total} {noun}."
        return ToolOutput("\n".join(lines) + summary + limited, structured=structured)
    if not total:
        return ToolOutput("No matches found", structured=structured)
    return ToolOutput("\n".join(lines) + limited, structured=structured)
