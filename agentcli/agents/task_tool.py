"""The ``Task`` tool (Claude Code's name and input fields): hand a self-contained task to a sub-agent.

Several Task calls in one message run side by side: each sub-agent has its own conversation, and the
permission rules and hooks that guard its tools are the session's.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from agentcli.agents.definitions import AgentCatalog
from agentcli.agents.runner import TASK_TOOL, SubagentContext, run_subagent
from agentcli.tools.base import Tool, ToolCall, ToolFailure, ToolInput, ToolOutput


class TaskInput(ToolInput):
    description: str = Field(description="A short (3-5 word) description of the task")
    prompt: str = Field(description="The task for the agent to perform")
    subagent_type: str = Field(description="The type of specialized agent to use for this task")


_USAGE = (
    "Launch a new agent to handle complex, multi-step tasks autonomously. The agent works in its own "
    "conversation with its own tools and returns one final message; you see only that message.\n"
    "- Launch several agents at once when the tasks are independent: put several Task calls in one message.\n"
    "- Give each agent a complete, self-contained task: it does not see this conversation. Say exactly what "
    "information it should return.\n"
    "- The agent's answer is not shown to the user; summarise what matters for them yourself.\n"
    "- Do not use this for a simple lookup of a known file or symbol: use Read, Glob or Grep directly.\n\n"
    "Available agent types (subagent_type):\n"
)


class TaskTool(Tool):
    name = TASK_TOOL
    input_model = TaskInput

    def __init__(self, catalog: AgentCatalog) -> None:
        self.catalog = catalog
        self.context: SubagentContext | None = None
        """Set by the bootstrap once the session's client, tools and hooks exist."""

    @property
    def description(self) -> str:  # type: ignore[override]
        agents = "\n".join(
            f"- {agent.name}: {agent.description}"
            + (f" (Tools: {', '.join(agent.tools)})" if agent.tools is not None else " (Tools: *)")
            for agent in self.catalog.agents.values()
        )
        return _USAGE + agents

    def is_read_only(self, tool_input: Any) -> bool:
        return True  # the agent's own tool calls are checked one by one

    def is_concurrency_safe(self, tool_input: Any) -> bool:
        return True

    async def call(self, tool_input: Any, call: ToolCall) -> ToolOutput:
        definition = self.catalog.get(tool_input.subagent_type)
        if definition is None:
            names = ", ".join(self.catalog.agents)
            raise ToolFailure(f"Agent type '{tool_input.subagent_type}' not found. Available agents: {names}")
        if self.context is None:
            raise ToolFailure("Sub-agents are not available in this session.")
        return await run_subagent(self.context, definition, tool_input.prompt, call)
