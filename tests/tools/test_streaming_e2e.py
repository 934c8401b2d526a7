"""Tools end to end through the engine and the fake Messages API: overlap with streaming, parallel reads,
serial writes, interrupts that leave no process behind, and headless permission denials."""

from __future__ import annotations

import asyncio
import errno
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
from tests.waiting import DEADLINE_S, until


def group_exists(pgid: int) -> bool:
    """Whether any process, zombie or not, is still in the group."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def events_through_first_block(turn: dict[str, Any]) -> int:
    """How many SSE events the fake server sends up to and including the first content block's end."""
    frames = stream_frames(
        load_scenario({"turns": [turn]}).turns[0],
        message_id="msg_x",
        model="x",
        usage={"input_tokens": 1, "output_tokens": 1},
    )
    return next(n for n, frame in enumerate(frames, 1) if frame.startswith(b"event: content_block_stop"))


class Pipes:
    """Named pipes that commands wait on: each stays open for writing once its reader came, until :meth:`close`
    lets every reader go on at once (it reads the end of the pipe)."""

    def __init__(self, *paths: Path) -> None:
        for path in paths:
            os.mkfifo(path)
        self.paths = paths
        self.writers: dict[Path, int] = {}

    def all_read(self) -> bool:
        for path in self.paths:
            if path not in self.writers:
                try:
                    self.writers[path] = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
                except OSError as error:
                    if error.errno != errno.ENXIO:  # ENXIO: nobody reads it yet
                        raise
        return len(self.writers) == len(self.paths)

    def close(self) -> None:
        for fd in self.writers.values():
            os.close(fd)
        self.writers.clear()


def bash(tool_id: str, command: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": command}}


async def timed(engine: Any, prompt: str) -> list[tuple[float, dict[str, Any]]]:
    return [(time.monotonic(), message) async for message in engine.submit_message(prompt)]


def first(events: list[tuple[float, dict[str, Any]]], kind: str, tool_use_id: str | None = None) -> int:
    """Where the first ``kind`` event is in the order the run reported its messages."""
    for index, (_stamp, message) in enumerate(events):
        if (
            message["type"] == "system"
            and message.get("subtype") == kind
            and (tool_use_id is None or message.get("tool_use_id") == tool_use_id)
        ):
            return index
        if message["type"] == "stream_event" and message["event"]["type"] == kind:
            return index
    raise AssertionError(f"no {kind} event")


async def test_a_tool_runs_while_the_model_is_still_streaming(fake_api, make_engine, project: Path):
    turn: dict[str, Any] = {
        "content": [
            bash("toolu_quick", "echo started; touch ran"),
            {"type": "text", "text": "While that runs, let me explain the plan. " * 4, "chunks": 12},
        ]
    }
    # The answer stops once its tool_use block is complete, and goes on only when the test has seen the command
    # run: a tool that waited for the end of the message would never run. (Its events are reported with the
    # stream's next event.)
    turn["hold_after_events"] = events_through_first_block(turn)
    server = fake_api({"turns": [turn, {"content": [{"type": "text", "text": "Done."}]}]})
    engine = make_engine(server, include_partial_messages=True, permission_mode="bypassPermissions")
    events: list[tuple[float, dict[str, Any]]] = []

    async def run() -> None:
        async for message in engine.submit_message("go"):
            events.append((time.monotonic(), message))

    task = asyncio.create_task(run())
    await until(lambda: (project / "ran").exists(), "the command to run mid-answer", task=task)
    server.release()
    await asyncio.wait_for(task, DEADLINE_S)
    assert events[-1][1]["subtype"] == "success"
    # started before the message ended (and ran while it was held: the file); when its end is reported depends
    # on how soon the shell's exit is noticed, so that is not compared with the stream
    assert first(events, "tool_started", "toolu_quick") < first(events, "message_stop")
    assert first(events, "tool_started", "toolu_quick") < first(events, "tool_finished", "toolu_quick")
    result = server.requests[1].body["messages"][2]["content"][0]
    assert result["tool_use_id"] == "toolu_quick" and result["content"] == "started"


async def test_two_read_only_tools_run_at_the_same_time(fake_api, make_engine, project: Path):
    # Each command waits on a pipe of its own, and the pipes are let go only once both commands wait: run one
    # after the other, the first would wait for ever and the second never start.
    pipes = Pipes(project / "a.fifo", project / "b.fifo")
    server = fake_api(
        {
            "turns": [
                {"content": [bash("toolu_a", "head -c 1 a.fifo; echo a"), bash("toolu_b", "head -c 1 b.fifo; echo b")]},
                {"content": [{"type": "text", "text": "ok"}]},
            ]
        }
    )
    engine = make_engine(server, include_partial_messages=True)
    events: list[tuple[float, dict[str, Any]]] = []

    async def run() -> None:
        async for message in engine.submit_message("go"):
            events.append((time.monotonic(), message))

    task = asyncio.create_task(run())
    try:
        await until(pipes.all_read, "both commands to wait at the same time", task=task)
    finally:
        pipes.close()
    await asyncio.wait_for(task, DEADLINE_S)
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
        messages = await asyncio.wait_for(task, DEADLINE_S)
        assert messages[-1]["subtype"] == "error_during_execution"
    else:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, DEADLINE_S)
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
    assert '--allowedTools "Bash(npm install left-pad)"' in blocks[0]["content"]  # an install is never widened
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
    settings = project / ".agentcli" / "settings.json"
    assert f"denied by the rule Read(./README.md) (projectSettings: {settings})" in blocks[1]["content"]


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
