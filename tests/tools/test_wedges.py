"""A command cannot wedge agentcli through the files agentcli reads or writes for it: a FIFO in place of its
shell's cwd file or of its spill file is refused at once, unconfined and inside the sandbox, the session goes on,
and SIGTERM still ends agentcli. Each run is a real process that the test can stop: a wedged event loop would
otherwise hang the test itself."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.processes import running_with, sleep_seconds
from tests.waiting import DEADLINE_S, wait_until

CWD_FIFO = 'rm -f "$__agentcli_cwd_file" && mkfifo "$__agentcli_cwd_file" && echo swapped'
"""The cwd file's path reaches the command as the shell variable its script keeps it in."""
UNCONFINED = '{"sandbox": {"enabled": false}}'

_PROBE = """
import asyncio, json, os, sys
from pathlib import Path
from agentcli.tools.process import run_shell
from agentcli.tools.sandbox import Sandbox, SandboxConfig

project, mode, spill, command = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]), sys.argv[4]
sandbox = Sandbox(SandboxConfig(), project) if mode == "sandbox" else None
assert sandbox is None or sandbox.active, sandbox.problem

async def main():
    result = await run_shell(command, cwd=project, env={**os.environ, "SPILL": str(spill)}, timeout_s=DEADLINE,
                             limit=1000, spill_path=spill, sandbox=sandbox)
    print(json.dumps({"exit": result.exit_code, "timed_out": result.timed_out, "cwd": str(result.final_cwd),
                      "output": result.output[-200:], "spilled": str(result.full_output_path)}))

asyncio.run(main())
"""


def _probe(project: Path, mode: str, spill: Path, command: str) -> dict[str, object]:
    """``run_shell`` in a process of its own (stopped if it does not finish, so a wedge fails the test)."""
    probe = _PROBE.replace("DEADLINE", repr(DEADLINE_S))
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    with subprocess.Popen(
        [sys.executable, "-c", probe, str(project), mode, str(spill), command],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        try:
            out, err = proc.communicate(timeout=DEADLINE_S * 2)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise AssertionError("run_shell never returned: the event loop is wedged") from None
    assert proc.returncode == 0, err
    return dict(json.loads(out))


@pytest.mark.parametrize("mode", ["unconfined", "sandbox"])
def test_a_fifo_in_place_of_the_cwd_file_is_refused_at_once(mode: str, project: Path, tmp_path: Path):
    result = _probe(project, mode, tmp_path / "out" / "spill.log", f"cd src && {CWD_FIFO}")
    assert result["exit"] == 0 and not result["timed_out"]
    assert result["output"] == "swapped\n"
    assert result["cwd"] == "None"  # the folder it ended in is unknown: the next command starts where this one did


def test_the_cwd_file_is_read_as_the_shell_left_it(project: Path, tmp_path: Path):
    """Only the first line counts, and only a folder that exists."""
    result = _probe(project, "unconfined", tmp_path / "spill.log", "cd src")
    assert result["cwd"] == str((project / "src").resolve())
    result = _probe(
        project, "unconfined", tmp_path / "spill.log", 'trap - EXIT; echo /no/such/dir > "$__agentcli_cwd_file"'
    )
    assert result["cwd"] == "None"


def test_a_fifo_in_place_of_the_spill_file_is_replaced(project: Path, tmp_path: Path):
    spill = tmp_path / "out" / "spill.log"
    command = 'mkdir -p "$(dirname "$SPILL")" && mkfifo "$SPILL" && head -c 200000 /dev/zero | tr "\\0" a; echo END'
    result = _probe(project, "unconfined", spill, command)
    assert result["exit"] == 0 and result["spilled"] == str(spill)
    assert spill.is_file() and not spill.is_symlink()
    saved = spill.read_text()
    assert saved.endswith("END\n") and saved.count("a") == 200_000


def _turns(first: str, sleeper: str) -> dict[str, object]:
    def bash(tool_id: str, command: str) -> dict[str, object]:
        return {"content": [{"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": command}}]}

    return {
        "turns": [
            bash("toolu_fifo", first),
            bash("toolu_next", f"touch next.mark; sleep {sleeper}"),
            {"content": [{"type": "text", "text": "never sent"}]},
        ]
    }


@pytest.mark.parametrize("mode", ["unconfined", "sandbox"])
def test_after_a_fifo_swap_the_session_goes_on_and_sigterm_ends_it(mode: str, fake_api, project: Path, run_cli_env):
    sleeper = sleep_seconds(600)
    server = fake_api(_turns(CWD_FIFO, sleeper))
    settings = ["--settings", UNCONFINED] if mode == "unconfined" else []
    with subprocess.Popen(
        [sys.executable, "-m", "agentcli", "-p", "go", "--allowedTools", "Bash", *settings],
        cwd=project,
        env=run_cli_env(server),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        try:
            wait_until(lambda: (project / "next.mark").exists() or proc.poll() is not None, "the next command")
            assert proc.poll() is None, proc.communicate()
            wait_until(lambda: running_with(sleeper), "the next command's sleep")
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=DEADLINE_S)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 128 + signal.SIGTERM, err
    [fifo_result] = [
        block for block in server.requests[1].body["messages"][-1]["content"] if block.get("type") == "tool_result"
    ]
    assert fifo_result["content"] == "swapped" and not fifo_result.get("is_error")
    wait_until(lambda: not running_with(sleeper), "the next command to end with agentcli")
