"""SDK-hosted MCP servers (``{"type": "sdk"}``): the program driving agentcli over the SDK protocol runs the server
in its own process, so each JSON-RPC message travels as an ``mcp_message`` control request and the server's answer
comes back in the control response (``{"mcp_response": {...}}``).

The transport below gives the ``mcp`` client the same pair of streams a stdio or HTTP transport does, so the
handshake, listing and tool calls are the ``mcp`` package's own; only the carrying is ours.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

HostedSend = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
"""Sends one JSON-RPC message to the named SDK-hosted server and returns the JSON-RPC answer. Raises
:class:`ConnectionError` once the driving program can no longer answer, any other exception when it refused."""

NOT_DRIVEN = (
    "SDK-hosted MCP servers are only reachable when a program drives agentcli over the SDK protocol "
    "(--input-format stream-json)"
)
_INTERNAL_ERROR = -32603


@contextlib.asynccontextmanager
async def hosted_transport(server: str, send: HostedSend) -> AsyncIterator[tuple[Any, Any]]:
    """An ``mcp`` client transport to the driving program's server ``server``.

    Messages are forwarded concurrently (a slow tool call does not hold up a listing). A refused message becomes a
    JSON-RPC error for that one request; a driving program that went away ends the connection, which the client
    sees as a closed server."""
    import anyio
    from mcp.shared.message import SessionMessage

    to_client, from_server = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    to_server, from_client = anyio.create_memory_object_stream[SessionMessage](16)

    async def deliver(answer: dict[str, Any]) -> None:
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await to_client.send(_session_message(answer))

    async def forward(message: Any) -> None:
        payload: dict[str, Any] = message.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
        is_request = "method" in payload and "id" in payload
        try:
            answer = await send(server, payload)
        except ConnectionError:
            await to_client.aclose()
            return
        except Exception as exc:
            answer = {"error": {"code": _INTERNAL_ERROR, "message": str(exc) or type(exc).__name__}}
        if is_request:
            await deliver(_response_to(payload["id"], answer))

    async def pump() -> None:
        async with anyio.create_task_group() as forwarding:
            async for message in from_client:
                forwarding.start_soon(forward, message)

    async with anyio.create_task_group() as tasks, to_client, from_server, to_server, from_client:
        tasks.start_soon(pump)
        try:
            yield from_server, to_server
        finally:
            tasks.cancel_scope.cancel()


def _response_to(request_id: Any, answer: Any) -> dict[str, Any]:
    """The answer as a JSON-RPC response to ``request_id`` (the id is ours whatever the host echoed)."""
    if isinstance(answer, dict) and isinstance(answer.get("error"), dict):
        return {"jsonrpc": "2.0", "id": request_id, "error": answer["error"]}
    if isinstance(answer, dict) and isinstance(answer.get("result"), dict):
        return {"jsonrpc": "2.0", "id": request_id, "result": answer["result"]}
    error = {"code": _INTERNAL_ERROR, "message": "the driving program answered without a JSON-RPC result"}
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def _session_message(payload: dict[str, Any]) -> Any:
    from mcp.shared.message import SessionMessage
    from mcp_types import jsonrpc_message_adapter

    return SessionMessage(jsonrpc_message_adapter.validate_python(payload, by_name=False))
