"""What the faces show about a session's extensions: MCP servers and background shells (``/mcp``, the status bar)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def extensions_summary(engine: Any) -> str:
    """``MCP 2 connected · 1 failed`` (and running background shells) for the status bar; empty when there are none."""
    from agentcli.mcp.report import status_summary

    parts: list[str] = []
    mcp = engine.config.extensions.get("mcp")
    if mcp is not None and mcp.connections:
        parts.append(f"MCP {status_summary(mcp)}")
    shells = engine.config.extensions.get("shells")
    running = len(shells.running()) if shells is not None else 0
    if running:
        parts.append(f"{running} shell{'s' if running != 1 else ''} running")
    return " · ".join(parts)


def watch_extensions(engine: Any, changed: Callable[[], None]) -> None:
    """Call ``changed`` whenever an extension's state changes (a server connects or fails, a shell ends)."""
    for kind in ("mcp", "shells"):
        manager = engine.config.extensions.get(kind)
        if manager is not None:
            manager.on_change(changed)
