"""What the model has seen of a file: Edit and Write refuse to change a file it has not read, or one that changed
on disk since, so nobody's work (the user's, a formatter's) is silently overwritten. Changes are written
atomically in the file's own encoding, BOM and line endings."""

from __future__ import annotations

import difflib
import os
from pathlib import Path

from agentcli.files.atomic import AtomicWriteError, atomic_write
from agentcli.files.text import DecodedText, TextFormat, UnencodableText, decode, encode
from agentcli.tools.base import FileSnapshot, SessionToolState, ToolFailure

NOT_READ = "File has not been read yet. Read it first before writing to it."
CHANGED = (
    "File has been modified since it was read, either by the user or by a linter. "
    "Read it again before attempting to write it."
)


def read_decoded(path: Path) -> DecodedText:
    """The file's text in its detected encoding (undecodable bytes shown as U+FFFD, flagged in ``problem``)."""
    try:
        return decode(path.read_bytes())
    except OSError as exc:
        raise ToolFailure(f"Could not read {path}: {exc.strerror or exc}") from None


def _current(path: Path, state: SessionToolState) -> tuple[DecodedText, FileSnapshot | None, os.stat_result]:
    """The file's current text, what the model saw of it when that differs (None: unchanged since read, or only
    touched), and the file's stat taken before the text was read. Raises ToolFailure when the model never read it."""
    snapshot = state.read_files.get(str(path))
    if snapshot is None:
        raise ToolFailure(NOT_READ)
    stat = path.stat()
    current = read_decoded(path)
    if stat.st_mtime_ns == snapshot.mtime_ns and stat.st_size == snapshot.size:
        return current, None, stat
    if snapshot.content is not None and current.text == snapshot.content:
        return current, None, stat
    return current, snapshot, stat


def require_fresh(path: Path, state: SessionToolState) -> DecodedText:
    """The file's current text, provided the model read it and it has not changed since; else a ToolFailure."""
    current, seen, _stat = _current(path, state)
    if seen is not None:
        raise ToolFailure(CHANGED)
    return current


MAX_CHANGE_LINES = 40


def refresh(path: Path, state: SessionToolState) -> tuple[DecodedText, str | None]:
    """The file's current text for an Edit, and a note for the model when it changed on disk since it was read
    (a formatter hook, the user): the new text becomes what the model has seen, so the Edit is judged against it
    rather than refused. Raises ToolFailure when the model never read the file."""
    current, seen, stat = _current(path, state)
    if seen is None:
        return current, None
    state.read_files[str(path)] = FileSnapshot(stat.st_mtime_ns, stat.st_size, current.text)
    return current, changed_note(path, seen.content, current.text)


def changed_note(path: Path, before: str | None, after: str) -> str:
    """What the model is told about a file that changed under it: a short diff of the change."""
    head = f"Note: {path} was changed on disk after you read it (by the user, a hook or a formatter)."
    if before is None:
        return f"{head} Its current content was used for this edit; read it again to see it all."
    lines = list(difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=1))[2:]
    if len(lines) > MAX_CHANGE_LINES:
        lines = [*lines[:MAX_CHANGE_LINES], f"… {len(lines) - MAX_CHANGE_LINES} more diff lines"]
    return f"{head} What changed:\n" + "\n".join(lines)


def write_text(path: Path, text: str, fmt: TextFormat) -> None:
    """Replace the file with ``text`` stored as ``fmt``, atomically; the original stays whole on any failure."""
    try:
        data = encode(text, fmt)
    except UnencodableText as exc:
        raise ToolFailure(f"Did not write {path}: {exc}.") from None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ToolFailure(f"Could not create the folder {path.parent}: {exc.strerror or exc}") from None
    try:
        atomic_write(path, data)
    except AtomicWriteError as exc:
        raise ToolFailure(f"Could not write {exc.path}: {exc.reason}. The file was left as it was.") from None


def remember(path: Path, state: SessionToolState, content: str) -> None:
    """Record what was just written, so the next Edit of this file needs no new Read."""
    stat = path.stat()
    state.read_files[str(path)] = FileSnapshot(stat.st_mtime_ns, stat.st_size, content)
