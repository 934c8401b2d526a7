"""The query loop's transitions, driven in process by the scripted model: no server, no SDK, milliseconds each."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentcli.api.retry import RetryPolicy
from agentcli.context.conversation import Conversation
from agentcli.events import (
    AssistantTurn,
    LoopEnded,
    LoopEvent,
    Notice,
    RequestStarted,
    ResponseWithheld,
    ToolResults,
    UserInjected,
)
from agentcli.loop.query import MAX_TOKENS_RECOVERY_MESSAGE, query
from agentcli.loop.state import QueryParams
from agentcli.testing.scripted_model import ScriptedModel
from agentcli.tools.base import ToolEnv, ToolRegistry
from agentcli.tools.read import ReadTool

HELLO = {"role": "user", "content": [{"type": "text", "text": "hello"}]}


def text(value: str, **turn: Any) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": value}], **turn}


async def run(model: ScriptedModel, project: Path, **options: Any) -> tuple[list[LoopEvent], Conversation]:
    conversation = Conversation([HELLO])
    options.setdefault("retry_policy", RetryPolicy(base_delay_s=0, max_delay_s=0))
    options.setdefault("max_tokens", 1000)
    params = QueryParams(
        client=model,
        registry=ToolRegistry([ReadTool()]),
        tool_env=ToolEnv(project),
        model="claude-main",
        conversation=conversation,
        **options,
    )
    events = [event async for event in query(params)]
    model.assert_all_valid()
    return events, conversation


def kinds(events: list[LoopEvent]) -> list[str]:
    return [type(event).__name__ for event in events if type(event).__name__ != "StreamDelta"]


async def test_a_plain_answer_ends_the_loop(project: Path):
    events, conversation = await run(ScriptedModel([text("hi there")]), project)
    assert kinds(events) == ["RequestStarted", "AssistantTurn", "LoopEnded"]
    assert events[-1] == LoopEnded("completed")
    assert conversation.messages[-1] == {"role": "assistant", "content": [{"type": "text", "text": "hi there"}]}


async def test_a_tool_call_is_answered_and_the_loop_asks_again(project: Path):
    model = ScriptedModel(
        [
            {"content": [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "README.md"}}]},
            text("it says hello"),
        ]
    )
    events, conversation = await run(model, project)
    assert kinds(events) == [
        "RequestStarted",
        "ToolStarted",
        "AssistantTurn",
        "ToolFinished",
        "ToolResults",
        "RequestStarted",
        "AssistantTurn",
        "LoopEnded",
    ]
    (results,) = [event for event in events if isinstance(event, ToolResults)]
    assert results.param["content"][0]["tool_use_id"] == "toolu_1"
    assert "Hello from the demo." in results.param["content"][0]["content"]
    assert [message["role"] for message in conversation.messages] == ["user", "assistant", "user", "assistant"]
    # the second request repeats the first one's messages as they were sent (prompt caching needs that)
    assert model.requests[1]["messages"][:1] == model.requests[0]["messages"]
    assert [event.turn for event in events if isinstance(event, RequestStarted)] == [1, 2]


async def test_max_turns_stops_after_the_tool_results(project: Path):
    model = ScriptedModel(
        {
            "turns": [
                {
                    "content": [
                        {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "README.md"}}
                    ]
                },
            ],
            "on_exhausted": "repeat_last",
        }
    )
    events, conversation = await run(model, project, max_turns=1)
    assert events[-1] == LoopEnded("max_turns")
    assert conversation.messages[-1]["content"][0]["type"] == "tool_result"  # the call is answered all the same
    assert len(model.requests) == 1


async def test_a_cut_answer_is_asked_again_with_more_room_then_resumed(project: Path):
    model = ScriptedModel(
        [
            text("cut sh", stop_reason="max_tokens"),
            text("still cut", stop_reason="max_tokens"),
            text(" and the rest"),
        ]
    )
    events, conversation = await run(model, project)
    assert [body["max_tokens"] for body in model.requests] == [1000, 64_000, 64_000]
    withheld = [event for event in events if isinstance(event, ResponseWithheld)]
    assert [event.reason for event in withheld] == ["max_tokens_escalation"]
    injected = [event for event in events if isinstance(event, UserInjected)]
    assert [event.reason for event in injected] == ["max_tokens_recovery"]
    assert injected[0].param["content"][0]["text"] == MAX_TOKENS_RECOVERY_MESSAGE
    assert [m["content"][0]["text"] for m in conversation.messages[1:]] == [
        "still cut",
        MAX_TOKENS_RECOVERY_MESSAGE,
        " and the rest",
    ]
    assert events[-1] == LoopEnded("completed")


async def test_retries_then_falls_back_and_drops_thinking_for_the_other_model(project: Path):
    overloaded = {"fault": {"kind": "http", "status": 529}}
    model = ScriptedModel(
        [
            {"fault": {"kind": "http", "status": 409}},
            overloaded,
            overloaded,
            overloaded,
            text("answered by the fallback"),
        ]
    )
    events, _ = await run(
        model,
        project,
        thinking={"type": "enabled", "budget_tokens": 1024},
        max_tokens=4096,
        retry_policy=RetryPolicy(base_delay_s=0, max_delay_s=0, fallback_models=("claude-spare",)),
    )
    retries = [event.data for event in events if isinstance(event, Notice) and event.subtype == "api_retry"]
    assert [(r["attempt"], r["error_status"], r["error"]) for r in retries] == [
        (1, 409, "server_error"),
        (2, 529, "overloaded"),
        (3, 529, "overloaded"),
    ]
    assert [body["model"] for body in model.requests] == ["claude-main"] * 4 + ["claude-spare"]
    assert "thinking" in model.requests[0] and "thinking" not in model.requests[-1]
    assert [event.model for event in events if isinstance(event, RequestStarted)] == ["claude-main"]
    (answer,) = [event for event in events if isinstance(event, AssistantTurn)]
    assert answer.message["content"][0]["text"] == "answered by the fallback"


async def test_an_error_the_api_says_not_to_retry_ends_the_loop_at_once(project: Path):
    model = ScriptedModel(
        [
            {
                "fault": {
                    "kind": "http",
                    "status": 500,
                    "message": "broken for good",
                    "headers": {"x-should-retry": "false"},
                }
            }
        ]
    )
    events, conversation = await run(model, project)
    assert events[-1] == LoopEnded("model_error", "broken for good", status=500)
    assert len(model.requests) == 1 and conversation.messages == [HELLO]


async def test_a_dropped_stream_is_thrown_away_and_asked_again(project: Path):
    model = ScriptedModel(
        [
            {
                "content": [{"type": "text", "text": "half an answer", "chunks": 4}],
                "fault": {"kind": "drop", "after_events": 5},
            },
            text("the whole answer"),
        ]
    )
    events, conversation = await run(model, project)
    notices = [event.subtype for event in events if isinstance(event, Notice)]
    assert notices == ["stream_discarded", "api_retry"]
    assert conversation.messages[-1]["content"] == [{"type": "text", "text": "the whole answer"}]


async def test_prompt_too_long_ends_with_its_own_reason(project: Path):
    events, _ = await run(ScriptedModel([{"fault": {"kind": "prompt_too_long", "tokens": 250_000}}]), project)
    assert events[-1].reason == "prompt_too_long" and "250000 tokens" in (events[-1].error or "")
