"""Files a command could have replaced: a FIFO is refused rather than waited on, a symlink is not followed, a
hard link to another file is not touched, and a read takes at most its bound."""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentcli.tools.untrusted_files import create_private, read_own_file
from tests.waiting import DEADLINE_S


def _returns(call: Callable[[], Any]) -> Any:
    """``call()``'s result or exception, in a thread, so that a call that blocks fails the test instead of
    hanging it."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(call())
        except OSError as exc:
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(DEADLINE_S)
    assert outcome, "the call blocked"
    return outcome[0]


def test_a_regular_file_is_read_up_to_the_bound(tmp_path: Path):
    path = tmp_path / "cwd"
    path.write_text("/some/folder\n" + "x" * 10_000)
    assert read_own_file(path, 13) == "/some/folder\n"


@pytest.mark.parametrize("kind", ["fifo", "symlink", "hard link", "directory"])
def test_anything_but_a_regular_file_of_ours_is_refused(kind: str, tmp_path: Path):
    path, other = tmp_path / "cwd", tmp_path / "other"
    other.write_text("not for you\n")
    match kind:
        case "fifo":
            os.mkfifo(path)
        case "symlink":
            path.symlink_to(other)
        case "hard link":
            os.link(other, path)
        case "directory":
            path.mkdir()
    assert isinstance(_returns(lambda: read_own_file(path, 100)), OSError)


@pytest.mark.parametrize("kind", ["fifo", "symlink", "hard link", "stale file"])
def test_a_new_private_file_replaces_what_was_planted(kind: str, tmp_path: Path):
    path, other = tmp_path / "spill.log", tmp_path / "precious"
    other.write_text("keep me\n")
    match kind:
        case "fifo":
            os.mkfifo(path)
        case "symlink":
            path.symlink_to(other)
        case "hard link":
            os.link(other, path)
        case "stale file":
            path.write_text("old output\n")
    handle = _returns(lambda: create_private(path))
    with handle:
        handle.write("new output\n")
    info = path.lstat()
    assert stat.S_ISREG(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o600 and info.st_nlink == 1
    assert path.read_text() == "new output\n" and other.read_text() == "keep me\n"


def test_a_directory_in_the_way_is_an_error(tmp_path: Path):
    (tmp_path / "spill.log").mkdir()
    with pytest.raises(OSError):
        create_private(tmp_path / "spill.log")
