"""The in-process scripted model gives the loop exactly what the real client gives it against the HTTP fake:
the same events, and for each fault the same error."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from agentcli.api.client import AnthropicClient, Credentials, ModelRequest
from agentcli.api.errors import ApiError
from agentcli.testing import FakeAnthropicServer
from agentcli.testing.scripted_model import ScriptedModel
from tests.waiting import DEADLINE_S

REQUEST = ModelRequest(model="claude-test", max_tokens=1024, messages=[{"role": "user", "content": "hi"}])
CONTENT: list[dict[str, Any]] = [
    {"type": "thinking", "thinking": "Let me look.", "signature": "sig_1", "chunks": 3},
    {"type": "redacted_thinking", "data": "opaque"},
    {"type": "text", "text": "Reading the file: ünïcödé ✓", "chunks": 4},
    {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "a.py"}, "chunks": 5},
]
TURNS: dict[str, dict[str, Any]] = {
    "content": {"content": CONTENT, "ping_every": 2},
    "max_tokens": {
        "content": [{"type": "text", "text": "cut"}],
        "stop_reason": "max_tokens",
        "usage": {"output_tokens": 7, "cache_read_input_tokens": 5},
    },
    "http_529": {"fault": {"kind": "http", "status": 529}},
    "http_401": {"fault": {"kind": "http", "status": 401}},
    "http_409_no_retry": {"fault": {"kind": "http", "status": 409, "headers": {"X-Should-Retry": "false"}}},
    "http_429_retry_after": {"fault": {"kind": "http", "status": 429, "headers": {"retry-after": "3"}}},
    "prompt_too_long": {"fault": {"kind": "prompt_too_long", "tokens": 300_000}},
    "drop": {"content": CONTENT, "fault": {"kind": "drop", "after_events": 5}},
    "drop_before_content": {"content": CONTENT, "fault": {"kind": "drop", "after_events": 2}},
    "sse_error": {"content": CONTENT, "fault": {"kind": "sse_error", "after_events": 4}},
}


async def collect(client: Any, request: ModelRequest = REQUEST) -> tuple[list[dict[str, Any]], ApiError | None]:
    events: list[dict[str, Any]] = []
    try:
        async for event in client.stream(request):
            events.append(event)
    except ApiError as error:
        return events, error
    return events, None


def comparable(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Events with the message id (which each side numbers its own way) taken out."""
    out = []
    for event in events:
        if event["type"] == "message_start":
            event = {**event, "message": {**event["message"], "id": "msg"}}
        out.append(event)
    return out


def error_facts(error: ApiError | None) -> Any:
    if error is None:
        return None
    return (
        type(error),
        error.status,
        error.error_type,
        error.partial,
        error.headers.get("x-should-retry"),
        error.headers.get("retry-after"),
        error.is_prompt_too_long,
    )


@pytest.mark.parametrize("name", list(TURNS))
async def test_same_events_and_errors_as_the_real_client_over_http(name: str, fake_api: Callable[..., Any]):
    scenario = {"turns": [TURNS[name]]}
    server: FakeAnthropicServer = fake_api(scenario)
    client = AnthropicClient(Credentials(api_key="test-key", base_url=server.base_url), idle_timeout_s=DEADLINE_S)
    try:
        over_http = await collect(client)
    finally:
        await client.aclose()
    scripted = ScriptedModel(scenario)
    in_process = await collect(scripted)
    assert comparable(in_process[0]) == comparable(over_http[0])
    assert error_facts(in_process[1]) == error_facts(over_http[1])
    assert scripted.requests == [server.requests[0].body]
    scripted.assert_all_valid()


async def test_a_request_the_api_would_reject_fails_and_takes_no_turn():
    model = ScriptedModel([{"content": [{"type": "text", "text": "hi"}]}])
    bad = ModelRequest(model="m", max_tokens=10, messages=[{"role": "assistant", "content": "first"}])
    events, error = await collect(model, bad)
    assert events == [] and error is not None and error.status == 400
    assert model.turns_consumed == 0 and model.violations
    with pytest.raises(AssertionError, match="would reject"):
        model.assert_all_valid()
    events, error = await collect(model)
    assert error is None and events[-1] == {"type": "message_stop"}


async def test_requests_are_kept_as_sent_even_if_the_caller_changes_its_list_later():
    model = ScriptedModel({"turns": [{"content": [{"type": "text", "text": "a"}]}], "on_exhausted": "echo"})
    messages = [{"role": "user", "content": "first"}]
    await collect(model, ModelRequest(model="m", max_tokens=10, messages=messages))
    messages.append({"role": "assistant", "content": "a"})
    messages.append({"role": "user", "content": "second"})
    events, _ = await collect(model, ModelRequest(model="m", max_tokens=10, messages=messages))
    assert [len(body["messages"]) for body in model.requests] == [1, 3]
    assert any(e.get("delta", {}).get("text") == "second" for e in events)  # echo of the last user text


async def test_a_stall_ends_at_once_as_the_idle_timeout_would_end_it(fake_api: Callable[..., Any]):
    scenario = {"turns": [{"content": CONTENT, "fault": {"kind": "stall", "after_events": 5, "seconds": 300}}]}
    server = fake_api(scenario)
    client = AnthropicClient(Credentials(api_key="test-key", base_url=server.base_url), idle_timeout_s=5)
    try:
        over_http = await collect(client)
    finally:
        await client.aclose()
    in_process = await collect(ScriptedModel(scenario))
    assert comparable(in_process[0]) == comparable(over_http[0])
    assert error_facts(in_process[1]) == error_facts(over_http[1])
