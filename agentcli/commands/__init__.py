"""Slash commands: one registry of definitions that every face (TUI, --plain, stream-json input) runs the same way.

The built-in commands, the custom ones users write as Markdown files and the prompts MCP servers offer are all
:class:`~agentcli.commands.registry.Command` entries; a face only says how to show what a command reports.
"""

from __future__ import annotations

from typing import Any

from agentcli.commands.registry import Command, CommandRegistry, parse_command

__all__ = ["Command", "CommandRegistry", "parse_command", "session_registry", "slash_command_names"]


def _submit_as_prompt(name: str) -> Any:
    async def handler(face: Any, argument: str) -> None:
        await face.submit(f"/{name} {argument}".rstrip())

    return handler


def session_registry(engine: Any = None) -> CommandRegistry:
    """The built-in commands plus the session's custom commands and MCP prompts (sent to the engine, which
    expands them)."""
    from agentcli.commands.builtin import BUILTIN_COMMANDS

    registry = CommandRegistry(BUILTIN_COMMANDS)
    config = getattr(engine, "config", None)
    custom = getattr(getattr(config, "commands", None), "commands", None) or []
    for command in custom:
        if registry.find(command.name) is None:
            registry.add(
                Command(
                    command.name,
                    command.description or f"Custom command ({command.scope})",
                    _submit_as_prompt(command.name),
                    argument_hint=command.argument_hint or "",
                    source=command.scope,
                )
            )
    for prompt in getattr(config, "mcp_prompts", None) or []:
        registry.add(
            Command(
                prompt.name,
                prompt.description or "MCP prompt",
                _submit_as_prompt(prompt.name),
                argument_hint=getattr(prompt, "argument_hint", "") or "",
                source="mcp",
            )
        )
    return registry


def slash_command_names(custom: list[str] | None = None) -> list[str]:
    """What ``system/init.slash_commands`` lists: every built-in command, then the custom ones."""
    from agentcli.commands.builtin import BUILTIN_COMMANDS

    names = [command.name for command in BUILTIN_COMMANDS]
    return names + [name for name in custom or [] if name not in names]
