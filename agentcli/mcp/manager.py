"""All of a session's MCP servers: started together in the background, their tools offered as they connect.

Nothing waits for a server: the first request goes out with the tools of the servers that are ready by then,
and each later request picks up the ones that connected since (the registry asks :attr:`version`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any

from agentcli.mcp.config import ServerSpec
from agentcli.mcp.connection import McpConnection, start_timeout_s
from agentcli.mcp.hosted import HostedSend
from agentcli.mcp.tools import McpTool
from agentcli.tools.rules import parse_rule


class McpManager:
    """Implements the tool registry's source protocol (``version`` and ``tools()``) and the session service one
    (``start()`` and ``aclose()``)."""

    def __init__(
        self,
        specs: list[ServerSpec],
        project_dir: str,
        hosted: HostedSend | None = None,
        removed_tools: Iterable[str] = (),
    ) -> None:
        self.connections = [McpConnection(spec, project_dir, hosted) for spec in specs]
        self._project_dir = project_dir
        self._hosted = hosted
        self._removed = [parse_rule(name, "deny") for name in removed_tools]
        """Bare deny rules (``mcp__demo``, ``mcp__demo__*``, ``mcp__demo__add``): their tools are never offered."""
        self.version = 0
        self._tools: list[McpTool] = []
        self._watchers: dict[str, asyncio.Task[None]] = {}
        self._listeners: list[Callable[[], None]] = []

    def start(self) -> None:
        """Start every server at once; returns immediately."""
        for connection in self.connections:
            self._start(connection)

    def _start(self, connection: McpConnection) -> None:
        if connection.name in self._watchers:
            return
        connection.start()
        watcher = asyncio.get_running_loop().create_task(self._watch(connection), name=f"mcp-watch:{connection.name}")
        self._watchers[connection.name] = watcher

    async def hosted_ready(self) -> None:
        """Start the SDK-hosted servers and wait (at most the start timeout) until each connected or failed.

        They live in the driving program, which expects its own tools to be offered from the first request on;
        connecting to them costs a few messages over the protocol's pipes. Other servers never delay a request."""
        hosted = [connection for connection in self.connections if connection.is_hosted]
        for connection in hosted:
            self._start(connection)
        waits = [self._watchers[connection.name] for connection in hosted]
        if waits:
            await asyncio.wait(waits, timeout=start_timeout_s())

    async def _watch(self, connection: McpConnection) -> None:
        await connection.ready.wait()
        self._rebuild()

    def _rebuild(self) -> None:
        tools: list[McpTool] = []
        for connection in self.connections:
            tools += [McpTool(connection, definition) for definition in connection.listing.tools]
        self._tools = [tool for tool in tools if not any(rule.covers_tool(tool.name) for rule in self._removed)]
        self.version += 1
        for listener in list(self._listeners):
            listener()

    def on_change(self, listener: Callable[[], None]) -> None:
        """Call ``listener`` whenever a server connects or fails (faces refresh the status bar)."""
        self._listeners.append(listener)

    def tools(self) -> list[McpTool]:
        return list(self._tools)

    def get(self, name: str) -> McpConnection | None:
        return next((c for c in self.connections if c.name == name), None)

    def statuses(self) -> list[dict[str, Any]]:
        """``system/init``'s ``mcp_servers``: name and status, with the error of a failed server."""
        out: list[dict[str, Any]] = []
        for connection in self.connections:
            entry: dict[str, Any] = {"name": connection.name, "status": connection.status}
            if connection.error:
                entry["error"] = connection.error
            out.append(entry)
        return out

    async def reconnect(self, name: str) -> None:
        """Replace a server's connection with a new one and wait for it (``mcp_reconnect``, ``mcp_toggle`` on);
        raises :class:`ValueError` with the reason when it does not connect."""
        old = self._named(name)
        fresh = McpConnection(old.spec, self._project_dir, self._hosted)
        await self._retire(old)
        self.connections[self.connections.index(old)] = fresh
        self._start(fresh)
        await asyncio.wait([self._watchers[name]], timeout=start_timeout_s())
        if fresh.status != "connected":
            raise ValueError(fresh.unavailable_reason())

    async def disable(self, name: str) -> None:
        """Disconnect a server and stop offering its tools until it is reconnected (``mcp_toggle`` off)."""
        connection = self._named(name)
        await self._retire(connection)
        connection.disable()
        self._rebuild()

    def _named(self, name: str) -> McpConnection:
        connection = self.get(name)
        if connection is None:
            raise ValueError(f"no MCP server named {name!r}")
        return connection

    async def _retire(self, connection: McpConnection) -> None:
        watcher = self._watchers.pop(connection.name, None)
        if watcher is not None:
            watcher.cancel()
        await connection.aclose()

    async def wait_started(self, timeout: float | None = None) -> None:
        """Wait until every server connected or failed (for ``/mcp`` and tests; the session never waits)."""
        waits = [connection.ready.wait() for connection in self.connections]
        if waits:
            await asyncio.wait_for(asyncio.gather(*waits), timeout)

    async def aclose(self) -> None:
        for watcher in self._watchers.values():
            watcher.cancel()
        await asyncio.gather(*(connection.aclose() for connection in self.connections), return_exceptions=True)
        self._watchers.clear()
