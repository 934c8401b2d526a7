"""Glob: find files by name pattern, newest first, so recently touched files (the likely subject) come first."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import Field

from agentcli.tools.base import Tool, ToolCall, ToolFailure, ToolInput, ToolOutput
from agentcli.tools.globs import expand_braces, glob_regex, static_prefix
from agentcli.tools.paths import resolve

MAX_RESULTS = 100
SKIP_DIRS = frozenset({".git", ".hg", ".svn"})


class GlobInput(ToolInput):
    pattern: str = Field(description='The glob pattern to match files against, e.g. "**/*.py" or "src/**/*.{ts,tsx}"')
    path: str | None = Field(
        default=None,
        description="The directory to search in (absolute). Omit it to search the project folder.",
    )


class GlobTool(Tool):
    name = "Glob"
    description = (
        'Fast file pattern matching for any codebase size. Supports glob patterns like "**/*.js" or '
        '"src/**/*.{ts,tsx}" (`*` stays within one folder, `**` spans folders). Returns matching file paths '
        f"sorted by modification time, newest first, at most {MAX_RESULTS}. Version-control folders such as .git "
        "are skipped. Use it to find files by name; use Grep to search their contents."
    )
    input_model = GlobInput

    def is_read_only(self, tool_input: Any) -> bool:
        return True

    def target_path(self, tool_input: Any) -> str | None:
        if tool_input.path:
            return str(tool_input.path)
        if tool_input.pattern.startswith(("/", "~")):
            return static_prefix(tool_input.pattern)[0] or "/"
        return "."

    async def call(self, tool_input: Any, call: ToolCall) -> ToolOutput:
        root = resolve(tool_input.path or ".", call.env.project_dir)
        pattern = tool_input.pattern
        if pattern.startswith(("/", "~")):
            base, pattern = static_prefix(os.path.expanduser(pattern))
            root = resolve(base or "/", root)
        if not root.exists():
            raise ToolFailure(f"Directory does not exist: {root}")
        if not root.is_dir():
            raise ToolFailure(f"{root} is not a directory.")
        return await asyncio.to_thread(_glob, root, pattern, call.env.read_denied)


def find_files(root: Path, pattern: str) -> list[Path]:
    """Files under ``root`` whose path relative to it matches ``pattern``."""
    pattern = pattern.removeprefix("./")
    regex = glob_regex(pattern)
    expanded = expand_braces(pattern)
    # without ** a pattern cannot match deeper than its own number of folders: do not walk further
    max_depth = None if any("**" in p for p in expanded) else max(p.count("/") for p in expanded)
    matches: list[Path] = []
    for folder, dirs, files in os.walk(root):
        relative = os.path.relpath(folder, root)
        depth = 0 if relative == "." else relative.count(os.sep) + 1
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and (max_depth is None or depth < max_depth)]
        prefix = "" if relative == "." else relative.replace(os.sep, "/") + "/"
        for name in files:
            if regex.fullmatch(prefix + name):
                matches.append(Path(folder) / name)
    return matches


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _glob(root: Path, pattern: str, denied: Callable[[Path], bool] | None = None) -> ToolOutput:
    found = [path for path in find_files(root, pattern) if denied is None or not denied(path)]
    found.sort(key=lambda p: (-_mtime(p), str(p)))
    shown = found[:MAX_RESULTS]
    structured = {"filenames": [str(p) for p in shown], "numFiles": len(found), "truncated": len(found) > len(shown)}
    if not found:
        return ToolOutput("No files found", structured=structured)
    lines = [str(p) for p in shown]
    if len(found) > len(shown):
        lines.append(
            f"(Results are truncated: showing the {len(shown)} most recently modified of {len(found)} files. "
            "Use a more specific path or pattern.)"
        )
    return ToolOutput("\n".join(lines), structured=structured)
