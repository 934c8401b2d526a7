"""MCP servers that misbehave without crashing: one floods its stderr (only a bounded tail is kept, the rest is
drained so the server never blocks on it), one never finishes its handshake (the session's end kills it instead of
waiting on it)."""

from __future__ import annotations

import os
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

from agentcli.mcp.stdio import STDERR_TAIL_BYTES
from tests.conftest import collect
from tests.mcp.conftest import stdio_config, tool_results
from tests.mcp.test_mcp_e2e import call, started, two_turns
from tests.waiting import DEADLINE_S, wait_until

FLOOD_MB = 300
MEMORY_LIMIT = 16 * 1024 * 1024
"""What the flood may add to memory at its peak: a fraction of what it writes."""


def _measuring() -> None:
    """Import what connecting imports before measuring, so the measure is the flood's, not the imports'."""
    import mcp.client.client
    import mcp.client.stdio  # noqa: F401
    import mcp_types  # noqa: F401

    tracemalloc.start()


def _peak() -> int:
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


async def test_a_server_that_floods_stderr_then_fails_keeps_only_the_tail(fake_api, make_engine):
    server = fake_api({"turns": [{"content": [{"type": "text", "text": "hi"}]}]})
    engine = make_engine(server, mcp_config=[stdio_config(DEMO_STDERR_MB=str(FLOOD_MB), DEMO_CRASH="1")])
    _measuring()
    try:
        manager = await started(engine)
    finally:
        peak = _peak()
    [connection] = manager.connections
    assert connection.status == "failed"
    assert "refusing to start" in (connection.error or "")  # the tail's last words name the cause
    assert connection.stderr.total > FLOOD_MB * 1000 * 1000  # all of it was read…
    assert len(connection.stderr.text()) <= STDERR_TAIL_BYTES  # …and only the tail kept
    assert peak < MEMORY_LIMIT, f"the flood peaked at {peak:,} bytes"


async def test_a_tool_call_that_floods_stderr_is_answered_without_keeping_the_flood(fake_api, make_engine):
    server = fake_api(two_turns(call("toolu_loud", "mcp__demo__shout", {"megabytes": 100})))
    engine = make_engine(server, mcp_config=[stdio_config()], allowed_tools=["mcp__demo"])
    await started(engine)
    _measuring()
    try:
        messages = await collect(engine, "shout")
    finally:
        peak = _peak()
    [result] = tool_results(server.requests[1].body)
    assert result["content"] == "shouted" and messages[-1]["subtype"] == "success"
    [connection] = engine.config.extensions["mcp"].connections
    assert connection.stderr.text().endswith("demo server: last words\n")
    assert peak < MEMORY_LIMIT, f"the flood peaked at {peak:,} bytes"


def _alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie waiting to be reaped is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_print_mode_ends_without_waiting_for_a_server_still_starting(fake_api, project: Path, tmp_path: Path):
    pid_file = tmp_path / "server.pid"
    held = {"content": [{"type": "text", "text": "hello there", "chunks": 4}], "hold_after_events": 2}
    server = fake_api({"turns": [held]})
    config = stdio_config(DEMO_SILENT="1", DEMO_PID_FILE=str(pid_file))
    env = {"ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "test-key", "MCP_TIMEOUT": "600000"}
    with subprocess.Popen(
        [sys.executable, "-m", "agentcli", "-p", "hi", "--mcp-config", config],
        cwd=project,
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        # the answer waits until the server is running (and stuck in its handshake): it is surely still starting
        wait_until(lambda: pid_file.exists() or proc.poll() is not None, "the MCP server to start")
        server.release()
        out, err = proc.communicate(timeout=DEADLINE_S)
    assert proc.returncode == 0, err
    assert out.strip() == "hello there"
    pid = int(pid_file.read_text())
    assert not _alive(pid), "the server still starting was left running"


async def test_a_tool_call_past_its_deadline_is_an_error_and_the_server_stays(
    fake_api, make_engine, monkeypatch, tmp_path: Path
):
    gate = tmp_path / "gate"
    server = fake_api(
        {
            "turns": [
                {"content": [call("toolu_stall", "mcp__demo__stall", {"gate": str(gate)})]},
                {"content": [call("toolu_add", "mcp__demo__add", {"a": 1, "b": 2})]},
                {"content": [{"type": "text", "text": "Done."}]},
            ]
        }
    )
    engine = make_engine(server, mcp_config=[stdio_config()], allowed_tools=["mcp__demo"])
    await started(engine)
    monkeypatch.setenv("MCP_TOOL_TIMEOUT", "300")
    try:
        messages = await collect(engine, "stall")
    finally:
        gate.write_text("open")  # the server's stalled call ends by itself either way
    [stalled] = tool_results(server.requests[1].body)
    assert stalled["is_error"] and "within 0.3 s (MCP_TOOL_TIMEOUT" in stalled["content"]
    [added] = tool_results(server.requests[2].body)
    assert added["content"] == "1 + 2 = 3"  # the same connection answers the next call
    assert messages[-1]["result"] == "Done."


async def test_a_stdout_line_without_end_is_cut_off_at_the_message_limit():
    import pytest

    from agentcli.mcp.stdio import MAX_MESSAGE_BYTES, MessageTooLong, _lines

    sent = 0
    chunk = b"x" * 65536

    async def endless() -> Any:
        nonlocal sent
        yield b'{"jsonrpc": "2.0"}\n{"partial'
        while sent <= 2 * MAX_MESSAGE_BYTES:  # bounded, should the limit not hold
            sent += len(chunk)
            yield chunk

    read = []
    with pytest.raises(MessageTooLong):
        async for line in _lines(endless()):
            read.append(line)
    assert read == [b'{"jsonrpc": "2.0"}'] and sent <= MAX_MESSAGE_BYTES + len(chunk)
