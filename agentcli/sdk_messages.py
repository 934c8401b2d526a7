"""Claude Code's SDK message shapes, built from loop events. Every face and ``stream-json`` reads these.

Pure functions: the engine adds ``session_id`` and ``uuid`` (the envelope) and decides what to emit.
"""

from __future__ import annotations

import uuid
from typing import Any

from agentcli import __version__
from agentcli.api.accumulate import empty_usage
from agentcli.events import ToolFinished, ToolProgress, ToolStarted
from agentcli.usage import UsageTracker

Message = dict[str, Any]


def init_message(
    *,
    cwd: str,
    model: str,
    tools: list[str],
    permission_mode: str,
    slash_commands: list[str],
    api_key_source: str,
    mcp_servers: list[dict[str, Any]] | None = None,
) -> Message:
    return {
        "type": "system",
        "subtype": "init",
        "cwd": cwd,
        "model": model,
        "tools": tools,
        "mcp_servers": list(mcp_servers or []),
        "permissionMode": permission_mode,
        "slash_commands": slash_commands,
        "apiKeySource": api_key_source,
        "version": __version__,
        "claude_code_version": __version__,
        "output_style": "default",
    }


def user_message(param: Message, **extra: Any) -> Message:
    return {"type": "user", "message": param, "parent_tool_use_id": None, **extra}


def tool_result_message(finished: ToolFinished) -> Message:
    """One ``user`` line per tool result, with the structured result faces and hooks read."""
    payload = user_message({"role": "user", "content": [finished.block]})
    if finished.structured is not None:
        payload["tool_use_result"] = finished.structured
    return payload


def tool_event_message(event: ToolStarted | ToolProgress | ToolFinished) -> Message:
    if isinstance(event, ToolProgress):
        return {
            "type": "system",
            "subtype": "tool_progress",
            "tool_use_id": event.tool_use_id,
            "tool_name": event.name,
            "elapsed_time_seconds": round(event.elapsed_s, 3),
            "output": event.output,
        }
    if isinstance(event, ToolStarted):
        return {
            "type": "system",
            "subtype": "tool_started",
            "tool_use_id": event.tool_use_id,
            "tool_name": event.name,
            "tool_input": event.input,
        }
    return {
        "type": "system",
        "subtype": "tool_finished",
        "tool_use_id": event.tool_use_id,
        "tool_name": event.name,
        "is_error": event.is_error,
        "duration_ms": int(event.duration_s * 1000),
    }


def api_error_message(error: str) -> Message:
    """An assistant-shaped message that shows an error; faces display it, requests never include it."""
    return {
        "type": "assistant",
        "message": {
            "id": f"msg_error_{uuid.uuid4().hex[:12]}",
            "type": "message",
            "role": "assistant",
            "model": "<synthetic>",
            "content": [{"type": "text", "text": f"API Error: {error}"}],
            "stop_reason": "stop_sequence",
            "stop_sequence": "",
            "usage": empty_usage(),
        },
        "parent_tool_use_id": None,
        "error": "unknown",
        "isApiErrorMessage": True,
    }


TERMINAL_REASONS = {"model_error": "api_error"}
"""The loop's ending reasons under the names results carry (``terminal_reason``); others keep their own."""


def unsuccessful_answer(stop_reason: str | None, text: str, structured: bool) -> tuple[str, str] | None:
    """Why a turn that ended normally still did not answer (``terminal_reason``, message), or None if it did."""
    if stop_reason == "refusal":
        return "refusal", "The model declined to respond (stop_reason: refusal)"
    if stop_reason == "max_tokens":
        return "max_tokens", "The answer was cut off at the output token limit (stop_reason: max_tokens)"
    if not text.strip() and not structured:
        return "empty_response", f"The model returned an empty answer (stop_reason: {stop_reason})"
    return None


def result_message(
    *,
    subtype: str,
    turns: int,
    duration_s: float,
    api_time_s: float,
    text: str,
    stop_reason: str | None,
    errors: list[str],
    usage: UsageTracker,
    permission_denials: list[dict[str, Any]],
    terminal_reason: str | None = None,
    api_error: str | None = None,
    api_error_status: int | None = None,
    structured_output: Any = None,
) -> Message:
    """The last message of a submission. An API failure puts ``API Error: …`` in ``result`` (as Claude Code
    does) while the subtype still says the run failed."""
    is_error = subtype != "success"
    result: Message = {
        "type": "result",
        "subtype": subtype,
        "is_error": is_error,
        "duration_ms": int(duration_s * 1000),
        "duration_api_ms": int(api_time_s * 1000),
        "num_turns": turns,
        "result": api_error or (text if not is_error or not errors else (text or errors[-1])),
        "stop_reason": stop_reason,
        "terminal_reason": terminal_reason,
        "total_cost_usd": round(usage.cost_usd, 8),
        "usage": dict(usage.total),
        "modelUsage": {model: entry.sdk() for model, entry in usage.by_model.items()},
        "permission_denials": list(permission_denials),
    }
    unpriced = usage.unpriced()
    if unpriced:
        result["unpriced_models"] = unpriced
    if errors:
        result["errors"] = errors
    if api_error_status is not None:
        result["api_error_status"] = api_error_status
    if structured_output is not None:
        result["structured_output"] = structured_output
    return result
