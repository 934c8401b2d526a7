"""The model client: one streamed Messages API request through the official SDK.

The SDK is imported on first use (it costs about a second), with its own retries off: retry and fallback are
policy, and policy lives in ``retry.py`` where it can see the whole turn.
"""

from __future__ import annotations

import contextlib
import importlib
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from agentcli.api.cache import with_cache_breakpoints
from agentcli.api.errors import ApiConnectionError, ApiError, AuthError, StreamEndedEarly
from agentcli.api.sse import iter_sse_json

DEFAULT_IDLE_TIMEOUT_S = 60.0
CONNECT_TIMEOUT_S = 10.0


@dataclass(slots=True)
class ModelRequest:
    """Everything one Messages API call needs. ``messages`` are never mutated: :meth:`params` copies only the few
    messages that carry a prompt-cache breakpoint."""

    model: str
    max_tokens: int
    messages: list[dict[str, Any]]
    system: str | list[dict[str, Any]] | None = None
    tools: list[dict[str, Any]] = field(default_factory=list)
    thinking: dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None
    cache: bool = True
    """Mark prompt-cache breakpoints (:mod:`agentcli.api.cache`); off for one-off requests, where writing the
    cache costs more than it could save."""
    merge_text_deltas: bool = False
    """Text deltas that arrive together may come out as one (:func:`agentcli.api.sse.iter_sse_json`); not sent."""

    def params(self) -> dict[str, Any]:
        params: dict[str, Any] = {"model": self.model, "max_tokens": self.max_tokens, "messages": self.messages}
        if self.system:
            params["system"] = self.system
        if self.tools:
            params["tools"] = self.tools
        if self.thinking:
            params["thinking"] = self.thinking
        if self.metadata:
            params["metadata"] = self.metadata
        return with_cache_breakpoints(params) if self.cache else params


class ModelClient(Protocol):
    """What the loop needs from a model: a stream of raw event dicts for one request."""

    def stream(self, request: ModelRequest) -> AsyncIterator[dict[str, Any]]: ...

    async def aclose(self) -> None: ...


@dataclass(slots=True)
class Credentials:
    api_key: str | None = None
    auth_token: str | None = None
    base_url: str | None = None

    @property
    def source(self) -> str:
        """Which credential is in use, for messages (never the value itself)."""
        if self.api_key:
            return "ANTHROPIC_API_KEY"
        if self.auth_token:
            return "ANTHROPIC_AUTH_TOKEN"
        return "none"


class AnthropicClient:
    """Streams Messages API responses; raises :class:`ApiError` subclasses, never SDK exceptions."""

    def __init__(self, credentials: Credentials, *, idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S) -> None:
        self.credentials = credentials
        self.idle_timeout_s = idle_timeout_s
        self._sdk_client: Any = None
        self._building = threading.Lock()
        """A warm-up in a thread and the first request may both build the client: only one may."""

    def _client(self) -> Any:
        with self._building:
            return self._build_client()

    def _build_client(self) -> Any:
        if self._sdk_client is None:
            import anthropic
            import httpx2

            self._sdk_client = anthropic.AsyncAnthropic(
                api_key=self.credentials.api_key,
                auth_token=self.credentials.auth_token if not self.credentials.api_key else None,
                base_url=self.credentials.base_url,
                max_retries=0,
                # the read timeout is the stall watchdog: no byte (pings included) for this long aborts the attempt
                timeout=httpx2.Timeout(timeout=None, connect=CONNECT_TIMEOUT_S, read=self.idle_timeout_s),
            )
        return self._sdk_client

    def warm_up(self) -> None:
        """Import the SDK and build the client now (faces call this in the background after the first frame)."""
        self._client()
        # The SDK loads the trace propagators on its first request (≈ 10 ms): load them here instead. One named in
        # OTEL_PROPAGATORS that is not installed raises; the SDK copes with that, and so do we.
        with contextlib.suppress(Exception):
            importlib.import_module("opentelemetry.propagate")

    async def aclose(self) -> None:
        """Close the connection pool (it belongs to the event loop that opened it)."""
        if self._sdk_client is not None:
            client, self._sdk_client = self._sdk_client, None
            await client.close()

    async def stream(self, request: ModelRequest) -> AsyncIterator[dict[str, Any]]:
        import anthropic
        import httpx2

        client = self._client()
        saw_output = False
        finished = False
        try:
            async with client.messages.with_streaming_response.create(**request.params(), stream=True) as response:
                async for event in iter_sse_json(response.iter_bytes(), merge_text=request.merge_text_deltas):
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
        except anthropic.APIStatusError as exc:
            raise _from_status_error(exc, self.credentials) from exc
        except (anthropic.APIConnectionError, httpx2.HTTPError) as exc:
            kind = "timed out" if isinstance(exc, (anthropic.APITimeoutError, httpx2.TimeoutException)) else "failed"
            cause = exc.__cause__ or exc.__context__
            why = f" ({type(cause).__name__}: {cause})" if cause is not None and str(cause) not in str(exc) else ""
            raise ApiConnectionError(f"connection {kind}: {exc}{why}", partial=saw_output) from exc
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


def _from_status_error(exc: Any, credentials: Credentials) -> ApiError:
    body: dict[str, Any] = exc.body if isinstance(exc.body, dict) else {}
    error: dict[str, Any] = body["error"] if isinstance(body.get("error"), dict) else {}
    message = str(error.get("message") or exc.message)
    headers = {k.lower(): v for k, v in exc.response.headers.items()}
    kwargs: dict[str, Any] = {
        "status": exc.status_code,
        "error_type": error.get("type"),
        "request_id": headers.get("request-id"),
        "headers": headers,
    }
    if exc.status_code in (401, 403):
        hint = (
            f"The API refused the credential from {credentials.source} ({exc.status_code}: {message}). "
            "Check that the key is valid and active, and that ANTHROPIC_BASE_URL points at the right endpoint."
        )
        return AuthError(hint, **kwargs)
    return ApiError(message, **kwargs)
