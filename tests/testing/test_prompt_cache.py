from __future__ import annotations

from agentcli.api.client import ModelRequest
from agentcli.testing.prompt_cache import PromptCache

TOOLS = [{"name": "Read", "description": "Read a file. " * 50, "input_schema": {"type": "object"}}]


def _body(messages: list[dict], model: str = "m") -> dict:
    request = ModelRequest(model=model, max_tokens=5, messages=messages, system="You help. " * 100, tools=TOOLS)
    return request.params()


def _turns(count: int) -> list[list[dict]]:
    """The message lists of ``count`` successive requests of a tool loop."""
    history: list[dict] = [{"role": "user", "content": "start " * 30}]
    out = [list(history)]
    for n in range(1, count):
        history += [
            {"role": "assistant", "content": [{"type": "tool_use", "id": f"t{n}", "name": "Read", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": "x " * 40}]},
        ]
        out.append(list(history))
    return out


def test_first_request_writes_later_ones_read_the_prefix():
    cache = PromptCache()
    first, second, third = (_body(messages) for messages in _turns(3))
    one = cache.usage(first, 1000)
    assert one["cache_read_input_tokens"] == 0 and one["cache_creation_input_tokens"] > 0
    assert sum(one.values()) == 1000
    two = cache.usage(second, 1100)
    assert two["cache_read_input_tokens"] > 0 and two["cache_creation_input_tokens"] > 0
    assert sum(two.values()) == 1100
    three = cache.usage(third, 1200)
    assert three["cache_read_input_tokens"] > two["cache_read_input_tokens"]


def test_a_changed_system_prompt_reads_only_the_tools_and_another_model_nothing():
    messages = _turns(2)
    same, changed_cache = PromptCache(), PromptCache()
    same.usage(_body(messages[0]), 1000)
    changed_cache.usage(_body(messages[0]), 1000)
    unchanged = same.usage(_body(messages[1]), 1000)["cache_read_input_tokens"]
    changed = _body(messages[1])
    changed["system"] = [{**changed["system"][0], "text": "Something else.", "cache_control": {"type": "ephemeral"}}]
    tools_only = changed_cache.usage(changed, 1000)["cache_read_input_tokens"]
    assert 0 < tools_only < unchanged  # the tools come first, so their cached prefix still reads
    assert PromptCache().usage(_body(messages[1], model="other"), 1000)["cache_read_input_tokens"] == 0
    assert same.usage(_body(messages[1], model="other"), 1000)["cache_read_input_tokens"] == 0


def test_without_breakpoints_everything_is_input():
    cache = PromptCache()
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    assert cache.usage(body, 10) == {"cache_read_input_tokens": 0, "cache_creation_input_tokens": 0, "input_tokens": 10}
    assert cache.usage(body, 10)["cache_read_input_tokens"] == 0
