"""What ``/mcp`` and the status bar say about the session's MCP servers (plain text; faces style it)."""

from __future__ import annotations

from typing import Any

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
