"""Real recorded Messages API streams, replayed byte for byte and cut at awkward points, must decode and assemble
exactly as the SDK's own decoder and accumulator make of them.

The streams come from public repositories' test suites (``recorded/SOURCES`` names each one's repository, path,
commit and licence). Each is fed whole, a byte at a time, cut inside every multi-byte UTF-8 character, cut
inside ``data:`` lines, with CRLF and with bare-CR line endings (split between the CR and the LF as well), and
in random pieces; every way must give the events the SDK decodes from the original bytes.
"""

from __future__ import annotations

import asyncio
import itertools
import random
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agentcli.api.accumulate import MessageAccumulator
from agentcli.api.sse import iter_sse_json

RECORDED = Path(__file__).with_name("recorded")
STREAMS = sorted(RECORDED.glob("*.sse"))
BYTEWISE_LIMIT = 30_000
"""Streams up to this size are also fed one byte at a time (larger ones would only make the suite slower)."""


def body_of(path: Path) -> bytes:
    return path.read_bytes()


# -- the SDK's view -------------------------------------------------------------------------------------------------


def sdk_payloads(body: bytes) -> list[dict[str, Any]]:
    """Every event payload the SDK's own SSE decoder finds in ``body`` (pings included)."""
    from anthropic._streaming import SSEDecoder

    return [sse.json() for sse in SSEDecoder().iter_bytes(iter([body])) if sse.data]


def sdk_message(payloads: list[dict[str, Any]]) -> dict[str, Any]:
    """The message the SDK's accumulator builds from the payloads, as a plain dict."""
    import httpx2
    from anthropic.lib.streaming._beta_messages import accumulate_event

    snapshot: Any = None
    json_bufs: dict[int, bytes] = {}
    for payload in payloads:
        if payload["type"] in ("ping", "error"):
            continue  # the SDK's stream skips pings and raises on errors before accumulating
        snapshot = accumulate_event(
            event=payload,
            current_snapshot=snapshot,
            json_bufs=json_bufs,  # type: ignore[arg-type]
            request_headers=httpx2.Headers(),
        )
    return snapshot.to_dict(mode="json")


def finished_blocks_only(message: dict[str, Any], payloads: list[dict[str, Any]]) -> dict[str, Any]:
    """The SDK's snapshot keeps blocks a stream started but never finished; ours (on purpose) does not."""
    started = [p["index"] for p in payloads if p["type"] == "content_block_start"]
    stopped = {p["index"] for p in payloads if p["type"] == "content_block_stop"}
    content = message["content"]
    whole = len(content) - len(started)  # blocks that came whole in message_start
    kept = [block for n, block in enumerate(content) if n < whole or started[n - whole] in stopped]
    return {**message, "content": kept}


