"""Embedded repositories a sandboxed command registered: what the protected paths cannot stop, said out loud.

A command may make ``sub/.git`` (a folder of its own, with a ``config`` it wrote) and add ``sub`` to the index as
a submodule: git then runs ``git status`` inside ``sub`` whenever the user runs it in the project, reading that
config (``core.fsmonitor`` is a program). The index must stay writable for ``git add`` to work, and no mount can
keep a folder named ``.git`` from being made, so this is found afterwards: when the index changed during the
command, its gitlinks are read (the index file itself, no git process: git would run the planted config) and
each whose ``.git`` folder changed since the command started is named in the result.
"""

from __future__ import annotations

import contextlib
import os
import struct
import time
from dataclasses import dataclass

MAX_INDEX_BYTES = 64 * 1024 * 1024
_GITLINK = 0o160000
_ENTRY_FIXED = 40  # ctime, mtime (8 each), dev, ino, mode, uid, gid, size (4 each)


@dataclass(frozen=True, slots=True)
class IndexMark:
    """The index as it was when a command started, and when that was."""

    git_dir: str | None
    stat: tuple[int, int, int] | None
    started_ns: int


def git_dir_of(project: str) -> str | None:
    """The project's git folder: ``.git``, or the folder a ``.git`` file names."""
    dot_git = os.path.join(project, ".git")
    if os.path.isdir(dot_git):
        return os.path.realpath(dot_git)
    with contextlib.suppress(OSError), open(dot_git, "rb") as handle:
        first = handle.read(4096).split(b"\n", 1)[0].decode(errors="replace").strip()
        if first.startswith("gitdir:"):
            return os.path.realpath(os.path.join(project, first.removeprefix("gitdir:").strip()))
    return None


def _index_stat(git_dir: str | None) -> tuple[int, int, int] | None:
    if git_dir is None:
        return None
    try:
        info = os.stat(os.path.join(git_dir, "index"))
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns)


def mark(project: str) -> IndexMark:
    git_dir = git_dir_of(project)
    return IndexMark(git_dir, _index_stat(git_dir), _now_ns())


def _now_ns() -> int:
    """A little before now: file times come from a coarse clock that may lag the precise one by a tick."""
    return time.time_ns() - 50_000_000


def planted(project: str, before: IndexMark) -> list[str]:
    """Submodules the index gained whose own ``.git`` folder was made or changed since ``before``."""
    if before.git_dir is None or _index_stat(before.git_dir) in (None, before.stat):
        return []
    found = []
    for path in gitlinks(os.path.join(before.git_dir, "index")):
        inner = os.path.join(project, path, ".git")
        with contextlib.suppress(OSError):
            info = os.lstat(inner)
            config = os.path.join(inner, "config")
            changed = max(info.st_mtime_ns, info.st_ctime_ns, _mtime(config))
            if os.path.isdir(inner) and changed >= before.started_ns:
                found.append(path)
    return found


def _mtime(path: str) -> int:
    try:
        info = os.lstat(path)
    except OSError:
        return 0
    return max(info.st_mtime_ns, info.st_ctime_ns)


def gitlinks(index_path: str) -> list[str]:
    """The paths of the index's gitlink entries (versions 2 to 4; SHA-1 or SHA-256 ids), [] if unreadable."""
    try:
        if os.path.getsize(index_path) > MAX_INDEX_BYTES:
            return []
        with open(index_path, "rb") as handle:
            data = handle.read()
    except OSError:
        return []
    if len(data) < 12 or data[:4] != b"DIRC":
        return []
    version, count = struct.unpack_from(">II", data, 4)
    if version not in (2, 3, 4):
        return []
    for oid_size in (20, 32):
        with contextlib.suppress(ValueError, struct.error, IndexError):
            return _entries(data, version, count, oid_size)
    return []


def _entries(data: bytes, version: int, count: int, oid_size: int) -> list[str]:
    """Walk ``count`` entries; raises ValueError where the layout does not fit (the wrong id size)."""
    found = []
    offset, previous = 12, b""
    for _ in range(count):
        start = offset
        mode = struct.unpack_from(">I", data, offset + 24)[0]
        offset += _ENTRY_FIXED + oid_size
        flags = struct.unpack_from(">H", data, offset)[0]
        offset += 2
        if version >= 3 and flags & 0x4000:
            offset += 2
        if version == 4:
            strip, offset = _varint(data, offset)
            end = data.index(b"\0", offset)
            if strip > len(previous):
                raise ValueError("bad prefix")
            name = previous[: len(previous) - strip] + data[offset:end]
            offset = end + 1
        else:
            end = data.index(b"\0", offset)
            name = data[offset:end]
            offset = start + ((end - start + 8) & ~7)
            if any(data[end:offset]):
                raise ValueError("bad padding")
        if mode & 0o170000 not in (0o100000, 0o120000, _GITLINK):
            raise ValueError("bad mode")
        if mode & 0o170000 == _GITLINK:
            found.append(name.decode(errors="replace"))
        previous = name
    return found


def _varint(data: bytes, offset: int) -> tuple[int, int]:
    """git's offset varint (each continuation adds one before shifting)."""
    byte = data[offset]
    offset += 1
    value = byte & 0x7F
    while byte & 0x80:
        byte = data[offset]
        offset += 1
        value = ((value + 1) << 7) | (byte & 0x7F)
    return value, offset
