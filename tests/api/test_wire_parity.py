"""Nothing changed on the wire: the client sends, byte for byte, what the official SDK sent for the same request
(request line, every header in order, body), and makes the same events and errors of the same responses.

The SDK side is the path the client took before it had its own transport: ``AsyncAnthropic`` with its retries off
and the same timeouts, ``messages.with_streaming_response.create(**request.params(), stream=True)``. Both talk to
a loopback server that keeps the raw bytes.
"""

from __future__ import annotations

import gzip
import json
import socket
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import pytest

from agentcli.api.client import CONNECT_TIMEOUT_S, AnthropicClient, Credentials, ModelRequest
from agentcli.api.errors import ApiConnectionError, ApiError, AuthError, StreamEndedEarly
from agentcli.api.sse import iter_sse_json
from tests.api.raw_server import RawRequest, RawServer, Reply

RECORDED = Path(__file__).with_name("recorded")
IDLE_S = 60.0
PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "no_proxy")


@pytest.fixture(autouse=True)
def no_proxies_but_the_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


def sdk_client(credentials: Credentials) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(
        api_key=credentials.api_key,
        auth_token=credentials.auth_token if not credentials.api_key else None,
        base_url=credentials.base_url,
        max_retries=0,
        timeout=httpx2.Timeout(timeout=None, connect=CONNECT_TIMEOUT_S, read=IDLE_S),
    )


async def sdk_events(client: anthropic.AsyncAnthropic, request: ModelRequest) -> list[dict[str, Any]]:
    async with client.messages.with_streaming_response.create(**request.params(), stream=True) as response:
        return [event async for event in iter_sse_json(response.iter_bytes())]


async def our_events(client: AnthropicClient, request: ModelRequest) -> list[dict[str, Any]]:
    return [event async for event in client.stream(request)]


async def our_events_until_failure(
    client: AnthropicClient, request: ModelRequest
) -> tuple[list[dict[str, Any]], ApiError | None]:
    events: list[dict[str, Any]] = []
    try:
        async for event in client.stream(request):
            events.append(event)
    except ApiError as failure:
        return events, failure
    return events, None


async def sent_by_both(
    server: RawServer, credentials: Credentials, requests: list[ModelRequest]
) -> tuple[list[RawRequest], list[RawRequest], list[list[dict[str, Any]]], list[list[dict[str, Any]]]]:
    """Every request sent by the SDK, then by our client (one client each, so our encoder's memory is in play)."""
    theirs = sdk_client(credentials)
    try:
        their_events = [await sdk_events(theirs, request) for request in requests]
    finally:
        await theirs.close()
    split = len(server.requests)
    ours = AnthropicClient(credentials, idle_timeout_s=IDLE_S)
    try:
        our_event_lists = [await our_events(ours, request) for request in requests]
    finally:
        await ours.aclose()
    return server.requests[:split], server.requests[split:], their_events, our_event_lists


def recorded(path: Path) -> bytes:
    """A recorded stream, ending as a server ends it (some recordings lost the last event's blank line)."""
    body = path.read_bytes()
    return body if body.endswith(b"\n\n") else body.rstrip(b"\n") + b"\n\n"


def minimal_stream() -> bytes:
    return recorded(RECORDED / "anthropic-sdk-python--basic-response.sse")


def _tool(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "description": f"{name} — does “things”",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    }


def growing_conversation() -> list[ModelRequest]:
    """A session's requests: the history grows, breakpoints move, and every kind of block and odd text appears."""
    tools = [_tool("Read"), _tool("Bash")]
    system = 'You are a careful assistant.\u2028Line separators, émoji 🐍 and "quotes" stay as they are.'
    history: list[dict[str, Any]] = [{"role": "user", "content": "look at app.py <please> & report"}]
    requests = []

    def ask(**extra: Any) -> None:
        fields: dict[str, Any] = {"model": "claude-test", "max_tokens": 4096, "system": system, "tools": tools}
        requests.append(ModelRequest(messages=list(history), **{**fields, **extra}))

    ask(metadata={"user_id": "user-1"})
    history.append(
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "I should read it.", "signature": "c2lnbmF0dXJl"},
                {"type": "text", "text": "Reading…"},
                {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"path": "app.py", "n": 1.5e300}},
            ],
        }
    )
    history.append(
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "def add(a, b):\n\treturn a + b\x00"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
            ],
        }
    )
    ask(thinking={"type": "enabled", "budget_tokens": 2048})
    history.append({"role": "assistant", "content": [{"type": "text", "text": "It adds. ✓"}]})
    history.append(
        {"role": "user", "content": [{"type": "text", "text": "and now?", "cache_control": {"type": "ephemeral"}}]}
    )
    ask()
    ask(system=[{"type": "text", "text": "Blocks", "cache_control": {"type": "ephemeral"}}], tools=[])
    ask(cache=False, max_tokens=1)
    return requests


