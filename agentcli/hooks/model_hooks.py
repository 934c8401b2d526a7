"""``"type": "prompt"`` and ``"type": "agent"`` hooks: a model, not a program, decides.

The hook's prompt (``$ARGUMENTS`` replaced by the event's JSON input) goes to a small fast model, which answers
``{"ok": true}`` or ``{"ok": false, "reason": "…"}``; that answer becomes the JSON output a command hook would
print for the same event, so the rest of the hook machinery judges both kinds alike. An agent hook does the same
through a short run with read-only tools (the bootstrap supplies that run; the loop lives above this layer).
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

from agentcli.api.accumulate import MessageAccumulator
from agentcli.api.client import ModelClient, ModelRequest
from agentcli.hooks.config import ConfiguredHook

DEFAULT_HOOK_MODEL = "claude-haiku-5-5"
ANSWER_MAX_TOKENS = 1_024
SYSTEM = (
    "You are evaluating a hook in a coding agent. You get the hook's instructions and the event's JSON input. "
    'Answer with one JSON object and nothing else: {"ok": true} when the condition is met or the action may '
    'proceed, or {"ok": false, "reason": "<why, addressed to the agent>"} when it may not.'
)

AgentRun = Callable[[str, str, str], Awaitable[str]]
"""An agent hook's run: (model, system prompt, prompt) in, the final answer text out."""


def hook_prompt(hook: ConfiguredHook, payload: dict[str, Any]) -> str:
    arguments = json.dumps(payload, ensure_ascii=False)
    if "$ARGUMENTS" in hook.command:
        return hook.command.replace("$ARGUMENTS", arguments)
    return f"{hook.command}\n\nEvent input:\n{arguments}"


def parse_answer(text: str) -> dict[str, Any]:
    """The model's JSON answer (the first object in its text); an answer that isn't JSON counts as a failure."""
    match = re.search(r"\{.*\}", text, re.DOTALL)
    if match is None:
        raise ValueError(f"the model did not answer with JSON: {text.strip()[:200]!r}")
    answer = json.loads(match.group(0))
    if not isinstance(answer, dict):
        raise ValueError("the model's answer is not a JSON object")
    return answer


def as_hook_output(event: str, answer: dict[str, Any]) -> dict[str, Any]:
    """``{ok, reason}`` in the shape a command hook prints for ``event``. An answer already in that shape
    (``decision``, ``continue``…) passes through."""
    if "ok" not in answer:
        return answer
    output: dict[str, Any] = {key: answer[key] for key in ("continue", "stopReason", "systemMessage") if key in answer}
    if answer.get("ok") is not False:
        return output
    reason = str(answer.get("reason") or "the hook's condition was not met")
    if event == "PreToolUse":
        output["hookSpecificOutput"] = {
            "hookEventName": event,
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    else:
        output["decision"] = "block"
        output["reason"] = reason
    return output


class ModelHooks:
    """The :data:`agentcli.hooks.runner.ModelJudge` of a session: one request per prompt hook, one short run per
    agent hook."""

    def __init__(self, client: ModelClient, agent_run: AgentRun | None = None) -> None:
        self.client = client
        self.agent_run = agent_run

    async def __call__(self, hook: ConfiguredHook, payload: dict[str, Any]) -> dict[str, Any]:
        model = hook.model or DEFAULT_HOOK_MODEL
        prompt = hook_prompt(hook, payload)
        if hook.kind == "agent":
            if self.agent_run is None:
                raise RuntimeError("agent hooks are not available in this session")
            text = await self.agent_run(model, SYSTEM, prompt)
        else:
            text = await self._ask(model, prompt)
        return as_hook_output(str(payload.get("hook_event_name", hook.event)), parse_answer(text))

    async def _ask(self, model: str, prompt: str) -> str:
        request = ModelRequest(
            model=model,
            max_tokens=ANSWER_MAX_TOKENS,
            messages=[{"role": "user", "content": prompt}],
            system=SYSTEM,
        )
        accumulator = MessageAccumulator()
        async for event in self.client.stream(request):
            accumulator.feed(event)
        message = accumulator.message()
        return "".join(b.get("text", "") for b in message["content"] if b.get("type") == "text")
