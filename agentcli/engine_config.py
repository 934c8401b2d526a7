"""What a session's engine is built from: the model client, tools, limits, hooks and where things are recorded.

Kept apart from :mod:`agentcli.engine` so the lifecycle there reads without the list of every knob.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from agentcli.api.client import ModelClient
from agentcli.api.retry import RetryPolicy
from agentcli.context.compact import ContextSettings
from agentcli.hooks.session_hooks import SessionHooks
from agentcli.tools.base import ToolEnv, ToolRegistry
from agentcli.tools.permissions import CanUseTool, allow_all

Message = dict[str, Any]


class Recorder(Protocol):
    """Where the engine persists what happened (the transcript store implements it)."""

    def record(self, entry: Message) -> None: ...

    def flush(self, *, durable: bool = False) -> None: ...


class SessionService(Protocol):
    """Something that runs beside the session and must not outlive it."""

    def start(self) -> None: ...

    async def aclose(self) -> None: ...


@dataclass
class EngineConfig:
    client: ModelClient
    registry: ToolRegistry
    tool_env: ToolEnv
    model: str
    system_prompt: str | None = None
    user_context: str | None = None
    """Environment and memory files for the model (:mod:`agentcli.context.user_context`): sent once, at the head of
    the session's first user message, so the system prompt stays the same for every project and day."""
    max_tokens: int = 32_000
    max_turns: int | None = None
    max_budget_usd: float | None = None
    permission_mode: str = "default"
    can_use_tool: CanUseTool = allow_all
    session_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    include_partial_messages: bool = False
    merge_text_deltas: bool = False
    """Stream events go to a person or nowhere, never to a program one by one: text deltas read together from the
    network may be merged (a burst then costs one event per read, not one per delta)."""
    recorder: Recorder | None = None
    slash_commands: list[str] = field(default_factory=list)
    api_key_source: str = "none"
    retry_policy: RetryPolicy = field(default_factory=RetryPolicy)
    permission_policy: Any = None
    """The policy behind ``can_use_tool`` (which hooks may wrap); it has a ``mode`` faces can change."""
    hooks: SessionHooks | None = None
    session_source: str = "startup"
    """For SessionStart hooks: ``startup`` or ``resume``."""
    thinking: dict[str, Any] | None = None
    """The requests' ``thinking`` parameter (extended thinking), or None."""
    services: list[SessionService] = field(default_factory=list)
    """Background parts of the session (MCP servers, background shells): started once the first request is out (or
    earlier by a face, :meth:`QueryEngine.start_services`), stopped by :meth:`QueryEngine.aclose`."""
    mcp_servers: Callable[[], list[dict[str, Any]]] | None = None
    """The MCP servers' names and states for ``system/init``."""
    expand_prompt: Callable[[str], Awaitable[tuple[str, list[str]]]] | None = None
    """Turns a typed prompt into what is sent, plus context for the model (MCP prompts run as ``/mcp__…``
    commands, ``@server:uri`` resources read)."""
    commands: Any = None
    """The session's custom slash commands (a :class:`agentcli.commands.runtime.CommandRunner`), for the registry."""
    mcp_prompts: Iterable[Any] = ()
    """MCP prompts for the slash-command registry (``/mcp__server__prompt``)."""
    extensions: dict[str, Any] = field(default_factory=dict)
    """Extension managers by kind (``mcp``, ``shells``…), for faces' commands such as ``/mcp``."""
    context: ContextSettings = field(default_factory=ContextSettings)
    """Context management from settings: automatic compaction on or off, its threshold, the window override."""
