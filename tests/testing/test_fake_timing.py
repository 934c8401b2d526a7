"""Scripted pacing is honoured, and streams are served concurrently.

Only lower bounds on time are asserted (a scripted pause is a floor the server cannot beat); how fast unpaced
streams are served is measured by scripts/bench/stream_throughput.py, not asserted here.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any

import anthropic
import httpx2
import pytest

from agentcli.testing import FakeAnthropicServer
from tests.waiting import wait_until

Serve = Callable[..., FakeAnthropicServer]
ARGS: dict[str, Any] = {"model": "claude-test", "max_tokens": 1024, "messages": [{"role": "user", "content": "hi"}]}


def test_delay_between_events(serve: Serve, client_for: Callable) -> None:
    server = serve({"turns": [{"content": [{"type": "text", "text": "abcdefghij", "chunks": 10}], "delay_ms": 20}]})
    started = time.monotonic()
    arrivals: list[float] = []
    with client_for(server).messages.stream(**ARGS) as stream:
        for event in stream:
            if event.type == "content_block_delta":
                arrivals.append(time.monotonic())
    assert len(arrivals) == 10
    # message_start, content_block_start, then the deltas: each frame after the first waits 20 ms
    assert arrivals[-1] - started >= 11 * 0.02


async def test_first_byte_delay(serve: Serve, async_client_for: Callable) -> None:
    server = serve({"turns": [{"content": [{"type": "text", "text": "x"}], "first_byte_delay_ms": 250}]})
    started = time.monotonic()
    async with async_client_for(server).messages.stream(**ARGS) as stream:
        first = time.monotonic()
        await stream.get_final_message()
    assert first - started >= 0.25
    (record,) = server.requests
    assert first - record.time >= 0.25  # recorded on arrival, before the delay


def test_twenty_thousand_deltas_are_served_whole(serve: Serve) -> None:
    turn = {"content": [{"type": "text", "text": "word" * 20_000, "chunks": 20_000}]}
    server = serve({"turns": [turn]})
    with (
        httpx2.Client() as http,
        http.stream("POST", f"{server.base_url}/v1/messages", json={**ARGS, "stream": True}) as response,
    ):
        body = b"".join(response.iter_raw())
    assert body.count(b"event: content_block_delta\n") == 20_000
    assert body.endswith(b'event: message_stop\ndata: {"type":"message_stop"}\n\n')


async def test_concurrent_streams_are_served_in_parallel(serve: Serve, async_client_for: Callable) -> None:
    # After its first frame each stream pauses a minute per frame: a server that served one request at a time
    # could never deliver the second stream's message_start while the first is still open.
    turns = [{"content": [{"type": "text", "text": f"reply {n}", "chunks": 5}], "delay_ms": 60_000} for n in range(5)]
    server = serve({"turns": turns})
    client = async_client_for(server)
    async with contextlib.AsyncExitStack() as streams:
        starts = []
        for _ in range(5):
            stream = await streams.enter_async_context(client.messages.stream(**ARGS))
            starts.append(await anext(aiter(stream)))
        assert [event.type for event in starts] == ["message_start"] * 5
        assert len({event.message.id for event in starts}) == 5
        assert sorted(r.turn_index for r in server.requests) == [0, 1, 2, 3, 4]
        server.stop()  # cut the paused streams instead of waiting them out


def test_delayed_request_is_listed_at_once_and_abandoned_when_client_leaves(serve: Serve, client_for: Callable) -> None:
    server = serve({"turns": [{"content": [{"type": "text", "text": "late"}], "first_byte_delay_ms": 300_000}]})
    client = client_for(server, timeout=httpx2.Timeout(30.0, read=0.3))
    with pytest.raises(anthropic.APITimeoutError):
        client.messages.create(**ARGS)
    wait_until(lambda: server.requests, "the request")
    (record,) = server.requests
    assert record.turn_index == 0
    wait_until(lambda: record.status is not None, "the response status")
    assert record.status == 0  # the server noticed the hang-up instead of sleeping out its five minutes


def test_a_held_stream_goes_on_when_released(serve: Serve, client_for: Callable) -> None:
    # three events: message_start, ping (the SDK skips it) and content_block_start
    turn = {"content": [{"type": "text", "text": "held answer", "chunks": 4}], "hold_after_events": 3}
    server = serve({"turns": [turn]})
    with client_for(server).messages.stream(**ARGS) as stream:
        events = iter(stream)
        assert [next(events).type, next(events).type] == ["message_start", "content_block_start"]
        server.release()
        assert stream.get_final_message().content[0].text == "held answer"


async def test_a_held_stream_is_cut_when_the_server_stops(serve: Serve, async_client_for: Callable) -> None:
    # Only a stop ends a stream nobody released: it was cut, not sent whole.
    turn = {"content": [{"type": "text", "text": "never all of it", "chunks": 4}], "hold_after_events": 3}
    server = serve({"turns": [turn]})
    seen: list[str] = []
    with pytest.raises(httpx2.HTTPError):
        async with async_client_for(server).messages.stream(**ARGS) as stream:
            async for event in stream:
                seen.append(event.type)
                if event.type == "content_block_start":
                    server.stop()
    assert seen == ["message_start", "content_block_start"]
