"""``query()`` and ``ClaudeSDKClient`` of the official Agent SDK, with agentcli as the CLI they start."""

from __future__ import annotations

from claude_agent_sdk import AssistantMessage, ResultMessage, SystemMessage, TextBlock

from tests.messages import typed
from tests.ui.protocol.conftest import collect, conversation, last_user_text, text_turn


def _texts(messages: list) -> list[str]:
    return [
        block.text
        for m in messages
        if isinstance(m, AssistantMessage)
        for block in m.content
        if isinstance(block, TextBlock)
    ]


async def test_query_with_a_string_prompt(sdk_options):
    options, server = sdk_options([text_turn("Hello from agentcli")])
    messages = await collect("hi there", options)
    init = messages[0]
    assert isinstance(init, SystemMessage) and init.subtype == "init"
    assert init.data["claude_code_version"]
    assert _texts(messages) == ["Hello from agentcli"]
    result = messages[-1]
    assert isinstance(result, ResultMessage) and not result.is_error and result.result == "Hello from agentcli"
    assert result.terminal_reason == "completed"
    assert typed(server.requests[0].body["messages"]) == [{"role": "user", "content": "hi there"}]


async def test_query_with_an_async_iterable_runs_each_message_as_a_turn_of_one_conversation(sdk_options):
    options, server = sdk_options([text_turn("one"), text_turn("two")])

    async def prompts():
        for text in ("first question", "second question"):
            yield {
                "type": "user",
                "message": {"role": "user", "content": text},
                "parent_tool_use_id": None,
                "session_id": "",
            }

    messages = await collect(prompts(), options)
    results = [m for m in messages if isinstance(m, ResultMessage)]
    assert [r.result for r in results] == ["one", "two"]
    assert len({r.session_id for r in results}) == 1
    second = typed(server.requests[1].body["messages"])
    assert [m["role"] for m in second] == ["user", "assistant", "user"]
    assert second[0]["content"] == "first question" and second[2]["content"] == "second question"


async def test_client_second_prompt_sees_the_first(sdk_options):
    options, server = sdk_options([text_turn("Noted: 42."), text_turn("It was 42.")])
    first, second = await conversation(options, "remember 42", "what number?")
    assert _texts(first) == ["Noted: 42."] and _texts(second) == ["It was 42."]
    assert isinstance(second[-1], ResultMessage) and second[-1].result == "It was 42."
    history = typed(server.requests[1].body["messages"])
    assert history[0]["content"] == "remember 42"
    assert history[1]["content"][0]["text"] == "Noted: 42."
    assert last_user_text(server.requests[1]) == "what number?"
