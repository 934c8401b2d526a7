"""This directory's sessions, for ``agentcli sessions``, ``--continue`` and the ``--resume`` list.

Listing must stay quick with many long transcripts, so it never parses a whole file: the first prompt comes from
the first lines, the branch from the tail, and the message count from counting line openings (every line the store
writes starts with its ``type``; Claude Code's lines hold it after their ``parentUuid``, ``cwd``… keys).
"""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agentcli.config.paths import data_dir, sessions_dir

SUFFIX = ".jsonl"
_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$")
_MESSAGE_OPENINGS = (
    b'\n{"type":"user"',
    b'\n{"type":"assistant"',
    b',"type":"user","message":',  # Claude Code's key order (a nested object's quotes would be escaped)
    b',"type":"assistant","message":',
)
_BRANCH = re.compile(rb'"gitBranch":"((?:[^"\\]|\\.){0,512})"')
_CHUNK = 1 << 20
_HEAD_LINES = 64
_MAX_HEAD_LINE = 4 << 20
_TAIL_BYTES = 64 << 10
PREVIEW_CHARS = 200


@dataclass(frozen=True)
class SessionInfo:
    """One transcript, summarised for a list."""

    session_id: str
    path: Path
    last_activity: float
    """Seconds since the epoch (the file's modification time)."""
    size: int
    first_prompt: str | None = None
    message_count: int = 0
    git_branch: str | None = None
    cwd: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "first_prompt": self.first_prompt,
            "last_activity": datetime.fromtimestamp(self.last_activity, UTC).isoformat(timespec="seconds"),
            "message_count": self.message_count,
            "git_branch": self.git_branch,
            "size": self.size,
            "path": str(self.path),
        }


def is_valid_session_id(session_id: str) -> bool:
    """A name that can only refer to a file in a sessions folder (no separators, no dot-dot)."""
    return bool(_SAFE_ID.match(session_id))


def _transcripts(folder: Path) -> list[tuple[Path, float, int]]:
    found = []
    try:
        candidates = list(folder.iterdir())
    except OSError:
        return []
    for path in candidates:
        if path.suffix != SUFFIX or not is_valid_session_id(path.stem):
            continue
        try:
            stat = path.stat()
        except OSError:
            continue
        if stat.st_size:
            found.append((path, stat.st_mtime, stat.st_size))
    found.sort(key=lambda item: item[1], reverse=True)
    return found


def latest_session(cwd: Path) -> Path | None:
    """The transcript of this directory's most recently active session (by modification time)."""
    found = _transcripts(sessions_dir(cwd))
    return found[0][0] if found else None


def find_session(cwd: Path, session_id: str) -> Path | None:
    """The transcript of ``session_id`` in this directory's sessions, if there is one."""
    if not is_valid_session_id(session_id):
        return None
    path = sessions_dir(cwd) / f"{session_id}{SUFFIX}"
    return path if path.is_file() else None


def find_elsewhere(session_id: str) -> SessionInfo | None:
    """The same session id under another directory's sessions (to tell the user where to resume it)."""
    if not is_valid_session_id(session_id):
        return None
    try:
        folders = list((data_dir() / "projects").iterdir())
    except OSError:
        return None
    for folder in folders:
        path = folder / f"{session_id}{SUFFIX}"
        if path.is_file():
            return describe(path)
    return None


def list_sessions(cwd: Path, *, limit: int | None = None) -> list[SessionInfo]:
    """This directory's sessions, most recent first."""
    found = _transcripts(sessions_dir(cwd))
    if limit is not None:
        found = found[:limit]
    return [describe(path, mtime, size) for path, mtime, size in found]


