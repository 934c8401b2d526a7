"""TranscriptStore: append one session's messages to ``<data>/projects/<slug>/<session-id>.jsonl``.

Each line is written to the kernel the moment it is recorded (one ``write`` of one serialized message, never the
whole history), so a SIGKILL loses nothing already recorded; ``flush(durable=True)`` adds the ``fsync`` that makes
a finished turn survive a power cut. The file is only ever appended to, and only created when the first line is
written, so a run that fails before its prompt leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import stat
import uuid
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agentcli import __version__
from agentcli.files.atomic import sync_folder
from agentcli.session.gitinfo import find_head, read_branch
from agentcli.session.redact import Redactor

Entry = dict[str, Any]

# What the transcript leaves out: live-only events (tool progress, the "compacting" status) and the per-process
# init (cwd, version and branch are on every line already, so repeating the init per exchange would only cost bytes).
_SKIPPED_SYSTEM = frozenset({"init", "status", "tool_started", "tool_progress", "tool_finished"})
_SKIPPED_TYPES = frozenset({"stream_event"})
# Envelope keys the store sets itself, and SDK keys it renames.
_OWN_KEYS = frozenset({"type", "subtype", "uuid", "session_id", "parent_tool_use_id", "tool_use_result"})
# The result line keeps the turn's outcome; usage is on each assistant line, the text in the last one.
_RESULT_KEYS = (
    "is_error",
    "num_turns",
    "duration_ms",
    "duration_api_ms",
    "total_cost_usd",
    "stop_reason",
    "errors",
    "permission_denials",
)
DIR_MODE = 0o700
FILE_MODE = 0o600


def timestamp() -> str:
    """UTC, millisecond precision, ``Z`` suffix (the form Claude Code's transcripts use)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def dumps(line: Entry) -> str:
    """Compact JSON; never raises (odd values become strings, lone surrogates are escaped)."""
    try:
        return json.dumps(line, ensure_ascii=False, separators=(",", ":"), default=str)
    except (ValueError, RecursionError):
        return json.dumps({"type": line.get("type"), "uuid": line.get("uuid"), "unserializable": True})


def _encode(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from undecodable tool output
        return json.dumps(json.loads(text), ensure_ascii=True, separators=(",", ":")).encode("ascii")


def ensure_private_dir(path: Path) -> None:
    """Create ``path`` and missing parents as 0700; close the session folders to others if they were open."""
    missing: list[Path] = []
    probe = path
    while not probe.exists():
        missing.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=DIR_MODE)
        except FileExistsError:
            continue
        os.chmod(folder, DIR_MODE)
    for folder in (path, path.parent):
        try:
            st_mode = folder.stat().st_mode
            if stat.S_ISDIR(st_mode) and st_mode & 0o077:
                os.chmod(folder, st_mode & DIR_MODE)
        except OSError:
            pass  # not ours to change; the files inside are 0600 regardless


class TranscriptStore:
    """Implements the engine's ``Recorder``: ``record`` appends a line, ``flush(durable=True)`` fsyncs."""

    def __init__(
        self,
        path: Path,
        session_id: str,
        cwd: Path,
        *,
        parent_uuid: str | None = None,
        redactor: Redactor | None = None,
    ) -> None:
        self.path = path
        self.session_id = session_id
        self.errors: list[str] = []
        self.last_uuid = parent_uuid
        self._cwd = str(cwd)
        self._head = find_head(cwd)
        self._branch = read_branch(self._head)
        self._redactor = redactor if redactor is not None else Redactor.from_environment()
        self._fd: int | None = None
        self._created = False
        self._dirty = False

    @property
    def redactor(self) -> Redactor:
        """What keeps secrets out of this transcript (files written beside it use the same)."""
        return self._redactor

    # -- the Recorder protocol -------------------------------------------------------------------------------------

    def record(self, entry: Entry) -> None:
        """Append one SDK-shaped message (the engine's vocabulary) as a transcript line."""
        kind = entry.get("type")
        if kind in _SKIPPED_TYPES or (kind == "system" and entry.get("subtype") in _SKIPPED_SYSTEM):
            return
        if kind == "user" and "tool_use_result" not in entry and not _is_tool_result(entry):
            self._branch = read_branch(self._head)  # a prompt: the user may have switched branches meanwhile
        self._write_line(self._line(entry))

    def flush(self, *, durable: bool = False) -> None:
        """Lines are already in the kernel; ``durable`` also puts them on the disk (end of a turn)."""
        if not durable or self._fd is None or not self._dirty:
            return
        try:
            os.fsync(self._fd)
            if self._created:
                self._created = False
                sync_folder(self.path.parent)
            self._dirty = False
        except OSError as exc:
            self._error(f"could not sync the transcript {self.path}: {exc.strerror or exc}")

    # -- the rest --------------------------------------------------------------------------------------------------

    def copy_entries(self, entries: Iterable[Entry]) -> None:
        """Write lines taken from another transcript (a fork), re-stamped with this session's id."""
        for entry in entries:
            line = dict(entry)
            line["sessionId"] = self.session_id
            uid = line.get("uuid")
            if isinstance(uid, str):
                self.last_uuid = uid
            self._write_text(dumps(line))

    def seal(self) -> None:
        """End a line a crash cut short, so the next line starts on a line of its own."""
        self._write_bytes(b"\n")

    def lock(self) -> None:
        """Become the session's one writer: an advisory lock on the transcript, held until :meth:`close` (the
        kernel drops it if the process dies). Raises :class:`TranscriptBusy` when another process holds it."""
        fd = self._open()
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                return  # a file system without locks: carry on unguarded, as before
            holder = lock_holder(fd)
            self.close()
            raise TranscriptBusy(self.path, holder) from None

    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            with contextlib.suppress(OSError):
                os.close(fd)

    def _line(self, entry: Entry) -> Entry:
        kind = entry.get("type")
        line: Entry = {"type": kind}
        subtype = entry.get("subtype")
        if subtype is not None:
            line["subtype"] = subtype
        uid = entry.get("uuid")
        line["uuid"] = uid if isinstance(uid, str) else str(uuid.uuid4())
        line["parentUuid"] = self.last_uuid
        # What transcript readers built for Claude Code's files expect on every line.
        line["isSidechain"] = entry.get("parent_tool_use_id") is not None
        line["userType"] = "external"
        line["sessionId"] = self.session_id
        line["timestamp"] = timestamp()
        line["cwd"] = self._cwd
        line["version"] = __version__
        if self._branch:
            line["gitBranch"] = self._branch
        if kind == "result":
            line.update((key, entry[key]) for key in _RESULT_KEYS if key in entry and entry[key] not in (None, []))
        else:
            line.update((key, value) for key, value in entry.items() if key not in _OWN_KEYS)
        parent_tool_use_id = entry.get("parent_tool_use_id")
        if parent_tool_use_id is not None:
            line["parent_tool_use_id"] = parent_tool_use_id
        structured = entry.get("tool_use_result")
        if structured is not None:
            line["toolUseResult"] = structured
        return line

    def _write_line(self, line: Entry) -> None:
        self._write_text(dumps(line))
        if line["type"] != "result":  # a turn's summary is a leaf: the conversation's chain goes on without it
            self.last_uuid = line["uuid"]

    def _write_text(self, text: str) -> None:
        if self._redactor:
            text = self._redactor.redact(text)
        self._write_bytes(_encode(text) + b"\n")

    def _write_bytes(self, data: bytes) -> None:
        try:
            fd = self._open()
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            self._dirty = True
        except OSError as exc:
            self._error(f"could not write the transcript {self.path}: {exc.strerror or exc}")

    def _open(self) -> int:
        if self._fd is None:
            ensure_private_dir(self.path.parent)
            existed = self.path.exists()
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, FILE_MODE)
            if os.fstat(fd).st_mode & 0o077:
                os.fchmod(fd, FILE_MODE)
            self._fd = fd
            self._created = not existed
            if not existed:  # a new session's file is ours from its first line
                with contextlib.suppress(OSError):
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return self._fd

    def _error(self, message: str) -> None:
        # Persistence must never end the session; the face reports these once the run is over.
        if message not in self.errors:
            self.errors.append(message)


class TranscriptBusy(Exception):
    """Another process is writing this transcript; ``pid`` is that process where the system says."""

    def __init__(self, path: Path, pid: int | None) -> None:
        super().__init__(f"{path} is locked by another process" + (f" (pid {pid})" if pid else ""))
        self.path = path
        self.pid = pid


def lock_holder(fd: int) -> int | None:
    """The process holding a lock on ``fd``'s file, from ``/proc/locks`` (Linux); None where unknown."""
    info = os.fstat(fd)
    key = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as locks:
            for line in locks:
                fields = line.split()
                if len(fields) > 5 and fields[1] == "FLOCK" and fields[5] == key and fields[4].isdigit():
                    return int(fields[4])
    except OSError:
        pass
    return None


def _is_tool_result(entry: Entry) -> bool:
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return isinstance(content, list) and any(
        isinstance(block, dict) and block.get("type") == "tool_result" for block in content
    )
