"""The file at exactly one path: its folder is opened once without following symlinks and held, so checking the
file, reading it and replacing it all act on that folder — a folder or the file itself swapped for a symlink meanwhile
makes the step fail (:class:`Redirected`) instead of reaching where the link points."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path
from types import TracebackType

from agentcli.files.atomic import replace_in
from agentcli.files.nofollow import Redirected, link_target, open_folder

_READ_CHUNK = 1 << 20


class AnchoredFile:
    """``path`` (absolute, symlinks resolved: what a permission check judged). Use it as a context manager; a
    missing folder is fine until :meth:`replace` makes it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._folder: int | None = None
        with contextlib.suppress(FileNotFoundError):
            self._folder = open_folder(path.parent)

    def __enter__(self) -> AnchoredFile:
        return self

    def __exit__(self, *_exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        if self._folder is not None:
            os.close(self._folder)
            self._folder = None

    def lstat(self) -> os.stat_result | None:
        """The file's own status (a symlink is reported as one), or None when there is nothing there."""
        if self._folder is None:
            return None
        if not self.path.name:  # the root folder
            return os.fstat(self._folder)
        try:
            return os.stat(self.path.name, dir_fd=self._folder, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def points_to(self) -> str | None:
        """Where the symlink in the file's place points (None when there is none)."""
        return link_target(self._folder, self.path.name) if self._folder is not None else None

    def read_bytes(self) -> bytes:
        """The file's bytes; a symlink in its place raises :class:`Redirected`, anything but a regular file
        ``OSError``."""
        if self._folder is None:
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(self.path))
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # a FIFO must not block the open
        try:
            fd = os.open(self.path.name, flags, dir_fd=self._folder)
        except OSError as exc:
            target = self.points_to() if exc.errno == errno.ELOOP else None
            if target is not None:
                raise Redirected(self.path, target) from None
            raise
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError(errno.EINVAL, "it is not a regular file")
            chunks = []
            while chunk := os.read(fd, _READ_CHUNK):
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            os.close(fd)

    def replace(self, data: bytes, *, create_folders: bool = False) -> None:
        """Replace the file's contents atomically (mode and owner kept); missing folders are made when
        ``create_folders``. Raises :class:`~agentcli.files.atomic.AtomicWriteError`, :class:`Redirected`, or the
        ``OSError`` of a folder that could not be made."""
        if self._folder is None:
            if not create_folders:
                raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(self.path.parent))
            self._folder = open_folder(self.path.parent, create=True)
        replace_in(self._folder, self.path, data)

    def unlink(self) -> None:
        """Remove the file (a symlink in its place is removed itself, never what it points at)."""
        if self._folder is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path.name, dir_fd=self._folder)