@pytest.mark.parametrize(
    ("credential", "path"),
    [("api_key", ""), ("auth_token", ""), ("api_key", "/gateway/anthropic"), ("auth_token", "/with/slash/")],
)
async def test_the_same_bytes_go_out_for_every_request_of_a_session(credential: str, path: str):
    with RawServer(Reply(body=minimal_stream())) as server:
        credentials = Credentials(**{credential: "secret-value"}, base_url=server.base_url + path)
        theirs, ours, _, _ = await sent_by_both(server, credentials, growing_conversation())
    assert len(theirs) == len(ours) == 5
    for sdk_request, our_request in zip(theirs, ours, strict=True):
        assert our_request.head == sdk_request.head
        assert our_request.body == sdk_request.body
    assert theirs[0].request_line == f"POST {path.rstrip('/')}/v1/messages HTTP/1.1".encode()
    assert b"Authorization: Bearer secret-value" in theirs[0].header_lines
    assert json.loads(ours[2].body)["messages"][1]["content"][0]["type"] == "thinking"


async def test_custom_headers_from_the_environment_are_layered_as_the_sdk_layers_them(monkeypatch):
    monkeypatch.setenv(
        "ANTHROPIC_CUSTOM_HEADERS",
        "X-Gateway-Team: platform\nanthropic-beta: tools-2099\nUser-Agent: corp-proxy/1\nnot a header\nAccept : text/x",
    )
    with RawServer(Reply(body=minimal_stream())) as server:
        credentials = Credentials(api_key="k", base_url=server.base_url)
        theirs, ours, _, _ = await sent_by_both(server, credentials, growing_conversation()[:1])
    assert ours[0].head == theirs[0].head
    assert b"anthropic-beta: tools-2099" in ours[0].header_lines


@pytest.mark.parametrize("stream", sorted(RECORDED.glob("*.sse")), ids=lambda path: path.stem)
async def test_the_same_events_come_in(stream: Path):
    """Every recorded stream: the same events, in order; one that ends early or carries an error fails there."""
    request = ModelRequest(model="m", max_tokens=10, messages=[{"role": "user", "content": "hi"}])
    with RawServer(Reply(body=recorded(stream))) as server:
        credentials = Credentials(api_key="k", base_url=server.base_url)
        theirs = sdk_client(credentials)
        try:
            expected = await sdk_events(theirs, request)
        finally:
            await theirs.close()
        ours = AnthropicClient(credentials)
        try:
            events, failure = await our_events_until_failure(ours, request)
        finally:
            await ours.aclose()
    assert events == expected[: len(events)]
    match failure:
        case None:
            assert events == expected and events[-1]["type"] == "message_stop"
        case StreamEndedEarly():
            assert events == expected and all(event["type"] != "message_stop" for event in expected)
        case ApiError():
            assert expected[len(events)]["type"] == "error"
            assert failure.error_type == expected[len(events)]["error"]["type"]


async def test_a_compressed_stream_is_decoded_the_same_way():
    headers = [("content-type", "text/event-stream"), ("content-encoding", "gzip")]
    with RawServer(Reply(headers=headers, body=gzip.compress(minimal_stream()))) as server:
        credentials = Credentials(api_key="k", base_url=server.base_url)
        _, _, theirs, ours = await sent_by_both(server, credentials, growing_conversation()[:1])
    assert ours == theirs
    assert ours[0][-1]["type"] == "message_stop"


def old_mapping(exc: anthropic.APIStatusError) -> tuple[type[ApiError], str, dict[str, Any]]:
    """What the client made of an SDK status error before: the body's message, else the SDK's summary."""
    body: dict[str, Any] = exc.body if isinstance(exc.body, dict) else {}
    error: dict[str, Any] = body["error"] if isinstance(body.get("error"), dict) else {}
    message = str(error.get("message") or exc.message)
    headers = {key.lower(): value for key, value in exc.response.headers.items()}
    fields = {"status": exc.status_code, "error_type": error.get("type"), "request_id": headers.get("request-id")}
    return (AuthError if exc.status_code in (401, 403) else ApiError), message, {**fields, "headers": headers}


def error_reply(status: int, reason: str, body: bytes, *headers: tuple[str, str]) -> Reply:
    return Reply(status, reason, [("content-type", "application/json"), *headers], body)


def _json_error(kind: str, message: str) -> bytes:
    return json.dumps({"type": "error", "error": {"type": kind, "message": message}}).encode()


