"""The retry decision, case by case: every status, the API's retry headers, overload and fallback, the budget."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from agentcli.api.client import ModelRequest
from agentcli.api.errors import ApiConnectionError, ApiError, AuthError, StreamEndedEarly
from agentcli.api.retry import (
    AttemptLoop,
    Decision,
    Retrying,
    RetryPolicy,
    SwitchedModel,
    decide,
    error_category,
    retry_after_s,
    should_retry,
)
from agentcli.testing.scripted_model import ScriptedModel

POLICY = RetryPolicy(max_retries=10, max_529_attempts=3, base_delay_s=0.5, max_delay_s=32.0)


def status_error(status: int, **headers: str) -> ApiError:
    error_class = AuthError if status in (401, 403) else ApiError
    return error_class(f"status {status}", status=status, headers={k.replace("_", "-"): v for k, v in headers.items()})


def decision(error: ApiError, retries: int = 0, overloaded: int = 0, has_fallback: bool = False) -> Decision:
    return decide(error, retries, overloaded, POLICY, has_fallback, random.Random(7))


# status → (category, retried without any header) — the SDK's own table: 408, 409, 429 and every 5xx are retried
STATUSES = {
    400: ("invalid_request", False),
    401: ("authentication_failed", False),
    402: ("invalid_request", False),
    403: ("authentication_failed", False),
    404: ("invalid_request", False),
    408: ("server_error", True),
    409: ("server_error", True),
    413: ("invalid_request", False),
    422: ("invalid_request", False),
    429: ("rate_limit", True),
    500: ("server_error", True),
    502: ("server_error", True),
    503: ("server_error", True),
    504: ("server_error", True),
    529: ("overloaded", True),
}


@pytest.mark.parametrize("status", list(STATUSES))
def test_every_status_without_headers(status: int):
    category, retried = STATUSES[status]
    error = status_error(status)
    assert error_category(error) == category
    assert should_retry(error) is retried
    assert decision(error).action == ("retry" if retried else "fail")


@pytest.mark.parametrize("status", list(STATUSES))
def test_x_should_retry_overrides_the_status(status: int):
    assert decision(status_error(status, x_should_retry="true")).action == "retry"
    assert decision(status_error(status, x_should_retry="false")).action == "fail"
    assert decision(status_error(status, x_should_retry="maybe")).action == decision(status_error(status)).action


def test_transport_failures_and_stream_errors_are_retried():
    assert decision(ApiConnectionError("connection failed")).action == "retry"
    assert decision(StreamEndedEarly("ended early", partial=True)).action == "retry"
    assert error_category(ApiConnectionError("x")) == "connection_error"
    overloaded_event = ApiError("Overloaded", status=529, error_type="overloaded_error", partial=True)
    assert error_category(overloaded_event) == "overloaded"
    assert decision(overloaded_event, overloaded=1).action == "retry"
    assert decision(ApiError("stream error without a status")).action == "retry"  # "unknown": worth another try


def test_backoff_doubles_from_half_a_second_with_a_quarter_of_jitter_up_to_the_cap():
    for retries in range(10):
        nominal = min(0.5 * 2**retries, 32.0)
        delay = decision(status_error(500), retries=retries).delay_s
        assert nominal * 0.75 <= delay <= nominal * 1.25


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "7"}, 7.0),
        ({"retry-after": "1.5"}, 1.5),
        ({"retry-after-ms": "250"}, 0.25),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),  # the precise one wins
        ({"retry-after-ms": "soon", "retry-after": "9"}, 9.0),
        ({"retry-after": "600"}, 60.0),  # capped
    ],
)
@pytest.mark.parametrize("status", [408, 409, 429, 500, 529])
def test_retry_after_is_honoured_on_every_retried_status(status: int, headers: dict[str, str], expected: float):
    error = ApiError("x", status=status, headers=headers)
    assert decision(error, overloaded=1 if status == 529 else 0) == Decision("retry", expected)


def test_retry_after_as_an_http_date():
    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    later = format_datetime(now + timedelta(seconds=20), usegmt=True)
    assert retry_after_s({"retry-after": later}, now=now.timestamp()) == pytest.approx(20.0)
    assert (
        retry_after_s({"retry-after": format_datetime(now - timedelta(seconds=5), usegmt=True)}, now=now.timestamp())
        == 0.0
    )


@pytest.mark.parametrize("value", ["", "soon", "0", "-3"])
def test_a_useless_retry_after_falls_back_to_backoff(value: str):
    delay = decision(ApiError("x", status=429, headers={"retry-after": value})).delay_s
    assert 0.375 <= delay <= 0.625


def test_a_retry_after_is_not_a_reason_to_retry_what_must_not_be():
    assert decision(status_error(400, retry_after="1")).action == "fail"
    assert decision(status_error(529, retry_after="1", x_should_retry="false")).action == "fail"


def test_the_retry_budget_ends_retries():
    assert decision(status_error(500), retries=9).action == "retry"
    assert decision(status_error(500), retries=10).action == "fail"
    assert decision(status_error(500, x_should_retry="true"), retries=10).action == "fail"


def test_repeated_overload_switches_to_the_fallback_model_or_fails():
    assert decision(status_error(529), overloaded=2, has_fallback=True).action == "retry"
    assert decision(status_error(529), overloaded=3, has_fallback=True).action == "fallback"
    assert decision(status_error(529), overloaded=3, has_fallback=False).action == "fail"
    # an overload the API says not to retry goes straight to the fallback: a different model is a new request
    assert decision(status_error(529, x_should_retry="false"), overloaded=1, has_fallback=True).action == "fallback"
    assert decision(status_error(500, x_should_retry="false"), has_fallback=True).action == "fail"


async def test_the_attempt_loop_follows_the_decisions():
    model = ScriptedModel(
        [
            {"fault": {"kind": "http", "status": 409}},
            {"fault": {"kind": "http", "status": 429, "headers": {"retry-after": "2"}}},
            {"fault": {"kind": "http", "status": 529}},
            {"fault": {"kind": "http", "status": 529}},
            {"fault": {"kind": "http", "status": 529}},
            {"content": [{"type": "text", "text": "from the fallback"}]},
        ]
    )
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    loop = AttemptLoop(model, RetryPolicy(fallback_models=("claude-fallback",)), sleep=sleep, rng=random.Random(1))
    request = ModelRequest(model="claude-main", max_tokens=100, messages=[{"role": "user", "content": "hi"}])
    seen = [event async for event in loop.stream(request)]
    notes = [event for event in seen if not isinstance(event, dict)]
    assert [type(note) for note in notes] == [Retrying, Retrying, Retrying, Retrying, SwitchedModel]
    assert [note.error.status for note in notes[:4]] == [409, 429, 529, 529]
    assert slept[1] == 2.0 and len(slept) == 4
    assert notes[4] == SwitchedModel("claude-main", "claude-fallback", discard=False)
    assert [body["model"] for body in model.requests] == ["claude-main"] * 5 + ["claude-fallback"]
    assert seen[-1] == {"type": "message_stop"}


async def test_the_attempt_loop_gives_up_at_once_when_told_not_to_retry():
    model = ScriptedModel([{"fault": {"kind": "http", "status": 503, "headers": {"x-should-retry": "false"}}}])
    loop = AttemptLoop(model, RetryPolicy())
    request = ModelRequest(model="m", max_tokens=100, messages=[{"role": "user", "content": "hi"}])
    with pytest.raises(ApiError) as raised:
        async for _event in loop.stream(request):
            pass
    assert raised.value.status == 503 and len(model.requests) == 1
