"""What the model has seen of a file: Edit and Write refuse to change a file it has not read, or one that changed
on disk since, so nobody's work (the user's, a formatter's) is silently overwritten. Changes are written
atomically in the file's own encoding, BOM and line endings."""

from __future__ import annotations

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


def require_fresh(path: Path, state: SessionToolState) -> DecodedText:
    """The file's current text, provided the model read it and it has not changed since; else a ToolFailure."""
    snapshot = state.read_files.get(str(path))
    if snapshot is None:
        raise ToolFailure(NOT_READ)
    stat = path.stat()
    current = read_decoded(path)
    if stat.st_mtime_ns == snapshot.mtime_ns and stat.st_size == snapshot.size:
        return current
    if snapshot.content is not None and current.text == snapshot.content:
        return current  # touched but not changed
    raise ToolFailure(CHANGED)


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
