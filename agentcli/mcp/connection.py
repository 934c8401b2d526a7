"""One MCP server's connection: started in its own task, kept open for the session, closed at its end.

The ``mcp`` client's transports are context managers that must be entered and left in the same task, so each
server lives in a task of its own that holds the connection open; tool calls from other tasks go through the
client it keeps. A server that fails to start or dies later is recorded with its error and never raises
into the session.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import os
from dataclasses import dataclass, field
from typing import Any, Literal

from agentcli.mcp.config import HttpServer, SdkServer, ServerSpec, SseServer, StdioServer
from agentcli.mcp.hosted import NOT_DRIVEN, HostedSend, hosted_transport
from agentcli.mcp.stdio import StderrTail, stdio_transport

Status = Literal["pending", "connected", "failed", "disabled"]
DEFAULT_START_TIMEOUT_S = 30.0
DEFAULT_TOOL_TIMEOUT_S = 30 * 60.0
STDERR_TAIL_CHARS = 600
CLOSE_TIMEOUT_S = 10.0
"""The most a connected server's shutdown may take (the transport's grace periods fit well within it)."""


async def import_client() -> Any:
    """Import the ``mcp`` client off the event loop: it takes a good part of a second, which the first request
    must not wait for (Python's import lock makes concurrent imports of it wait for the first)."""
    return await asyncio.to_thread(importlib.import_module, "mcp.client.client")


def start_timeout_s() -> float:
    """``MCP_TIMEOUT`` (milliseconds, Claude Code's variable), else 30 s."""
    return _milliseconds("MCP_TIMEOUT", DEFAULT_START_TIMEOUT_S)


def tool_timeout_s() -> float:
    """``MCP_TOOL_TIMEOUT`` (milliseconds, Claude Code's variable): how long one tool call may take, else 30 min."""
    return _milliseconds("MCP_TOOL_TIMEOUT", DEFAULT_TOOL_TIMEOUT_S)


def _milliseconds(variable: str, default_s: float) -> float:
    try:
        return max(int(os.environ[variable]), 1) / 1000
    except (KeyError, ValueError):
        return default_s


@dataclass
class ServerListing:
    """What a connected server offers."""

    tools: list[Any] = field(default_factory=list)
    prompts: list[Any] = field(default_factory=list)
    resources: list[Any] = field(default_factory=list)
    instructions: str | None = None
    server_info: dict[str, str] | None = None
    """The name and version the server gave in its handshake."""


class McpConnection:
    """A server and its state; :meth:`start` returns at once, :attr:`ready` is set once it connected or failed."""

    def __init__(self, spec: ServerSpec, project_dir: str, hosted: HostedSend | None = None) -> None:
        self.spec = spec
        self.name = spec.name
        self.status: Status = "pending"
        self.error: str | None = None
        self.listing = ServerListing()
        self.ready = asyncio.Event()
        self._project_dir = project_dir
        self._client: Any = None
        self._closing = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.stderr = StderrTail()
        """The end of what the server wrote to stderr (stdio servers), for its error messages."""
        self._http_client: Any = None
        self._hosted = hosted
        """How an SDK-hosted server is reached (None when no program drives agentcli over the SDK protocol)."""

    @property
    def is_hosted(self) -> bool:
        return isinstance(self.spec.config, SdkServer)

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name=f"mcp:{self.name}")

    async def _run(self) -> None:
        if self.is_hosted and self._hosted is None:
            self._fail(NOT_DRIVEN)
            return
        try:
            client_module = await import_client()
            async with asyncio.timeout(start_timeout_s()):
                transport = await self._transport()
                # SDK-hosted servers get the handshake the driving program's MCP bridge expects (``initialize``).
                mode = "legacy" if self.is_hosted else "auto"
                client = client_module.Client(transport, client_info=_client_info(), mode=mode)
                stack = contextlib.AsyncExitStack()
                await stack.enter_async_context(client)
                try:
                    self.listing = await _list(client)
                except BaseException:
                    await stack.aclose()
                    raise
            self._client = client
            async with stack:
                self.status = "connected"
                self.ready.set()
                await self._closing.wait()
        except asyncio.CancelledError:
            self._fail("stopped")
        except TimeoutError:
            self._fail(f"did not answer within {start_timeout_s():g} s")
        except BaseException as exc:  # a server's failure must never take the session down
            self._fail(_describe(exc))
        finally:
            self._client = None
            if self._http_client is not None:
                await self._http_client.aclose()

    def _fail(self, error: str) -> None:
        if self.status != "failed":
            self.status = "failed"
            tail = self._stderr_tail()
            self.error = f"{error}: {tail}" if tail else error
        self.ready.set()

    def _stderr_tail(self) -> str:
        return " ".join(self.stderr.text()[-STDERR_TAIL_CHARS:].split())

    async def _transport(self) -> Any:
        config = self.spec.config
        if isinstance(config, SdkServer):
            assert self._hosted is not None
            return hosted_transport(self.name, self._hosted)
        if isinstance(config, StdioServer):
            env = {**config.env, **_plugin_env(self.spec)}
            # A server that never connected is killed at once when it stops; a connected one may exit in its time.
            return stdio_transport(
                config, env, config.cwd or self._project_dir, self.stderr, lambda: self.status != "connected"
            )
        from mcp.shared._httpx_utils import create_mcp_http_client

        if isinstance(config, SseServer):
            from mcp.client.sse import sse_client

            return sse_client(config.url, headers=config.headers or None)
        assert isinstance(config, HttpServer)
        from mcp.client.streamable_http import streamable_http_client

        http = self._http_client = create_mcp_http_client(headers=config.headers or None)
        return streamable_http_client(config.url, http_client=http)

    async def call_tool(self, tool: str, arguments: dict[str, Any]) -> Any:
        """The server's ``CallToolResult``; raises :class:`ServerUnavailable` when the server is not connected."""
        client = self._client
        if client is None or self.status != "connected":
            raise ServerUnavailable(self.unavailable_reason())
        limit = tool_timeout_s()
        try:
            async with asyncio.timeout(limit):
                return await client.call_tool(tool, arguments)
        except TimeoutError:
            raise ServerUnavailable(
                f"MCP server {self.name} did not answer {tool} within {limit:g} s (MCP_TOOL_TIMEOUT, in milliseconds, "
                "sets the limit)"
            ) from None
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if _is_disconnect(exc):
                self._fail(f"connection lost ({_describe(exc)})")
                self._closing.set()
                raise ServerUnavailable(self.unavailable_reason()) from None
            raise

    async def get_prompt(self, prompt: str, arguments: dict[str, str]) -> Any:
        client = self._client
        if client is None or self.status != "connected":
            raise ServerUnavailable(self.unavailable_reason())
        return await client.get_prompt(prompt, arguments)

    async def read_resource(self, uri: str) -> Any:
        client = self._client
        if client is None or self.status != "connected":
            raise ServerUnavailable(self.unavailable_reason())
        return await client.read_resource(uri)

    def disable(self) -> None:
        """Switched off by the user or the driving program: nothing offered, nothing called."""
        self.status = "disabled"
        self.error = None
        self.listing = ServerListing()
        self.ready.set()

    def unavailable_reason(self) -> str:
        if self.status == "pending":
            return f"MCP server {self.name} is still starting; try again in a moment"
        if self.status == "disabled":
            return f"MCP server {self.name} is disabled"
        return f"MCP server {self.name} is not connected ({self.error or 'failed'})"

    async def aclose(self) -> None:
        """Stop the server: a connected one is asked to exit; one still starting is stopped (and killed) now, so
        no exit waits for a server that may never finish its handshake."""
        self._closing.set()
        task = self._task
        if task is None or task.done():
            return
        if self.status != "connected":
            task.cancel()
        try:
            await asyncio.wait_for(asyncio.shield(task), timeout=CLOSE_TIMEOUT_S)
        except TimeoutError:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        except asyncio.CancelledError:
            task.cancel()
            raise


