"""The fake server end to end, driven by the real SDK (sync and async) and by raw HTTP."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

import anthropic
import httpx2
import pytest

from agentcli.testing import FakeAnthropicServer
from tests.waiting import DEADLINE_S, wait_until

Serve = Callable[..., FakeAnthropicServer]
TRICKY = {"file_path": "/tmp/é/漢字/🎉.txt", "content": 'line "one"\nline\\two\ttab', "n": [1, 2.5, None, True]}
USER = [{"role": "user", "content": "hello"}]
ARGS: dict[str, Any] = {"model": "claude-test", "max_tokens": 1024, "messages": USER}


def rich_turn(ensure_ascii: bool = False) -> dict[str, Any]:
    return {
        "content": [
            {
                "type": "thinking",
                "thinking": "Let me think about é and 🎉 carefully.",
                "signature": "sig_abc",
                "chunks": 7,
            },
            {"type": "redacted_thinking", "data": "opaque-blob"},
            {"type": "text", "text": "Hello **world**\n\n```python\nprint('漢字')\n```\n", "chunks": 11},
            {
                "type": "tool_use",
                "id": "toolu_01",
                "name": "Write",
                "input": TRICKY,
                "chunks": 60,
                "ensure_ascii": ensure_ascii,
            },
        ]
    }


def expected_content() -> list[dict[str, Any]]:
    return [
        {"type": "thinking", "thinking": "Let me think about é and 🎉 carefully.", "signature": "sig_abc"},
        {"type": "redacted_thinking", "data": "opaque-blob"},
        {"type": "text", "text": "Hello **world**\n\n```python\nprint('漢字')\n```\n"},
        {"type": "tool_use", "id": "toolu_01", "name": "Write", "input": TRICKY},
    ]


def plain(message: anthropic.types.Message) -> list[dict[str, Any]]:
    return [b.model_dump(exclude_none=True, exclude={"parsed_output"}) for b in message.content]


@pytest.mark.parametrize("ensure_ascii", [False, True])
def test_sync_stream_reconstructs_scripted_content(serve: Serve, client_for: Callable, ensure_ascii: bool) -> None:
    server = serve({"turns": [rich_turn(ensure_ascii)]})
    with client_for(server).messages.stream(**ARGS) as stream:
        message = stream.get_final_message()
    assert plain(message) == expected_content()
    assert message.stop_reason == "tool_use"
    assert message.model == "claude-test"
    assert message.id == "msg_fake_1"
    assert message.usage.output_tokens > 1 and message.usage.input_tokens > 0
    server.assert_all_valid()


@pytest.mark.parametrize("ensure_ascii", [False, True])
async def test_async_stream_reconstructs_scripted_content(
    serve: Serve, async_client_for: Callable, ensure_ascii: bool
) -> None:
    server = serve({"turns": [rich_turn(ensure_ascii)]})
    async with async_client_for(server).messages.stream(**ARGS) as stream:
        message = await stream.get_final_message()
    assert plain(message) == expected_content()
    server.assert_all_valid()


def test_non_streaming_returns_whole_message(serve: Serve, client_for: Callable) -> None:
    server = serve(
        {"turns": [{**rich_turn(), "id": "msg_scripted", "usage": {"input_tokens": 42, "output_tokens": 7}}]}
    )
    message = client_for(server).messages.create(**ARGS)
    assert plain(message) == expected_content()
    assert message.id == "msg_scripted"
    assert (message.usage.input_tokens, message.usage.output_tokens) == (42, 7)
    assert server.requests[0].body is not None and "stream" not in server.requests[0].body


def test_event_order_seen_by_sdk(serve: Serve, client_for: Callable) -> None:
    server = serve({"turns": [{"content": [{"type": "text", "text": "abc", "chunks": 3}], "ping_every": 2}]})
    stream = client_for(server).messages.create(**ARGS, stream=True)
    types = [event.type for event in stream]
    assert types == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]


def test_round_trip_of_sdk_message_is_valid(serve: Serve, client_for: Callable) -> None:
    server = serve(
        {
            "turns": [
                rich_turn(),
                {"content": [{"type": "text", "text": "done"}], "expect": {"tool_result_for": "toolu_01"}},
            ]
        }
    )
    client = client_for(server)
    tools = [{"name": "Write", "input_schema": {"type": "object"}}]
    thinking = {"type": "enabled", "budget_tokens": 1024}
    with client.messages.stream(**{**ARGS, "max_tokens": 2048}, tools=tools, thinking=thinking) as stream:
        first = stream.get_final_message()
    messages = [
        *USER,
        first.to_param(),
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "written"}]},
    ]
    second = client.messages.create(
        model="claude-test", max_tokens=2048, messages=messages, tools=tools, thinking=thinking
    )
    assert second.content[0].type == "text"
    server.assert_all_valid()
    assert [r.turn_index for r in server.requests] == [0, 1]


def test_requests_are_recorded(serve: Serve, client_for: Callable) -> None:
    server = serve({"turns": [{"content": [{"type": "text", "text": "hi"}]}]})
    before = time.monotonic()
    client_for(server).messages.create(**ARGS)
    (record,) = server.requests
    assert record.path == "/v1/messages"
    assert record.body == ARGS
    assert "test-key" in (record.headers.get("x-api-key") or record.headers["authorization"])
    assert "anthropic-version" in record.headers
    assert record.turn_index == 0 and record.violations == [] and record.status == 200
    assert before <= record.time <= time.monotonic()
    assert server.turns_consumed == 1


def test_request_id_on_every_response(serve: Serve, client_for: Callable) -> None:
    server = serve({"turns": [{"content": [{"type": "text", "text": "hi"}]}] * 2})
    client = client_for(server)
    raw = client.messages.with_raw_response.create(**ARGS)
    assert raw.headers["request-id"] == "req_fake_1"
    with client.messages.with_streaming_response.create(**ARGS, stream=True) as response:
        assert response.headers["request-id"] == "req_fake_2"
        assert response.headers["content-type"].startswith("text/event-stream")
        assert response.headers["transfer-encoding"] == "chunked"
    with pytest.raises(anthropic.BadRequestError) as excinfo:
        client.messages.create(model="m", max_tokens=1, messages=[])
    assert excinfo.value.request_id == "req_fake_3"


def test_invalid_request_gets_400_and_does_not_consume_a_turn(serve: Serve, client_for: Callable) -> None:
    server = serve({"turns": [{"content": [{"type": "text", "text": "first"}]}]})
    client = client_for(server)
    with pytest.raises(anthropic.BadRequestError) as excinfo:
        client.messages.create(
            model="m", max_tokens=10, messages=[{"role": "user", "content": [{"type": "text", "text": ""}]}]
        )
    assert excinfo.value.type == "invalid_request_error"
    assert "text content blocks must be non-empty" in str(excinfo.value.api_message)
    assert server.requests[0].turn_index is None and server.requests[0].violations
    assert client.messages.create(**ARGS).content[0].text == "first"
    with pytest.raises(AssertionError, match=r"request #0 POST /v1/messages"):
        server.assert_all_valid()


def test_unparseable_body_is_a_violation(serve: Serve) -> None:
    server = serve({"turns": []})
    response = httpx2.post(
        f"{server.base_url}/v1/messages", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert response.status_code == 400
    assert "not valid JSON" in response.json()["error"]["message"]


def test_failed_expectation_is_recorded_but_turn_served(serve: Serve, client_for: Callable) -> None:
    server = serve(
        {
            "turns": [
                {
                    "content": [{"type": "text", "text": "ok"}],
                    "expect": {"last_user_text_contains": "README", "tool_result_for": "toolu_x"},
                }
            ]
        }
    )
    assert client_for(server).messages.create(**ARGS).content[0].text == "ok"
    violations = server.requests[0].violations
    assert len(violations) == 2 and all(v.startswith("expectation: ") for v in violations)
    with pytest.raises(AssertionError, match="expectation: last user text does not contain 'README'"):
        server.assert_all_valid()


def test_passing_expectation(serve: Serve, client_for: Callable) -> None:
    server = serve(
        {"turns": [{"content": [{"type": "text", "text": "ok"}], "expect": {"last_user_text_contains": "ell"}}]}
    )
    client_for(server).messages.create(**ARGS)
    server.assert_all_valid()


def test_exhausted_error(serve: Serve, client_for: Callable) -> None:
    server = serve({"turns": [{"content": [{"type": "text", "text": "one"}]}]})
    client = client_for(server)
    client.messages.create(**ARGS)
    with pytest.raises(anthropic.InternalServerError) as excinfo:
        client.messages.create(**ARGS)
    assert excinfo.value.status_code == 500
    assert excinfo.value.type == "api_error" and excinfo.value.api_message == "scenario exhausted"


def test_exhausted_repeat_last(serve: Serve, client_for: Callable) -> None:
    server = serve(
        {
            "turns": [{"content": [{"type": "text", "text": "a"}]}, {"content": [{"type": "text", "text": "b"}]}],
            "on_exhausted": "repeat_last",
        }
    )
    client = client_for(server)
    assert [client.messages.create(**ARGS).content[0].text for _ in range(4)] == ["a", "b", "b", "b"]
    assert [r.turn_index for r in server.requests] == [0, 1, 1, 1]


async def test_exhausted_echo(serve: Serve, async_client_for: Callable) -> None:
    server = serve({"turns": [], "on_exhausted": "echo"})
    client = async_client_for(server)
    messages = [{"role": "user", "content": [{"type": "text", "text": "echo me"}]}]
    async with client.messages.stream(model="m", max_tokens=5, messages=messages) as stream:
        assert await stream.get_final_text() == "echo me"


def test_model_falls_back_to_scenario_model_only_when_missing(serve: Serve, client_for: Callable) -> None:
    server = serve({"model": "claude-sonnet-5-5", "turns": [{"content": [{"type": "text", "text": "x"}]}]})
    assert client_for(server).messages.create(**ARGS).model == "claude-test"


def test_stop_sequence(serve: Serve, client_for: Callable) -> None:
    turn = {"content": [{"type": "text", "text": "x"}], "stop_reason": "stop_sequence", "stop_sequence": "END"}
    server = serve({"turns": [turn]})
    with client_for(server).messages.stream(**ARGS, stop_sequences=["END"]) as stream:
        message = stream.get_final_message()
    assert (message.stop_reason, message.stop_sequence) == ("stop_sequence", "END")


def test_count_tokens(serve: Serve, client_for: Callable) -> None:
    server = serve({"turns": []})
    result = client_for(server).messages.count_tokens(model="m", messages=USER, system="be brief")
    body = {"messages": USER, "system": "be brief", "tools": None}
    assert result.input_tokens == len(json.dumps(body, ensure_ascii=False)) // 4
    assert server.requests[0].path == "/v1/messages/count_tokens" and server.turns_consumed == 0


def test_count_tokens_validates(serve: Serve, client_for: Callable) -> None:
    server = serve({"turns": []})
    with pytest.raises(anthropic.BadRequestError):
        client_for(server).messages.count_tokens(model="m", messages=[])


def test_unknown_path_is_404_with_real_error_shape(serve: Serve) -> None:
    server = serve({"turns": []})
    response = httpx2.get(f"{server.base_url}/v1/models")
    assert response.status_code == 404
    assert response.headers["request-id"] == "req_fake_1"
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {
        "type": "error",
        "error": {"type": "not_found_error", "message": "Not found: /v1/models"},
        "request_id": "req_fake_1",
    }
    assert server.requests[0].violations == ["no such endpoint: GET /v1/models"]


def test_beta_requests_are_routed(serve: Serve, client_for: Callable) -> None:
    server = serve({"turns": [{"content": [{"type": "text", "text": "x"}]}] * 2})
    client_for(server).beta.messages.create(**ARGS, betas=["some-beta-2025-01-01"])
    assert server.requests[0].headers["anthropic-beta"] == "some-beta-2025-01-01"
    response = httpx2.post(f"{server.base_url}/v1/messages?beta=true", json=ARGS)
    assert response.status_code == 200
    assert server.requests[1].path == "/v1/messages" and server.requests[1].query == "beta=true"


def test_raw_http_stream_is_chunked_sse(serve: Serve) -> None:
    server = serve({"turns": [{"content": [{"type": "text", "text": "héllo", "chunks": 5}]}]})
    with (
        httpx2.Client() as http,
        http.stream("POST", f"{server.base_url}/v1/messages", json={**ARGS, "stream": True}) as response,
    ):
        assert response.status_code == 200
        assert response.headers["transfer-encoding"] == "chunked"
        data = response.read()
    frames = data.decode().split("\n\n")
    assert frames[-1] == ""
    events = [
        (f.split("\n")[0].removeprefix("event: "), json.loads(f.split("\n")[1].removeprefix("data: ")))
        for f in frames[:-1]
    ]
    assert [name for name, _ in events][:2] == ["message_start", "ping"]
    deltas = [d["delta"]["text"] for name, d in events if name == "content_block_delta"]
    assert deltas == ["h", "é", "l", "l", "o"]


def test_keep_alive_connection_serves_many_requests(serve: Serve) -> None:
    server = serve({"turns": [{"content": [{"type": "text", "text": "x"}]}] * 3})
    with httpx2.Client() as http:
        for stream in (True, False, True):
            response = http.post(f"{server.base_url}/v1/messages", json={**ARGS, "stream": stream})
            assert response.status_code == 200
    assert server.turns_consumed == 3


def test_stop_interrupts_a_slow_stream(client_for: Callable) -> None:
    server = FakeAnthropicServer(
        {"turns": [{"content": [{"type": "text", "text": "x" * 100, "chunks": 100}], "delay_ms": 3000}]}
    ).start()
    errors: list[BaseException] = []

    def consume() -> None:
        try:
            with client_for(server).messages.stream(**ARGS) as stream:
                stream.get_final_message()
        except Exception as exc:
            errors.append(exc)

    thread = threading.Thread(target=consume)
    thread.start()
    wait_until(lambda: server.requests, "the stream to begin")
    server.stop()
    thread.join(timeout=DEADLINE_S)
    assert not thread.is_alive()  # cut, not played out (the stream lasts 300 s)
    assert errors


def test_log_file(serve: Serve, client_for: Callable, tmp_path: Any) -> None:
    log = tmp_path / "requests.jsonl"
    server = serve({"turns": [{"content": [{"type": "text", "text": "x"}]}]}, log_path=log)
    client = client_for(server)
    client.messages.create(**ARGS)
    with pytest.raises(anthropic.BadRequestError):
        client.messages.create(model="m", max_tokens=1, messages=[])
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [line["turn_index"] for line in lines] == [0, None]
    assert lines[0]["path"] == "/v1/messages" and lines[0]["body"] == ARGS and lines[0]["violations"] == []
    assert lines[1]["violations"]
    assert "T" in lines[0]["time"]
    assert "test-key" not in log.read_text()
    assert all("x-api-key" not in line["headers"] and "authorization" not in line["headers"] for line in lines)
