"""What ``/mcp`` and the status bar say about the session's MCP servers (plain text; faces style it)."""

from __future__ import annotations

from typing import Any

from agentcli.mcp.config import SdkServer, StdioServer
from agentcli.mcp.tools import tool_name


def servers_report(manager: Any) -> tuple[str, str]:
    """A title and one block per server: status, where it is configured, its error or its tools and prompts."""
    if manager is None or not manager.connections:
        return (
            "No MCP servers configured",
            'Add them under "mcpServers" in .mcp.json or a settings file, or pass --mcp-config FILE_OR_JSON.',
        )
    lines: list[str] = []
    for connection in manager.connections:
        lines.append(f"{connection.name} · {connection.status} · {connection.spec.source}")
        if connection.error:
            lines.append(f"  error: {connection.error}")
        listing = connection.listing
        for tool in listing.tools:
            lines.append(f"  tool {tool_name(connection.name, tool.name)}")
        for prompt in listing.prompts:
            lines.append(f"  prompt /{connection.name}:{prompt.name}")
        for resource in listing.resources:
            lines.append(f"  resource @{connection.name}:{resource.uri}")
    return f"MCP servers ({status_summary(manager)})", "\n".join(lines)


def status_summary(manager: Any) -> str:
    """``2 connected · 1 failed`` — for the status bar."""
    if manager is None:
        return ""
    counts: dict[str, int] = {}
    for connection in manager.connections:
        counts[connection.status] = counts.get(connection.status, 0) + 1
    return " · ".join(f"{count} {status}" for status, count in counts.items())


def status_details(manager: Any) -> list[dict[str, Any]]:
    """The SDK's ``mcp_status`` answer: each server's state, handshake info, tools and where it points (command or
    URL; environment and headers are left out, they may hold tokens)."""
    if manager is None:
        return []
    out: list[dict[str, Any]] = []
    for connection, status in zip(manager.connections, manager.statuses(), strict=True):
        config = connection.spec.config
        if isinstance(config, StdioServer):
            status["config"] = {"type": "stdio", "command": config.command, "args": list(config.args)}
        elif isinstance(config, SdkServer):
            status["config"] = {"type": "sdk", "name": connection.name}
        else:
            status["config"] = {"type": config.type, "url": config.url}
        listing = connection.listing
        if connection.status == "connected":
            if listing.server_info:
                status["serverInfo"] = dict(listing.server_info)
            status["tools"] = [_tool_info(tool) for tool in listing.tools]
        out.append(status)
    return out


def _tool_info(tool: Any) -> dict[str, Any]:
    info: dict[str, Any] = {"name": tool.name}
    if tool.description:
        info["description"] = tool.description
    hints = tool.annotations
    if hints is not None:
        pairs = (("readOnly", hints.read_only_hint), ("destructive", hints.destructive_hint))
        annotations = {key: value for key, value in (*pairs, ("openWorld", hints.open_world_hint)) if value is not None}
        if annotations:
            info["annotations"] = annotations
    return info
