from __future__ import annotations

import copy

from agentcli.api.cache import MAX_BREAKPOINTS, with_cache_breakpoints
from agentcli.api.client import ModelRequest
from agentcli.testing.validate import validate_request

MARK = {"type": "ephemeral"}


def _sites(params: dict) -> list[str]:
    sites = [f"system.{i}" for i, b in enumerate(params.get("system") or []) if "cache_control" in b]
    sites += [f"tools.{i}" for i, t in enumerate(params.get("tools") or []) if "cache_control" in t]
    for i, message in enumerate(params["messages"]):
        content = message["content"]
        sites += [
            f"messages.{i}.{j}"
            for j, b in enumerate(content if isinstance(content, list) else [])
            if "cache_control" in b
        ]
    return sites


def _tool(name: str) -> dict:
    return {"name": name, "description": name, "input_schema": {"type": "object", "properties": {}}}


def _loop_history() -> list[dict]:
    return [
        {"role": "user", "content": "look around"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "Glob", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.py"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_2", "name": "Read", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "x = 1"}]},
    ]


def test_marks_tools_system_last_message_and_the_previous_requests_end_without_touching_the_history():
    messages = _loop_history()
    tools = [_tool("Glob"), _tool("Read")]
    request = ModelRequest(model="m", max_tokens=100, messages=messages, system="You help.", tools=tools)
    before = copy.deepcopy((messages, tools))
    params = request.params()
    assert (messages, tools) == before  # the stored history and the tool list are copies' sources, never changed
    assert _sites(params) == ["system.0", "tools.1", "messages.2.0", "messages.4.0"]
    assert params["system"] == [{"type": "text", "text": "You help.", "cache_control": MARK}]
    assert params["messages"][0] is messages[0] and params["messages"][1] is messages[1]  # unmarked: not copied
    assert validate_request({**params, "stream": True}) == []


def test_never_more_than_four_and_caller_marks_count():
    system = [
        {"type": "text", "text": "a", "cache_control": MARK},
        {"type": "text", "text": "b", "cache_control": MARK},
    ]
    params = with_cache_breakpoints(
        {"model": "m", "max_tokens": 5, "system": system, "tools": [_tool("T")], "messages": _loop_history()}
    )
    assert len(_sites(params)) == MAX_BREAKPOINTS
    assert "messages.4.0" in _sites(params) and "tools.0" in _sites(params)


def test_text_content_becomes_a_marked_block_and_thinking_is_skipped():
    messages = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Searching"}, {"type": "thinking", "thinking": "t", "signature": "s"}],
        },
    ]
    params = ModelRequest(model="m", max_tokens=5, messages=messages).params()
    assert params["messages"][0]["content"] == [{"type": "text", "text": "hi", "cache_control": MARK}]
    assert params["messages"][1]["content"][0] == {"type": "text", "text": "Searching", "cache_control": MARK}
    assert "cache_control" not in params["messages"][1]["content"][1]
    assert messages[0]["content"] == "hi"


def test_one_off_requests_are_not_marked():
    params = ModelRequest(model="m", max_tokens=5, messages=_loop_history(), system="s", cache=False).params()
    assert _sites({**params, "system": []}) == [] and params["system"] == "s"
