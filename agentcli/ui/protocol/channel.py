"""Both pipes of the protocol: stdin read on a thread (it may be a pipe, a file or a socket), stdout written one
JSON line at a time by a thread (see :mod:`agentcli.ui.frame_writer`), and the control requests agentcli sends to
the driving program, matched to their answers."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, BinaryIO, TextIO

from agentcli.ui.frame_writer import FrameWriter
from agentcli.ui.protocol.frames import ControlReply, Message, control_cancel, control_request


class HostError(Exception):
    """The driving program answered a control request with an error, or can no longer answer at all."""


def dumps(message: Message) -> str:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


class Channel:
    def __init__(self, out: TextIO) -> None:
        self.writer = FrameWriter(out)
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._ids = itertools.count(1)
        self.closed = False
        """Set once stdin has ended: nothing sent from then on can be answered."""

    def send(self, message: Message) -> None:
        """Queue one line; never blocks (what a turn sends is paced by :meth:`FrameWriter.room`)."""
        self.writer.write(dumps(message) + "\n")

    async def put(self, message: Message) -> None:
        """Send once the output has room: for what the driving program asks for, so asking without reading
        cannot pile answers up."""
        await self.writer.room()
        self.send(message)

    async def request(self, body: Message) -> dict[str, Any]:
        """Ask the driving program and wait for its answer; cancelling the wait cancels the request on its side."""
        if self.closed:
            raise HostError("the driving program closed stdin, so it cannot answer")
        request_id = f"agentcli_{next(self._ids)}"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            self.send(control_request(request_id, body))
            return await future
        except asyncio.CancelledError:
            if not self.closed:
                self.send(control_cancel(request_id))
            raise
        finally:
            self._pending.pop(request_id, None)

    def resolve(self, reply: ControlReply) -> bool:
        """Hand an answer to the request waiting for it; False when none is (answered late, or twice)."""
        future = self._pending.get(reply.request_id)
        if future is None or future.done():
            return False
        if reply.subtype == "error":
            future.set_exception(HostError(reply.error or "the driving program reported an error"))
        else:
            future.set_result(reply.response or {})
        return True

    def fail(self, request_id: str, why: str) -> bool:
        """The answer to a request came but could not be read: the request fails with ``why`` instead of waiting
        for ever; False when none was waiting."""
        future = self._pending.get(request_id)
        if future is None or future.done():
            return False
        future.set_exception(HostError(why))
        return True

    def close(self) -> None:
        """stdin ended: every request still waiting fails, and later ones fail at once."""
        self.closed = True
        for future in self._pending.values():
            if not future.done():
                future.set_exception(HostError("the driving program closed stdin before answering"))


MAX_LINE_BYTES = 32 * 1024 * 1024
"""The longest line read from stdin: a request the API accepts is no larger, and a longer line is not kept whole."""
_SKIP_CHUNK = 1024 * 1024


@dataclass(frozen=True)
class LineTooLong:
    """A line longer than :data:`MAX_LINE_BYTES`; it was read to its end and dropped."""

    size: int


def read_lines(
    stdin: BinaryIO, loop: asyncio.AbstractEventLoop, deliver: Callable[[str | LineTooLong | None], None]
) -> None:
    """Start a daemon thread that hands every stdin line to ``deliver`` on the loop, then None at end of input."""

    def pump() -> None:
        try:
            while raw := stdin.readline(MAX_LINE_BYTES + 1):
                if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                    loop.call_soon_threadsafe(deliver, LineTooLong(len(raw) + _skip_line(stdin)))
                    continue
                loop.call_soon_threadsafe(deliver, raw.decode("utf-8", errors="replace"))
        except (OSError, ValueError):
            pass
        finally:
            with contextlib.suppress(RuntimeError):  # the loop is already gone: the face has finished
                loop.call_soon_threadsafe(deliver, None)

    threading.Thread(target=pump, name="agentcli-stdin", daemon=True).start()


def _skip_line(stdin: BinaryIO) -> int:
    """Read the rest of an over-long line without keeping it; how many bytes that was."""
    skipped = 0
    while chunk := stdin.readline(_SKIP_CHUNK):
        skipped += len(chunk)
        if chunk.endswith(b"\n"):
            break
    return skipped
