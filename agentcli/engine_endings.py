"""How the loop's ending becomes the ``result``: its subtype, errors, terminal reason and the messages that tell
the user. Kept apart from the engine so its lifecycle reads without each ending's wording."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentcli import sdk_messages as sdk
from agentcli.engine_messages import Outbox
from agentcli.engine_rejected import REJECTED_STATUSES
from agentcli.events import LoopEnded

Message = dict[str, Any]


@dataclass
class Ending:
    """What a ``LoopEnded`` event changes: ``subtype`` is None when it keeps the one so far."""

    subtype: str | None = None
    rejected: bool = False
    messages: list[Message] = field(default_factory=list)


def loop_ended(
    event: LoopEnded, outbox: Outbox, max_turns: int | None, ending: dict[str, Any], errors: list[str]
) -> Ending:
    """Fill ``ending`` and ``errors`` for the result; the returned messages are recorded already."""
    ending["terminal_reason"] = sdk.TERMINAL_REASONS.get(event.reason, event.reason)
    if event.status is not None:
        ending["api_error_status"] = event.status
    out = Ending(rejected=event.reason == "model_error" and event.status in REJECTED_STATUSES)
    match event.reason:
        case "stop_hook_prevented":
            out.messages.append(outbox.warning(f"Stopped by hook: {event.error}"))
        case "hook_stopped":
            out.subtype = "error_during_execution"
            errors.append(f"Stopped by hook: {event.error}")
        case "max_turns":
            out.subtype = "error_max_turns"
            errors.append(f"Reached maximum number of turns ({max_turns})")
        case "completed":
            pass
        case _:
            out.subtype = "error_during_execution"
            errors.append(event.error or event.reason)
            if event.reason in ("model_error", "prompt_too_long"):
                ending["api_error"] = f"API Error: {event.error or event.reason}"
            if event.error:
                error_message = outbox.api_error(event.error)
                outbox.record(error_message)
                out.messages.append(error_message)
    return out
