"""The built-in tool set."""

from __future__ import annotations

from agentcli.tools.base import Tool, ToolRegistry


def builtin_tools() -> list[Tool]:
    from agentcli.tools.read import ReadTool

    return [ReadTool()]


def default_registry(allowed: list[str] | None = None, disallowed: list[str] | None = None) -> ToolRegistry:
    """The built-in tools, narrowed to ``allowed`` names and without ``disallowed`` ones."""
    tools = builtin_tools()
    if allowed:
        tools = [tool for tool in tools if tool.name in allowed]
    if disallowed:
        tools = [tool for tool in tools if tool.name not in disallowed]
    return ToolRegistry(tools)
