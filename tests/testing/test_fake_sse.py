"""Wire format of scripted turns, checked without a server."""

from __future__ import annotations

import json

import pytest

from agentcli.testing.scenario import Turn
from agentcli.testing.sse import (
    default_chunks,
    encode_event,
    encode_events,
    render_message,
    render_stream,
    split_evenly,
    stream_frames,
)

USAGE = {"input_tokens": 10, "output_tokens": 7, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
TRICKY = {"path": "é/漢字/🎉", "quote": 'say "hi"', "slash": "a\\b", "nl": "x\ny"}


def turn(*blocks: dict, **kwargs: object) -> Turn:
    return Turn.model_validate({"content": list(blocks), **kwargs})


def names(events: list) -> list[str]:
    return [name for name, _ in events]


@pytest.mark.parametrize(("text", "pieces"), [("abcdefghij", 3), ("abc", 10), ("é漢🎉", 2), ("x", 1), ("", 4)])
def test_split_evenly_concatenates_back(text: str, pieces: int) -> None:
    parts = split_evenly(text, pieces)
    assert "".join(parts) == text
    assert len(parts) == (max(1, min(pieces, len(text))) if text else 1)
    assert all(parts) or text == ""


def test_split_evenly_spreads_pieces_evenly() -> None:
    assert [len(p) for p in split_evenly("a" * 10, 4)] == [2, 3, 2, 3]


def test_default_chunks_is_about_one_per_sixteen_characters() -> None:
    assert default_chunks("") == 1
    assert default_chunks("a" * 16) == 1
    assert default_chunks("a" * 17) == 2


def test_stream_grammar_for_mixed_turn() -> None:
    t = turn(
        {"type": "thinking", "thinking": "hmm", "signature": "sig", "chunks": 2},
        {"type": "redacted_thinking", "data": "opaque"},
        {"type": "text", "text": "Hello", "chunks": 2},
        {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"a": 1}, "chunks": 2},
    )
    events = render_stream(t, message_id="msg_1", model="m", usage=USAGE)
    assert names(events) == [
        "message_start",
        "ping",
        *["content_block_start", "content_block_delta", "content_block_delta", "content_block_delta"],
        "content_block_stop",
        *["content_block_start", "content_block_stop"],
        *["content_block_start", "content_block_delta", "content_block_delta", "content_block_stop"],
        *["content_block_start", "content_block_delta", "content_block_delta", "content_block_stop"],
        "message_delta",
        "message_stop",
    ]
    assert all(data["type"] == name for name, data in events)
    start = events[0][1]["message"]
    assert start == {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {**USAGE, "output_tokens": 1},
    }
    assert events[2][1]["content_block"] == {"type": "thinking", "thinking": "", "signature": ""}
    assert events[5][1]["delta"] == {"type": "signature_delta", "signature": "sig"}
    assert events[7][1]["content_block"] == {"type": "redacted_thinking", "data": "opaque"}
    assert events[13][1]["content_block"] == {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}
    assert events[-2][1] == {
        "type": "message_delta",
        "delta": {"stop_reason": "tool_use", "stop_sequence": None},
        "usage": {"output_tokens": 7},
    }
    assert [data["index"] for name, data in events if name.startswith("content_block")] == [0] * 5 + [1] * 2 + [
        2
    ] * 4 + [3] * 4


@pytest.mark.parametrize("ensure_ascii", [False, True])
def test_tool_input_pieces_rebuild_exact_json(ensure_ascii: bool) -> None:
    spec = {"type": "tool_use", "id": "t", "name": "Edit", "input": TRICKY, "chunks": 57, "ensure_ascii": ensure_ascii}
    events = render_stream(turn(spec), message_id="m", model="m", usage=USAGE)
    pieces = [d["delta"]["partial_json"] for n, d in events if n == "content_block_delta"]
    assert len(pieces) == 57
    assert json.loads("".join(pieces)) == TRICKY
    assert "".join(pieces) == json.dumps(TRICKY, ensure_ascii=ensure_ascii)


def test_ascii_escapes_can_be_cut_anywhere() -> None:
    text = json.dumps(TRICKY, ensure_ascii=True)
    spec = {"type": "tool_use", "id": "t", "name": "Edit", "input": TRICKY, "chunks": len(text), "ensure_ascii": True}
    events = render_stream(turn(spec), message_id="m", model="m", usage=USAGE)
    pieces = [d["delta"]["partial_json"] for n, d in events if n == "content_block_delta"]
    assert "\\ud83c\\udf89" in text
    assert pieces.count("\\") >= 4  # every escape is split right after its backslash
    assert all(len(p) == 1 for p in pieces)


def test_ping_every_inserts_pings_between_events() -> None:
    t = turn({"type": "text", "text": "abcdef", "chunks": 6}, ping_every=2)
    events = render_stream(t, message_id="m", model="m", usage=USAGE)
    sequence = names(events)
    assert sequence[:2] == ["message_start", "ping"]
    body = sequence[2:]
    assert all(body[i] == "ping" for i in range(2, len(body), 3))
    assert sequence[-1] == "message_stop"
    assert sequence.count("ping") == 1 + (10 - 1) // 2


def test_fast_frames_match_dict_rendering_byte_for_byte() -> None:
    t = turn(
        {"type": "thinking", "thinking": "think é", "signature": "s", "chunks": 3},
        {"type": "redacted_thinking", "data": "d"},
        {"type": "text", "text": "Hello\n```py\nprint('🎉')\n```", "chunks": 9},
        {"type": "tool_use", "id": "t1", "name": "Read", "input": TRICKY, "chunks": 50, "ensure_ascii": True},
        ping_every=4,
        stop_reason="max_tokens",
    )
    kwargs = {"message_id": "msg", "model": "m", "usage": USAGE}
    assert stream_frames(t, **kwargs) == encode_events(render_stream(t, **kwargs))


def test_encode_event_is_one_sse_frame() -> None:
    frame = encode_event("ping", {"type": "ping"})
    assert frame == b'event: ping\ndata: {"type":"ping"}\n\n'
    assert encode_event("x", {"t": "é"}) == 'event: x\ndata: {"t":"é"}\n\n'.encode()


def test_render_message_is_complete_message() -> None:
    t = turn(
        {"type": "text", "text": "Hi"},
        {"type": "tool_use", "id": "toolu_9", "name": "Bash", "input": {"command": "ls"}},
        stop_reason="stop_sequence",
        stop_sequence="END",
    )
    message = render_message(t, message_id="msg_x", model="m", usage=USAGE)
    assert message == {
        "id": "msg_x",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [
            {"type": "text", "text": "Hi"},
            {"type": "tool_use", "id": "toolu_9", "name": "Bash", "input": {"command": "ls"}},
        ],
        "stop_reason": "stop_sequence",
        "stop_sequence": "END",
        "usage": USAGE,
    }