@pytest.mark.parametrize(
    "reply",
    [
        error_reply(529, "Overloaded", _json_error("overloaded_error", "Overloaded"), ("request-id", "req_529")),
        error_reply(
            429,
            "Too Many Requests",
            _json_error("rate_limit_error", "slow down"),
            ("retry-after", "7"),
            ("retry-after-ms", "6500"),
            ("x-should-retry", "true"),
        ),
        error_reply(400, "Bad Request", _json_error("invalid_request_error", "prompt is too long: 9 > 5")),
        error_reply(500, "Internal Server Error", b"upstream broke", ("x-should-retry", "false")),
        error_reply(502, "Bad Gateway", b""),
        error_reply(401, "Unauthorized", _json_error("authentication_error", "invalid x-api-key")),
    ],
    ids=lambda reply: str(reply.status),
)
async def test_error_statuses_map_to_the_same_errors(reply: Reply):
    request = growing_conversation()[0]
    with RawServer(reply) as server:
        credentials = Credentials(api_key="k", base_url=server.base_url)
        theirs = sdk_client(credentials)
        with pytest.raises(anthropic.APIStatusError) as sdk_failure:
            await sdk_events(theirs, request)
        await theirs.close()
        ours = AnthropicClient(credentials)
        with pytest.raises(ApiError) as our_failure:
            await our_events(ours, request)
        await ours.aclose()
    kind, message, fields = old_mapping(sdk_failure.value)
    error = our_failure.value
    assert type(error) is kind
    assert {"status": error.status, "error_type": error.error_type, "request_id": error.request_id} == {
        key: fields[key] for key in ("status", "error_type", "request_id")
    }
    assert error.headers == fields["headers"]
    assert error.message == message or (kind is AuthError and message in error.message)
    assert not error.partial


async def test_a_refused_connection_is_a_connection_error_worded_as_before():
    with socket.create_server(("127.0.0.1", 0)) as placeholder:
        port = placeholder.getsockname()[1]
    credentials = Credentials(api_key="k", base_url=f"http://127.0.0.1:{port}")
    theirs = sdk_client(credentials)
    with pytest.raises(anthropic.APIConnectionError) as sdk_failure:
        await sdk_events(theirs, growing_conversation()[0])
    await theirs.close()
    ours = AnthropicClient(credentials)
    with pytest.raises(ApiConnectionError) as our_failure:
        await our_events(ours, growing_conversation()[0])
    await ours.aclose()
    cause = sdk_failure.value.__cause__
    assert our_failure.value.message == f"connection failed: {sdk_failure.value} ({type(cause).__name__}: {cause})"


async def test_proxies_come_from_the_environment_as_the_sdk_reads_them(monkeypatch: pytest.MonkeyPatch):
    """HTTP_PROXY carries the request (absolute form, to the proxy); NO_PROXY sends it straight to the host."""
    with RawServer(Reply(body=minimal_stream())) as proxy, RawServer(Reply(body=minimal_stream())) as direct:
        monkeypatch.setenv("HTTP_PROXY", proxy.base_url)
        credentials = Credentials(api_key="k", base_url=direct.base_url)
        theirs, ours, _, _ = await sent_by_both(proxy, credentials, growing_conversation()[:1])
        assert ours[0].head == theirs[0].head and ours[0].body == theirs[0].body
        assert ours[0].request_line == f"POST {direct.base_url}/v1/messages HTTP/1.1".encode()
        assert direct.requests == []
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        theirs, ours, _, _ = await sent_by_both(direct, credentials, growing_conversation()[:1])
        assert ours[0].head == theirs[0].head
        assert len(proxy.requests) == 2


def test_the_client_describes_itself_as_the_installed_sdk_does():
    from anthropic._base_client import platform_headers
    from anthropic._constants import ANTHROPIC_API_VERSION

    from agentcli.api import headers

    assert headers.API_VERSION == ANTHROPIC_API_VERSION
    assert headers.sdk_version() == anthropic.__version__
    assert dict(headers._platform_headers(anthropic.__version__)) == platform_headers(
        anthropic.__version__, platform=None
    )


@pytest.mark.parametrize(
    "no_proxy",
    [
        "",
        "*",
        "localhost,127.0.0.1",
        "::1,fe80::/10,10.0.0.0/8",
        "example.com, .corp.example ,http://plain.example",
        "a,*",
    ],
)
def test_proxy_mounts_are_read_from_the_environment_as_the_sdk_reads_them(monkeypatch, no_proxy: str):
    from anthropic._utils._httpx import get_environment_proxies

    from agentcli.api.transport import environment_proxies

    monkeypatch.setenv("HTTPS_PROXY", "proxy.example:3128")
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("NO_PROXY", no_proxy)
    assert environment_proxies() == dict(get_environment_proxies())
