"""Ending on a signal, the same way in every face: SIGTERM, SIGHUP (the terminal closed) and SIGINT stop the
running turn (its tools' process groups end, the interrupted turn is recorded as such), the transcript is closed,
and agentcli exits with the conventional status, 128 + the signal's number."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable

ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


def exit_status(signum: int) -> int:
    """What a shell expects from a program that a signal ended: 128 + its number (143 for SIGTERM)."""
    return 128 + signum


def silence_output() -> None:
    """Point stdout and stderr at /dev/null: after SIGHUP the terminal is gone, and writing to it would fail."""
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        for fd in (1, 2):
            with contextlib.suppress(OSError):
                os.dup2(devnull, fd)
        os.close(devnull)


def install(on_signal: Callable[[int], None], signals: tuple[int, ...] = ENDING_SIGNALS) -> Callable[[], None]:
    """Call ``on_signal(signum)`` on the running loop for each of ``signals``; returns what removes the handlers.

    A SIGHUP silences the output before ``on_signal`` runs.
    """
    loop = asyncio.get_running_loop()

    def handler(signum: int) -> None:
        if signum == signal.SIGHUP:
            silence_output()
        on_signal(signum)

    for signum in signals:
        loop.add_signal_handler(signum, handler, signum)

    def remove() -> None:
        for signum in signals:
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(signum)

    return remove
