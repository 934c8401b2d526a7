"""The engine's outgoing messages: Claude Code's SDK shapes with session id and uuid, recorded in the transcript.

Faces and ``stream-json`` readers see these; the transcript store persists them. Kept apart from the engine so
its lifecycle reads without the details of each shape.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from agentcli import sdk_messages as sdk
from agentcli.engine_config import EngineConfig
from agentcli.events import Compacted
from agentcli.hooks.runner import HookOutcome
from agentcli.session.tool_state import boundary_record
from agentcli.usage import UsageTracker

Message = dict[str, Any]


class Outbox:
    """Builds the session's messages and records them through ``config.recorder``."""

    def __init__(
        self, session_id: str, config: EngineConfig, usage: UsageTracker, permission_denials: list[dict[str, Any]]
    ) -> None:
        self.session_id = session_id
        self.config = config
        self.usage = usage
        self.permission_denials = permission_denials
        self._uuid_prefix = str(uuid.uuid4())[:24]
        self._uuid_count = 0

    def envelope(self, payload: Message) -> Message:
        payload["session_id"] = self.session_id
        payload["uuid"] = self.next_uuid()
        return payload

    def next_uuid(self) -> str:
        """A unique UUID-shaped id: a random prefix per engine and a counter (a ``uuid4()`` per stream event cost
        about 5 % of a fast stream)."""
        self._uuid_count += 1
        return f"{self._uuid_prefix}{self._uuid_count & 0xFFFFFFFFFFFF:012x}"

    def record(self, entry: Message) -> None:
        if self.config.recorder is not None:
            self.config.recorder.record(entry)

    def hook_messages(self, outcome: HookOutcome) -> list[Message]:
        """A summary of the hooks that ran (for the transcript and ctrl+o) and their warnings for the user."""
        if not outcome.results:
            return []
        out = [
            self.envelope(
                {
                    "type": "system",
                    "subtype": "hook_summary",
                    "hook_event": outcome.event,
                    "hooks": [result.summary() for result in outcome.results],
                    "has_errors": bool(outcome.errors),
                    "errors": outcome.errors,
                }
            )
        ]
        self.record(out[0])
        return out + [
            self.warning(message)
            for message in outcome.system_messages + [f"{outcome.event} hook {error}" for error in outcome.errors]
        ]

    def compaction(self, event: Compacted) -> list[Message]:
        """Record a compaction: the boundary, then the new history (the summary message and the kept tail again,
        so ``--resume`` reads from the boundary on). Returns what faces show: the boundary and the summary."""
        out = self.hook_messages(event.hooks) if event.hooks is not None else []
        boundary = self.envelope(
            {
                "type": "system",
                "subtype": "compact_boundary",
                "compact_metadata": {
                    "trigger": event.trigger,
                    "pre_tokens": event.pre_tokens,
                    "post_tokens": event.post_tokens,
                },
                **boundary_record(self.config.tool_env.state),
            }
        )
        self.record(boundary)
        first, *tail = event.messages
        summary = self.envelope(sdk.user_message(first, isCompactSummary=True, isVisibleInTranscriptOnly=True))
        self.record(summary)
        for message in tail:
            kind = message["role"]
            self.record(
                self.envelope({"type": kind, "message": message, "parent_tool_use_id": None, "isCompactReplay": True})
            )
        return [*out, boundary, summary]

    def warning(self, message: str) -> Message:
        """A warning for the user, recorded (it explains what the transcript shows next)."""
        out = self.envelope({"type": "system", "subtype": "warning", "level": "warning", "message": message})
        self.record(out)
        return out

    def api_error(self, error: str) -> Message:
        return self.envelope(sdk.api_error_message(error))

    def result(
        self,
        subtype: str,
        turns: int,
        started: float,
        api_time: float,
        text: str,
        stop_reason: str | None,
        errors: list[str],
        ending: dict[str, Any] | None = None,
    ) -> Message:
        return self.envelope(
            sdk.result_message(
                subtype=subtype,
                turns=turns,
                duration_s=time.monotonic() - started,
                api_time_s=api_time,
                text=text,
                stop_reason=stop_reason,
                errors=errors,
                usage=self.usage,
                permission_denials=self.permission_denials,
                **(ending or {}),
            )
        )
