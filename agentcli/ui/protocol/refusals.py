"""The answer to a stdin line agentcli could not read as a message: an error ``result`` in the place of the turn
it would have been, so a driving program waiting for that turn's result gets one and learns what was wrong."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from agentcli import sdk_messages as sdk
from agentcli.usage import UsageTracker


@dataclass(frozen=True)
class Refusal:
    """A line that was not run, queued behind the turns before it; ``why`` names the line and the problem."""

    why: str


def refusal_result(session_id: str, refusal: Refusal) -> dict[str, Any]:
    result = sdk.result_message(
        subtype="error_during_execution",
        turns=0,
        duration_s=0.0,
        api_time_s=0.0,
        text="",
        stop_reason=None,
        errors=[refusal.why],
        usage=UsageTracker(),
        permission_denials=[],
        terminal_reason="invalid_input",
    )
    return {**result, "session_id": session_id, "uuid": str(uuid.uuid4())}
