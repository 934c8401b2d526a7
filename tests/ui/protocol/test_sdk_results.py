"""Hook callbacks, limits, structured output and API errors, as a program using the Agent SDK sees them."""

from __future__ import annotations

from pathlib import Path

import pytest
from claude_agent_sdk import ClaudeSDKClient, HookEventMessage, HookMatcher, ResultMessage, SystemMessage
from claude_agent_sdk._errors import ResultError

from tests.messages import tool_result
from tests.ui.protocol.conftest import collect, last_user_text, result_text, text_turn, tool_turn


async def test_hook_callbacks_add_context_and_deny_a_tool(sdk_options, project: Path):
    seen: list[str] = []

    async def add_context(hook_input, tool_use_id, context):
        seen.append(hook_input["hook_event_name"])
        return {
            "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "The secret word is plum."}
        }

    async def deny_bash(hook_input, tool_use_id, context):
        seen.append(f"{hook_input['hook_event_name']}:{hook_input['tool_name']}:{tool_use_id}")
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "no shell in tests",
            }
        }

    options, server = sdk_options(
        [tool_turn("Bash", {"command": "ls"}, "toolu_b1"), text_turn("Fine, no shell.")],
        hooks={
            "UserPromptSubmit": [HookMatcher(hooks=[add_context])],
            "PreToolUse": [HookMatcher(matcher="Bash", hooks=[deny_bash])],
        },
        include_hook_events=True,
    )
    messages = await collect("list the files", options)
    events = [(m.subtype, m.hook_event_name) for m in messages if isinstance(m, HookEventMessage)]
    assert events == [
        ("hook_started", "UserPromptSubmit"),
        ("hook_response", "UserPromptSubmit"),
        ("hook_started", "PreToolUse"),
        ("hook_response", "PreToolUse"),
    ]
    assert isinstance(messages[-1], ResultMessage) and not messages[-1].is_error
    assert seen == ["UserPromptSubmit", "PreToolUse:Bash:toolu_b1"]
    assert "The secret word is plum." in last_user_text(server.requests[0])
    denied = tool_result(server.requests[1], "toolu_b1")
    assert denied["is_error"] and "no shell in tests" in result_text(denied)


async def test_hook_callback_with_continue_false_stops_the_run(sdk_options):
    async def stop_everything(hook_input, tool_use_id, context):
        return {"continue_": False, "stopReason": "quiet hours"}

    options, server = sdk_options(
        [text_turn("never sent")], hooks={"UserPromptSubmit": [HookMatcher(hooks=[stop_everything])]}
    )
    async with ClaudeSDKClient(options=options) as client:
        await client.query("hello?")
        messages = [m async for m in client.receive_response()]
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.is_error and "quiet hours" in result.result
    assert server.requests == []


async def test_stop_hook_continue_false_ends_after_the_answer(sdk_options):
    async def enough(hook_input, tool_use_id, context):
        return {"continue_": False, "stopReason": "enough for today"}

    options, _server = sdk_options([text_turn("Here it is.")], hooks={"Stop": [HookMatcher(hooks=[enough])]})
    messages = await collect("go", options)
    warnings = [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "warning"]
    assert any("enough for today" in m.data["message"] for m in warnings)
    assert messages[-1].terminal_reason == "stop_hook_prevented"


async def test_max_turns_ends_the_run_with_its_error_result(sdk_options, project: Path):
    options, server = sdk_options(
        [
            tool_turn("Read", {"file_path": str(project / "README.md")}, "toolu_r1"),
            text_turn("never reached"),
        ],
        max_turns=1,
    )
    messages: list = []
    with pytest.raises(ResultError) as raised:
        async for message in _query("read the readme", options):
            messages.append(message)
    assert raised.value.subtype == "error_max_turns"
    assert isinstance(messages[-1], ResultMessage) and messages[-1].subtype == "error_max_turns"
    assert len(server.requests) == 1


