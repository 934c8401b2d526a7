"""What a permission question shows of the call it asks about: a diff for an edit, the file for a new file, the whole
command for Bash, the input as JSON for anything else. Pure text, so both faces show the same lines."""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_PREVIEW_LINES = 2000
MAX_FILE_BYTES = 2_000_000


@dataclass(frozen=True, slots=True)
class Preview:
    kind: str
    """``diff`` (lines start with +, - or a space), ``file`` (a new file's text), ``command`` or ``json``."""
    lines: list[str]
    path: str = ""
    """The file the call is about, for syntax highlighting by its extension."""


def _old_text(path: Path) -> str | None:
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _diff(old: str, new: str) -> list[str]:
    lines = list(difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=3))
    return [line for line in lines[2:]]  # without the ---/+++ headers


def call_preview(tool_name: str, tool_input: dict[str, Any], cwd: Path | None = None) -> Preview:
    """The lines to show for one call (at most ``MAX_PREVIEW_LINES``; the face scrolls them)."""
    path_text = str(tool_input.get("file_path") or "")
    path = Path(path_text) if path_text else None
    if path is not None and cwd is not None and not path.is_absolute():
        path = cwd / path
    preview: Preview
    if tool_name == "Edit" and path is not None:
        old_string, new_string = str(tool_input.get("old_string", "")), str(tool_input.get("new_string", ""))
        current = _old_text(path)
        if current is not None and old_string and old_string in current:
            count = -1 if tool_input.get("replace_all") else 1
            preview = Preview("diff", _diff(current, current.replace(old_string, new_string, count)), path_text)
        else:
            preview = Preview("diff", _diff(old_string, new_string), path_text)
    elif tool_name == "Write" and path is not None:
        content = str(tool_input.get("content", ""))
        current = _old_text(path) if path.exists() else None
        if current is None:
            preview = Preview("file", content.splitlines(), path_text)
        else:
            preview = Preview("diff", _diff(current, content), path_text)
    elif tool_name == "Bash" and isinstance(tool_input.get("command"), str):
        preview = Preview(
            "command",
            [f"$ {line}" if i == 0 else f"  {line}" for i, line in enumerate(tool_input["command"].splitlines())],
        )
    else:
        preview = Preview("json", json.dumps(tool_input, indent=2, ensure_ascii=False).splitlines())
    if len(preview.lines) > MAX_PREVIEW_LINES:
        cut = len(preview.lines) - MAX_PREVIEW_LINES
        preview = Preview(preview.kind, [*preview.lines[:MAX_PREVIEW_LINES], f"… {cut} more lines"], preview.path)
    return preview
