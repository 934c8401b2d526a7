from __future__ import annotations

import json

from agentcli.api.accumulate import MessageAccumulator


def _stream(blocks: list[tuple[dict, list[dict]]], stop_reason: str = "end_turn") -> list[dict]:
    events: list[dict] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "model": "claude-sonnet-5-5",
                "usage": {
                    "input_tokens": 50,
                    "output_tokens": 1,
                    "cache_read_input_tokens": 7,
                    "cache_creation_input_tokens": 3,
                },
            },
        }
    ]
    for index, (start, deltas) in enumerate(blocks):
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        events.extend({"type": "content_block_delta", "index": index, "delta": d} for d in deltas)
        events.append({"type": "content_block_stop", "index": index})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": 42},
        }
    )
    events.append({"type": "message_stop"})
    return events


def test_assembles_text_thinking_redacted_and_tool_use():
    raw = json.dumps({"path": "é/漢字", "n": 3})
    events = _stream(
        [
            (
                {"type": "thinking", "thinking": "", "signature": ""},
                [
                    {"type": "thinking_delta", "thinking": "hm"},
                    {"type": "thinking_delta", "thinking": "m"},
                    {"type": "signature_delta", "signature": "sig"},
                ],
            ),
            ({"type": "redacted_thinking", "data": "xyz"}, []),
            ({"type": "text", "text": ""}, [{"type": "text_delta", "text": "a"}, {"type": "text_delta", "text": "b"}]),
            (
                {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}},
                [{"type": "input_json_delta", "partial_json": raw[i : i + 3]} for i in range(0, len(raw), 3)],
            ),
        ],
        stop_reason="tool_use",
    )
    acc = MessageAccumulator()
    finished = [block for event in events if (block := acc.feed(event)) is not None]
    assert [b["type"] for b in finished] == ["thinking", "redacted_thinking", "text", "tool_use"]
    message = acc.message()
    assert message["content"] == [
        {"type": "thinking", "thinking": "hmm", "signature": "sig"},
        {"type": "redacted_thinking", "data": "xyz"},
        {"type": "text", "text": "ab"},
        {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"path": "é/漢字", "n": 3}},
    ]
    assert message["stop_reason"] == "tool_use"
    assert message["usage"] == {
        "input_tokens": 50,
        "output_tokens": 42,
        "cache_read_input_tokens": 7,
        "cache_creation_input_tokens": 3,
    }
    assert acc.invalid_inputs == {}


def test_malformed_tool_json_is_recorded_not_raised():
    events = _stream(
        [
            (
                {"type": "tool_use", "id": "toolu_bad", "name": "Read", "input": {}},
                [{"type": "input_json_delta", "partial_json": '{"file_path": "/x'}],
            )
        ],
        "tool_use",
    )
    acc = MessageAccumulator()
    for event in events:
        acc.feed(event)
    assert acc.message()["content"][0]["input"] == {}
    assert acc.invalid_inputs["toolu_bad"].raw == '{"file_path": "/x'


def test_non_object_json_is_invalid():
    events = _stream(
        [
            (
                {"type": "tool_use", "id": "t", "name": "Read", "input": {}},
                [{"type": "input_json_delta", "partial_json": "[1, 2]"}],
            )
        ],
        "tool_use",
    )
    acc = MessageAccumulator()
    for event in events:
        acc.feed(event)
    assert "t" in acc.invalid_inputs


def test_empty_tool_input_is_an_empty_object():
    events = _stream([({"type": "tool_use", "id": "t", "name": "TodoRead", "input": {}}, [])], "tool_use")
    acc = MessageAccumulator()
    for event in events:
        acc.feed(event)
    assert acc.message()["content"][0]["input"] == {}


def test_unfinished_blocks_are_left_out():
    events = _stream([({"type": "text", "text": ""}, [{"type": "text_delta", "text": "done"}])])
    acc = MessageAccumulator()
    for event in events:
        acc.feed(event)
    acc.feed({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}})
    assert acc.message()["content"] == [{"type": "text", "text": "done"}]
