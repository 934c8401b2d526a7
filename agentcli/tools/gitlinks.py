"""Embedded repositories a sandboxed command registered: what the protected paths cannot stop, said out loud.

A command may make ``sub/.git`` (a folder of its own, with a ``config`` it wrote) and add ``sub`` to the index as
a submodule: git then runs ``git status`` inside ``sub`` whenever the user runs it in the project, reading that
config (``core.fsmonitor`` is a program). The index must stay writable for ``git add`` to work, and no mount can
keep a folder named ``.git`` from being made, so this is found afterwards: when the index changed during the
command, its gitlinks are read (the index file itself, no git process: git would run the planted config) and
each one the command added whose folder has a ``.git`` is named in the result. The index is read again only when
it changed, so a command that leaves it alone costs two ``stat`` calls.
"""

from __future__ import annotations

import contextlib
import functools
import os
import struct
from dataclasses import dataclass

MAX_INDEX_BYTES = 64 * 1024 * 1024
_GITLINK = 0o160000
_ENTRY_FIXED = 40  # ctime, mtime (8 each), dev, ino, mode, uid, gid, size (4 each)


@dataclass(frozen=True, slots=True)
class IndexMark:
    """The index as it was when a command started: its ``stat`` and its gitlinks."""

    git_dir: str | None
    stat: tuple[int, int, int, int] | None
    links: frozenset[str]


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


def _index_stat(git_dir: str | None) -> tuple[int, int, int, int] | None:
    """Identity, size and times (ctime too: a command may set the mtime back, never the ctime)."""
    if git_dir is None:
        return None
    try:
        info = os.stat(os.path.join(git_dir, "index"))
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def mark(project: str) -> IndexMark:
    git_dir = git_dir_of(project)
    stat = _index_stat(git_dir)
    links = _links(os.path.join(git_dir, "index"), stat) if git_dir is not None and stat is not None else frozenset()
    return IndexMark(git_dir, stat, links)


@functools.lru_cache(maxsize=8)
def _links(index_path: str, stat: tuple[int, int, int, int]) -> frozenset[str]:
    """The gitlinks of the index as it is at ``stat`` (read once per change of the file)."""
    return frozenset(gitlinks(index_path))


def planted(project: str, before: IndexMark) -> list[str]:
    """Submodules the index gained since ``before`` whose folder holds a ``.git`` (a folder, or a file naming
    one): a repository git will look into."""
    if before.git_dir is None:
        return []
    stat = _index_stat(before.git_dir)
    if stat is None or stat == before.stat:
        return []
    added = _links(os.path.join(before.git_dir, "index"), stat) - before.links
    return sorted(path for path in added if os.path.lexists(os.path.join(project, path, ".git")))


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
