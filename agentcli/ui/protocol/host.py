"""What the driving program decides or serves for agentcli: tool permissions (``can_use_tool``), its hook callbacks
(``hook_callback``) and its own MCP servers (``mcp_message``). Each is a control request sent on stdout; agentcli
waits for the answer on stdin."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentcli.hooks.config import DEFAULT_TIMEOUT_S, EVENTS, ConfiguredHook
from agentcli.tools.permissions import PermissionAnswer, PermissionPolicy, PermissionRequest
from agentcli.tools.rules import InvalidRule, parse_rule
from agentcli.ui.protocol.channel import Channel, HostError
from agentcli.ui.protocol.orphans import drop_question, save_question

HOST_HOOK_SOURCE = "sdk"


def suggestion_updates(suggestions: tuple[str, ...]) -> list[dict[str, Any]]:
    """agentcli's "allow for this session" rules as the SDK's permission updates (``addRules``)."""
    rules = []
    for text in suggestions:
        try:
            rule = parse_rule(text, "allow", "session")
        except InvalidRule:
            continue
        rules.append(
            {"toolName": rule.tool, "ruleContent": rule.specifier}
            if rule.specifier is not None
            else {"toolName": rule.tool}
        )
    return [{"type": "addRules", "rules": rules, "behavior": "allow", "destination": "session"}] if rules else []


def apply_updates(policy: PermissionPolicy | None, updates: Any) -> None:
    """Rules the driving program added with its answer (``updatedPermissions``: ``addRules`` entries)."""
    if policy is None or not isinstance(updates, list):
        return
    for update in updates:
        if not isinstance(update, dict) or update.get("type") != "addRules":
            continue
        behavior = update.get("behavior")
        if behavior not in ("allow", "deny", "ask"):
            continue
        texts = []
        for rule in update.get("rules") or []:
            if isinstance(rule, dict) and isinstance(rule.get("toolName"), str):
                content = rule.get("ruleContent")
                texts.append(f"{rule['toolName']}({content})" if content else rule["toolName"])
        try:
            policy.add_rules(texts, behavior, "sdk")
        except InvalidRule:
            continue


class HostPermissions:
    """An ``AskUser`` that puts the question to the driving program (``--permission-prompt-tool stdio``)."""

    def __init__(
        self,
        channel: Channel,
        policy: Callable[[], PermissionPolicy | None],
        interrupt: Callable[[], None],
        questions: Callable[[], Path | None],
    ) -> None:
        self.channel = channel
        self.policy = policy
        self.interrupt = interrupt
        self.questions = questions
        """Where the open question is kept while it waits (see :mod:`agentcli.ui.protocol.orphans`)."""

    async def __call__(self, request: PermissionRequest) -> PermissionAnswer:
        path = self.questions()
        save_question(path, request)
        try:
            reply = await self._ask(request)
        except HostError as exc:
            if self.channel.closed:
                # The program went away mid-question: stop here and keep the question for the next start.
                self.interrupt()
                return PermissionAnswer(
                    "deny",
                    "the program driving agentcli went away before answering; the "
                    "question will be asked again when the session resumes",
                )
            drop_question(path)
            return PermissionAnswer("deny", f"the program driving agentcli did not answer ({exc})")
        except BaseException:
            drop_question(path)
            raise
        drop_question(path)
        if reply.get("behavior") == "allow":
            updated = reply.get("updatedInput")
            apply_updates(self.policy(), reply.get("updatedPermissions"))
            changed = updated if isinstance(updated, dict) and updated != request.tool_input else None
            return PermissionAnswer("allow_once", updated_input=changed)
        if reply.get("interrupt"):
            self.interrupt()
        return PermissionAnswer("deny", str(reply.get("message") or ""))

    async def _ask(self, request: PermissionRequest) -> dict[str, Any]:
        return await self.channel.request(
            {
                "subtype": "can_use_tool",
                "tool_name": request.tool_name,
                "input": request.tool_input,
                "permission_suggestions": suggestion_updates(request.suggestions) or None,
                "blocked_path": None,
                "decision_reason": request.reason,
                "tool_use_id": request.tool_use_id,
            }
        )


def host_hooks(config: Any, channel: Channel) -> tuple[list[ConfiguredHook], list[str]]:
    """The hooks of an ``initialize`` request (``{event: [{matcher, hookCallbackIds, timeout}]}``) as configured
    hooks that call back over the channel, and a note for each part agentcli cannot honour."""
    hooks: list[ConfiguredHook] = []
    notes: list[str] = []
    if not isinstance(config, dict):
        return hooks, notes
    for event, matchers in config.items():
        if event not in EVENTS:
            notes.append(f"hooks for {event} are not run by agentcli")
            continue
        for matcher in matchers or []:
            timeout = matcher.get("timeout")
            for callback_id in matcher.get("hookCallbackIds") or []:
                hooks.append(
                    ConfiguredHook(
                        event,
                        matcher.get("matcher"),
                        f"sdk callback {callback_id}",
                        float(timeout) if isinstance(timeout, (int, float)) and timeout > 0 else DEFAULT_TIMEOUT_S,
                        HOST_HOOK_SOURCE,
                        callback=_callback(channel, str(callback_id)),
                    )
                )
    return hooks, notes


def _callback(channel: Channel, callback_id: str) -> Callable[[dict[str, Any]], Any]:
    async def call(payload: dict[str, Any]) -> dict[str, Any]:
        return await channel.request(
            {
                "subtype": "hook_callback",
                "callback_id": callback_id,
                "input": payload,
                "tool_use_id": payload.get("tool_use_id"),
            }
        )

    return call


class HostedMcp:
    """Carries JSON-RPC to the MCP servers the driving program hosts (``{"type": "sdk"}`` in its MCP config)."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel

    async def __call__(self, server: str, message: dict[str, Any]) -> dict[str, Any]:
        try:
            reply = await self.channel.request({"subtype": "mcp_message", "server_name": server, "message": message})
        except HostError as exc:
            if self.channel.closed:
                raise ConnectionError(str(exc)) from None
            raise
        answer = reply.get("mcp_response")
        return answer if isinstance(answer, dict) else {}
