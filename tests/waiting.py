"""Waiting for a condition, never for a fixed time: the one home of the tests' polling loops.

A test that sleeps a fixed time and then looks passes on an idle machine and fails on a busy one. These helpers
look every few milliseconds until the condition holds, and give up only after a deadline generous enough for a
loaded two-core machine, with a message that says what never happened.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

DEADLINE_S = 120.0
"""How long a condition, or a short process, may take on a busy machine before the test fails (a load average of
15 on two cores makes one agentcli start take tens of seconds)."""

POLL_S = 0.01


def wait_until(condition: Callable[[], T], what: str, timeout: float = DEADLINE_S) -> T:
    """``condition()``'s first true value; AssertionError naming ``what`` once ``timeout`` seconds have passed."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(POLL_S)
    return value


async def until(
    condition: Callable[[], T], what: str, *, task: asyncio.Task[Any] | None = None, timeout: float = DEADLINE_S
) -> T:
    """:func:`wait_until` inside an event loop (other tasks run meanwhile); fails at once if ``task`` ends first."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if task is not None and task.done():
            raise AssertionError(f"the run ended before {what}: {task.result()!r}")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        await asyncio.sleep(POLL_S)
    return value
