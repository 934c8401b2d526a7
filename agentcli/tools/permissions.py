"""The permission seam: faces and policy decide whether a tool call may run."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from agentcli.tools.base import Tool, ToolCall


@dataclass(frozen=True, slots=True)
class PermissionDecision:
    behavior: Literal["allow", "deny", "ask"]
    message: str = ""
    """For a denial: why, in words the model can act on."""
    updated_input: dict[str, Any] | None = None


ALLOW = PermissionDecision("allow")

CanUseTool = Callable[[Tool, dict[str, Any], ToolCall], Awaitable[PermissionDecision]]


async def allow_all(_tool: Tool, _input: dict[str, Any], _call: ToolCall) -> PermissionDecision:
    return ALLOW
