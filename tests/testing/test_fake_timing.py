"""Scripted pacing is honoured, and unpaced streams are served fast enough for long-output tests."""

from __future__ import annotations

import asyncio
import itertools
import statistics
import time
from collections.abc import Callable
from typing import Any

import anthropic
import httpx2
import pytest

from agentcli.testing import FakeAnthropicServer

Serve = Callable[..., FakeAnthropicServer]
ARGS: dict[str, Any] = {"model": "claude-test", "max_tokens": 1024, "messages": [{"role": "user", "content": "hi"}]}


def test_delay_between_events(serve: Serve, client_for: Callable) -> None:
    server = serve({"turns": [{"content": [{"type": "text", "text": "abcdefghij", "chunks": 10}], "delay_ms": 20}]})
    arrivals: list[float] = []
    with client_for(server).messages.stream(**ARGS) as stream:
        for event in stream:
            if event.type == "content_block_delta":
                arrivals.append(time.monotonic())
    gaps = [b - a for a, b in itertools.pairwise(arrivals)]
    assert len(arrivals) == 10
    assert sum(gaps) >= 9 * 0.02 * 0.9
    assert statistics.median(gaps) >= 0.015


async def test_first_byte_delay(serve: Serve, async_client_for: Callable) -> None:
    server = serve({"turns": [{"content": [{"type": "text", "text": "x"}], "first_byte_delay_ms": 250}]})
    started = time.monotonic()
    async with async_client_for(server).messages.stream(**ARGS) as stream:
        first = time.monotonic()
        await stream.get_final_message()
    assert first - started >= 0.25
    assert server.requests[0].time - started < 0.2  # recorded on arrival, not after the delay


def test_twenty_thousand_deltas_are_served_fast(serve: Serve) -> None:
    turn = {"content": [{"type": "text", "text": "word" * 20_000, "chunks": 20_000}]}
    server = serve({"turns": [turn] * 3})
    timings = []
    with httpx2.Client() as http:
        for _ in range(3):
            started = time.perf_counter()
            with http.stream("POST", f"{server.base_url}/v1/messages", json={**ARGS, "stream": True}) as response:
                size = sum(len(chunk) for chunk in response.iter_raw())
            timings.append(time.perf_counter() - started)
    assert size > 20_000 * 80
    assert statistics.median(timings) < 0.3, timings


async def test_concurrent_streams_are_served_in_parallel(serve: Serve, async_client_for: Callable) -> None:
    turns = [{"content": [{"type": "text", "text": f"reply {n}", "chunks": 5}], "delay_ms": 40} for n in range(5)]
    server = serve({"turns": turns})
    client = async_client_for(server)

    async def one() -> str:
        async with client.messages.stream(**ARGS) as stream:
            return await stream.get_final_text()

    started = time.monotonic()
    replies = await asyncio.gather(*(one() for _ in range(5)))
    elapsed = time.monotonic() - started
    assert sorted(replies) == [f"reply {n}" for n in range(5)]
    assert sorted(r.turn_index for r in server.requests) == [0, 1, 2, 3, 4]
    assert elapsed < 5 * 0.4 * 0.8  # one stream alone takes ~0.4 s


def test_delayed_request_is_listed_at_once_and_abandoned_when_client_leaves(serve: Serve, client_for: Callable) -> None:
    server = serve({"turns": [{"content": [{"type": "text", "text": "late"}], "first_byte_delay_ms": 30_000}]})
    client = client_for(server, timeout=httpx2.Timeout(5.0, read=0.3))
    with pytest.raises(anthropic.APITimeoutError):
        client.messages.create(**ARGS)
    (record,) = server.requests
    assert record.turn_index == 0
    deadline = time.monotonic() + 2
    while record.status is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert record.status == 0  # the server noticed the hang-up instead of sleeping out its 30 s
