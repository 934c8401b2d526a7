"""Every fault at every point of a response, through the real SDK against the fake Messages API.

For each cell: the outcome, how many requests were made, that retry gaps respect the backoff bounds, that
every request passed the server's validation (the ``fake_api`` fixture checks), and that the final answer
appears exactly once.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import pytest

from agentcli.context.compact_messages import is_summary_request
from tests.conftest import collect
from tests.messages import typed

FINAL = "Final answer."
POINTS = ("before_first_byte", "after_partial_text", "after_partial_tool_json")
BASE_MS = 10  # the conftest's AGENTCLI_RETRY_BASE_DELAY_MS
IDLE_TIMEOUT_MS = 2000
"""Ends the stalled stream; every other response's first byte must come sooner, on however busy a machine."""


def _content(point: str, project: Any) -> list[dict[str, Any]]:
    if point == "after_partial_tool_json":
        return [
            {
                "type": "tool_use",
                "id": "toolu_partial",
                "name": "Read",
                "input": {"file_path": str(project / "README.md"), "limit": 3},
                "chunks": 12,
            }
        ]
    return [{"type": "text", "text": "partial words that must not be repeated", "chunks": 8}]


def _fault_at(point: str, status_fault: dict[str, Any], sse_type: str, message: str) -> dict[str, Any]:
    """An HTTP status before the first byte; the same error as an SSE ``error`` event mid-stream."""
    if point == "before_first_byte":
        return status_fault
    return {"kind": "sse_error", "after_events": 5, "error_type": sse_type, "message": message}


def _stream_fault(point: str, kind: str, **extra: Any) -> dict[str, Any]:
    return {"kind": kind, "after_events": 0 if point == "before_first_byte" else 5, **extra}


@dataclass
class Cell:
    faults: list[dict[str, Any]]
    outcome: str  # "success" or "error"
    requests: int
    min_gaps_ms: list[float] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    error_contains: str = ""
    fallback_from: int | None = None  # index of the first request sent to the fallback model
    compactions: int = 0  # summary requests among the requests


def _backoff_floor(n: int) -> float:
    return BASE_MS * 2 ** (n - 1) * 0.75


