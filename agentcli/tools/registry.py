"""The built-in tool set."""

from __future__ import annotations

from collections.abc import Iterable

from agentcli.tools.base import Tool, ToolRegistry


def builtin_tools() -> list[Tool]:
    from agentcli.tools.bash import BashTool
    from agentcli.tools.edit import EditTool
    from agentcli.tools.glob import GlobTool
    from agentcli.tools.grep import GrepTool
    from agentcli.tools.read import ReadTool
    from agentcli.tools.shell_tools import BashOutputTool, KillShellTool
    from agentcli.tools.todo import TodoWriteTool
    from agentcli.tools.write import WriteTool

    return [
        BashTool(),
        GlobTool(),
        GrepTool(),
        ReadTool(),
        EditTool(),
        WriteTool(),
        TodoWriteTool(),
        BashOutputTool(),
        KillShellTool(),
    ]


def default_registry(
    allowed: Iterable[str] | None = None, disallowed: Iterable[str] | None = None, extra: Iterable[Tool] = ()
) -> ToolRegistry:
    """The built-in tools, narrowed to ``allowed`` names (None: all, empty: none) and without ``disallowed`` ones.

    A bare deny rule (``--disallowedTools Bash``) removes the tool altogether, so the model never sees it.
    """
    tools = builtin_tools()
    disallowed = set(disallowed or [])
    if allowed is not None:
        names = set(allowed)
        tools = [tool for tool in tools if tool.name in names]
    if disallowed:
        tools = [tool for tool in tools if tool.name not in disallowed]
    return ToolRegistry([*tools, *extra])
