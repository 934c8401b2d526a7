"""Control requests from the SDK (interrupt, permission mode, model, /clear) and to it (can_use_tool)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from claude_agent_sdk import (
    ClaudeSDKClient,
    ConversationResetMessage,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultMessage,
    StreamEvent,
)

from tests.messages import tool_result, typed
from tests.ui.protocol.conftest import conversation, result_text, text_turn, tool_turn
from tests.waiting import DEADLINE_S


async def test_interrupt_mid_stream_ends_the_turn_and_the_next_prompt_still_runs(sdk_options):
    # the answer stops after a few words until the server stops: the interrupt surely lands mid-stream
    held = {"content": [{"type": "text", "text": "word " * 60, "chunks": 60}], "hold_after_events": 10}
    options, server = sdk_options([held, text_turn("Back again.")], include_partial_messages=True)
    async with ClaudeSDKClient(options=options) as client:
        await client.query("tell me a long story")
        interrupted = False
        messages = []
        async for message in client.receive_response():
            messages.append(message)
            if (
                isinstance(message, StreamEvent)
                and message.event.get("type") == "content_block_delta"
                and not interrupted
            ):
                interrupted = True
                await client.interrupt()
        result = messages[-1]
        assert isinstance(result, ResultMessage) and result.is_error
        assert result.terminal_reason == "aborted_streaming"
        await client.query("are you there?")
        after = [m async for m in client.receive_response()]
    assert isinstance(after[-1], ResultMessage) and after[-1].result == "Back again."
    assert len(server.requests) == 2


async def test_permission_mode_and_model_changes_apply_to_the_next_request(sdk_options, project: Path):
    target = project / "notes.txt"
    options, server = sdk_options(
        [
            tool_turn("Write", {"file_path": str(target), "content": "hello\n"}, "toolu_w1"),
            text_turn("Written."),
        ]
    )
    async with ClaudeSDKClient(options=options) as client:
        await client.set_permission_mode("acceptEdits")
        await client.set_model("claude-opus-5-5")
        await client.query("write the notes")
        messages = [m async for m in client.receive_response()]
    assert isinstance(messages[-1], ResultMessage) and not messages[-1].is_error
    assert target.read_text() == "hello\n"
    assert [request.body["model"] for request in server.requests] == ["claude-opus-5-5", "claude-opus-5-5"]
    assert not tool_result(server.requests[1], "toolu_w1").get("is_error")


async def test_can_use_tool_allows_with_changed_input_denies_and_deny_rules_still_hold(sdk_options, project: Path):
    asked: list[tuple[str, dict]] = []

    async def can_use_tool(name, tool_input, context):
        asked.append((name, dict(tool_input)))
        if name == "Write":
            return PermissionResultDeny(message="no writing today")
        if tool_input["command"] == "touch one.txt":
            return PermissionResultAllow(updated_input={"command": "touch two.txt"})
        return PermissionResultAllow(updated_input={"command": "rm -f README.md"})

    options, server = sdk_options(
        [
            tool_turn("Bash", {"command": "touch one.txt"}, "toolu_b1"),
            tool_turn("Write", {"file_path": str(project / "w.txt"), "content": "x"}, "toolu_w1"),
            tool_turn("Bash", {"command": "touch three.txt"}, "toolu_b2"),
            text_turn("All done."),
        ],
        can_use_tool=can_use_tool,
        disallowed_tools=["Bash(rm *)"],
    )
    async with ClaudeSDKClient(options=options) as client:
        await client.query("make some files")
        messages = [m async for m in client.receive_response()]
    assert isinstance(messages[-1], ResultMessage)
    assert [name for name, _ in asked] == ["Bash", "Write", "Bash"]
    assert (project / "two.txt").exists() and not (project / "one.txt").exists()
    assert not tool_result(server.requests[1], "toolu_b1").get("is_error")
    denied = tool_result(server.requests[2], "toolu_w1")
    assert denied["is_error"] and "no writing today" in result_text(denied)
    assert not (project / "w.txt").exists()
    rechecked = tool_result(server.requests[3], "toolu_b2")
    assert rechecked["is_error"] and "rm *" in result_text(rechecked)
    assert (project / "README.md").exists()
    assert {d["tool_name"] for d in messages[-1].permission_denials} == {"Write", "Bash"}


async def test_clear_resets_the_conversation_with_a_new_session(sdk_options):
    options, server = sdk_options([text_turn("Noted."), text_turn("What number?")])
    first, cleared, after, cost, unknown = await conversation(
        options, "remember 42", "/clear", "which number did I say?", "/cost", "/frobnicate"
    )
    assert isinstance(cost[-1], ResultMessage) and not cost[-1].is_error and cost[-1].result
    assert "Unknown command /frobnicate" in unknown[-1].result
    reset = [m for m in cleared if isinstance(m, ConversationResetMessage)]
    assert len(reset) == 1 and reset[0].session_id == first[-1].session_id
    assert isinstance(cleared[-1], ResultMessage) and not cleared[-1].is_error
    assert after[-1].session_id not in (first[-1].session_id, None)
    assert typed(server.requests[1].body["messages"]) == [{"role": "user", "content": "which number did I say?"}]


async def test_interrupt_cancels_an_open_permission_question(sdk_options, project: Path):
    asked = asyncio.Event()
    cancelled = asyncio.Event()

    async def can_use_tool(name, tool_input, context):
        asked.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise

    options, server = sdk_options(
        [tool_turn("Bash", {"command": "touch never.txt"}, "toolu_b1"), text_turn("Stopped.")],
        can_use_tool=can_use_tool,
    )
    async with ClaudeSDKClient(options=options) as client:
        await client.query("make a file")

        async def interrupt_once_asked() -> None:
            await asked.wait()
            await client.interrupt()

        interrupting = asyncio.create_task(interrupt_once_asked())
        messages = [m async for m in client.receive_response()]
        await interrupting
        await asyncio.wait_for(cancelled.wait(), DEADLINE_S)
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.is_error and result.terminal_reason == "aborted_tools"
    assert not (project / "never.txt").exists()
    assert len(server.requests) == 1


async def test_compact_over_stream_json_emits_the_boundary_and_the_next_turn_starts_from_the_summary(sdk_options):
    cue = "summary of the conversation so far"
    own = {"last_user_text_excludes": cue}
    options, server = sdk_options(
        [
            {**text_turn("Noted. " + "I will keep that number in mind. " * 40), "when": own},  # a summary is shorter
            {**text_turn("Summary: the user said 42."), "when": {"last_user_text_contains": cue}},
            {**text_turn("It was 42."), "when": own},
        ]
    )
    _first, compacted, after = await conversation(options, "remember 42", "/compact numbers", "which number?")
    assert isinstance(compacted[-1], ResultMessage) and not compacted[-1].is_error
    assert "summarised" in compacted[-1].result
    boundaries = [m for m in compacted if getattr(m, "subtype", None) == "compact_boundary"]
    assert len(boundaries) == 1 and boundaries[0].data["compact_metadata"]["trigger"] == "manual"
    assert isinstance(after[-1], ResultMessage) and after[-1].result == "It was 42."
    sent = server.requests[-1].body["messages"]
    assert "Summary: the user said 42." in sent[0]["content"][0]["text"]


async def test_rewind_files_puts_the_files_back_as_they_were_before_a_user_message(sdk_options, project: Path):
    """The SDK's ``rewind_files`` uses the session's checkpoints: the file the prompt created is gone again."""
    from claude_agent_sdk import UserMessage

    target = project / "notes.txt"
    options, _server = sdk_options(
        [tool_turn("Write", {"file_path": str(target), "content": "hello\n"}, "toolu_w1"), text_turn("Written.")],
        permission_mode="acceptEdits",
        enable_file_checkpointing=True,
        extra_args={"replay-user-messages": None},
    )
    async with ClaudeSDKClient(options=options) as client:
        await client.query("write the notes")
        messages = [m async for m in client.receive_response()]
        prompt_ids = [m.uuid for m in messages if isinstance(m, UserMessage) and m.uuid and isinstance(m.content, str)]
        assert target.read_text() == "hello\n" and len(prompt_ids) == 1
        await client.rewind_files(prompt_ids[0])
    assert not target.exists()
