"""The model client: one streamed Messages API request, sent over :mod:`agentcli.api.transport`.

The body is encoded by :mod:`agentcli.api.body` (incrementally) and the SSE stream parsed by :mod:`agentcli.api.sse`;
the official SDK is not on this path, so the first request never waits for it to import. Retry and fallback are
policy, and policy lives in ``retry.py`` where it can see the whole turn.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Protocol

from agentcli.api import sdk
from agentcli.api.body import RequestEncoder
from agentcli.api.errors import ApiError, StreamEndedEarly
from agentcli.api.request import ModelRequest
from agentcli.api.sse import iter_sse_json
from agentcli.api.transport import Credentials, HttpTransport, connection_error

__all__ = ["AnthropicClient", "Credentials", "ModelClient", "ModelRequest"]

DEFAULT_IDLE_TIMEOUT_S = 60.0
CONNECT_TIMEOUT_S = 10.0


class ModelClient(Protocol):
    """What the loop needs from a model: a stream of raw event dicts for one request."""

    def stream(self, request: ModelRequest) -> AsyncIterator[dict[str, Any]]: ...

    async def aclose(self) -> None: ...


class AnthropicClient:
    """Streams Messages API responses; raises :class:`ApiError` subclasses, never the HTTP library's exceptions."""

    def __init__(self, credentials: Credentials, *, idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S) -> None:
        self.credentials = credentials
        self.idle_timeout_s = idle_timeout_s
        self.transport = HttpTransport(credentials, connect_timeout_s=CONNECT_TIMEOUT_S, read_timeout_s=idle_timeout_s)
        self._encoder = RequestEncoder()

    def warm_up(self) -> None:
        """Build the connection pool and TLS context now (faces call this in a thread before the first prompt)."""
        self.transport.warm_up()

    async def aclose(self) -> None:
        await self.transport.aclose()

    async def stream(self, request: ModelRequest) -> AsyncIterator[dict[str, Any]]:
        import httpx2

        saw_output = False
        finished = False
        try:
            async with self.transport.post_messages(self._encoder.encode(request)) as response:
                async for event in iter_sse_json(response.aiter_bytes(), merge_text=request.merge_text_deltas):
                    etype = event.get("type")
                    if etype == "error":
                        error = event.get("error") or {}
                        raise ApiError(
                            error.get("message") or "stream error",
                            status=_status_for_error_type(error.get("type")),
                            error_type=error.get("type"),
                            request_id=response.headers.get("request-id"),
                            partial=saw_output,
                        )
                    if etype == "message_stop":
                        finished = True
                    elif etype == "content_block_start":
                        saw_output = True
                    yield event
        except ApiError:
            raise
        except httpx2.HTTPError as exc:
            raise connection_error(exc, str(exc), exc.__cause__ or exc.__context__, partial=saw_output) from exc
        finally:
            sdk.first_response_over()
        if not finished:
            raise StreamEndedEarly("the stream ended before message_stop", partial=saw_output)


def _status_for_error_type(error_type: str | None) -> int | None:
    return {
        "overloaded_error": 529,
        "rate_limit_error": 429,
        "api_error": 500,
        "timeout_error": 504,
        "invalid_request_error": 400,
        "authentication_error": 401,
        "permission_error": 403,
    }.get(error_type or "")
