"""Reach a folder without following a symlink anywhere on the way, so a file tool acts on exactly the path that
was checked.

A permission check judges a path with its symlinks resolved; by the time the file is written, a command may have
swapped one of its folders for a symlink to somewhere else. Walking the checked path from ``/`` one component at a
time with ``O_NOFOLLOW`` (and ``O_DIRECTORY``) makes such a swap fail the walk instead of redirecting it, and the
folder's descriptor, once held, keeps every later step (reading, the temporary file, the rename) in that folder.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

_SEARCH = getattr(os, "O_PATH", os.O_RDONLY)
"""Enough to walk through a folder (Linux needs only search permission for it, not read)."""
_FOLDER = os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
FOLDER_MODE = 0o777
"""New folders get what the umask allows, as ``mkdir`` gives."""


class Redirected(OSError):
    """A path that a symlink now leads elsewhere: the file operation was not done. ``str()`` names both ends."""

    def __init__(self, component: Path, points_to: str | None) -> None:
        what = f"is a symbolic link to {points_to}" if points_to is not None else "was swapped while it was opened"
        super().__init__(errno.ELOOP, f"{component} {what}")
        self.component = component
        self.points_to = points_to

    def __str__(self) -> str:
        return str(self.strerror)


def link_target(folder_fd: int, name: str) -> str | None:
    """Where the symlink ``name`` in the open folder points (None when it is not a symlink, or is gone)."""
    try:
        return os.readlink(name, dir_fd=folder_fd)
    except OSError:
        return None


def open_folder(folder: Path, *, create: bool = False) -> int:
    """A descriptor of ``folder`` (absolute, symlinks already resolved), reached without following any symlink;
    missing folders are made on the way when ``create``. Raises :class:`Redirected` when a component is a symlink,
    ``NotADirectoryError`` when it is a file, and the plain ``OSError`` otherwise. The caller closes it."""
    if not folder.is_absolute() or any(part in ("..", ".") for part in folder.parts):
        raise ValueError(f"{folder} is not an absolute, normalised path")
    names = folder.parts[1:]
    fd = os.open("/", (os.O_RDONLY if not names else _SEARCH) | _FOLDER)
    try:
        for depth, name in enumerate(names, 1):
            try:
                step = _step(fd, name, depth == len(names), create)
            except OSError as exc:
                if exc.errno not in (errno.ENOTDIR, errno.ELOOP):
                    raise
                raise _why_not_a_folder(fd, name, Path("/", *names[:depth]), exc) from None
            os.close(fd)
            fd = step
    except BaseException:
        os.close(fd)
        raise
    return fd


def _step(fd: int, name: str, last: bool, create: bool) -> int:
    """Open ``name`` in the folder ``fd`` (made first when missing and ``create``)."""
    try:
        return _open_in(fd, name, last)
    except FileNotFoundError:
        if not create:
            raise
    with contextlib.suppress(FileExistsError):  # made meanwhile by someone else: open what is there now
        os.mkdir(name, FOLDER_MODE, dir_fd=fd)
    return _open_in(fd, name, last)


def _open_in(fd: int, name: str, last: bool) -> int:
    """Read access for the last folder (it is synced after a rename), search access for the ones on the way."""
    if last:
        try:
            return os.open(name, os.O_RDONLY | _FOLDER, dir_fd=fd)
        except PermissionError:  # a write-only folder: usable, only not syncable
            pass
    return os.open(name, _SEARCH | _FOLDER, dir_fd=fd)


def _why_not_a_folder(fd: int, name: str, path: Path, error: OSError) -> OSError:
    try:
        info = os.stat(name, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return Redirected(path, None)  # not a folder a moment ago, gone now
    except OSError:
        return error
    if stat.S_ISLNK(info.st_mode):
        return Redirected(path, link_target(fd, name))
    if stat.S_ISDIR(info.st_mode):
        return Redirected(path, None)  # not a folder a moment ago, a folder again now
    return NotADirectoryError(errno.ENOTDIR, f"{path} is not a folder")
