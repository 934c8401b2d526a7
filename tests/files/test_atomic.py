"""atomic_write: the old file or the new one, never a mix; mode, owner and symlinks kept; failures say why."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from agentcli.files import atomic
from agentcli.files.atomic import AtomicWriteError, atomic_write
from tests.files.disk import fill


def _leftovers(folder: Path) -> list[str]:
    return [name for name in os.listdir(folder) if name.endswith(".tmp")]


def test_replaces_contents_and_keeps_the_mode(tmp_path: Path):
    target = tmp_path / "script.sh"
    target.write_bytes(b"old\n")
    target.chmod(0o751)
    assert atomic_write(target, b"new\n") == target
    assert target.read_bytes() == b"new\n"
    assert target.stat().st_mode & 0o7777 == 0o751
    assert _leftovers(tmp_path) == []


def test_a_new_file_follows_the_umask_or_is_private(tmp_path: Path):
    old = os.umask(0o022)
    try:
        atomic_write(tmp_path / "public.txt", b"x")
        atomic_write(tmp_path / "secret.json", b"{}", private=True)
    finally:
        os.umask(old)
    assert (tmp_path / "public.txt").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "secret.json").stat().st_mode & 0o777 == 0o600


def test_writes_through_a_symlink_to_its_target(tmp_path: Path):
    real = tmp_path / "real.txt"
    real.write_bytes(b"before")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    assert atomic_write(link, b"after") == real
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_bytes() == b"after"


def test_keeps_the_owner(tmp_path: Path):
    target = tmp_path / "owned.txt"
    target.write_bytes(b"a")
    owner = (12345, 23456) if os.geteuid() == 0 else (os.geteuid(), os.getegid())  # only root gives files away
    os.chown(target, *owner)
    atomic_write(target, b"b")
    assert (target.stat().st_uid, target.stat().st_gid) == owner


def test_a_failed_write_leaves_the_original_and_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    target = tmp_path / "big.txt"
    original = b"".join(b"line %d\n" % n for n in range(2000))
    target.write_bytes(original)
    written: list[int] = []
    real_write = os.write

    def write_until_full(fd: int, data: bytes | memoryview) -> int:
        if written:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        written.append(1)
        return real_write(fd, bytes(data)[:100])  # a short write first, then the disk fills up

    monkeypatch.setattr(atomic.os, "write", write_until_full)
    with pytest.raises(AtomicWriteError) as caught:
        atomic_write(target, b"x" * 10_000)
    assert caught.value.reason == "the disk is full"
    assert str(caught.value) == f"could not write {target}: the disk is full; the file was left as it was"
    assert target.read_bytes() == original
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        (errno.EROFS, "the file system is read-only"),
        (errno.EACCES, "permission denied"),
        (errno.EDQUOT, "the disk quota is used up"),
    ],
)
def test_each_failure_has_a_plain_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, reason: str):
    target = tmp_path / "f.txt"
    target.write_bytes(b"keep")

    def refuse(*_args: object, **_kwargs: object) -> int:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(atomic.os, "fsync", refuse)
    with pytest.raises(AtomicWriteError) as caught:
        atomic_write(target, b"lost")
    assert caught.value.reason == reason
    assert target.read_bytes() == b"keep" and _leftovers(tmp_path) == []


def test_refuses_to_replace_something_that_is_not_a_file(tmp_path: Path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(AtomicWriteError, match="not a regular file"):
        atomic_write(fifo, b"x")


# -- a real full disk: a small tmpfs (see tests/files/disk.py) --------------------------------------------------


def test_a_full_disk_leaves_the_original_whole(small_disk: Path):
    target = small_disk / "src.py"
    original = b"".join(b"print(%d)\n" % n for n in range(2000))
    target.write_bytes(original)
    fill(small_disk)
    with pytest.raises(AtomicWriteError) as caught:
        atomic_write(target, original + b"print('one more line')\n" * 100)
    assert caught.value.reason == "the disk is full"
    assert target.read_bytes() == original
    assert _leftovers(small_disk) == []
