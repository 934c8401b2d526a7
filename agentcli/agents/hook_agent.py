"""The run behind an ``"type": "agent"`` hook: a short loop with read-only tools that ends in a JSON verdict.

It lives with the sub-agents (it runs the same loop); :class:`agentcli.hooks.model_hooks.ModelHooks` calls it.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from agentcli.api.client import ModelClient
from agentcli.context.conversation import Conversation
from agentcli.events import AssistantTurn
from agentcli.loop.query import query
from agentcli.loop.state import QueryParams
from agentcli.tools.base import ToolEnv, ToolRegistry
from agentcli.tools.permissions import CanUseTool

AGENT_HOOK_TOOLS = frozenset({"Read", "Grep", "Glob"})
AGENT_HOOK_MAX_TURNS = 50


@dataclass
class HookAgent:
    """Runs agent hooks with the session's client, tools (read-only ones) and permission rules."""

    client: ModelClient
    registry: ToolRegistry
    tool_env: ToolEnv
    can_use_tool: CanUseTool

    async def __call__(self, model: str, system: str, prompt: str) -> str:
        params = QueryParams(
            client=self.client,
            registry=self.registry.restricted(lambda name: name in AGENT_HOOK_TOOLS),
            tool_env=self.tool_env,
            model=model,
            conversation=Conversation([{"role": "user", "content": prompt}]),
            system=system,
            max_turns=AGENT_HOOK_MAX_TURNS,
            can_use_tool=self.can_use_tool,
        )
        answer = ""
        async with contextlib.aclosing(query(params)) as events:
            async for event in events:
                if isinstance(event, AssistantTurn):
                    text = "".join(b.get("text", "") for b in event.param["content"] if b.get("type") == "text")
                    answer = text or answer
        return answer