SCHEMA = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["pass", "fail"]},
        "details": {
            "type": "object",
            "properties": {
                "files": {"type": "array", "items": {"type": "string"}},
                "score": {"type": "integer", "minimum": 0},
            },
            "required": ["files", "score"],
            "additionalProperties": False,
        },
    },
    "required": ["verdict", "details"],
}


async def test_structured_output_after_a_tool_call_and_a_rejected_attempt(sdk_options, project: Path):
    good = {"verdict": "pass", "details": {"files": ["README.md"], "score": 9}}
    options, server = sdk_options(
        [
            tool_turn("Read", {"file_path": str(project / "README.md")}, "toolu_r1"),
            tool_turn("StructuredOutput", {"verdict": "maybe", "details": {"files": [], "score": -1}}, "toolu_s1"),
            tool_turn("StructuredOutput", good, "toolu_s2"),
            text_turn("Reported."),
        ],
        output_format={"type": "json_schema", "schema": SCHEMA},
    )
    messages = await collect("review the readme", options)
    result = messages[-1]
    assert isinstance(result, ResultMessage) and not result.is_error, result
    assert result.structured_output == good
    offered = {tool["name"]: tool for tool in server.requests[0].body["tools"]}
    assert offered["StructuredOutput"]["input_schema"] == SCHEMA
    rejected = tool_result(server.requests[2], "toolu_s1")
    assert rejected["is_error"]
    assert "'maybe' is not one of ['pass', 'fail']" in result_text(rejected)
    assert "/details/score" in result_text(rejected)


async def test_structured_output_gives_up_after_the_retries(sdk_options):
    options, server = sdk_options(
        [
            text_turn("Plain words instead."),
            tool_turn("StructuredOutput", {"verdict": "pass"}, "toolu_s1"),
            text_turn("never reached"),
        ],
        output_format={"type": "json_schema", "schema": SCHEMA},
        env={"AGENTCLI_MAX_STRUCTURED_OUTPUT_RETRIES": "2"},
    )
    with pytest.raises(ResultError) as raised:
        await collect("review", options)
    assert raised.value.subtype == "error_max_structured_output_retries"
    assert "StructuredOutput" in last_user_text(server.requests[1])
    assert len(server.requests) == 2


async def test_an_api_error_raises_the_sdks_result_error(sdk_options):
    options, _server = sdk_options(
        [
            {"fault": {"kind": "http", "status": 400, "error_type": "invalid_request_error", "message": "bad things"}},
        ]
    )
    with pytest.raises(ResultError) as raised:
        await collect("hi", options)
    error = raised.value
    assert error.terminal_reason == "api_error" and error.api_error_status == 400
    assert error.result is not None and error.result.startswith("API Error:") and "bad things" in error.result
    assert error.exit_code == 1


def _query(prompt, options):
    from claude_agent_sdk import query

    return query(prompt=prompt, options=options)


async def test_tool_hook_callbacks_with_continue_false_stop_after_the_tools(sdk_options, project: Path):
    async def halt_after_read(hook_input, tool_use_id, context):
        return {"continue_": False, "stopReason": "read enough"}

    async def halt_before_bash(hook_input, tool_use_id, context):
        return {"continue_": False, "stopReason": "no shell now"}

    readme = str(project / "README.md")
    for event, matcher, hook, turn, reason in (
        ("PostToolUse", "Read", halt_after_read, tool_turn("Read", {"file_path": readme}, "toolu_r"), "read enough"),
        ("PreToolUse", "Bash", halt_before_bash, tool_turn("Bash", {"command": "touch x"}, "toolu_b"), "no shell now"),
    ):
        options, server = sdk_options(
            [turn, text_turn("never sent")], hooks={event: [HookMatcher(matcher=matcher, hooks=[hook])]}
        )
        async with ClaudeSDKClient(options=options) as client:
            await client.query("go")
            messages = [m async for m in client.receive_response()]
        result = messages[-1]
        assert isinstance(result, ResultMessage) and result.is_error and result.terminal_reason == "hook_stopped"
        assert any(reason in error for error in result.errors or [])
        assert len(server.requests) == 1
    assert not (project / "x").exists()
