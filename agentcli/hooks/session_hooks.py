"""Where hooks meet the loop and the engine: Stop, PostToolUse, UserPromptSubmit, SessionStart/End.

The loop sees only :class:`LoopHooks` (a small protocol) and plain verdicts; the processes, matchers and JSON
live in the runner.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Protocol

from agentcli.events import ToolFinished
from agentcli.hooks.runner import HookOutcome, HookRunner

DEFAULT_STOP_BLOCK_CAP = 8


@dataclass
class StopVerdict:
    """What the Stop hooks decided about a finished turn."""

    prevent: bool = False
    stop_reason: str | None = None
    feedback: str | None = None
    """Blocking feedback for the model; the loop continues with it as a meta user message."""
    summary: dict[str, Any] | None = None
    """For the transcript and ctrl+o: each hook's command, duration, exit code, error, output."""
    messages: list[str] = field(default_factory=list)
    """``systemMessage`` warnings for the user."""


class LoopHooks(Protocol):
    block_cap: int

    @property
    def halt(self) -> str | None:
        """Set when a tool hook answered ``continue: false`` (its ``stopReason``): the loop ends after these tools."""

    def take_warnings(self) -> list[str]:
        """What tool hooks said to the user since the last call (``systemMessage``, failures, timeouts)."""

    async def stop(self, last_assistant_text: str, stop_hook_active: bool) -> StopVerdict: ...

    async def post_tool_use(self, tool_use: dict[str, Any], finished: ToolFinished) -> list[str]: ...


def _summary(outcome: HookOutcome, **extra: Any) -> dict[str, Any]:
    return {
        "hook_event": outcome.event,
        "hooks": [r.summary() for r in outcome.results],
        "has_errors": bool(outcome.errors),
        "errors": outcome.errors,
        **extra,
    }


class SessionHooks:
    """The hooks of one session, as the loop and engine need them."""

    def __init__(self, runner: HookRunner, block_cap: int | None = None) -> None:
        self.runner = runner
        self.block_cap = block_cap or _env_cap() or DEFAULT_STOP_BLOCK_CAP
        self.halt: str | None = None
        self._warnings: list[str] = []

    def note(self, outcome: HookOutcome) -> None:
        """Keep what a tool hook's run means for the user and the run: warnings, and ``continue: false``."""
        self._warnings += outcome.system_messages
        self._warnings += [f"{outcome.event} hook {error}" for error in outcome.errors]
        if outcome.prevent_continuation and self.halt is None:
            self.halt = outcome.stop_reason

    def take_warnings(self) -> list[str]:
        warnings, self._warnings = self._warnings, []
        return warnings

    async def stop(
        self,
        last_assistant_text: str,
        stop_hook_active: bool,
        *,
        event: str = "Stop",
        fields: dict[str, Any] | None = None,
        match_value: str | None = None,
    ) -> StopVerdict:
        """Stop hooks (or, for a sub-agent, ``SubagentStop`` with its ``fields``) judge a finished turn."""
        if not self.runner.has(event):
            return StopVerdict()
        outcome = await self.runner.run(
            event,
            {"stop_hook_active": stop_hook_active, "last_assistant_message": last_assistant_text, **(fields or {})},
            match_value=match_value,
        )
        verdict = StopVerdict(messages=outcome.system_messages)
        if outcome.results:
            verdict.summary = _summary(outcome, prevented=outcome.prevent_continuation, stop_reason=outcome.stop_reason)
        if outcome.prevent_continuation:
            verdict.prevent = True
            verdict.stop_reason = outcome.stop_reason
        elif outcome.blocking or outcome.additional_context:
            # Blocking messages and additionalContext both send the model back to work, as in Claude Code.
            lines = [f"[{cmd}]: {msg}" for cmd, msg in outcome.blocking] + outcome.additional_context
            verdict.feedback = f"{event} hook feedback:\n" + "\n".join(lines)
        return verdict

    async def post_tool_use(self, tool_use: dict[str, Any], finished: ToolFinished) -> list[str]:
        """Feedback for the model after a tool ran (PostToolUse) or failed (PostToolUseFailure): blocking messages
        and ``additionalContext``."""
        event = "PostToolUseFailure" if finished.is_error else "PostToolUse"
        if not self.runner.has(event):
            return []
        fields: dict[str, Any] = {
            "tool_name": tool_use["name"],
            "tool_input": tool_use.get("input", {}),
            "tool_use_id": tool_use["id"],
        }
        if finished.is_error:
            fields["error"] = _text_of(finished.block.get("content"))
            fields["is_interrupt"] = False
        else:
            fields["tool_response"] = (
                finished.structured if finished.structured is not None else finished.block.get("content")
            )
        outcome = await self.runner.run(event, fields, match_value=tool_use["name"])
        self.note(outcome)
        notes = [f"{event} hook feedback:\n[{cmd}]: {msg}" for cmd, msg in outcome.blocking]
        notes += outcome.additional_context
        return notes

    async def pre_tool_use(self, tool_name: str, tool_input: dict[str, Any], tool_use_id: str) -> HookOutcome:
        outcome = await self.runner.run(
            "PreToolUse",
            {"tool_name": tool_name, "tool_input": tool_input, "tool_use_id": tool_use_id},
            match_value=tool_name,
        )
        self.note(outcome)
        return outcome

    async def user_prompt_submit(self, prompt: str) -> HookOutcome:
        return await self.runner.run("UserPromptSubmit", {"prompt": prompt})

    async def session_start(self, source: str) -> HookOutcome:
        return await self.runner.run("SessionStart", {"source": source}, match_value=source)

    async def session_end(self, reason: str) -> HookOutcome:
        return await self.runner.run("SessionEnd", {"reason": reason}, match_value=reason)

    async def notification(self, message: str, title: str) -> HookOutcome:
        return await self.runner.run("Notification", {"message": message, "title": title}, match_value=message)


def _text_of(content: Any) -> str:
    if isinstance(content, list):
        return "\n".join(str(block.get("text", "")) for block in content if isinstance(block, dict))
    return str(content or "")


def _env_cap() -> int | None:
    raw = os.environ.get("AGENTCLI_STOP_HOOK_BLOCK_CAP")
    try:
        return max(1, int(raw)) if raw else None
    except ValueError:
        return None
