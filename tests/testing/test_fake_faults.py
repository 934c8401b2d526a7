"""Scripted faults, and what the SDK makes of each."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

import anthropic
import httpx2
import pytest

from agentcli.testing import FakeAnthropicServer
from tests.waiting import DEADLINE_S, wait_until

Serve = Callable[..., FakeAnthropicServer]
ARGS: dict[str, Any] = {"model": "claude-test", "max_tokens": 1024, "messages": [{"role": "user", "content": "hi"}]}
TEXT = [{"type": "text", "text": "0123456789", "chunks": 10}]


def faulted(fault: dict[str, Any], **turn: Any) -> dict[str, Any]:
    return {"turns": [{"content": TEXT, "fault": fault, **turn}, {"content": [{"type": "text", "text": "after"}]}]}


def raw_frames(server: FakeAnthropicServer) -> tuple[list[str], BaseException | None]:
    """Event names received over raw HTTP, and the error that ended the read, if any."""
    received = b""
    error: BaseException | None = None
    with httpx2.Client() as http:
        try:
            with http.stream("POST", f"{server.base_url}/v1/messages", json={**ARGS, "stream": True}) as response:
                for data in response.iter_bytes():
                    received += data
        except httpx2.HTTPError as exc:
            error = exc
    frames = [f for f in received.decode().split("\n\n") if f]
    return [f.split("\n")[0].removeprefix("event: ") for f in frames], error


@pytest.mark.parametrize(
    ("status", "exc_type", "error_type"),
    [
        (400, anthropic.BadRequestError, "invalid_request_error"),
        (401, anthropic.AuthenticationError, "authentication_error"),
        (403, anthropic.PermissionDeniedError, "permission_error"),
        (404, anthropic.NotFoundError, "not_found_error"),
        (429, anthropic.RateLimitError, "rate_limit_error"),
        (500, anthropic.InternalServerError, "api_error"),
        (503, anthropic.InternalServerError, "api_error"),
        (529, anthropic.OverloadedError, "overloaded_error"),
    ],
)
def test_http_fault_raises_matching_sdk_error(
    serve: Serve, client_for: Callable, status: int, exc_type: type, error_type: str
) -> None:
    server = serve(faulted({"kind": "http", "status": status}))
    with pytest.raises(exc_type) as excinfo:
        client_for(server).messages.create(**ARGS)
    assert excinfo.value.status_code == status
    assert excinfo.value.type == error_type
    assert excinfo.value.request_id == "req_fake_1"
    assert excinfo.value.body["request_id"] == "req_fake_1"
    assert server.requests[0].turn_index == 0 and server.requests[0].status == status


def test_http_fault_headers_and_message(serve: Serve, client_for: Callable) -> None:
    fault = {
        "kind": "http",
        "status": 529,
        "message": "Overloaded right now",
        "headers": {"retry-after": "2", "x-should-retry": "true"},
    }
    server = serve(faulted(fault))
    client = client_for(server)
    with pytest.raises(anthropic.OverloadedError) as excinfo, client.messages.stream(**ARGS) as stream:
        stream.get_final_message()
    headers = excinfo.value.response.headers
    assert headers["retry-after"] == "2" and headers["x-should-retry"] == "true"
    assert headers["content-type"] == "application/json"
    assert excinfo.value.api_message == "Overloaded right now"
    assert client.messages.create(**ARGS).content[0].text == "after"


def test_sdk_retries_a_fault_then_succeeds(serve: Serve) -> None:
    server = serve(faulted({"kind": "http", "status": 529, "headers": {"retry-after-ms": "10"}}))
    with anthropic.Anthropic(base_url=server.base_url, api_key="k", max_retries=2) as client:
        assert client.messages.create(**ARGS).content[0].text == "after"
    assert [r.status for r in server.requests] == [529, 200]


def test_prompt_too_long(serve: Serve, client_for: Callable) -> None:
    server = serve(faulted({"kind": "prompt_too_long", "tokens": 250000, "maximum": 200000}))
    with pytest.raises(anthropic.BadRequestError) as excinfo:
        client_for(server).messages.create(**ARGS)
    assert excinfo.value.api_message == "prompt is too long: 250000 tokens > 200000 maximum"
    assert excinfo.value.type == "invalid_request_error"


def test_drop_cuts_the_stream_after_n_events(serve: Serve) -> None:
    server = serve(faulted({"kind": "drop", "after_events": 5}))
    names, error = raw_frames(server)
    assert names == ["message_start", "ping", "content_block_start", "content_block_delta", "content_block_delta"]
    assert isinstance(error, httpx2.RemoteProtocolError)


def test_drop_breaks_the_sdk_stream(serve: Serve, client_for: Callable) -> None:
    server = serve(faulted({"kind": "drop", "after_events": 6}))
    client = client_for(server)
    seen: list[str] = []
    with pytest.raises(httpx2.RemoteProtocolError), client.messages.stream(**ARGS) as stream:
        seen.extend(event.type for event in stream)
    assert seen[:2] == ["message_start", "content_block_start"]
    assert "message_stop" not in seen
    assert client.messages.create(**ARGS).content[0].text == "after"


async def test_drop_breaks_the_async_sdk_stream(serve: Serve, async_client_for: Callable) -> None:
    server = serve(faulted({"kind": "drop", "after_events": 3}))
    with pytest.raises(httpx2.RemoteProtocolError):
        async with async_client_for(server).messages.stream(**ARGS) as stream:
            await stream.get_final_message()


def test_drop_on_non_streaming_request_is_connection_error(serve: Serve, client_for: Callable) -> None:
    server = serve(faulted({"kind": "drop"}))
    with pytest.raises(anthropic.APIConnectionError):
        client_for(server).messages.create(**ARGS)


def test_stall_goes_silent_until_client_gives_up(serve: Serve, client_for: Callable) -> None:
    server = serve(faulted({"kind": "stall", "after_events": 4, "seconds": 300}))
    client = client_for(server, timeout=httpx2.Timeout(30.0, read=2.0))
    seen: list[str] = []
    started = time.monotonic()
    with pytest.raises(httpx2.ReadTimeout), client.messages.stream(**ARGS) as stream:
        seen.extend(event.type for event in stream)  # the stall's end would be a protocol error, not a timeout
    assert time.monotonic() - started >= 2.0  # a floor: the server kept quiet until the client gave up
    assert [t for t in seen if t != "text"] == ["message_start", "content_block_start", "content_block_delta"]


def test_stall_ends_after_its_seconds(serve: Serve) -> None:
    server = serve(faulted({"kind": "stall", "after_events": 2, "seconds": 0.3}))
    started = time.monotonic()
    names, error = raw_frames(server)
    assert time.monotonic() - started >= 0.3
    assert names == ["message_start", "ping"]
    assert isinstance(error, httpx2.RemoteProtocolError)


async def test_stall_ends_when_the_server_stops(async_client_for: Callable) -> None:
    server = FakeAnthropicServer(faulted({"kind": "stall", "after_events": 2, "seconds": 3600})).start()
    client = async_client_for(server)

    async def read() -> None:
        async with client.messages.stream(**ARGS) as stream:
            async for event in stream:
                assert event.type == "message_start"
                server.stop()

    with pytest.raises(httpx2.HTTPError):
        await asyncio.wait_for(read(), DEADLINE_S)  # the stop cut it: the silence lasts an hour


def test_sse_error_raises_api_status_error(serve: Serve, client_for: Callable) -> None:
    server = serve(
        faulted({"kind": "sse_error", "after_events": 4, "error_type": "overloaded_error", "message": "Overloaded"})
    )
    client = client_for(server)
    seen: list[str] = []
    with pytest.raises(anthropic.APIStatusError) as excinfo, client.messages.stream(**ARGS) as stream:
        seen.extend(event.type for event in stream)
    assert excinfo.value.status_code == 200
    assert excinfo.value.type == "overloaded_error" and excinfo.value.api_message == "Overloaded"
    assert excinfo.value.request_id == "req_fake_1"
    assert [t for t in seen if t != "text"] == ["message_start", "content_block_start", "content_block_delta"]
    assert client.messages.create(**ARGS).content[0].text == "after"


def test_sse_error_ends_the_stream_properly(serve: Serve) -> None:
    server = serve(faulted({"kind": "sse_error", "after_events": 2}))
    names, error = raw_frames(server)
    assert names == ["message_start", "ping", "error"]
    assert error is None


def test_sse_error_on_non_streaming_request_is_http_error(serve: Serve, client_for: Callable) -> None:
    server = serve(faulted({"kind": "sse_error", "error_type": "overloaded_error"}))
    with pytest.raises(anthropic.OverloadedError):
        client_for(server).messages.create(**ARGS)


def test_faulted_turn_still_validates_the_request(serve: Serve, client_for: Callable, tmp_path: Any) -> None:
    log = tmp_path / "log.jsonl"
    server = serve(faulted({"kind": "http", "status": 529}), log_path=log)
    client = client_for(server)
    with pytest.raises(anthropic.BadRequestError):
        client.messages.create(model="m", max_tokens=10, messages=[{"role": "assistant", "content": "x"}])
    with pytest.raises(anthropic.OverloadedError):
        client.messages.create(**ARGS)
    assert [(r.turn_index, r.status, bool(r.violations)) for r in server.requests] == [
        (None, 400, True),
        (0, 529, False),
    ]
    assert [json.loads(line)["turn_index"] for line in log.read_text().splitlines()] == [None, 0]


def test_first_byte_delay_applies_to_faults(serve: Serve, client_for: Callable) -> None:
    server = serve(faulted({"kind": "http", "status": 500}, first_byte_delay_ms=200))
    started = time.monotonic()
    with pytest.raises(anthropic.InternalServerError):
        client_for(server).messages.create(**ARGS)
    assert time.monotonic() - started >= 0.2


def test_a_client_that_dies_mid_body_sent_no_request():
    """Killed while sending: the half request is not judged (it never reached the API), only counted."""
    import socket

    from agentcli.testing import FakeAnthropicServer

    with FakeAnthropicServer({"turns": [{"content": [{"type": "text", "text": "hi"}]}]}) as server:
        host, port = server.base_url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port))) as sock:
            sock.sendall(
                b"POST /v1/messages HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n"
                b'content-length: 500\r\n\r\n{"model": "claude'
            )
        wait_until(lambda: server.incomplete_requests, "the half request to be counted")
        assert server.incomplete_requests == 1
        assert server.requests == []
        server.assert_all_valid()
