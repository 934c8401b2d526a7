"""A host that stops reading agentcli's stdout: the pipe it never reads, and how full that pipe is."""

from __future__ import annotations

import fcntl
import json
import os
import struct
import termios
from typing import IO, Any

from tests.waiting import wait_until

LONG_ANSWER = {"content": [{"type": "text", "text": "All work and no play. " * 60_000, "chunks": 3_000}]}
"""About 1.3 MB of text in 3,000 deltas: far more than a pipe holds (64 KB)."""


def pipe_bytes(pipe: IO[bytes]) -> int:
    """How many bytes sit in ``pipe`` unread (FIONREAD on its read end)."""
    raw = fcntl.ioctl(pipe.fileno(), termios.FIONREAD, struct.pack("i", 0))
    return int(struct.unpack("i", raw)[0])


def wait_until_full(pipe: IO[bytes]) -> None:
    """Wait until the pipe holds nearly all it can: from then on every write to it blocks."""
    capacity = fcntl.fcntl(pipe.fileno(), fcntl.F_GETPIPE_SZ)
    wait_until(lambda: pipe_bytes(pipe) >= capacity - 4096, f"the unread stdout pipe to fill ({capacity:,} bytes)")


def frames_in_order(pipe: IO[bytes]) -> list[dict[str, Any]]:
    """Everything the process had written, read after it ended: whole JSON lines, each once and in the order the
    engine made them (its uuids count up), then at most the start of one more."""
    os.set_blocking(pipe.fileno(), False)
    data = pipe.read() or b""
    *lines, tail = data.split(b"\n")
    frames = [json.loads(line) for line in lines]
    counters = [int(frame["uuid"][-12:], 16) for frame in frames]
    assert counters == sorted(set(counters)), "frames were reordered or repeated"
    assert b"\n" not in tail
    return frames
