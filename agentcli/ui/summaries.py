"""Short descriptions of tool calls for the conversation: the key input in the header, one line for the result.

Pure functions of the SDK-shaped data, so the main view and the detailed transcript agree and tests need no app.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

KEY_FIELDS = ("command", "file_path", "path", "pattern", "url", "query", "description", "prompt")
MAX_KEY_CHARS = 100


def _short(text: str, limit: int = MAX_KEY_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def display_path(path: str, cwd: Path | None) -> str:
    """A path relative to the project when it is inside it (that is how people read them)."""
    if cwd is None:
        return path
    try:
        return str(Path(path).relative_to(cwd))
    except ValueError:
        return path


def key_input(name: str, tool_input: dict[str, Any] | None, cwd: Path | None = None) -> str:
    """The one argument that tells what a call does: the command, path or pattern."""
    if not tool_input:
        return ""
    if name == "TodoWrite":
        todos = tool_input.get("todos") or []
        return f"{len(todos)} item{'s' if len(todos) != 1 else ''}"
    for key in KEY_FIELDS:
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            if key in ("file_path", "path"):
                value = display_path(value, cwd)
            if name == "Grep" and key == "pattern" and tool_input.get("path"):
                return _short(f"{value} in {display_path(str(tool_input['path']), cwd)}")
            return _short(value)
    return _short(json.dumps(tool_input, ensure_ascii=False))


def _untagged(text: str) -> str:
    """Without the ``<tool_use_error>`` tags the model reads (people read the message inside)."""
    return text.replace("<tool_use_error>", "").replace("</tool_use_error>", "")


def result_text(block: dict[str, Any]) -> str:
    """The tool_result's content as plain text (without the reminders agentcli attached for the model)."""
    content = block.get("content")
    if isinstance(content, str):
        return _untagged(content)
    if isinstance(content, list):
        parts = []
        for item in content:
            if isinstance(item, dict) and item.get("type") == "text":
                if not str(item.get("text", "")).startswith("<system-reminder>"):  # for the model (memory files)
                    parts.append(str(item.get("text", "")))
            elif isinstance(item, dict):
                parts.append(f"[{item.get('type', 'content')}]")
        return _untagged("\n".join(parts))
    return ""


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def patch_lines(structured: dict[str, Any] | None) -> list[str]:
    """The unified diff of an Edit or Write, without its file headers."""
    if not structured:
        return []
    patch = structured.get("patch") or structured.get("structuredPatch")
    if isinstance(patch, list):
        lines: list[str] = []
        for hunk in patch:
            if isinstance(hunk, dict):
                lines.extend(str(line) for line in hunk.get("lines", []))
            else:
                lines.append(str(hunk))
        return lines
    if isinstance(patch, str):
        return [line for line in patch.splitlines() if not line.startswith(("---", "+++"))]
    return []


def result_line(name: str, block: dict[str, Any], structured: dict[str, Any] | None) -> str:
    """One line that says what the call produced ("Read 120 lines", "Added 3 lines, removed 1")."""
    text = result_text(block)
    if block.get("is_error"):
        first = next((line for line in text.splitlines() if line.strip()), "Error")
        return _short(first, 160)
    data = structured or {}
    if name == "Read" and data.get("type") == "image" and isinstance(data.get("file"), dict):
        return f"Read image ({max(1, int(data['file'].get('originalSize', 0)) // 1024)} KB)"
    if name == "Read" and isinstance(data.get("file"), dict):
        return f"Read {_plural(int(data['file'].get('numLines', 0)), 'line')}"
    if name in ("Edit", "Write", "MultiEdit"):
        lines = patch_lines(data)
        added = sum(1 for line in lines if line.startswith("+"))
        removed = sum(1 for line in lines if line.startswith("-"))
        if data.get("type") == "create":
            return f"Wrote {_plural(len(str(data.get('content', '')).splitlines()), 'line')}"
        if lines:
            return f"Added {_plural(added, 'line')}, removed {_plural(removed, 'line')}"
    if name == "Bash":
        out = str(data.get("stdout", text) or "").rstrip("\n")
        lines = data.get("stdoutLines")  # counted before any cut: the kept text would undercount
        count = lines if isinstance(lines, int) else len(out.splitlines()) if out else 0
        return "(No output)" if not count else f"{_plural(count, 'line')} of output"
    if name in ("Glob", "Grep") and "numFiles" in data:
        if "numMatches" in data:
            return f"Found {_plural(int(data['numMatches']), 'match')} in {_plural(int(data['numFiles']), 'file')}"
        return f"Found {_plural(int(data['numFiles']), 'file')}"
    if name == "TodoWrite":
        return "Updated the task list"
    if name == "web_search" and isinstance(data.get("results"), list):
        return f"Did 1 search · {_plural(len(data['results']), 'result')}"
    first = next((line for line in text.splitlines() if line.strip()), "Done")
    return _short(first, 160)


def format_elapsed(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{int(seconds)}s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}m {rest:02d}s"


def tail_lines(text: str, count: int) -> list[str]:
    """The last ``count`` non-empty lines of a command's output so far."""
    lines = [line for line in text.replace("\r", "\n").split("\n") if line.strip()]
    return lines[-count:]
