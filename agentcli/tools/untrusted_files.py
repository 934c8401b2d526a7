"""Opening files a command could have replaced, without ever waiting on one.

A command can swap a file agentcli will open (its shell's cwd file, a spill file in a folder it can write) for a
FIFO, a device or a symlink. Opened plainly, a FIFO blocks agentcli's event loop until someone writes to it
(for ever), a device can stream without end, and a symlink sends a write somewhere else. So these files are opened
with no-follow and non-blocking semantics, checked to be regular files of ours before a byte moves, and read with
a size bound; a spill file is always one agentcli has just created itself.
"""

from __future__ import annotations

import contextlib
import os
import stat
from typing import IO

_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class NotOurFile(OSError):
    """The path is not a regular file owned by this user (a FIFO, a device, a directory, a symlink, a hard link
    to somewhere else, or someone else's)."""


def _check_ours(fd: int, path: str | os.PathLike[str]) -> None:
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_nlink != 1:
        raise NotOurFile(f"{os.fspath(path)} is not a regular file of this user")


def read_own_file(path: str | os.PathLike[str], limit: int) -> str:
    """At most ``limit`` bytes of the regular file ``path`` (decoded, bad bytes replaced); :class:`OSError` for
    anything else, at once: a FIFO or a device is refused, not waited on, and a symlink is not followed."""
    fd = os.open(path, _READ_FLAGS)
    try:
        _check_ours(fd, path)
        data = os.read(fd, limit)
    finally:
        os.close(fd)
    return data.decode("utf-8", errors="replace")


def create_private(path: str | os.PathLike[str]) -> IO[str]:
    """A new file at ``path`` for writing, readable by the user alone; whatever was planted there first (a FIFO,
    a symlink, a hard link to another file) is removed, never opened. :class:`OSError` when that fails."""
    try:
        fd = os.open(path, _CREATE_FLAGS, 0o600)
    except FileExistsError:
        os.unlink(path)  # a directory stays, and the open below then fails
        fd = os.open(path, _CREATE_FLAGS, 0o600)
    try:
        _check_ours(fd, path)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "w", encoding="utf-8", errors="replace")
    except BaseException:
        with contextlib.suppress(OSError):
            os.close(fd)
        raise