def _cells(point: str) -> dict[str, Cell]:
    def status(code: int, err: str, message: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
        return _fault_at(
            point, {"kind": "http", "status": code, "message": message, "headers": headers or {}}, err, message
        )

    overloaded = status(529, "overloaded_error", "Overloaded")
    return {
        "429_retry_after": Cell(
            [status(429, "rate_limit_error", "Rate limited", {"retry-after-ms": "300"})],
            "success",
            2,
            [300 * 0.95 if point == "before_first_byte" else _backoff_floor(1)],
        ),
        "429_no_retry_after": Cell(
            [status(429, "rate_limit_error", "Rate limited")], "success", 2, [_backoff_floor(1)]
        ),
        "529x2": Cell([overloaded, overloaded], "success", 3, [_backoff_floor(1), _backoff_floor(2)]),
        "529x5": Cell(
            [overloaded] * 5, "error", 3, [_backoff_floor(1), _backoff_floor(2)], error_contains="Overloaded"
        ),
        "529x5_fallback": Cell(
            [overloaded] * 5, "success", 6, options={"fallback_models": ("claude-haiku-5-5",)}, fallback_from=3
        ),
        "500": Cell([status(500, "api_error", "Internal server error")], "success", 2, [_backoff_floor(1)]),
        "502": Cell([status(502, "api_error", "Bad gateway")], "success", 2, [_backoff_floor(1)]),
        "503": Cell([status(503, "api_error", "Service unavailable")], "success", 2, [_backoff_floor(1)]),
        "drop": Cell([_stream_fault(point, "drop")], "success", 2, [_backoff_floor(1)]),
        "sse_error": Cell(
            [_stream_fault(point, "sse_error", error_type="api_error", message="Internal error")],
            "success",
            2,
            [_backoff_floor(1)],
        ),
        "stall": Cell(  # silent for longer than any test may take: only the idle timeout ends it
            [_stream_fault(point, "stall", seconds=3600)],
            "success",
            2,
            [IDLE_TIMEOUT_MS],
            env={"AGENTCLI_STREAM_IDLE_TIMEOUT_MS": str(IDLE_TIMEOUT_MS)},
        ),
        "401": Cell(
            [status(401, "authentication_error", "invalid x-api-key")],
            "error",
            1,
            error_contains="ANTHROPIC_API_KEY" if point == "before_first_byte" else "invalid x-api-key",
        ),
        # Too long: the history is the prompt alone, which a summary would not shrink: no summary request is
        # sent (the compaction says why), then the error.
        "400_prompt_too_long": Cell(
            [
                {"kind": "prompt_too_long", "tokens": 250000, "maximum": 200000}
                if point == "before_first_byte"
                else _fault_at(
                    point, {}, "invalid_request_error", "prompt is too long: 250000 tokens > 200000 maximum"
                ),
                {"kind": "prompt_too_long", "tokens": 250000, "maximum": 200000},
            ],
            "error",
            1,
            error_contains="250000 tokens",
        ),
    }


MATRIX = [(name, point) for point in POINTS for name in _cells(point)]


@pytest.mark.parametrize(("fault", "point"), MATRIX, ids=[f"{f}-{p}" for f, p in MATRIX])
async def test_fault_cell(fault: str, point: str, fake_api, make_engine, project, monkeypatch):
    cell = _cells(point)[fault]
    for name, value in cell.env.items():
        monkeypatch.setenv(name, value)
    turns = [{"content": _content(point, project), "fault": f} for f in cell.faults]
    turns.append({"content": [{"type": "text", "text": FINAL, "chunks": 3}]})
    server = fake_api({"turns": turns})
    engine = make_engine(server, include_partial_messages=True, **cell.options)
    messages = await collect(engine, "do the thing")
    result = messages[-1]

    assert len(server.requests) == cell.requests, [r.turn_index for r in server.requests]
    retries = [m for m in messages if m.get("subtype") == "api_retry"]
    if cell.outcome == "success":
        assert result["subtype"] == "success", result
        assert result["result"] == FINAL
        texts = [
            b["text"] for m in engine.messages if m["role"] == "assistant" for b in m["content"] if b["type"] == "text"
        ]
        assert texts == [FINAL]
        assert not any(m["type"] == "user" for m in messages), "no tool ran from a failed attempt"
    else:
        assert result["is_error"] is True and result["subtype"] == "error_during_execution"
        assert cell.error_contains in result["errors"][-1]
        assert typed(engine.messages) == [{"role": "user", "content": "do the thing"}]
    # every request carries the same conversation: nothing partial leaked into a retry
    summaries = [r for r in server.requests if is_summary_request(r.body)]
    assert len(summaries) == cell.compactions
    for request in server.requests:
        if request not in summaries:
            assert typed(request.body["messages"]) == [{"role": "user", "content": "do the thing"}]
    times = [r.time for r in server.requests]
    gaps_ms = [(b - a) * 1000 for a, b in itertools.pairwise(times)]
    for gap, floor in zip(gaps_ms, cell.min_gaps_ms, strict=False):
        assert gap >= floor, (gaps_ms, cell.min_gaps_ms)
    # no retry waited long (the backoff was capped; a retry-after is honoured): what was planned, not a stopwatch
    assert all(retry["retry_delay_ms"] < 5000 for retry in retries), retries
    if cell.fallback_from is not None:
        models = [r.body["model"] for r in server.requests]
        assert models[: cell.fallback_from] == ["claude-sonnet-5-5"] * cell.fallback_from
        assert set(models[cell.fallback_from :]) == {"claude-haiku-5-5"}
        warnings = [m for m in messages if m.get("subtype") == "warning"]
        assert warnings[0]["message"] == "Switched to claude-haiku-5-5 due to high demand for claude-sonnet-5-5"
    else:
        assert len(retries) == cell.requests - 1 - cell.compactions


async def test_retry_after_seconds_header_is_honoured(fake_api, make_engine):
    server = fake_api(
        {
            "turns": [
                {"fault": {"kind": "http", "status": 429, "message": "slow down", "headers": {"retry-after": "1"}}},
                {"content": [{"type": "text", "text": FINAL}]},
            ]
        }
    )
    messages = await collect(make_engine(server), "go")
    assert messages[-1]["result"] == FINAL
    retry = next(m for m in messages if m.get("subtype") == "api_retry")
    assert retry["retry_delay_ms"] == 1000 and retry["error_status"] == 429 and retry["error"] == "rate_limit"
    assert server.requests[1].time - server.requests[0].time >= 0.95


async def test_max_tokens_escalates_once_then_asks_to_resume(fake_api, make_engine):
    usage = {"input_tokens": 10, "output_tokens": 100}
    cut = {"content": [{"type": "text", "text": "part one"}], "stop_reason": "max_tokens", "usage": usage}
    server = fake_api(
        {
            "turns": [
                cut,  # withheld; asked again with more room
                cut,  # kept; the model is asked to resume
                {"content": [{"type": "text", "text": FINAL}], "usage": usage},
            ]
        }
    )
    engine = make_engine(server)
    messages = await collect(engine, "write a lot")
    assert messages[-1]["subtype"] == "success" and messages[-1]["result"] == FINAL
    assert [r.body["max_tokens"] for r in server.requests] == [32000, 64000, 64000]
    third = server.requests[2].body["messages"]
    assert [m["role"] for m in third] == ["user", "assistant", "user"]
    assert third[1]["content"] == [{"type": "text", "text": "part one"}]
    assert third[2]["content"][0]["text"].startswith("Output token limit hit. Resume directly")
    assert [m["role"] for m in engine.messages] == ["user", "assistant", "user", "assistant"]
    # the withheld response was billed, so it is counted: three responses of 100 output tokens each
    assert messages[-1]["num_turns"] == 2
    assert messages[-1]["usage"]["output_tokens"] == 300


async def test_max_tokens_gives_up_after_three_resumes(fake_api, make_engine):
    cut = {"content": [{"type": "text", "text": "more"}], "stop_reason": "max_tokens"}
    server = fake_api({"turns": [cut] * 5})
    messages = await collect(make_engine(server), "write forever")
    assert len(server.requests) == 5  # 1 + escalation + 3 resumes
    assert messages[-1]["stop_reason"] == "max_tokens"
    assert messages[-1]["result"] == "more"
