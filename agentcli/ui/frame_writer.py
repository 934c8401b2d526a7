"""stdout written on a thread of its own. A program reading agentcli's output that stops reading fills the pipe;
a write on the event loop would then block the loop for good, signals included.

The loop hands complete frames to a queue bounded by bytes, and a thread writes them in order straight to the
file descriptor (no Python buffer whose lock a blocked write would hold). A producer that outruns the reader
waits for room asynchronously, so memory stays flat; at exit what is left gets an overall deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import Any, TextIO

QUEUE_LIMIT_BYTES = 2 * 1024 * 1024
"""How much output may wait for a slow reader before the producer waits too."""
BATCH_BYTES = 256 * 1024
"""Queued frames written with one system call, up to this much (a longer frame goes alone)."""
DRAIN_DEADLINE_S = 5.0
"""How long the output left at exit may take to reach the reader: one that takes nothing for that long is gone."""


class FrameWriter:
    """Writes whole frames (text ending in a newline) to ``out``'s file descriptor, in order, from a thread."""

    def __init__(self, out: TextIO, limit: int = QUEUE_LIMIT_BYTES) -> None:
        out.flush()  # whatever was printed before goes first
        self._fd = out.fileno()
        self._encoding = out.encoding
        self._errors = out.errors or "strict"
        self._limit = limit
        self._frames: deque[bytes] = deque()
        self._queued = 0
        """Bytes not written yet: those in ``_frames`` and the batch being written."""
        self._lock = threading.Condition()
        self._idle = False
        self._closing = False
        self._released = False
        self._failure: OSError | None = None
        self._waiters: list[asyncio.Future[None]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    @property
    def queued(self) -> int:
        return self._queued

    @property
    def waiting(self) -> bool:
        """Whether a producer is waiting for room (or the drain for the reader)."""
        return bool(self._waiters)

    def write(self, text: str) -> None:
        """Queue one frame; never blocks. Raises what the last write met (``BrokenPipeError``: the reader left)."""
        data = text.encode(self._encoding, self._errors)
        with self._lock:
            self._raise_failure()
            self._frames.append(data)
            self._queued += len(data)
            if self._idle:
                self._lock.notify()
        if self._thread is None:
            self._thread = threading.Thread(target=self._pump, name="agentcli-stdout", daemon=True)
            self._thread.start()

    async def room(self) -> None:
        """Return once the queue is below its limit: at once when it is, so a reader that keeps up costs nothing."""
        while True:
            with self._lock:
                self._raise_failure()
                if self._queued < self._limit or self._released:
                    return
                waiter = self._wait_locked()
            await self._settled(waiter)

    def release(self) -> None:
        """Ending on a signal: producers stop waiting for room, so the last frames are made and the drain starts."""
        self._released = True
        self._settle()

    async def finish(self, timeout: float = DRAIN_DEADLINE_S) -> int:
        """Wait until every queued frame is written, for ``timeout`` seconds at most; returns how many bytes were
        left unwritten (0 when all went). Raises what a write met, as :meth:`write` does."""
        deadline = time.monotonic() + timeout
        try:
            while True:
                with self._lock:
                    self._raise_failure()
                    remaining = deadline - time.monotonic()
                    if not self._queued or remaining <= 0:
                        return self._queued
                    waiter = self._wait_locked()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(remaining):
                        await self._settled(waiter)
        finally:
            with self._lock:
                self._closing = True
                self._frames.clear()
                self._lock.notify()

    # -- the loop's side -------------------------------------------------------------------------------------

    def _wait_locked(self) -> asyncio.Future[None]:
        """A future the writer thread settles when it made progress (called with the lock held)."""
        self._loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = self._loop.create_future()
        self._waiters.append(waiter)
        return waiter

    async def _settled(self, waiter: asyncio.Future[None]) -> None:
        try:
            await waiter
        finally:
            with self._lock, contextlib.suppress(ValueError):
                self._waiters.remove(waiter)

    def _settle(self) -> None:
        with self._lock:
            waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    def _raise_failure(self) -> None:
        if self._failure is not None:
            raise OSError(self._failure.errno, self._failure.strerror)

    # -- the thread's side -----------------------------------------------------------------------------------

    def _pump(self) -> None:
        while (batch := self._next_batch()) is not None:
            try:
                _write_all(self._fd, b"".join(batch))
            except OSError as exc:
                with self._lock:
                    self._failure = exc
                    self._frames.clear()
                    self._queued = 0
                self._wake_loop()
                return
            with self._lock:
                self._queued -= sum(map(len, batch))
            self._wake_loop()

    def _next_batch(self) -> list[bytes] | None:
        """The next frames to write, whole, up to :data:`BATCH_BYTES`; None once the writer is closing."""
        with self._lock:
            while not self._frames and not self._closing:
                self._idle = True
                self._lock.wait()
                self._idle = False
            if self._closing:
                return None
            batch = [self._frames.popleft()]
            size = len(batch[0])
            while self._frames and size + len(self._frames[0]) <= BATCH_BYTES:
                size += len(self._frames[0])
                batch.append(self._frames.popleft())
            return batch

    def _wake_loop(self) -> None:
        with self._lock:
            loop = self._loop if self._waiters else None
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits any more
                loop.call_soon_threadsafe(self._settle)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def undelivered_note(dropped: int, timeout: float = DRAIN_DEADLINE_S) -> str:
    """What the user is told when the reader left output unread at exit."""
    return (
        f"the program reading agentcli's output took nothing for {timeout:g} s at exit; the last {dropped:,} bytes "
        "were not delivered"
    )


async def paced(
    source: AsyncIterator[dict[str, Any]], room: Callable[[], Awaitable[None]]
) -> AsyncGenerator[dict[str, Any], None]:
    """``source``'s messages, the next one asked for only once the output has ``room``.

    The engine is interrupted by cancelling its task, and expects that where it awaits. An interrupt that comes
    while the output waits for room is handed to ``source`` at the point it yielded, so the turn ends there the same
    way (its interrupted result, then the next prompt). ``source`` (an async generator, as the engine's are) is
    closed when this ends.
    """
    if not isinstance(source, AsyncGenerator):
        raise TypeError(f"paced() needs an async generator, not {type(source).__name__}")
    try:
        message = await anext(source)
        while True:
            yield message
            try:
                await room()
            except asyncio.CancelledError:
                message = await source.athrow(asyncio.CancelledError())
                continue
            message = await anext(source)
    except StopAsyncIteration:
        return
    finally:
        await source.aclose()
