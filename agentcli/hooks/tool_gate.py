"""PreToolUse hooks in front of the permission policy: they may deny, allow, ask, or rewrite the input."""

from __future__ import annotations

import dataclasses
from typing import Any

from agentcli.hooks.session_hooks import SessionHooks
from agentcli.tools.base import Tool, ToolCall
from agentcli.tools.permissions import CanUseTool, HookDecision, PermissionDecision, PermissionPolicy


class PreToolUseGate:
    """A ``CanUseTool`` that runs PreToolUse hooks first, then the wrapped ``policy``.

    A blocking hook (exit 2) or ``permissionDecision: deny`` stops the call and the model sees why. ``allow`` and
    ``ask`` go to the policy, which weighs them against the rules with Claude Code's precedence (deny and ask rules
    still count; ``ask`` asks even when the rules would allow, and is denied where nobody can answer).
    ``updatedInput`` replaces what runs, and is what the rules judge.
    """

    def __init__(self, policy: PermissionPolicy, hooks: SessionHooks) -> None:
        self.policy = policy
        self.hooks = hooks

    async def __call__(self, tool: Tool, tool_input: dict[str, Any], call: ToolCall) -> PermissionDecision:
        outcome = await self.hooks.pre_tool_use(tool.name, tool_input, call.tool_use_id)
        if outcome.prevent_continuation:  # the hooks noted the halt; the loop ends after this batch
            return PermissionDecision("deny", f"A PreToolUse hook stopped the run: {outcome.stop_reason}")
        if outcome.blocking:
            reasons = "; ".join(message for _, message in outcome.blocking)
            return PermissionDecision("deny", f"PreToolUse hook blocked this call: {reasons}")
        updated = outcome.updated_input
        decision = outcome.permission_decision
        if decision is not None and decision[0] == "deny":
            return PermissionDecision("deny", f"PreToolUse hook denied this call: {decision[1] or 'no reason given'}")
        hook: HookDecision | None = None
        if decision is not None and decision[0] in ("allow", "ask"):
            hook = ("allow" if decision[0] == "allow" else "ask", decision[1])
        effective = updated if updated is not None else tool_input
        verdict = await self.policy.decide(tool, effective, call, hook)
        if updated is not None and verdict.behavior == "allow" and verdict.updated_input is None:
            return dataclasses.replace(verdict, updated_input=updated)
        return verdict


def gate_with_pre_tool_use(policy: PermissionPolicy, hooks: SessionHooks) -> CanUseTool:
    """``policy`` behind the session's PreToolUse hooks (or ``policy`` itself when there are none)."""
    if not hooks.runner.has("PreToolUse"):
        return policy
    return PreToolUseGate(policy, hooks)
