"""The loop's explicit state: what carries from one iteration to the next, and why we are in this one."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agentcli.api.client import ModelClient
from agentcli.api.retry import RetryPolicy
from agentcli.context.conversation import Conversation
from agentcli.tools.base import ToolEnv, ToolRegistry
from agentcli.tools.permissions import CanUseTool, allow_all

if TYPE_CHECKING:
    from agentcli.context.compact import Compactor
    from agentcli.hooks.session_hooks import LoopHooks


@dataclass
class QueryParams:
    """The loop's collaborators and limits, handed in by whoever runs it (the engine, a sub-agent, a test)."""

    client: ModelClient
    registry: ToolRegistry
    tool_env: ToolEnv
    model: str
    conversation: Conversation
    """The history, owned by the caller: the loop appends to it and never edits what is there."""
    system: str | list[dict[str, Any]] | None = None
    max_tokens: int = 32_000
    max_turns: int | None = None
    can_use_tool: CanUseTool = allow_all
    thinking: dict[str, Any] | None = None
    retry_policy: RetryPolicy = field(default_factory=RetryPolicy)
    hooks: LoopHooks | None = None
    """Stop and PostToolUse hooks; None runs none."""
    escalated_max_tokens: int = 64_000
    """``max_tokens`` for the one retry after a response hit the output limit."""
    compactor: Compactor | None = None
    """Checks the context before each request and compacts the history; None (sub-agents, tests) never does."""
    merge_text_deltas: bool = False
    """Nobody needs the stream's events one by one (a person watches, or only whole messages go out): text deltas
    read together may be handled as one."""


@dataclass
class LoopState:
    """Carried across iterations (the messages themselves live in :class:`Conversation`)."""

    turn_count: int = 1
    transition: str | None = None
    """Why this iteration runs: None for the first, then ``tool_use``, ``max_tokens_escalation``,
    ``max_tokens_recovery``, ``reactive_compact_retry`` or ``fallback``."""
    model: str = ""
    max_tokens_override: int | None = None
    max_tokens_recoveries: int = 0
    strip_thinking: bool = False
    stop_hook_active: bool = False
    stop_hook_blocks: int = 0
    reactive_compact_attempted: bool = False
    """A prompt-too-long answer was met with a compaction; a second one in a row ends the loop."""
