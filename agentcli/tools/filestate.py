"""What the model has seen of a file: Edit and Write refuse to change a file it has not read, or one that changed
on disk since, so nobody's work (the user's, a formatter's) is silently overwritten."""

from __future__ import annotations

from pathlib import Path

from agentcli.tools.base import FileSnapshot, SessionToolState, ToolFailure

NOT_READ = "File has not been read yet. Read it first before writing to it."
CHANGED = (
    "File has been modified since it was read, either by the user or by a linter. "
    "Read it again before attempting to write it."
)


def read_text(path: Path) -> str:
    """The file's text as Read shows it (UTF-8, undecodable bytes replaced, line endings kept)."""
    return path.read_bytes().decode("utf-8", errors="replace")


def require_fresh(path: Path, state: SessionToolState) -> str:
    """The file's current text, provided the model read it and it has not changed since; else a ToolFailure."""
    snapshot = state.read_files.get(str(path))
    if snapshot is None:
        raise ToolFailure(NOT_READ)
    stat = path.stat()
    current = read_text(path)
    if stat.st_mtime_ns == snapshot.mtime_ns and stat.st_size == snapshot.size:
        return current
    if snapshot.content is not None and current == snapshot.content:
        return current  # touched but not changed
    raise ToolFailure(CHANGED)


def remember(path: Path, state: SessionToolState, content: str) -> None:
    """Record what was just written, so the next Edit of this file needs no new Read."""
    stat = path.stat()
    state.read_files[str(path)] = FileSnapshot(stat.st_mtime_ns, stat.st_size, content)
