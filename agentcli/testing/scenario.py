"""Scenario files: the scripted replies the fake Messages API plays back, one turn per request.

    {"model": "claude-sonnet-5-5", "on_exhausted": "error" | "repeat_last" | "echo", "context_window": null,
     "prompt_cache": false,
     "turns": [{"content": [{"type": "text", "text": "Hi", "chunks": 2},
                            {"type": "tool_use", "id": "toolu_01", "name": "Read", "input": {"file_path": "x"}}],
                "stop_reason": null, "usage": {}, "delay_ms": 0, "first_byte_delay_ms": 0, "ping_every": 0,
                "expect": {"last_user_text_contains": "...", "tool_result_for": "toolu_00"},
                "fault": {"kind": "http" | "prompt_too_long" | "drop" | "stall" | "sse_error", ...}}]}

Every valid POST /v1/messages takes the next turn; a request the validator rejects takes none.
`after_events` in faults counts SSE events as written, pings included. The real API's single ping after
message_start is always sent; `ping_every: N` adds one more after every N of the events that follow it.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

StopReason = Literal[
    "end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn", "refusal", "model_context_window_exceeded"
]

_SCENARIO_DIR = Path(__file__).with_name("scenarios")
DEFAULT_MODEL = "claude-fake"
"""The model a reply names when neither the request nor the scenario does."""


class _Strict(BaseModel):
    """Rejects unknown keys so a typo in a scenario file fails loudly instead of being ignored."""

    model_config = ConfigDict(extra="forbid")


class TextSpec(_Strict):
    """A text block, streamed as `chunks` text_delta events."""

    type: Literal["text"]
    text: str
    chunks: int | None = Field(default=None, ge=1)


class ThinkingSpec(_Strict):
    """A thinking block: thinking_delta events followed by one signature_delta."""

    type: Literal["thinking"]
    thinking: str
    signature: str = Field(default_factory=lambda: f"sig_fake_{uuid.uuid4().hex}", min_length=1)
    chunks: int | None = Field(default=None, ge=1)


class RedactedThinkingSpec(_Strict):
    """A redacted thinking block: delivered whole in content_block_start, no deltas."""

    type: Literal["redacted_thinking"]
    data: str = Field(min_length=1)


class ToolUseSpec(_Strict):
    """A tool call whose serialized input is streamed as `chunks` input_json_delta pieces.

    `ensure_ascii` serializes non-ASCII input as \\uXXXX escapes, so pieces can end inside an escape sequence.
    """

    type: Literal["tool_use"]
    id: str = Field(default_factory=lambda: f"toolu_fake_{uuid.uuid4().hex[:24]}", pattern=r"^[a-zA-Z0-9_-]+$")
    name: str = Field(pattern=r"^[a-zA-Z0-9_-]{1,128}$")
    input: dict[str, Any] = Field(default_factory=dict)
    chunks: int | None = Field(default=None, ge=1)
    ensure_ascii: bool = False

    def input_json(self) -> str:
        """The exact text the deltas are cut from; concatenating them must give back this string."""
        return json.dumps(self.input, ensure_ascii=self.ensure_ascii)


class ServerToolUseSpec(ToolUseSpec):
    """A server tool call (web search): streamed like a tool call, run by the API, never by the client."""

    type: Literal["server_tool_use"]  # type: ignore[assignment]
    id: str = Field(default_factory=lambda: f"srvtoolu_fake_{uuid.uuid4().hex[:24]}", pattern=r"^[a-zA-Z0-9_-]+$")
    name: str = "web_search"


class WebSearchResultSpec(_Strict):
    """The API's web search results for a server tool call: delivered whole in content_block_start."""

    type: Literal["web_search_tool_result"]
    tool_use_id: str
    content: list[dict[str, Any]] | dict[str, Any] = Field(default_factory=list)
    """The results, or the API's error object (``{"type": "web_search_tool_result_error", "error_code": ...}``)."""


ContentSpec = Annotated[
    TextSpec | ThinkingSpec | RedactedThinkingSpec | ToolUseSpec | ServerToolUseSpec | WebSearchResultSpec,
    Field(discriminator="type"),
]


class UsageSpec(_Strict):
    """Token counts to report; anything left out is estimated from the request or the scripted content."""

    input_tokens: int | None = Field(default=None, ge=0)
    output_tokens: int | None = Field(default=None, ge=0)
    cache_creation_input_tokens: int | None = Field(default=None, ge=0)
    cache_read_input_tokens: int | None = Field(default=None, ge=0)
    """Left out: 0, or what the scenario's ``prompt_cache`` simulation finds."""
    web_search_requests: int = Field(default=0, ge=0)
    """Reported as ``usage.server_tool_use.web_search_requests`` when not 0."""


class Expectation(_Strict):
    """Checks on the incoming request; a failure is recorded as a violation but the turn is still served."""

    last_user_text_contains: str | None = None
    tool_result_for: str | list[str] | None = None


