"""The stdout writer on a real pipe: a reader that stops reading makes the producer wait (memory stays bounded),
the loop stays free, an interrupt while waiting ends the turn as any interrupt does, and frames arrive whole and
in order once someone reads."""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import Iterator

import pytest

from agentcli.engine import INTERRUPTED_MARKER
from agentcli.ui.frame_writer import FrameWriter, paced
from tests.waiting import DEADLINE_S, until

LIMIT = 64 * 1024
FRAME = "x" * 1000


class Pipe:
    """A real pipe with the writer on its write end; each end closed once."""

    def __init__(self) -> None:
        self.read_end, write_end = os.pipe()
        self.out = open(write_end, "w", encoding="utf-8")  # noqa: SIM115 - closed by close_write
        self.writer = FrameWriter(self.out, limit=LIMIT)
        self._open = {"read": True, "write": True}

    def close_read(self) -> None:
        if self._open.pop("read", False):
            os.close(self.read_end)

    def close_write(self) -> None:
        if self._open.pop("write", False):
            self.out.close()


@pytest.fixture
def pipe() -> Iterator[Pipe]:
    made = Pipe()
    yield made
    made.close_write()
    made.close_read()


def _read_all(fd: int, into: bytearray) -> threading.Thread:
    def pump() -> None:
        while chunk := os.read(fd, 65536):
            into.extend(chunk)

    thread = threading.Thread(target=pump, daemon=True)
    thread.start()
    return thread


async def test_a_reader_that_stops_reading_makes_the_producer_wait_then_everything_arrives(pipe):
    writer = pipe.writer
    frames = [json.dumps({"n": n, "text": FRAME}) + "\n" for n in range(1000)]  # about 1 MB: 15 times the limit
    sent: list[int] = []

    async def produce() -> None:
        for n, frame in enumerate(frames):
            writer.write(frame)
            sent.append(n)
            await writer.room()

    producer = asyncio.create_task(produce())
    await until(lambda: writer.waiting, "the producer to wait for room", task=producer)
    assert not producer.done()
    assert writer.queued <= LIMIT + len(frames[0])  # the pipe holds the rest of what was sent
    assert len(sent) < len(frames)

    received = bytearray()
    reader = _read_all(pipe.read_end, received)
    await asyncio.wait_for(producer, DEADLINE_S)
    assert await writer.finish() == 0
    pipe.close_write()
    reader.join(DEADLINE_S)
    assert received.decode() == "".join(frames)


async def test_at_exit_what_an_absent_reader_does_not_take_is_dropped_after_the_deadline(pipe):
    writer = pipe.writer
    for _ in range(200):
        writer.write(FRAME + "\n")
    dropped = await writer.finish(timeout=0.05)
    assert 0 < dropped <= 200 * (len(FRAME) + 1)


async def test_a_broken_pipe_reaches_the_producer(pipe):
    writer = pipe.writer
    pipe.close_read()
    writer.write(FRAME + "\n")
    with pytest.raises(BrokenPipeError):
        await until(lambda: writer.write(FRAME + "\n") or False, "the broken pipe to be noticed")


async def test_an_interrupt_while_waiting_for_room_ends_the_turn_as_usual(pipe, fake_api, make_engine):
    writer = pipe.writer
    answer = "All work and no play. " * 20_000
    server = fake_api({"turns": [{"content": [{"type": "text", "text": answer, "chunks": 1000}]}]})
    engine = make_engine(server, include_partial_messages=True)
    seen: list[dict] = []

    async def run() -> None:
        async for message in paced(engine.submit_message("go"), writer.room):
            seen.append(message)
            writer.write(json.dumps(message) + "\n")

    task = asyncio.create_task(run())
    await until(lambda: writer.waiting, "the turn to wait for room", task=task)
    engine.interrupt()
    writer.release()
    await asyncio.wait_for(task, DEADLINE_S)
    assert seen[-1]["type"] == "result" and seen[-1]["errors"] == ["Interrupted by user"]
    assert engine.messages[-1]["content"] == [{"type": "text", "text": INTERRUPTED_MARKER}]
    _read_all(pipe.read_end, bytearray())
    assert await writer.finish() == 0