def describe(path: Path, mtime: float | None = None, size: int | None = None) -> SessionInfo:
    """Summarise one transcript without parsing all of it; unreadable parts leave fields empty."""
    if mtime is None or size is None:
        stat = path.stat()
        mtime, size = stat.st_mtime, stat.st_size
    first_prompt = cwd = None
    count = 0
    branch: str | None = None
    try:
        with path.open("rb") as handle:
            first_prompt, cwd, branch = _head(handle)
            handle.seek(0)
            count = _count_messages(handle)
            if size > _TAIL_BYTES:
                handle.seek(size - _TAIL_BYTES)
            tail = handle.read(_TAIL_BYTES)
    except OSError:
        tail = b""
    matches = _BRANCH.findall(tail)
    if matches:
        with contextlib.suppress(ValueError):
            branch = json.loads(b'"' + matches[-1] + b'"')
    return SessionInfo(path.stem, path, mtime, size, first_prompt, count, branch, cwd)


def _head(handle: Any) -> tuple[str | None, str | None, str | None]:
    cwd = branch = None
    for _ in range(_HEAD_LINES):
        raw = handle.readline(_MAX_HEAD_LINE)
        if not raw:
            break
        if not raw.endswith(b"\n"):
            _skip_rest_of_line(handle)
            continue
        if not raw.startswith(b'{"type":"user"') and b'"type":"user"' not in raw:
            continue
        try:
            entry = json.loads(raw)
        except (ValueError, RecursionError):
            continue
        if not isinstance(entry, dict):
            continue
        if cwd is None and isinstance(entry.get("cwd"), str):
            cwd = entry["cwd"]
        if branch is None and isinstance(entry.get("gitBranch"), str):
            branch = entry["gitBranch"]
        prompt = prompt_text(entry)
        if prompt is not None:
            return prompt, cwd, branch
    return None, cwd, branch


def _skip_rest_of_line(handle: Any) -> None:
    while True:
        chunk = handle.readline(_CHUNK)
        if not chunk or chunk.endswith(b"\n"):
            return


def prompt_text(entry: dict[str, Any]) -> str | None:
    """The text a person typed, for a prompt line (None for tool results, summaries and repairs)."""
    if (
        entry.get("isCompactSummary")
        or entry.get("isSynthetic")
        or entry.get("isMeta")
        or entry.get("parent_tool_use_id") is not None
    ):
        return None
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return None
        text = " ".join(
            b["text"]
            for b in content
            if isinstance(b, dict) and isinstance(b.get("text"), str) and not b["text"].startswith("<system-reminder>")
        )
    else:
        return None
    text = " ".join(text.split())
    if len(text) > PREVIEW_CHARS:
        text = text[: PREVIEW_CHARS - 1] + "…"
    return text or None


def _count_messages(handle: Any) -> int:
    """User and assistant lines, counted by their openings (a newline, then the store's fixed first key)."""
    counts = 0
    carries = [b"\n"] * len(_MESSAGE_OPENINGS)  # the file's first line has no newline before it
    while chunk := handle.read(_CHUNK):
        for index, opening in enumerate(_MESSAGE_OPENINGS):
            buffer = carries[index] + chunk
            counts += buffer.count(opening)
            carries[index] = buffer[-(len(opening) - 1) :]
    return counts


def format_sessions(sessions: list[SessionInfo], *, numbered: bool = False, header: bool = False) -> list[str]:
    """Aligned text lines (id, last activity, messages, branch, first prompt) for a face to print."""
    rows = []
    for info in sessions:
        when = datetime.fromtimestamp(info.last_activity).strftime("%Y-%m-%d %H:%M")
        prompt = info.first_prompt or "(no prompt)"
        rows.append((info.session_id, when, str(info.message_count), info.git_branch or "-", prompt))
    titles = ("ID", "LAST ACTIVITY", "MSGS", "BRANCH", "FIRST PROMPT")
    table = [titles, *rows] if header else rows
    if not table:
        return []
    widths = [max(len(row[col]) for row in table) for col in range(4)]
    lines = []
    width = len(str(len(rows)))
    for index, row in enumerate(table):
        cells = [
            row[0].ljust(widths[0]),
            row[1].ljust(widths[1]),
            row[2].rjust(widths[2]),
            row[3].ljust(widths[3]),
            row[4],
        ]
        text = "  ".join(cells)
        if numbered:
            number = index + (0 if header else 1)
            text = f"{'' if header and index == 0 else number:>{width}}{'' if header and index == 0 else '.'} {text}"
        lines.append(text)
    return lines
