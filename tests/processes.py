"""A test's own processes, found by a marker in their command line (other tests run the same commands meanwhile)."""

from __future__ import annotations

import os
import time


def sleep_seconds(seconds: int) -> str:
    """A ``sleep`` argument of about ``seconds`` that no other test uses: its fraction is this test's own marker."""
    return f"{seconds}.{os.getpid()}{time.monotonic_ns() % 1_000_000}"


def running_with(marker: str) -> list[str]:
    """The pids of every process whose command line contains ``marker``."""
    found = []
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/cmdline", "rb") as handle:
                if marker.encode() in handle.read():
                    found.append(name)
        except OSError:
            continue
    return found
