"""Interrupting at five points: the run stops at once, the conversation stays valid, the session goes on.

Each point would last a minute or more if nobody interrupted; the tests wait for the point to be reached (a
condition, never a fixed time), and a run that was not stopped would outlast the deadline they wait for its end.
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
from typing import Any

import pytest

from agentcli.tools.base import Tool, ToolCall, ToolInput, ToolOutput, ToolRegistry
from agentcli.tools.read import ReadTool
from tests.conftest import collect
from tests.waiting import DEADLINE_S, until, wait_until


class WaitInput(ToolInput):
    seconds: float


class WaitTool(Tool):
    """A real tool that takes its time, so an interrupt lands while it runs."""

    name = "Wait"
    description = "Waits."
    input_model = WaitInput
    started = 0

    def is_read_only(self, tool_input: Any) -> bool:
        return True

    async def call(self, tool_input: Any, call: ToolCall) -> ToolOutput:
        WaitTool.started += 1
        await asyncio.sleep(tool_input.seconds)
        return ToolOutput("waited")


def _slow_text() -> dict:
    return {"content": [{"type": "text", "text": "word " * 80, "chunks": 80}], "delay_ms": 4000}


POINTS: dict[str, list[dict]] = {
    "streaming_text": [_slow_text()],
    "streaming_tool_json": [
        {
            "content": [
                {"type": "tool_use", "id": "toolu_slow", "name": "Wait", "input": {"seconds": 0.01}, "chunks": 80}
            ],
            "delay_ms": 4000,
        }
    ],
    "tool_running": [
        {"content": [{"type": "tool_use", "id": "toolu_wait", "name": "Wait", "input": {"seconds": 300}}]}
    ],
    "retry_sleep": [
        {"fault": {"kind": "http", "status": 429, "message": "slow down", "headers": {"retry-after": "300"}}}
    ],
    "between_turns": [
        {"content": [{"type": "tool_use", "id": "toolu_quick", "name": "Wait", "input": {"seconds": 0.01}}]},
        {"content": [{"type": "text", "text": "late"}], "first_byte_delay_ms": 300000},
    ],
}


def reached(point: str, messages: list[dict[str, Any]], server: Any) -> bool:
    """True once the run is at ``point``, so the interrupt lands there."""
    if point in ("streaming_text", "streaming_tool_json"):
        return any(m["type"] == "stream_event" and m["event"]["type"] == "content_block_delta" for m in messages)
    if point == "tool_running":
        return WaitTool.started > 0
    if point == "retry_sleep":
        return any(m["type"] == "system" and m.get("subtype") == "api_retry" for m in messages)
    return len(server.requests) == 2  # between_turns: the quick tool ran, the next request waits for a byte


@pytest.mark.parametrize("point", list(POINTS))
async def test_interrupt(point: str, fake_api, make_engine):
    server = fake_api({"turns": [*POINTS[point], {"content": [{"type": "text", "text": "next answer"}]}]})
    engine = make_engine(server, include_partial_messages=True)
    engine.config.registry = ToolRegistry([ReadTool(), WaitTool()])
    WaitTool.started = 0
    messages: list[dict[str, Any]] = []

    async def run() -> None:
        async for message in engine.submit_message("start"):
            messages.append(message)

    task = asyncio.create_task(run())
    await until(lambda: reached(point, messages, server), f"the point {point!r}", task=task)
    engine.interrupt()
    await asyncio.wait_for(task, DEADLINE_S)
    result = messages[-1]
    assert result["type"] == "result" and result["is_error"] is True
    assert result["errors"][-1] == "Interrupted by user"
    if point in ("tool_running",):
        # the running tool was answered with an interruption, not left dangling, and faces were told
        answer = {
            "type": "tool_result",
            "tool_use_id": "toolu_wait",
            "content": "Interrupted by user",
            "is_error": True,
        }
        assert engine.messages[-2]["content"][0] == answer
        assert messages[-3]["type"] == "user" and messages[-3]["message"]["content"] == [answer]
    # then the marker Claude Code sends, so the model knows it was stopped
    marker = {"type": "text", "text": "[Request interrupted by user]"}
    assert engine.messages[-1] == {"role": "user", "content": [marker]}
    # the session takes the next prompt, and that request is valid (checked by the fixture)
    follow_up = await collect(engine, "carry on")
    assert follow_up[-1]["subtype"] == "success"
    assert follow_up[-1]["result"] == "next answer"


def test_sigint_in_print_mode_stops_the_run(fake_api, project, run_cli_env):
    server = fake_api({"turns": [_slow_text()]})
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentcli", "-p", "go", "--output-format", "stream-json"],
        cwd=project,
        env=run_cli_env(server),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_until(lambda: server.requests, "the request")
    # the first stream event on stdout: the answer is streaming now (and the handler is surely installed)
    first_line = proc.stdout.readline()
    assert first_line, "no output before the interrupt"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=DEADLINE_S)  # the answer alone streams for five minutes
    out = first_line + out
    assert proc.returncode == 130, err  # 128 + SIGINT, once the interrupted turn is recorded
    result = json.loads(out.splitlines()[-1])
    assert result["type"] == "result" and result["errors"] == ["Interrupted by user"]
    assert "interrupting" in err


def test_second_sigint_exits_at_once(fake_api, project, run_cli_env):
    server = fake_api({"turns": [_slow_text()]})
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentcli", "-p", "go"],
        cwd=project,
        env=run_cli_env(server),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_until(lambda: server.requests, "the request")
    proc.send_signal(signal.SIGINT)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=DEADLINE_S)
    assert proc.returncode in (1, 130)


async def test_cancelling_the_task_directly_still_answers_open_tool_calls(fake_api, make_engine):
    """A face that cancels its worker (rather than calling interrupt) must not leave a dangling tool_use."""
    server = fake_api({"turns": [POINTS["tool_running"][0], {"content": [{"type": "text", "text": "next answer"}]}]})
    engine = make_engine(server)
    engine.config.registry = ToolRegistry([ReadTool(), WaitTool()])
    WaitTool.started = 0
    task = asyncio.create_task(collect(engine, "start"))
    await until(lambda: WaitTool.started, "the tool to start", task=task)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert engine.messages[-1]["content"][0]["tool_use_id"] == "toolu_wait"
    follow_up = await collect(engine, "carry on")
    assert follow_up[-1]["result"] == "next answer"
