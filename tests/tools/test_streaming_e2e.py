"""Tools end to end through the engine and the fake Messages API: overlap with streaming, parallel reads,
serial writes, interrupts that leave no process behind, and headless permission denials."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

import pytest

from agentcli.testing import load_scenario
from agentcli.testing.sse import stream_frames
from agentcli.tools.process import group_alive
from tests.conftest import collect
from tests.messages import without_cache_control
from tests.waiting import until

FRAME_DELAY_MS = 100
TEXT_CHUNKS = 12


def group_exists(pgid: int) -> bool:
    """Whether any process, zombie or not, is still in the group."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def scripted_stream_s(scenario: dict[str, Any]) -> float:
    """How long the fake server takes to send the first turn: one delay between each pair of SSE frames."""
    turn = load_scenario(scenario).turns[0]
    frames = stream_frames(turn, message_id="msg_x", model="x", usage={"input_tokens": 1, "output_tokens": 1})
    return (len(frames) - 1) * turn.delay_ms / 1000


def bash(tool_id: str, command: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": command}}


async def timed(engine: Any, prompt: str) -> list[tuple[float, dict[str, Any]]]:
    return [(time.monotonic(), message) async for message in engine.submit_message(prompt)]


def first(events: list[tuple[float, dict[str, Any]]], kind: str, tool_use_id: str | None = None) -> float:
    for stamp, message in events:
        if (
            message["type"] == "system"
            and message.get("subtype") == kind
            and (tool_use_id is None or message.get("tool_use_id") == tool_use_id)
        ):
            return stamp
        if message["type"] == "stream_event" and message["event"]["type"] == kind:
            return stamp
    raise AssertionError(f"no {kind} event")


async def test_a_tool_runs_while_the_model_is_still_streaming(fake_api, make_engine):
    scenario = {
        "turns": [
            {
                "content": [
                    bash("toolu_quick", "echo started"),
                    {"type": "text", "text": "While that runs, let me explain the plan. " * 4, "chunks": TEXT_CHUNKS},
                ],
                "delay_ms": FRAME_DELAY_MS,
            },
            {"content": [{"type": "text", "text": "Done."}]},
        ]
    }
    assert scripted_stream_s(scenario) >= 1.9  # the text goes on streaming for seconds after the tool_use closes
    server = fake_api(scenario)
    engine = make_engine(server, include_partial_messages=True)
    events = await timed(engine, "go")
    assert events[-1][1]["subtype"] == "success"
    # started and even finished before the model's message ended: it did not wait for the stream
    assert first(events, "tool_started", "toolu_quick") < first(events, "tool_finished", "toolu_quick")
    assert first(events, "tool_finished", "toolu_quick") < first(events, "message_stop")
    result = server.requests[1].body["messages"][2]["content"][0]
    assert result["tool_use_id"] == "toolu_quick" and result["content"] == "started"


async def test_two_read_only_tools_run_at_the_same_time(fake_api, make_engine):
    server = fake_api(
        {
            "turns": [
                {"content": [bash("toolu_a", "sleep 3; echo a"), bash("toolu_b", "sleep 3; echo b")]},
                {"content": [{"type": "text", "text": "ok"}]},
            ]
        }
    )
    engine = make_engine(server, include_partial_messages=True)
    events = await timed(engine, "go")
    # run one after the other, b could only start once a had finished
    assert first(events, "tool_started", "toolu_b") < first(events, "tool_finished", "toolu_a")
    blocks = server.requests[1].body["messages"][2]["content"]
    assert [(b["tool_use_id"], b["content"]) for b in blocks] == [("toolu_a", "a"), ("toolu_b", "b")]


async def test_two_writes_run_one_after_the_other(fake_api, make_engine, project: Path):
    server = fake_api(
        {
            "turns": [
                {
                    "content": [
                        bash("toolu_w1", "sleep 0.3; echo one >> log.txt"),
                        bash("toolu_w2", "sleep 0.3; echo two >> log.txt"),
                        {
                            "type": "tool_use",
                            "id": "toolu_w3",
                            "name": "Write",
                            "input": {"file_path": str(project / "after.txt"), "content": "three\n"},
                        },
                    ]
                },
                {"content": [{"type": "text", "text": "ok"}]},
            ]
        }
    )
    engine = make_engine(server, include_partial_messages=True, permission_mode="bypassPermissions")
    events = await timed(engine, "go")
    assert first(events, "tool_finished", "toolu_w1") <= first(events, "tool_started", "toolu_w2")
    assert first(events, "tool_finished", "toolu_w2") <= first(events, "tool_started", "toolu_w3")
    assert (project / "log.txt").read_text() == "one\ntwo\n"
    assert server.requests[1].time - server.requests[0].time >= 0.6


@pytest.mark.parametrize("how", ["interrupt", "cancel"])
async def test_interrupting_a_running_command_leaves_no_process(fake_api, make_engine, project: Path, how: str):
    server = fake_api(
        {
            "turns": [
                {"content": [bash("toolu_long", "echo $$ > pgid; sleep 30 & sleep 30; wait")]},
                {"content": [{"type": "text", "text": "Understood, stopping."}]},
            ]
        }
    )
    # unconfined, so that $$ is the host's process id (tests/tools/test_sandbox.py covers the sandboxed case)
    engine = make_engine(server, permission_mode="bypassPermissions", settings_flag='{"sandbox": {"enabled": false}}')
    task = asyncio.create_task(collect(engine, "run it"))
    pgid_file = project / "pgid"
    await until(lambda: pgid_file.exists() and pgid_file.read_text().strip(), "the command to start", task=task)
    pgid = int(pgid_file.read_text())
    assert group_alive(pgid)
    if how == "interrupt":
        engine.interrupt()
        messages = await asyncio.wait_for(task, 60)
        assert messages[-1]["subtype"] == "error_during_execution"
    else:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 60)
    assert not group_alive(pgid)  # nothing of the group is running any more
    await until(lambda: not group_exists(pgid), f"process group {pgid} to be gone")  # reaped, gone altogether
    if how == "cancel":
        return  # the caller cancelled the whole submission; interrupt() is how a face stops a turn and goes on

    final = await collect(engine, "never mind")
    assert final[-1]["subtype"] == "success" and final[-1]["result"] == "Understood, stopping."
    answered = server.requests[1].body["messages"][2]["content"][0]
    assert answered["tool_use_id"] == "toolu_long" and answered["is_error"] is True
    # the fake server checks every request it got (fake_api teardown): this one must be valid too