class ServerUnavailable(Exception):
    """The server is starting, failed or gone; the message says which, for the model and the user."""


def _plugin_env(spec: ServerSpec) -> dict[str, str]:
    return {"CLAUDE_PLUGIN_ROOT": spec.plugin_root} if spec.plugin_root else {}


def _client_info() -> Any:
    from mcp_types import Implementation

    from agentcli import __version__

    return Implementation(name="agentcli", version=__version__)


async def _list(client: Any) -> ServerListing:
    listing = ServerListing(instructions=client.instructions)
    info = client.server_info
    if info is not None:
        listing.server_info = {"name": info.name, "version": info.version}
    listing.tools = list((await client.list_tools()).tools)
    capabilities = client.server_capabilities
    if getattr(capabilities, "prompts", None) is not None:
        listing.prompts = list((await client.list_prompts()).prompts)
    if getattr(capabilities, "resources", None) is not None:
        listing.resources = list((await client.list_resources()).resources)
    return listing


def _is_disconnect(exc: BaseException) -> bool:
    import anyio
    from mcp.shared.exceptions import MCPError
    from mcp_types.jsonrpc import CONNECTION_CLOSED

    if isinstance(exc, MCPError) and exc.error.code == CONNECTION_CLOSED:
        return True
    return isinstance(
        exc, (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, ConnectionError, BrokenPipeError)
    )


def _describe(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        inner = exc.exceptions[0] if exc.exceptions else exc
        return _describe(inner)
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
