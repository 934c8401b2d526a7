"""The permission policy's vocabulary: a decision, a question for the user and its answer, the policy's verdict
before anyone is asked, and how a PreToolUse hook's decision combines with it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from agentcli.tools.base import Tool, ToolCall
from agentcli.tools.grants import describe_grants
from agentcli.tools.rules import PermissionRule


@dataclass(frozen=True, slots=True)
class PermissionDecision:
    behavior: Literal["allow", "deny", "ask"]
    message: str = ""
    """For a denial: why, in words the model can act on."""
    updated_input: dict[str, Any] | None = None
    checked_path: Path | None = None
    """For a file tool: the file judged, symlinks resolved (the tool changes exactly that file)."""


ALLOW = PermissionDecision("allow")

CanUseTool = Callable[[Tool, dict[str, Any], ToolCall], Awaitable[PermissionDecision]]


async def allow_all(_tool: Tool, _input: dict[str, Any], _call: ToolCall) -> PermissionDecision:
    return ALLOW


@dataclass(frozen=True, slots=True)
class PermissionRequest:
    """What a face shows when it asks: the call, why it needs approval, and what "allow for this session" adds."""

    tool_name: str
    tool_input: dict[str, Any]
    tool_use_id: str
    reason: str
    suggestions: tuple[str, ...] = ()
    """The session grant as rule texts (for a driving program's ``permission_suggestions``)."""
    grants: tuple[PermissionRule, ...] = ()
    """The rules "allow for this session" adds; none: the call can only be allowed once."""

    @property
    def session_grant(self) -> str | None:
        """What "allow for this session" adds, in full, or None when the call can only be allowed once."""
        if self.grants:
            return describe_grants(self.grants)
        return ", ".join(self.suggestions) or None


@dataclass(frozen=True, slots=True)
class PermissionAnswer:
    choice: Literal["allow_once", "allow_session", "deny"]
    reason: str = ""
    """For a denial: passed on to the model so it can change course."""
    updated_input: dict[str, Any] | None = None


AskUser = Callable[[PermissionRequest], Awaitable[PermissionAnswer]]


@dataclass(frozen=True, slots=True)
class Verdict:
    """The policy's answer before anyone is asked."""

    behavior: Literal["allow", "deny", "ask"]
    reason: str = ""
    grants: tuple[PermissionRule, ...] = ()
    """What "allow for this session" adds: exactly what the question shows, never wider."""
    firm: bool = False
    """An ask that a hook's ``allow`` cannot lift (an ask rule, a protected path, leaving the sandbox, the hook's
    own ``ask``)."""
    network: bool = False
    """An allow the user gave by naming the command in an allow rule: in the sandbox it may use the network, like a
    command approved in person (a bare ``Bash`` rule or bypassPermissions names nothing)."""
    path: Path | None = None
    """For a file tool: the file judged, symlinks resolved."""
    allow_hint: str = ""
    """What the user would change to allow the call, when a grant's rule would not (a pasteable line)."""

    @property
    def suggestions(self) -> tuple[str, ...]:
        """The grants as rule texts a driving program may send back; an exact grant whose text holds a ``*`` is
        left out, since as a rule that ``*`` would be a wildcard."""
        return tuple(str(rule) for rule in self.grants if not (rule.literal and "*" in (rule.specifier or "")))


HookDecision = tuple[Literal["allow", "ask"], str]
"""A PreToolUse hook's ``permissionDecision`` (``deny`` never reaches the policy) and its reason."""


def with_hook_decision(verdict: Verdict, hook: HookDecision | None) -> Verdict:
    """Claude Code's precedence: deny rules beat a hook's allow, which lifts only ordinary asks; a hook's ask asks."""
    if hook is None or verdict.behavior == "deny":
        return verdict
    decision, reason = hook
    if decision == "allow":
        return Verdict("allow") if verdict.behavior == "ask" and not verdict.firm else verdict
    if verdict.behavior == "ask":
        return verdict
    return Verdict("ask", f"a PreToolUse hook asks for approval: {reason or 'no reason given'}", (), firm=True)
