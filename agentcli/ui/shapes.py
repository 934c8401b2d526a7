"""Typed shapes of the SDK messages the faces read (Claude Code's stream-json vocabulary).

The engine builds these as plain dicts; the faces read them through these TypedDicts so a misspelt key is a type
error rather than a silent ``None``. Only the keys the faces use are listed.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict


class ContentBlock(TypedDict, total=False):
    type: str
    text: str
    thinking: str
    id: str
    name: str
    input: dict[str, Any]
    tool_use_id: str
    content: Any
    is_error: bool


class MessageParam(TypedDict, total=False):
    id: str
    role: Literal["user", "assistant"]
    content: str | list[ContentBlock]
    usage: dict[str, int]
    model: str


class StreamEvent(TypedDict, total=False):
    type: str
    index: int
    message: MessageParam
    content_block: ContentBlock
    delta: dict[str, Any]


class StreamEventMessage(TypedDict):
    type: Literal["stream_event"]
    event: StreamEvent


class AssistantMessage(TypedDict):
    type: Literal["assistant"]
    message: MessageParam
    isApiErrorMessage: NotRequired[bool]


class UserMessage(TypedDict):
    type: Literal["user"]
    message: MessageParam
    isMeta: NotRequired[bool]
    tool_use_result: NotRequired[dict[str, Any]]


class ResultMessage(TypedDict, total=False):
    type: Literal["result"]
    subtype: str
    is_error: bool
    duration_ms: int
    num_turns: int
    total_cost_usd: float
    usage: dict[str, int]
    errors: list[str]
    stop_reason: str | None


SdkMessage = dict[str, Any]
"""Any message as the engine yields it; narrowed to the shapes above by its ``type``."""
