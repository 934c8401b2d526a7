"""All of a session's MCP servers: started together in the background, their tools offered as they connect.

Nothing waits for a server: the first request goes out with the tools of the servers that are ready by then,
and each later request picks up the ones that connected since (the registry asks :attr:`version`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from agentcli.mcp.config import ServerSpec
from agentcli.mcp.connection import McpConnection
from agentcli.mcp.tools import McpTool


class McpManager:
    """Implements the tool registry's source protocol (``version`` and ``tools()``) and the session service one
    (``start()`` and ``aclose()``)."""

    def __init__(self, specs: list[ServerSpec], project_dir: str) -> None:
        self.connections = [McpConnection(spec, project_dir) for spec in specs]
        self.version = 0
        self._tools: list[McpTool] = []
        self._watchers: list[asyncio.Task[None]] = []
        self._listeners: list[Callable[[], None]] = []
        self._started = False

    def start(self) -> None:
        """Start every server at once; returns immediately."""
        if self._started:
            return
        self._started = True
        loop = asyncio.get_running_loop()
        for connection in self.connections:
            connection.start()
            self._watchers.append(loop.create_task(self._watch(connection), name=f"mcp-watch:{connection.name}"))

    async def _watch(self, connection: McpConnection) -> None:
        await connection.ready.wait()
        self._rebuild()

    def _rebuild(self) -> None:
        tools: list[McpTool] = []
        for connection in self.connections:
            tools += [McpTool(connection, definition) for definition in connection.listing.tools]
        self._tools = tools
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

    async def wait_started(self, timeout: float | None = None) -> None:
        """Wait until every server connected or failed (for ``/mcp`` and tests; the session never waits)."""
        waits = [connection.ready.wait() for connection in self.connections]
        if waits:
            await asyncio.wait_for(asyncio.gather(*waits), timeout)

    async def aclose(self) -> None:
        for watcher in self._watchers:
            watcher.cancel()
        await asyncio.gather(*(connection.aclose() for connection in self.connections), return_exceptions=True)
        self._watchers.clear()
