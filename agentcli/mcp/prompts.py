"""MCP prompts as slash commands (``/mcp__<server>__<prompt> args``) and resources as ``@<server>:<uri>`` mentions.

Face-neutral: the command registry lists :func:`prompt_commands`; a submitted prompt goes through
:func:`expand_mentions_and_prompt` before it is sent, so every face (and ``-p``) gets the same behaviour.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Any

from agentcli.mcp.connection import ServerUnavailable
from agentcli.mcp.tools import normalize_name

_MENTION = re.compile(r"(?<![\w`])@([A-Za-z0-9_.-]+):(\S+)")


@dataclass(frozen=True)
class PromptCommand:
    name: str
    """Without the slash: ``mcp__server__prompt``."""
    description: str
    arguments: tuple[str, ...]
    server: str
    prompt: str

    @property
    def argument_hint(self) -> str:
        return " ".join(f"<{name}>" for name in self.arguments)


def prompt_commands(manager: Any) -> list[PromptCommand]:
    """The prompts of every connected server, as slash commands."""
    if manager is None:
        return []
    out = []
    for connection in manager.connections:
        for prompt in connection.listing.prompts:
            names = tuple(argument.name for argument in (prompt.arguments or []))
            out.append(
                PromptCommand(
                    f"mcp__{normalize_name(connection.name)}__{normalize_name(prompt.name)}",
                    prompt.description or prompt.title or prompt.name,
                    names,
                    connection.name,
                    prompt.name,
                )
            )
    return out


def _text_of(content: Any) -> str:
    kind = getattr(content, "type", None)
    if kind == "text":
        return str(content.text)
    if kind == "resource":
        return str(getattr(content.resource, "text", "") or "")
    return ""


async def expand_prompt(manager: Any, text: str) -> str | None:
    """``/mcp__server__prompt a b`` → the prompt's messages as text (arguments by position, the last one takes the
    rest); None when ``text`` names no MCP prompt. Raises :class:`ServerUnavailable` for a server that is down."""
    if manager is None or not text.startswith("/mcp__"):
        return None
    name, _, rest = text[1:].partition(" ")
    command = next((c for c in prompt_commands(manager) if c.name == name), None)
    if command is None:
        return None
    try:
        words = shlex.split(rest)
    except ValueError:
        words = rest.split()
    values: dict[str, str] = {}
    for index, argument in enumerate(command.arguments):
        if index < len(words):
            values[argument] = " ".join(words[index:]) if index == len(command.arguments) - 1 else words[index]
    connection = manager.get(command.server)
    result = await connection.get_prompt(command.prompt, values)
    return "\n\n".join(text for text in (_text_of(message.content) for message in result.messages) if text)


async def resolve_mentions(manager: Any, text: str) -> list[str]:
    """The text of each ``@server:uri`` resource mentioned in ``text``, as context blocks for the model."""
    if manager is None:
        return []
    blocks = []
    for server, uri in dict.fromkeys(_MENTION.findall(text)):
        connection = manager.get(server)
        if connection is None:
            continue
        try:
            result = await connection.read_resource(uri)
        except ServerUnavailable as exc:
            blocks.append(f"Resource @{server}:{uri} could not be read: {exc}")
            continue
        except Exception as exc:
            blocks.append(f"Resource @{server}:{uri} could not be read: {type(exc).__name__}: {exc}")
            continue
        body = "\n".join(str(getattr(item, "text", "") or "") for item in result.contents)
        blocks.append(f'<resource server="{server}" uri="{uri}">\n{body}\n</resource>')
    return blocks


def resource_mentions(manager: Any) -> list[str]:
    """``@server:uri`` for every resource of every connected server (for ``@`` completion)."""
    if manager is None:
        return []
    return [f"@{c.name}:{r.uri}" for c in manager.connections for r in c.listing.resources]


class PromptExpander:
    """The engine's ``expand_prompt`` for a session with MCP servers."""

    def __init__(self, manager: Any) -> None:
        self.manager = manager

    async def __call__(self, text: str) -> tuple[str, list[str]]:
        try:
            expanded = await expand_prompt(self.manager, text)
        except ServerUnavailable as exc:
            return text, [str(exc)]
        return (expanded if expanded is not None else text), await resolve_mentions(self.manager, text)


class LivePrompts:
    """The session's MCP prompts as the command registry lists them: read when listed, so servers that connect
    later add theirs."""

    def __init__(self, manager: Any) -> None:
        self.manager = manager

    def __iter__(self) -> Any:
        return iter(prompt_commands(self.manager))