def without_nulls(value: Any) -> Any:
    """A missing field and a field that is null mean the same; compare them as the same."""
    if isinstance(value, dict):
        return {key: without_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [without_nulls(item) for item in value]
    return value


# -- ways to deliver the bytes --------------------------------------------------------------------------------------


def whole(body: bytes) -> list[bytes]:
    return [body]


def bytewise(body: bytes) -> list[bytes]:
    return [body[i : i + 1] for i in range(len(body))]


def cut_at(body: bytes, points: list[int]) -> list[bytes]:
    points = sorted({p for p in points if 0 < p < len(body)})
    edges = [0, *points, len(body)]
    return [body[a:b] for a, b in itertools.pairwise(edges)]


def inside_utf8_characters(body: bytes) -> list[bytes]:
    """A cut before every continuation byte: no multi-byte character arrives whole."""
    return cut_at(body, [i for i, byte in enumerate(body) if 0x80 <= byte <= 0xBF])


def inside_data_lines(body: bytes) -> list[bytes]:
    points: list[int] = []
    start = body.find(b"data:")
    while start >= 0:
        points += [start + 1, start + 4, start + 5, start + 6, start + 17]
        start = body.find(b"data:", start + 1)
    return cut_at(body, points)


def crlf_split_between_cr_and_lf(body: bytes) -> list[bytes]:
    crlf = body.replace(b"\n", b"\r\n")
    return cut_at(crlf, [i + 1 for i, byte in enumerate(crlf) if byte == 0x0D])


def bare_cr(body: bytes) -> list[bytes]:
    return inside_data_lines(body.replace(b"\n", b"\r"))


def random_pieces(body: bytes) -> list[bytes]:
    rng = random.Random(len(body))
    points, at = [], 0
    while at < len(body):
        at += rng.randint(1, 97)
        points.append(at)
    return cut_at(body, points)


DELIVERIES: dict[str, Callable[[bytes], list[bytes]]] = {
    "whole": whole,
    "bytewise": bytewise,
    "inside_utf8": inside_utf8_characters,
    "inside_data_lines": inside_data_lines,
    "crlf_split": crlf_split_between_cr_and_lf,
    "bare_cr": bare_cr,
    "random_pieces": random_pieces,
}


def decode(chunks: list[bytes], *, merge_text: bool = False) -> list[dict[str, Any]]:
    async def source() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    async def run() -> list[dict[str, Any]]:
        return [payload async for payload in iter_sse_json(source(), merge_text=merge_text)]

    return asyncio.run(run())


def accumulate(payloads: list[dict[str, Any]]) -> MessageAccumulator:
    accumulator = MessageAccumulator()
    for payload in payloads:
        accumulator.feed(payload)
    return accumulator


def cases() -> Iterator[Any]:
    for path in STREAMS:
        for name in DELIVERIES:
            if name == "bytewise" and path.stat().st_size > BYTEWISE_LIMIT:
                continue
            yield pytest.param(path, name, id=f"{path.stem}-{name}")


# -- the tests ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("path", "delivery"), cases())
def test_decodes_exactly_what_the_sdk_decodes(path: Path, delivery: str):
    body = body_of(path)
    assert decode(DELIVERIES[delivery](body)) == sdk_payloads(body)


@pytest.mark.parametrize("path", STREAMS, ids=[path.stem for path in STREAMS])
def test_assembles_the_message_the_sdk_assembles(path: Path):
    payloads = sdk_payloads(body_of(path))
    ours = accumulate(payloads)
    try:
        theirs = sdk_message(payloads)
    except ValueError as error:
        # The SDK gives up on tool JSON that is not JSON at all; we keep going and tell the model instead.
        assert "Unable to parse tool parameter JSON" in str(error)
        assert ours.invalid_inputs, "the SDK refused the tool input but it was not marked invalid"
        return
    assert without_nulls(ours.message()) == without_nulls(finished_blocks_only(theirs, payloads))
    assert ours.stopped == any(p["type"] == "message_stop" for p in payloads)


@pytest.mark.parametrize("path", STREAMS, ids=[path.stem for path in STREAMS])
def test_merged_text_deltas_assemble_the_same_message(path: Path):
    """A face reads text deltas that arrive together as one: same message, same order of everything else."""
    body = body_of(path)
    exact = decode(whole(body))
    merged = decode(whole(body), merge_text=True)
    assert accumulate(merged).message() == accumulate(exact).message()

    def without_text(payloads: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [p for p in payloads if (p.get("delta") or {}).get("type") != "text_delta"]

    assert without_text(merged) == without_text(exact)


def test_the_collection_is_large_and_covers_what_real_streams_carry():
    assert len(STREAMS) >= 50
    bodies = {path.name: body_of(path) for path in STREAMS}

    def streams_with(*needles: bytes) -> list[str]:
        return [name for name, body in bodies.items() if all(needle in body for needle in needles)]

    assert streams_with(b'"type":"thinking"', b"signature_delta")
    assert streams_with(b'"type":"redacted_thinking"')
    assert streams_with(b"citations_delta")
    assert streams_with(b'"type":"server_tool_use"', b"web_search_tool_result")
    assert streams_with(b'"type":"tool_use"', b"input_json_delta")
    assert streams_with(b'"stop_reason":"refusal"')
    assert streams_with(b'"stop_reason":"pause_turn"')
    assert streams_with(b"compaction_delta")
    assert streams_with(b'"type":"mcp_tool_use"')


def test_every_stream_names_its_source_and_licence():
    rows = [
        line.split(" | ")
        for line in (RECORDED / "SOURCES").read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    ]
    listed = {row[0]: row for row in rows}
    assert sorted(listed) == sorted(path.name for path in STREAMS)
    for name, repository, source_path, commit, licence, *_note in rows:
        assert "/" in repository and source_path and len(commit) == 40, name
        assert licence in ("MIT", "Apache-2.0"), name


def test_message_start_content_comes_first_and_usage_details_are_kept():
    """Two shapes no recording here happens to show, built from their documented form."""
    accumulator = accumulate(
        [
            {
                "type": "message_start",
                "message": {
                    "id": "msg_1",
                    "type": "message",
                    "role": "assistant",
                    "model": "m",
                    "content": [{"type": "text", "text": "already here"}],
                    "stop_reason": None,
                    "usage": {
                        "input_tokens": 5,
                        "output_tokens": 1,
                        "service_tier": "priority",
                        "cache_creation": {"ephemeral_5m_input_tokens": 2, "ephemeral_1h_input_tokens": 0},
                    },
                },
            },
            {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": " and more"}},
            {"type": "content_block_stop", "index": 1},
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn"},
                "usage": {"output_tokens": 9, "server_tool_use": {"web_search_requests": 1}},
            },
            {"type": "message_stop"},
        ]
    )
    message = accumulator.message()
    assert [block["text"] for block in message["content"]] == ["already here", " and more"]
    assert message["usage"] == {
        "input_tokens": 5,
        "output_tokens": 9,
        "service_tier": "priority",
        "cache_creation": {"ephemeral_5m_input_tokens": 2, "ephemeral_1h_input_tokens": 0},
        "server_tool_use": {"web_search_requests": 1},
    }
    assert message["stop_reason"] == "end_turn"


def test_a_truncated_tool_input_is_kept_as_far_as_it_goes_but_marked_invalid():
    raw = '{"path": "a.txt", "lines": ["one", "tw'
    accumulator = accumulate(
        [
            {"type": "message_start", "message": {"id": "m", "model": "m", "content": [], "usage": {}}},
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "tool_use", "id": "toolu_1", "name": "Write", "input": {}},
            },
            {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": raw}},
            {"type": "content_block_stop", "index": 0},
        ]
    )
    assert accumulator.message()["content"][0]["input"] == {"path": "a.txt", "lines": ["one"]}
    assert accumulator.invalid_inputs["toolu_1"].raw == raw
