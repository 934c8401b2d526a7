"""Slash commands that arrive as user messages on stdin: ``/clear`` and ``/compact``. Anything else is a prompt."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentcli import sdk_messages as sdk
from agentcli.usage import UsageTracker

if TYPE_CHECKING:
    from agentcli.ui.protocol.session import ProtocolFace

Message = dict[str, Any]
COMMANDS = {
    "clear": ("Clear conversation history and free up context", ""),
    "compact": ("Clear conversation history but keep a summary in context", "<optional focus>"),
}


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    argument: str


def parse(content: str | list[dict[str, Any]]) -> Command | None:
    text = content if isinstance(content, str) else None
    if text is None or not text.startswith("/"):
        return None
    name, _, argument = text[1:].strip().partition(" ")
    return Command(name, argument.strip()) if name in COMMANDS else None


def descriptions() -> list[dict[str, str]]:
    """For the ``initialize`` answer: the commands a driving program may send."""
    return [{"name": name, "description": text, "argumentHint": hint} for name, (text, hint) in COMMANDS.items()]


async def run(face: ProtocolFace, command: Command) -> list[Message]:
    started = time.monotonic()
    if command.name == "clear":
        old_session = await face.reset()
        reset = {"type": "conversation_reset", "new_conversation_id": str(uuid.uuid4()), "uuid": str(uuid.uuid4()),
                 "session_id": old_session}
        return [reset, _local_result(face.engine().session_id, started, "", None)]
    engine = face.engine()
    compact = getattr(engine, "compact", None)
    if compact is None:
        return [_local_result(engine.session_id, started, "", "Compaction is not available in this version")]
    outcome = compact(command.argument or None)
    messages: list[Message] = []
    if hasattr(outcome, "__aiter__"):  # the engine may stream what compaction does, or just do it
        messages = [message async for message in outcome]
    else:
        await outcome
    if not any(message.get("type") == "result" for message in messages):
        messages.append(_local_result(engine.session_id, started, "Compacted", None))
    return messages


def _local_result(session_id: str, started: float, text: str, error: str | None) -> Message:
    """The result of a command that ran here without asking the model."""
    result = sdk.result_message(
        subtype="error_during_execution" if error else "success", turns=0, duration_s=time.monotonic() - started,
        api_time_s=0.0, text=text, stop_reason=None, errors=[error] if error else [], usage=UsageTracker(),
        permission_denials=[], terminal_reason="completed" if error is None else "local_command_failed",
    )
    return {**result, "session_id": session_id, "uuid": str(uuid.uuid4())}
