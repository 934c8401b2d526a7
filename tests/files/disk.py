"""A small file system that really fills up: a 256 KiB tmpfs where mounting is allowed (root, as in CI), else a
folder whose writes fail with ENOSPC past 256 KiB (os.write patched), so full-disk tests run everywhere."""

from __future__ import annotations

import errno
import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest


def _can_mount() -> bool:
    if os.geteuid() != 0:
        return False
    probe = Path(f"/tmp/agentcli-mount-probe-{uuid.uuid4().hex}")
    probe.mkdir()
    try:
        ok = (
            subprocess.run(
                ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(probe)], capture_output=True
            ).returncode
            == 0
        )
        if ok:
            subprocess.run(["umount", str(probe)], check=True)
        return ok
    except FileNotFoundError:
        return False
    finally:
        probe.rmdir()


CAN_MOUNT = _can_mount()


def small_disk_at(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The small disk's mount point, for the ``small_disk`` fixture."""
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    if not CAN_MOUNT:
        _simulate_full_disk(mount_point, monkeypatch)
        yield mount_point
        return
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount_point)], check=True)
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=True)


def _simulate_full_disk(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_write = os.write
    used = [0]

    def write(fd: int, data: bytes | memoryview) -> int:
        if not os.readlink(f"/proc/self/fd/{fd}").startswith(str(folder)):
            return real_write(fd, data)
        room = 256 * 1024 - used[0]
        if room <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        done = real_write(fd, bytes(data)[:room])
        used[0] += done
        return done

    monkeypatch.setattr(os, "write", write)


def fill(folder: Path) -> None:
    """Take every free block of the file system holding ``folder``."""
    fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError as exc:
        assert exc.errno == errno.ENOSPC
    finally:
        os.close(fd)
