"""The incremental request encoder: the same bytes as encoding each request whole, for a fraction of the work."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentcli.api import body
from agentcli.api.body import RequestEncoder
from agentcli.api.request import ModelRequest
from agentcli.api.retry import strip_thinking

SDK_ORDER = ("max_tokens", "messages", "model", "metadata", "stream", "system", "thinking", "tools")
"""The body's top-level keys in the order the SDK writes them."""


def encoded_whole(request: ModelRequest) -> bytes:
    """The request encoded in one piece, as the SDK encodes it: its key order, compact, UTF-8, no NaN."""
    params = {**request.params(), "stream": True}
    ordered = {key: params[key] for key in SDK_ORDER if key in params}
    return json.dumps(ordered, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


TOOLS = [
    {"name": "Read", "description": "read", "input_schema": {"type": "object"}},
    {"name": "Bash", "description": "run", "input_schema": {"type": "object"}},
]


def a_turn(n: int) -> list[dict[str, Any]]:
    """One tool round trip: the model's call (with thinking every third turn), then its result."""
    content: list[dict[str, Any]] = [{"type": "tool_use", "id": f"toolu_{n}", "name": "Read", "input": {"n": n}}]
    if n % 3 == 0:
        content.insert(0, {"type": "thinking", "thinking": f"step {n} ✓", "signature": "sig"})
    result = {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": f"line {n}\u2028é" * 20}
    return [{"role": "assistant", "content": content}, {"role": "user", "content": [result]}]


def session_requests(turns: int) -> list[ModelRequest]:
    history: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    requests = []
    for n in range(turns):
        requests.append(
            ModelRequest(
                model="m",
                max_tokens=1000,
                messages=strip_thinking(history) if n % 7 == 6 else list(history),
                system="sys" if n % 2 else [{"type": "text", "text": "sys blocks"}],
                tools=TOOLS if n % 5 else [],
                thinking={"type": "enabled", "budget_tokens": 1024} if n % 4 == 0 else None,
                metadata={"user_id": "u"} if n % 6 == 0 else None,
                cache=n % 9 != 8,
            )
        )
        history += a_turn(n)
    return requests


def test_every_request_of_a_session_encodes_as_the_whole_request_would():
    encoder = RequestEncoder()
    for request in session_requests(40):
        assert encoder.encode(request) == encoded_whole(request)


def test_caller_placed_breakpoints_count_against_the_limit():
    marked = {"type": "text", "text": "pinned", "cache_control": {"type": "ephemeral"}}
    messages = [{"role": "user", "content": [marked]}, *a_turn(1), *a_turn(2)]
    system = [{**marked, "text": "a"}, {**marked, "text": "b"}]
    request = ModelRequest(model="m", max_tokens=5, messages=messages, system=system, tools=TOOLS)
    encoded = RequestEncoder().encode(request)
    assert encoded == encoded_whole(request)
    assert encoded.count(b'"cache_control"') == 4


def test_a_replaced_message_is_encoded_anew():
    encoder = RequestEncoder()
    history = [{"role": "user", "content": "go"}, *a_turn(1)]
    encoder.encode(ModelRequest(model="m", max_tokens=5, messages=history))
    compacted = [{"role": "user", "content": "summary of the above"}, *history[1:]]
    request = ModelRequest(model="m", max_tokens=5, messages=compacted)
    assert encoder.encode(request) == encoded_whole(request)


@pytest.fixture
def encodings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many objects the encoder hands to the JSON encoder, per call, from now on."""
    calls: list[int] = []
    encode = body._encode

    def counting(value: Any) -> str:
        calls.append(1)
        return encode(value)

    monkeypatch.setattr(body, "_encode", counting)
    return calls


def test_the_work_per_request_does_not_grow_with_the_history(encodings: list[int]):
    encoder = RequestEncoder()
    history: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    per_request = []
    for n in range(300):
        before = len(encodings)
        encoder.encode(ModelRequest(model="m", max_tokens=100, messages=list(history), system="sys", tools=TOOLS))
        per_request.append(len(encodings) - before)
        history += a_turn(n)
        if n % 10 == 5:  # a hook's own one-off request in between costs the session's memory nothing
            encoder.encode(ModelRequest(model="m", max_tokens=5, messages=[{"role": "user", "content": "ok?"}]))
    # max_tokens, model, system once; the new messages, the two that newly carry a breakpoint and lose it
    assert max(per_request[2:]) <= 8
    assert per_request[-1] == per_request[10]