class Match(_Strict):
    """Which requests a turn answers. A turn with ``when`` is served to the first request that matches it, out of
    order if need be; turns without it are served in order (concurrent conversations, such as sub-agents, each
    get their own replies)."""

    system_contains: str | None = None
    first_user_text_contains: str | None = None
    last_user_text_contains: str | None = None
    last_user_text_excludes: str | None = None
    """Only requests whose last user text does not contain this (a conversation's own turns, not a side request
    such as a compaction's summary request)."""


class Rendezvous(_Strict):
    """Hold the reply until ``parties`` requests with this rendezvous are waiting at once (proof that a client
    sent them concurrently). After ``timeout_s`` the reply goes out anyway and a violation is recorded."""

    name: str
    parties: int = Field(ge=2)
    timeout_s: float = Field(default=20.0, gt=0)


class HttpFault(_Strict):
    """Answer with an HTTP error instead of the turn's content."""

    kind: Literal["http"]
    status: int = Field(ge=400, le=599)
    error_type: str | None = None
    message: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)


class PromptTooLongFault(_Strict):
    """The 400 the real API gives when the conversation no longer fits the context window."""

    kind: Literal["prompt_too_long"]
    tokens: int = Field(default=250_000, ge=1)
    maximum: int = Field(default=200_000, ge=1)


class DropFault(_Strict):
    """Close the connection after `after_events` SSE events without ending the chunked body."""

    kind: Literal["drop"]
    after_events: int = Field(default=0, ge=0)


class StallFault(_Strict):
    """Go silent (no pings either) after `after_events` events for `seconds`, then close the connection."""

    kind: Literal["stall"]
    after_events: int = Field(default=0, ge=0)
    seconds: float = Field(default=30.0, ge=0)


class SseErrorFault(_Strict):
    """Send an `error` event after `after_events` events, then end the stream cleanly."""

    kind: Literal["sse_error"]
    after_events: int = Field(default=0, ge=0)
    error_type: str = "overloaded_error"
    message: str = "Overloaded"


Fault = Annotated[HttpFault | PromptTooLongFault | DropFault | StallFault | SseErrorFault, Field(discriminator="kind")]


class Turn(_Strict):
    """One scripted reply: consumed by exactly one valid POST /v1/messages."""

    content: list[ContentSpec] = Field(default_factory=list)
    stop_reason: StopReason | None = None
    stop_sequence: str | None = None
    usage: UsageSpec = Field(default_factory=UsageSpec)
    delay_ms: float = Field(default=0, ge=0)
    first_byte_delay_ms: float = Field(default=0, ge=0)
    ping_every: int = Field(default=0, ge=0)
    hold_after_events: int | None = Field(default=None, ge=1)
    """Stream this many events, then nothing more until the test calls ``FakeAnthropicServer.release()``: the
    test decides when the answer goes on, instead of guessing how long something on its side takes."""
    id: str | None = None
    expect: Expectation | None = None
    fault: Fault | None = None
    when: Match | None = None
    rendezvous: Rendezvous | None = None

    def resolved_stop_reason(self) -> str:
        """The scripted stop reason, or what the real API would report for this content."""
        if self.stop_reason is not None:
            return self.stop_reason
        return (
            "tool_use" if any(isinstance(b, ToolUseSpec) and b.type == "tool_use" for b in self.content) else "end_turn"
        )


class Scenario(_Strict):
    """A whole conversation script plus what to do once it runs out."""

    description: str | None = None
    model: str | None = None
    turns: list[Turn] = Field(default_factory=list)
    context_window: int | None = Field(default=None, ge=1)
    """A request estimated larger than this gets the real API's 400 prompt-too-long answer (and takes no turn);
    usage numbers are estimates too, so a small window makes a short script behave like a long session."""
    on_exhausted: Literal["error", "repeat_last", "echo"] = "error"
    prompt_cache: bool = False
    """Simulate the API's prompt cache (:mod:`agentcli.testing.prompt_cache`): usage reports cache reads and
    writes for the requests' ``cache_control`` breakpoints."""


def bundled_scenario_path(name: str) -> Path:
    """Path of a scenario shipped with the package, e.g. `demo` -> scenarios/demo.json."""
    return _SCENARIO_DIR / f"{name.removesuffix('.json')}.json"


def load_scenario(source: Scenario | Mapping[str, Any] | str | os.PathLike[str]) -> Scenario:
    """Accept a Scenario, a plain dict, a JSON file path or the name of a bundled scenario."""
    if isinstance(source, Scenario):
        return source
    if isinstance(source, Mapping):
        return Scenario.model_validate(dict(source))
    path = Path(source)
    if not path.exists() and isinstance(source, str) and bundled_scenario_path(source).exists():
        path = bundled_scenario_path(source)
    return Scenario.model_validate_json(path.read_text(encoding="utf-8"))
