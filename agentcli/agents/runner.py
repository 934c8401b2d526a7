"""Run one sub-agent: the same :func:`agentcli.loop.query.query` with its own messages, tools, system prompt and
model. Its turns reach the session as nested messages (``parent_tool_use_id`` = the Task call) whose usage the
session bills; its transcript goes to a side file next to the session's, linked from the Task result.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentcli import sdk_messages as sdk
from agentcli.agents.definitions import AgentCatalog, AgentDefinition
from agentcli.api.client import ModelClient
from agentcli.api.retry import RetryPolicy
from agentcli.context.conversation import Conversation
from agentcli.context.system_prompt import build_system_prompt
from agentcli.context.user_context import with_user_context
from agentcli.events import (
    AssistantTurn,
    LoopEnded,
    NestedMessage,
    ResponseWithheld,
    ToolFinished,
    ToolResults,
    ToolStarted,
    UserInjected,
)
from agentcli.hooks.session_hooks import SessionHooks, StopVerdict
from agentcli.loop.query import query
from agentcli.loop.state import QueryParams
from agentcli.session.redact import Redactor
from agentcli.tools.base import ToolCall, ToolEnv, ToolOutput, ToolRegistry
from agentcli.tools.permissions import CanUseTool

TASK_TOOL = "Task"


@dataclass
class SubagentContext:
    """What sub-agents share with their session (filled in by the bootstrap once the session is assembled)."""

    client: ModelClient
    registry: ToolRegistry
    tool_env: ToolEnv
    """The session's; each sub-agent's tools get :meth:`ToolEnv.for_subagent` of it (same sandbox and checks)."""
    model: str
    catalog: AgentCatalog
    can_use_tool: CanUseTool
    """The session's permission gate (rules, mode, hooks): no default, so a sub-agent is never left unguarded."""
    session_id: str = ""
    retry_policy: RetryPolicy = field(default_factory=RetryPolicy)
    hooks: SessionHooks | None = None
    transcript_dir: Path | None = None
    """``<session>/subagents``; None keeps no side transcripts (a session that is not persisted)."""
    max_tokens: int = 32_000
    user_context: str | None = None
    """The session's environment and memory files; a sub-agent gets them at the head of its task, as in Claude Code."""
    redactor: Redactor | None = None
    """The session transcript's: a side transcript keeps out the same secrets (None: the environment's)."""


class SubagentHooks:
    """The loop's hooks for a sub-agent: ``SubagentStop`` instead of ``Stop``; PostToolUse as in the session."""

    def __init__(self, hooks: SessionHooks, fields: dict[str, Any], agent_type: str) -> None:
        self._hooks = hooks
        self._fields = fields
        self._agent_type = agent_type
        self.block_cap = hooks.block_cap

    @property
    def halt(self) -> str | None:
        return self._hooks.halt

    def take_warnings(self) -> list[str]:
        return self._hooks.take_warnings()

    async def stop(self, last_assistant_text: str, stop_hook_active: bool) -> StopVerdict:
        return await self._hooks.stop(
            last_assistant_text,
            stop_hook_active,
            event="SubagentStop",
            fields=self._fields,
            match_value=self._agent_type,
        )

    async def post_tool_use(self, tool_use: dict[str, Any], finished: ToolFinished) -> list[str]:
        return await self._hooks.post_tool_use(tool_use, finished)


class _SideTranscript:
    def __init__(self, context: SubagentContext, agent_id: str) -> None:
        self.path: Path | None = None
        self._store: Any = None
        if context.transcript_dir is not None:
            from agentcli.session.store import TranscriptStore

            self.path = context.transcript_dir / f"agent-{agent_id}.jsonl"
            self._store = TranscriptStore(
                self.path, context.session_id, context.tool_env.project_dir, redactor=context.redactor
            )
        self._agent_id = agent_id

    def record(self, message: dict[str, Any]) -> None:
        if self._store is not None:
            self._store.record({**message, "isSidechain": True, "agentId": self._agent_id})

    def close(self) -> None:
        if self._store is not None:
            self._store.flush(durable=True)
            self._store.close()


