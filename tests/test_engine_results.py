"""Results a script can trust: a run that did not really answer says so, and a paused turn is carried on."""

from __future__ import annotations

from tests.conftest import collect
from tests.messages import typed


def _text(text: str, stop_reason: str | None = None) -> dict:
    turn: dict = {"content": [{"type": "text", "text": text}]}
    if stop_reason:
        turn["stop_reason"] = stop_reason
    return turn


async def test_refusal_is_an_error(fake_api, make_engine):
    engine = make_engine(fake_api({"turns": [_text("I can't help with that.", "refusal")]}))
    result = (await collect(engine, "do something bad"))[-1]
    assert result["is_error"] and result["subtype"] == "error_during_execution"
    assert result["terminal_reason"] == "refusal" and result["stop_reason"] == "refusal"
    assert "refusal" in result["errors"][-1]


async def test_empty_answer_is_an_error(fake_api, make_engine):
    engine = make_engine(fake_api({"turns": [{"content": []}]}))
    result = (await collect(engine, "hello?"))[-1]
    assert result["is_error"] and result["terminal_reason"] == "empty_response"


async def test_unrecovered_max_tokens_is_an_error(fake_api, make_engine):
    cut = _text("and then", "max_tokens")
    server = fake_api({"turns": [cut] * 5})
    engine = make_engine(server)
    result = (await collect(engine, "write a lot"))[-1]
    assert len(server.requests) == 5
    assert result["is_error"] and result["terminal_reason"] == "max_tokens"


async def test_pause_turn_is_sent_back_and_continued(fake_api, make_engine):
    server = fake_api({"turns": [_text("Searching", "pause_turn"), _text("Found it.")]})
    engine = make_engine(server)
    result = (await collect(engine, "search"))[-1]
    assert not result["is_error"] and result["result"] == "Found it." and result["terminal_reason"] == "completed"
    second = server.requests[1].body["messages"]
    assert typed(second)[-1] == {"role": "assistant", "content": [{"type": "text", "text": "Searching"}]}


async def test_api_error_result_has_the_error_text_status_and_reason(fake_api, make_engine):
    engine = make_engine(
        fake_api(
            {
                "turns": [
                    {"fault": {"kind": "http", "status": 400, "error_type": "invalid_request_error", "message": "nope"}}
                ]
            }
        )
    )
    result = (await collect(engine, "hi"))[-1]
    assert result["is_error"] and result["result"].startswith("API Error:") and "nope" in result["result"]
    assert result["terminal_reason"] == "api_error" and result["api_error_status"] == 400
