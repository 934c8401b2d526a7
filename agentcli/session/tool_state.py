"""What the session's tools knew, carried across ``--resume``/``--continue``: the files the model has read (Edit
and Write refuse a file the model has not read, so a resumed session that forgot its reads would refuse the very
file it was working on) and the todo list (which a compaction puts back).

Two sources, both in the transcript. A compact boundary lists the files read before it, with the modification
time and size each had when read, and the todo list (written by :func:`boundary_record`), so nothing before the
boundary has to be read again. After the boundary, a TodoWrite replaces the list, and every successful Read,
Write and Edit result counts as a read at the moment its line was written. On resume each file is compared with
that moment: a file modified since (by the user, another program) gets a snapshot that no longer matches it, so
Edit and Write give their usual "modified since it was read" error instead of changing what the model has not
seen. What the model saw is not kept, only when it saw it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from agentcli.session.load import BOUNDARY_MARKER, last_boundary
from agentcli.tools.base import FileSnapshot, SessionToolState

MAX_FILES = 100
"""The most recently read files a boundary lists (what a model can still be working on)."""
FILE_TOOLS = frozenset({"Read", "Write", "Edit"})
TODO_TOOL = "TodoWrite"
_MARKERS = (
    BOUNDARY_MARKER,
    b'"filePath"',
    b'"newTodos"',
    *(f'"name":"{n}"'.encode() for n in (*FILE_TOOLS, TODO_TOOL)),
)
"""A line holds one of these if it can matter here; other lines are not parsed at all."""
_MS = 1_000_000
_UNKNOWN = FileSnapshot(mtime_ns=-1, size=-1)
"""A snapshot no file matches: the file changed after the model saw it."""

Entry = dict[str, Any]


@dataclass
class ToolState:
    """What a resumed session's tools start from."""

    read_files: dict[str, FileSnapshot] = field(default_factory=dict)
    todos: list[dict[str, Any]] = field(default_factory=list)


def boundary_record(state: SessionToolState) -> dict[str, Any]:
    """What a compact boundary lists: the files read so far (the latest :data:`MAX_FILES`) and the todo list."""
    recent = list(state.read_files.items())[-MAX_FILES:]
    files = [{"path": path, "mtimeNs": seen.mtime_ns, "size": seen.size} for path, seen in recent]
    return {"readFiles": files, "todos": list(state.todos)}


def rebuild_tool_state(path: Path) -> ToolState:
    """The read files (as Edit and Write check them, see the module's docstring) and the todo list of the
    session in ``path``; an unreadable transcript gives neither."""
    replay = _Replay()
    try:
        found = last_boundary(path)
        with path.open("rb") as handle:
            handle.seek(found[0] if found is not None else 0)
            for raw in handle:
                if any(marker in raw for marker in _MARKERS):
                    replay.feed(raw)
    except OSError:
        return ToolState()
    return ToolState(replay.snapshots(), replay.todos)


class _Replay:
    """The transcript's lines from the last boundary on, reduced to which file was seen when."""

    def __init__(self) -> None:
        self.exact: dict[str, FileSnapshot] = {}
        self.seen_at: dict[str, int] = {}
        self.calls: dict[str, str] = {}
        """Open Read/Write/Edit/TodoWrite calls: tool_use id → tool name."""
        self.todos: list[dict[str, Any]] = []

    def feed(self, raw: bytes) -> None:
        try:
            entry = json.loads(raw)
        except (ValueError, RecursionError):
            return
        if type(entry) is not dict or entry.get("isSidechain") or entry.get("isCompactReplay"):
            return  # a sub-agent reads for itself; a replayed tail repeats what the boundary lists
        match entry.get("type"):
            case "system" if entry.get("subtype") == "compact_boundary":
                self._boundary(entry.get("readFiles"))
                todos = entry.get("todos")
                self.todos = [t for t in todos if isinstance(t, dict)] if isinstance(todos, list) else []
            case "assistant":
                for block in _blocks(entry):
                    if block.get("type") == "tool_use" and block.get("name") in (*FILE_TOOLS, TODO_TOOL):
                        self.calls[str(block.get("id"))] = str(block["name"])
            case "user":
                self._results(entry)

    def _boundary(self, listed: object) -> None:
        self.exact, self.seen_at, self.calls = {}, {}, {}
        for item in listed if isinstance(listed, list) else []:
            if isinstance(item, dict) and isinstance(item.get("path"), str):
                mtime, size = item.get("mtimeNs"), item.get("size")
                if type(mtime) is int and type(size) is int:
                    self.exact[item["path"]] = FileSnapshot(mtime, size)

    def _results(self, entry: Entry) -> None:
        when = _nanoseconds(entry.get("timestamp"))
        for block in _blocks(entry):
            if block.get("type") != "tool_result" or block.get("is_error"):
                continue
            name = self.calls.pop(str(block.get("tool_use_id")), None)
            structured = entry.get("toolUseResult")
            if name == TODO_TOOL and isinstance(structured, dict) and isinstance(structured.get("newTodos"), list):
                self.todos = [t for t in structured["newTodos"] if isinstance(t, dict)]
            if name not in FILE_TOOLS:
                continue
            shown = _file_path(structured)
            if shown is not None and when is not None:
                self.exact.pop(shown, None)
                self.seen_at.pop(shown, None)  # keep the order of last use
                self.seen_at[shown] = when

    def snapshots(self) -> dict[str, FileSnapshot]:
        """Boundary-listed files as listed; later ones by what the file is now if it was not modified after it was
        seen (the line's time, to the millisecond it names), else a snapshot the file does not match."""
        out = dict(self.exact)
        for shown, when in self.seen_at.items():
            try:
                info = os.stat(shown)
            except OSError:
                continue  # gone: Edit and Write say so themselves
            fresh = info.st_mtime_ns < when + _MS
            out[shown] = FileSnapshot(info.st_mtime_ns, info.st_size) if fresh else _UNKNOWN
        return out


def _blocks(entry: Entry) -> list[Entry]:
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return [block for block in content if isinstance(block, dict)] if isinstance(content, list) else []


def _file_path(structured: object) -> str | None:
    """The file a Read, Write or Edit result names (Read's under ``file``)."""
    if not isinstance(structured, dict):
        return None
    inner = structured.get("file")
    value = inner.get("filePath") if isinstance(inner, dict) else structured.get("filePath")
    return value if isinstance(value, str) else None


def _nanoseconds(stamp: object) -> int | None:
    if not isinstance(stamp, str):
        return None
    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    return int(moment.timestamp()) * 1_000_000_000 + moment.microsecond * 1_000