async def run_subagent(
    context: SubagentContext, definition: AgentDefinition, prompt: str, call: ToolCall
) -> ToolOutput:
    """Run the agent to its final answer; its text is the Task result."""
    started = time.monotonic()
    agent_id = uuid.uuid4().hex[:17]
    parent = call.tool_use_id
    model = definition.resolved_model(context.model)
    side = _SideTranscript(context, agent_id)
    context_notes: list[str] = []
    hooks = None
    if context.hooks is not None:
        outcome = await context.hooks.runner.run(
            "SubagentStart", {"agent_id": agent_id, "agent_type": definition.name}, match_value=definition.name
        )
        context_notes = outcome.additional_context
        hooks = SubagentHooks(
            context.hooks,
            {"agent_id": agent_id, "agent_type": definition.name, "agent_transcript_path": str(side.path or "")},
            definition.name,
        )
    content: str | list[dict[str, Any]] = prompt
    if context_notes:
        content = [{"type": "text", "text": prompt}] + [
            {"type": "text", "text": f"<system-reminder>\n{note}\n</system-reminder>"} for note in context_notes
        ]
    first = with_user_context({"role": "user", "content": content}, context.user_context)
    side.record({"type": "user", "message": first, "parent_tool_use_id": None})
    params = QueryParams(
        client=context.client,
        registry=_tools_for(context.registry, definition),
        tool_env=context.tool_env.for_subagent(),
        model=model,
        conversation=Conversation([first]),
        system=build_system_prompt(override=definition.prompt),
        max_tokens=context.max_tokens,
        can_use_tool=context.can_use_tool,
        retry_policy=context.retry_policy,
        hooks=hooks,
    )
    last_text = ""
    tool_uses = 0
    usage: dict[str, int] = {}
    error: str | None = None
    try:
        async with contextlib.aclosing(query(params)) as events:
            async for event in events:
                if isinstance(event, AssistantTurn):
                    message = event.message
                    _add(usage, message.get("usage") or {})
                    out = {"type": "assistant", "message": message, "parent_tool_use_id": parent}
                    side.record(out)
                    call.nest(NestedMessage(out, (message.get("model") or model, message.get("usage") or {})))
                    text = "".join(b.get("text", "") for b in message["content"] if b.get("type") == "text")
                    last_text = text or last_text
                elif isinstance(event, ResponseWithheld):
                    _add(usage, event.message.get("usage") or {})
                    call.nest(
                        NestedMessage(None, (event.message.get("model") or model, event.message.get("usage") or {}))
                    )
                elif isinstance(event, ToolResults):
                    for finished in event.finished:
                        out = {**sdk.tool_result_message(finished), "parent_tool_use_id": parent}
                        side.record(out)
                        call.nest(NestedMessage(out))
                elif isinstance(event, UserInjected):
                    side.record({"type": "user", "message": event.param, "parent_tool_use_id": parent, "isMeta": True})
                elif isinstance(event, ToolStarted):
                    tool_uses += 1
                    call.report(
                        f"{tool_uses} tool use{'s' if tool_uses != 1 else ''} · {event.name}{_key_input(event.input)}"
                    )
                elif isinstance(event, LoopEnded) and event.reason not in ("completed", "stop_hook_prevented"):
                    error = event.error or event.reason
    finally:
        side.close()
    structured: dict[str, Any] = {
        "status": "failed" if error else "completed",
        "agentId": agent_id,
        "agentType": definition.name,
        "prompt": prompt,
        "totalDurationMs": int((time.monotonic() - started) * 1000),
        "totalToolUseCount": tool_uses,
        "usage": usage,
        "totalTokens": usage.get("input_tokens", 0) + usage.get("output_tokens", 0),
        "transcriptPath": str(side.path) if side.path else None,
    }
    if error:
        return ToolOutput(f"The {definition.name} agent failed: {error}", is_error=True, structured=structured)
    structured["content"] = [{"type": "text", "text": last_text}]
    return ToolOutput(last_text or "(the agent gave no final answer)", structured=structured)


def _tools_for(registry: ToolRegistry, definition: AgentDefinition) -> ToolRegistry:
    """The agent's tools: those it lists (all when it lists none), never Task itself (no nesting)."""
    allowed = set(definition.tools) if definition.tools is not None and "*" not in definition.tools else None
    return registry.restricted(lambda name: name != TASK_TOOL and (allowed is None or name in allowed))


def _add(total: dict[str, int], usage: dict[str, Any]) -> None:
    for key, value in usage.items():
        if isinstance(value, int):
            total[key] = total.get(key, 0) + value


def _key_input(tool_input: dict[str, Any]) -> str:
    for key in ("file_path", "command", "pattern", "path", "url"):
        value = tool_input.get(key)
        if isinstance(value, str):
            return f"({value[:60]})"
    return ""
