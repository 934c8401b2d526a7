"""An in-process model client that plays scenario turns, so the loop and the engine are tested in milliseconds.

It has the real client's interface (``stream`` and ``aclose``), reads the same scenario files as the fake Messages
API, validates every request as strictly, and turns scripted faults into the errors the real client raises for
them. No socket, no SDK and no pacing: ``delay_ms``, ``first_byte_delay_ms`` and a stall's ``seconds`` are
ignored (a stall ends at once as the idle timeout would end it). End-to-end tests keep the HTTP fake.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
import os
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from agentcli.api.client import ModelRequest
from agentcli.api.errors import ApiConnectionError, ApiError, AuthError
from agentcli.testing.errors import (
    default_error_message,
    error_type_for_status,
    should_retry_header,
    status_for_error_type,
)
from agentcli.testing.estimate import estimate_input_tokens, estimate_output_tokens, too_long_message
from agentcli.testing.expectations import check_expectations, last_user_text
from agentcli.testing.scenario import (
    DEFAULT_MODEL,
    DropFault,
    HttpFault,
    PromptTooLongFault,
    Scenario,
    SseErrorFault,
    StallFault,
    TextSpec,
    Turn,
    load_scenario,
)
from agentcli.testing.sse import render_stream, usage_for
from agentcli.testing.validate import validate_request

ScenarioSource = Scenario | Mapping[str, Any] | Sequence[Mapping[str, Any]] | str | os.PathLike[str]


class ScriptedModel:
    """Plays one scenario turn per request; ``requests`` keeps a copy of each request body as it was sent.

    A request the real API would reject fails with a 400 (and takes no turn), as it does against the fake server;
    ``violations`` lists why, and :meth:`assert_all_valid` fails a test that sent one.
    """

    def __init__(self, scenario: ScenarioSource) -> None:
        if isinstance(scenario, Sequence) and not isinstance(scenario, str):
            scenario = {"turns": list(scenario)}
        self.scenario = load_scenario(scenario)
        self.requests: list[dict[str, Any]] = []
        self.violations: list[str] = []
        self.closed = False
        self._next_turn = 0
        self._message_ids = itertools.count(1)

    @property
    def turns_consumed(self) -> int:
        return self._next_turn

    async def aclose(self) -> None:
        self.closed = True

    def assert_all_valid(self) -> None:
        assert not self.violations, "requests the real API would reject:\n" + "\n".join(self.violations)

    async def stream(self, request: ModelRequest) -> AsyncIterator[dict[str, Any]]:
        body = copy.deepcopy({**request.params(), "stream": True})
        self.requests.append(body)
        problems = validate_request(body)
        if problems:
            self.violations += problems
            raise _http_error(400, "invalid_request_error", "; ".join(problems))
        too_long = too_long_message(body, self.scenario.context_window)
        if too_long is not None:
            raise _http_error(400, "invalid_request_error", too_long)
        turn = self._take_turn(body)
        self.violations += check_expectations(turn.expect, body)
        fault = turn.fault
        if isinstance(fault, HttpFault):
            error_type = fault.error_type or error_type_for_status(fault.status)
            raise _http_error(
                fault.status, error_type, fault.message or default_error_message(error_type), fault.headers
            )
        if isinstance(fault, PromptTooLongFault):
            message = f"prompt is too long: {fault.tokens} tokens > {fault.maximum} maximum"
            raise _http_error(400, "invalid_request_error", message)
        usage = usage_for(turn, input_tokens=estimate_input_tokens(body), output_tokens=estimate_output_tokens(turn))
        model = body.get("model") or self.scenario.model or DEFAULT_MODEL
        events = [
            data
            for _name, data in render_stream(
                turn, message_id=turn.id or f"msg_scripted_{next(self._message_ids)}", model=model, usage=usage
            )
        ]
        cut = isinstance(fault, DropFault | StallFault | SseErrorFault)
        saw_output = False
        for event in events[: fault.after_events] if cut else events:
            saw_output = saw_output or event["type"] == "content_block_start"
            yield copy.deepcopy(event)
            await asyncio.sleep(0)  # let tools that started meanwhile run, as they would while bytes arrive
        if isinstance(fault, SseErrorFault):
            raise ApiError(
                fault.message,
                status=status_for_error_type(fault.error_type),
                error_type=fault.error_type,
                partial=saw_output,
            )
        if isinstance(fault, StallFault):
            raise ApiConnectionError("connection timed out: no data within the idle timeout", partial=saw_output)
        if isinstance(fault, DropFault):
            raise ApiConnectionError("connection failed: the peer closed it mid-body", partial=saw_output)

    def _take_turn(self, body: Mapping[str, Any]) -> Turn:
        turns = self.scenario.turns
        if self._next_turn < len(turns):
            self._next_turn += 1
            return turns[self._next_turn - 1]
        if self.scenario.on_exhausted == "repeat_last" and turns:
            return turns[-1]
        if self.scenario.on_exhausted == "echo":
            return Turn(content=[TextSpec(type="text", text=last_user_text(body, typed_only=True) or "(no text)")])
        raise _http_error(500, "api_error", "scenario exhausted")


def _http_error(status: int, error_type: str, message: str, headers: Mapping[str, str] | None = None) -> ApiError:
    """What the real client raises for an HTTP error status (header names lower-cased, as it does)."""
    received = {name.lower(): value for name, value in (headers or {}).items()}
    received.setdefault("x-should-retry", should_retry_header(status))
    error_class = AuthError if status in (401, 403) else ApiError
    return error_class(message, status=status, error_type=error_type, headers=received)
