"""What the model has seen of a file: Edit and Write refuse to change a file it has not read, or one that changed
on disk since, so nobody's work (the user's, a formatter's) is silently overwritten. Changes are written
atomically in the file's own encoding, BOM and line endings, to exactly the file the permission check judged:
its folder is reached without following symlinks, so a link swapped in after the check cannot redirect them."""

from __future__ import annotations

import difflib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from agentcli.files.anchored import AnchoredFile
from agentcli.files.atomic import AtomicWriteError
from agentcli.files.nofollow import Redirected
from agentcli.files.text import DecodedText, TextFormat, UnencodableText, decode, encode
from agentcli.tools.base import FileSnapshot, SessionToolState, ToolCall, ToolFailure
from agentcli.tools.paths import landing, resolve

NOT_READ = "File has not been read yet. Read it first before writing to it."
CHANGED = (
    "File has been modified since it was read, either by the user or by a linter. "
    "Read it again before attempting to write it."
)


@dataclass(frozen=True, slots=True)
class FileTarget:
    """A file a tool changes: ``shown`` as the model named it (what it read is kept under that name, and messages
    use it) and ``real``, the file itself with symlinks resolved: what the permission check judged, and the only
    file the tool touches."""

    shown: Path
    real: Path


def file_target(file_path: str, call: ToolCall) -> FileTarget:
    """The call's file: where the permission check found it, else (no check ran) where it leads now."""
    shown = resolve(file_path, call.env.project_dir)
    return FileTarget(shown, call.checked_path if call.checked_path is not None else landing(shown))


def redirected(target: FileTarget, error: Redirected) -> ToolFailure:
    """The refusal when a symlink stands where the checked path had none."""
    return ToolFailure(
        f"Did not change {target.shown}: {error}. The permission check allowed {target.real}, and file tools do not "
        "follow a symlink met after that check, so nothing was written. To change the file the link leads to, "
        "give that path."
    )


def open_target(target: FileTarget) -> AnchoredFile:
    """The file's folder, held open (see :class:`AnchoredFile`); a symlink on the way is refused."""
    try:
        return AnchoredFile(target.real)
    except Redirected as exc:
        raise redirected(target, exc) from None
    except OSError as exc:
        raise ToolFailure(f"Could not reach {target.shown}: {exc.strerror or exc}") from None


def existing(target: FileTarget, file: AnchoredFile) -> os.stat_result | None:
    """The file's status, None when it does not exist yet; a folder or a symlink in its place is refused."""
    info = file.lstat()
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise ToolFailure(f"{target.shown} is a directory; give the path of a file.")
    if info is not None and stat.S_ISLNK(info.st_mode):
        raise redirected(target, Redirected(target.real, file.points_to()))
    return info


def read_decoded(target: FileTarget, file: AnchoredFile) -> DecodedText:
    """The file's text in its detected encoding (undecodable bytes shown as U+FFFD, flagged in ``problem``)."""
    try:
        return decode(file.read_bytes())
    except Redirected as exc:
        raise redirected(target, exc) from None
    except OSError as exc:
        raise ToolFailure(f"Could not read {target.shown}: {exc.strerror or exc}") from None


def _current(
    target: FileTarget, file: AnchoredFile, state: SessionToolState
) -> tuple[DecodedText, FileSnapshot | None, os.stat_result]:
    """The file's current text, what the model saw of it when that differs (None: unchanged since read, or only
    touched), and the file's stat taken before the text was read. Raises ToolFailure when the model never read it."""
    snapshot = state.read_files.get(str(target.shown))
    if snapshot is None:
        raise ToolFailure(NOT_READ)
    info = existing(target, file)
    if info is None:
        raise ToolFailure(f"File does not exist: {target.shown}")
    current = read_decoded(target, file)
    if info.st_mtime_ns == snapshot.mtime_ns and info.st_size == snapshot.size:
        return current, None, info
    if snapshot.content is not None and current.text == snapshot.content:
        return current, None, info
    return current, snapshot, info


def require_fresh(target: FileTarget, file: AnchoredFile, state: SessionToolState) -> DecodedText:
    """The file's current text, provided the model read it and it has not changed since; else a ToolFailure."""
    current, seen, _stat = _current(target, file, state)
    if seen is not None:
        raise ToolFailure(CHANGED)
    return current


MAX_CHANGE_LINES = 40


def refresh(target: FileTarget, file: AnchoredFile, state: SessionToolState) -> tuple[DecodedText, str | None]:
    """The file's current text for an Edit, and a note for the model when it changed on disk since it was read
    (a formatter hook, the user): the new text becomes what the model has seen, so the Edit is judged against it
    rather than refused. Raises ToolFailure when the model never read the file, or when it changed and what the
    model saw of it is not known (no diff to tell)."""
    current, seen, info = _current(target, file, state)
    if seen is None:
        return current, None
    if seen.content is None:  # what the model saw is not known (a partial read, a resumed session): nothing to diff
        raise ToolFailure(CHANGED)
    state.read_files[str(target.shown)] = FileSnapshot(info.st_mtime_ns, info.st_size, current.text)
    return current, changed_note(target.shown, seen.content, current.text)


def changed_note(path: Path, before: str, after: str) -> str:
    """What the model is told about a file that changed under it: a short diff of the change."""
    head = f"Note: {path} was changed on disk after you read it (by the user, a hook or a formatter)."
    lines = list(difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=1))[2:]
    if len(lines) > MAX_CHANGE_LINES:
        lines = [*lines[:MAX_CHANGE_LINES], f"… {len(lines) - MAX_CHANGE_LINES} more diff lines"]
    return f"{head} What changed:\n" + "\n".join(lines)


def write_text(target: FileTarget, file: AnchoredFile, text: str, fmt: TextFormat) -> None:
    """Replace the file with ``text`` stored as ``fmt``, atomically, making missing folders; the original stays whole
    on any failure."""
    try:
        data = encode(text, fmt)
    except UnencodableText as exc:
        raise ToolFailure(f"Did not write {target.shown}: {exc}.") from None
    try:
        file.replace(data, create_folders=True)
    except Redirected as exc:
        raise redirected(target, exc) from None
    except AtomicWriteError as exc:
        raise ToolFailure(f"Could not write {exc.path}: {exc.reason}. The file was left as it was.") from None
    except OSError as exc:
        raise ToolFailure(f"Could not create the folder {target.shown.parent}: {exc.strerror or exc}") from None


def remember(target: FileTarget, file: AnchoredFile, state: SessionToolState, content: str) -> None:
    """Record what was just written, so the next Edit of this file needs no new Read."""
    info = file.lstat()
    if info is not None:
        state.read_files[str(target.shown)] = FileSnapshot(info.st_mtime_ns, info.st_size, content)
