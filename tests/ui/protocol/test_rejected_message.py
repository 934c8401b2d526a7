"""A user message the API refuses (a stray ``tool_result``: the fake server answers 400 as the real one does) is
taken out of the history: the host gets an error result with the API's words, the next message succeeds, and a
resumed session does not send the refused message again."""

from __future__ import annotations

import json
from typing import Any

from claude_agent_sdk import ClaudeSDKClient, ResultMessage, SystemMessage

from tests.messages import typed
from tests.ui.protocol.conftest import text_turn

STRAY = {"type": "tool_result", "tool_use_id": "toolu_nowhere", "content": "a result nobody asked for"}


def _stray_message() -> dict[str, Any]:
    content = [{"type": "text", "text": "please look at this"}, STRAY]
    return {"type": "user", "message": {"role": "user", "content": content}, "parent_tool_use_id": None}


async def _one(prompt: Any) -> Any:
    yield prompt


def _accept_the_refusal(server: Any, index: int = 0) -> None:
    """The refused request was meant to be invalid: check it was refused for the stray block, then let it pass."""
    violations = server.requests[index].violations
    assert violations and all("tool_result" in v for v in violations)
    violations.clear()


async def test_a_refused_message_is_reported_and_the_session_goes_on(sdk_options, run_cli):
    options, server = sdk_options([text_turn("Hello again."), text_turn("Still here.")])
    async with ClaudeSDKClient(options=options) as client:
        await client.query(_one(_stray_message()))
        refused = [message async for message in client.receive_response()]
        await client.query("hello")
        answered = [message async for message in client.receive_response()]

    result = refused[-1]
    assert isinstance(result, ResultMessage) and result.is_error
    assert "tool_result" in (result.result or "") and "API Error" in (result.result or "")
    assert any("taken out of the conversation" in error for error in result.errors or [])
    warnings = [m for m in refused if isinstance(m, SystemMessage) and m.subtype == "warning"]
    assert any("taken out of the conversation" in m.data["message"] for m in warnings)

    ok = answered[-1]
    assert isinstance(ok, ResultMessage) and not ok.is_error and ok.result == "Hello again."
    assert [r.status for r in server.requests] == [400, 200]
    _accept_the_refusal(server)
    assert typed(server.requests[1].body["messages"]) == [{"role": "user", "content": "hello"}]

    resumed = run_cli("-p", "--resume", ok.session_id, "and now?", "--output-format", "json", server=server)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["result"] == "Still here."
    history = typed(server.requests[2].body["messages"])
    assert [m["role"] for m in history] == ["user", "assistant", "user"]
    assert history[0]["content"] == "hello" and "please look" not in json.dumps(history)


async def test_a_refused_message_is_taken_back_in_print_mode_too(fake_api, make_engine):
    from tests.conftest import collect

    server = fake_api({"turns": [text_turn("Fine.")]})
    engine = make_engine(server)
    refused = [m async for m in engine.submit_message([{"type": "text", "text": "look"}, STRAY])]
    assert refused[-1]["is_error"] and refused[-1]["api_error_status"] == 400
    assert engine.messages == []
    _accept_the_refusal(server)
    done = await collect(engine, "hello")
    assert done[-1]["result"] == "Fine."
    assert typed(server.requests[-1].body["messages"]) == [{"role": "user", "content": "hello"}]