async def test_headless_denials_are_explained_and_listed(fake_api, make_engine, project: Path):
    server = fake_api(
        {
            "turns": [
                {
                    "content": [
                        bash("toolu_npm", "npm install left-pad"),
                        {
                            "type": "tool_use",
                            "id": "toolu_edit",
                            "name": "Write",
                            "input": {"file_path": str(project / "x.txt"), "content": "x"},
                        },
                        bash("toolu_ls", "ls src"),
                    ]
                },
                {"content": [{"type": "text", "text": "ok"}]},
            ]
        }
    )
    engine = make_engine(server)
    messages = await collect(engine, "go")
    blocks = server.requests[1].body["messages"][2]["content"]
    assert blocks[0]["is_error"] and "running non-interactively" in blocks[0]["content"]
    assert '--allowedTools "Bash(npm install:*)"' in blocks[0]["content"]
    assert blocks[1]["is_error"] and "Write" in blocks[1]["content"]
    assert without_cache_control(blocks[2]) == {"type": "tool_result", "tool_use_id": "toolu_ls", "content": "app.py"}
    assert [d["tool_use_id"] for d in messages[-1]["permission_denials"]] == ["toolu_npm", "toolu_edit"]
    assert not (project / "x.txt").exists()


async def test_allowed_and_disallowed_tools_from_options(fake_api, make_engine, project: Path):
    server = fake_api(
        {
            "turns": [
                {"content": [bash("toolu_touch", "touch made.txt")]},
                {"content": [{"type": "text", "text": "ok"}]},
            ]
        }
    )
    engine = make_engine(server, allowed_tools=["Bash(touch *)"], disallowed_tools=["Glob,Grep"])
    messages = await collect(engine, "go")
    assert (project / "made.txt").exists() and messages[-1]["permission_denials"] == []
    assert {tool["name"] for tool in server.requests[0].body["tools"]}.isdisjoint({"Glob", "Grep"})


async def test_plan_mode_from_project_settings(fake_api, make_engine, project: Path):
    (project / ".agentcli").mkdir()
    (project / ".agentcli" / "settings.json").write_text(
        '{"permissions": {"defaultMode": "plan", "deny": ["Read(./README.md)"]}}'
    )
    server = fake_api(
        {
            "turns": [
                {
                    "content": [
                        bash("toolu_rm", "rm -rf src"),
                        {
                            "type": "tool_use",
                            "id": "toolu_read",
                            "name": "Read",
                            "input": {"file_path": str(project / "README.md")},
                        },
                    ]
                },
                {"content": [{"type": "text", "text": "ok"}]},
            ]
        }
    )
    engine = make_engine(server)
    messages = await collect(engine, "go")
    assert messages[0]["permissionMode"] == "plan"
    blocks = server.requests[1].body["messages"][2]["content"]
    assert "plan mode" in blocks[0]["content"] and (project / "src").exists()
    assert "denied by the rule Read(./README.md) (projectSettings)" in blocks[1]["content"]


def test_cli_permission_flags(run_cli, fake_api, project: Path):
    server = fake_api(
        {
            "turns": [
                {"content": [bash("toolu_echo", "echo hi > hello.txt")]},
                {"content": [{"type": "text", "text": "wrote it"}]},
            ]
        }
    )
    proc = run_cli(
        "-p",
        "go",
        "--allowedTools",
        "Read,Bash(echo *)",
        "--disallowedTools",
        "Glob",
        "--output-format",
        "json",
        server=server,
    )
    assert proc.returncode == 0, proc.stderr
    assert (project / "hello.txt").read_text() == "hi\n"
    assert "Glob" not in {tool["name"] for tool in server.requests[0].body["tools"]}
    bad = run_cli("-p", "go", "--allowedTools", "Bash(git", server=server)
    assert bad.returncode == 2 and "--allowedTools" in bad.stderr
    clash = run_cli("-p", "go", "--dangerously-skip-permissions", "--permission-mode", "plan", server=server)
    assert clash.returncode == 2
