"""What the loop tells the world. The engine turns these into SDK-shaped messages; faces read those.

Plain frozen dataclasses: cheap to build on the per-delta path, and free of any UI or wire format.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class RequestStarted:
    """A model request is about to leave (``turn`` counts requests in this submission, from 1)."""

    turn: int
    model: str


@dataclass(frozen=True, slots=True)
class StreamDelta:
    """One raw stream event, exactly as the API sent it."""

    event: dict[str, Any]


@dataclass(frozen=True, slots=True)
class AssistantTurn:
    """A complete assistant message. ``message`` is the API response shape; ``param`` is what later requests repeat."""

    message: dict[str, Any]
    param: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ResponseWithheld:
    """A complete response the loop chose not to keep (asked again instead); it was billed all the same."""

    message: dict[str, Any]
    reason: str


@dataclass(frozen=True, slots=True)
class ToolStarted:
    tool_use_id: str
    name: str
    input: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ToolProgress:
    tool_use_id: str
    name: str
    elapsed_s: float
    output: str


@dataclass(frozen=True, slots=True)
class ToolFinished:
    """A tool call ended (success, error, denial or interruption); ``block`` is its tool_result."""

    tool_use_id: str
    name: str
    block: dict[str, Any]
    structured: dict[str, Any] | None
    duration_s: float

    @property
    def is_error(self) -> bool:
        return bool(self.block.get("is_error"))


@dataclass(frozen=True, slots=True)
class ToolResults:
    """The user message that answers every tool_use of the last assistant message, in tool_use order."""

    param: dict[str, Any]
    finished: tuple[ToolFinished, ...]


@dataclass(frozen=True, slots=True)
class UserInjected:
    """A user-role message the loop added on its own (``max_tokens_recovery``, hook feedback); not typed by a person."""

    param: dict[str, Any]
    reason: str


@dataclass(frozen=True, slots=True)
class Notice:
    """A system event for faces and the transcript (``api_retry``, ``warning``, …)."""

    subtype: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class LoopEnded:
    """The loop's last word: ``completed``, ``max_turns``, ``model_error``, ``aborted``."""

    reason: str
    error: str | None = None
    status: int | None = None
    """For ``model_error``: the HTTP status of the failed request, when there was one."""


@dataclass(frozen=True, slots=True)
class NestedMessage:
    """A message from inside a tool call (a sub-agent's turns and tool results), already in the SDK shape with
    ``parent_tool_use_id`` set; ``usage`` (model, usage) is billed to the session, shown or not."""

    message: dict[str, Any] | None
    usage: tuple[str, dict[str, Any]] | None = None


@dataclass(frozen=True, slots=True)
class Compacted:
    """The history was summarised and replaced (``trigger``: ``auto`` or ``manual``): ``messages`` is the new
    history, recorded after a ``compact_boundary``; ``usage`` (model, usage) is the summary request's bill;
    ``hooks`` the PreCompact hooks' outcome (a ``HookOutcome``), if any ran."""

    trigger: str
    pre_tokens: int
    post_tokens: int
    messages: list[dict[str, Any]]
    usage: tuple[str, dict[str, Any]] | None = None
    hooks: Any = None


LoopEvent = (
    RequestStarted
    | StreamDelta
    | AssistantTurn
    | ResponseWithheld
    | ToolStarted
    | ToolProgress
    | ToolFinished
    | ToolResults
    | UserInjected
    | Notice
    | LoopEnded
    | NestedMessage
    | Compacted
)
