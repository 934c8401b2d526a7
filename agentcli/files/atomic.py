"""Replace a file's contents all at once, so a crash, a full disk or a kill leaves the old file or the new one,
never an empty or half-written one.

The new bytes go to a temporary file in the same folder (same file system, so the rename is atomic), are synced
to disk, given the old file's mode and owner, and renamed over the target, all relative to one open descriptor of
the folder; a symlink is written through to the file it points at, so the link stays a link. On failure the
temporary file is removed and the original is left as it was; the error says why in words a user acts on (disk
full, read-only, permission).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

from agentcli.files.nofollow import Redirected, link_target

PRIVATE_MODE = 0o600
_REASONS = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EFBIG: "the file is too large for this file system",
    errno.EIO: "an input/output error",
}


class AtomicWriteError(OSError):
    """A write that did not happen; the original file (if any) is untouched. ``str()`` names the file and why."""

    def __init__(self, path: Path, cause: OSError) -> None:
        super().__init__(cause.errno, cause.strerror)
        self.path = path
        self.reason = reason_of(cause)

    def __str__(self) -> str:
        return f"could not write {self.path}: {self.reason}; the file was left as it was"


def reason_of(error: OSError) -> str:
    """A short, plain reason for ``error``."""
    if error.errno in _REASONS:
        return _REASONS[error.errno]
    return error.strerror or str(error)


def write_target(path: Path) -> Path:
    """Where a write to ``path`` lands: the file at the end of its symlinks (a dangling link's target too)."""
    if not path.is_symlink():
        return path
    return Path(os.path.realpath(path))


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write(path: Path, data: bytes, *, mode: int | None = None, private: bool = False) -> Path:
    """Replace ``path``'s contents with ``data``; returns the file actually written (a symlink's target).

    An existing file keeps its permission bits and owner; a new one gets ``mode``, else 0600 when ``private``,
    else what the umask allows. Raises :class:`AtomicWriteError` with the original untouched.
    """
    target = write_target(Path(path))
    try:
        folder = os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise AtomicWriteError(target, exc) from None
    try:
        replace_in(folder, target, data, mode=mode, private=private)
    finally:
        os.close(folder)
    return target


def replace_in(folder: int, target: Path, data: bytes, *, mode: int | None = None, private: bool = False) -> None:
    """:func:`atomic_write` of the file ``target.name`` in the open folder ``folder`` (``target`` names it in
    messages). The temporary file, its sync and the rename all happen in that one folder, so a folder swapped on
    the way cannot send them elsewhere; a symlink in the file's place is refused (:class:`Redirected`), not
    followed and not replaced."""
    name = target.name
    try:
        old = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        old = None
    except OSError as exc:
        raise AtomicWriteError(target, exc) from None
    if old is not None and stat.S_ISLNK(old.st_mode):
        raise Redirected(target, link_target(folder, name))
    if old is not None and not stat.S_ISREG(old.st_mode):
        raise AtomicWriteError(target, OSError(errno.EINVAL, "it is not a regular file"))
    if old is not None:
        new_mode = stat.S_IMODE(old.st_mode)
    elif mode is not None:
        new_mode = mode
    else:
        new_mode = PRIVATE_MODE if private else 0o666 & ~_umask()
    temp = f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(temp, flags, PRIVATE_MODE, dir_fd=folder)
    except OSError as exc:
        raise AtomicWriteError(target, exc) from None
    try:
        _fill(fd, data, old, new_mode)
        os.rename(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=folder)
        raise AtomicWriteError(target, exc) from None
    with contextlib.suppress(OSError):  # a power cut keeps the rename (best effort: some file systems refuse)
        os.fsync(folder)


def _fill(fd: int, data: bytes, old: os.stat_result | None, new_mode: int) -> None:
    """Write ``data`` to the new file, give it the old file's owner and the mode, sync it, close it."""
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if old is not None and os.geteuid() in (0, old.st_uid):
            with contextlib.suppress(OSError):
                os.fchown(fd, old.st_uid, old.st_gid)
        os.fchmod(fd, new_mode)
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_text(path: Path, text: str, *, private: bool = False) -> Path:
    """:func:`atomic_write` of ``text`` as UTF-8 (agentcli's own files: settings, exports, state);
    a lone surrogate becomes ``?`` rather than failing the write."""
    return atomic_write(path, text.encode("utf-8", errors="replace"), private=private)


def sync_folder(folder: Path) -> None:
    """Make a rename or a new file in ``folder`` survive a power cut (best effort: some file systems refuse)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
