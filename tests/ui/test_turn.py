"""The turn runner's batching: a burst of text deltas is shown as one append per block."""

from __future__ import annotations

from typing import Any

from agentcli.ui.turn import coalesce_text


def text_delta(index: int, text: str, parent: str | None = None) -> dict[str, Any]:
    return {
        "type": "stream_event",
        "event": {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": text}},
        "parent_tool_use_id": parent,
        "uuid": f"u-{index}-{text}",
    }


def block_stop(index: int) -> dict[str, Any]:
    return {"type": "stream_event", "event": {"type": "content_block_stop", "index": index}}


def test_runs_of_text_deltas_of_one_block_become_one_delta_and_everything_else_keeps_its_place():
    batch = [
        {"type": "system", "subtype": "init"},
        text_delta(0, "Hel"),
        text_delta(0, "lo, "),
        text_delta(0, "world"),
        block_stop(0),
        text_delta(1, "a"),
        text_delta(2, "b"),
        text_delta(2, "c"),
    ]
    out = coalesce_text(batch)
    assert [m.get("type") for m in out] == ["system", "stream_event", "stream_event", "stream_event", "stream_event"]
    assert out[1]["event"]["delta"]["text"] == "Hello, world" and out[1]["uuid"] == "u-0-Hel"
    assert out[2] == block_stop(0)
    assert out[3] == text_delta(1, "a")
    assert out[4]["event"] == text_delta(2, "bc")["event"]


def test_the_messages_the_engine_made_are_not_changed():
    first = text_delta(0, "a")
    coalesce_text([first, text_delta(0, "b")])
    assert first["event"]["delta"]["text"] == "a"  # the log and the transcript keep what the engine sent


def test_a_sub_agents_deltas_and_other_delta_kinds_are_left_alone():
    thinking = {
        "type": "stream_event",
        "event": {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "x"}},
    }
    batch = [text_delta(0, "a", parent="toolu_1"), text_delta(0, "b", parent="toolu_1"), thinking, thinking]
    assert coalesce_text(batch) == batch


def test_text_split_by_an_error_is_not_joined_across_it():
    error = RuntimeError("boom")
    batch = [text_delta(0, "a"), error, text_delta(0, "b")]
    assert coalesce_text(batch) == batch
