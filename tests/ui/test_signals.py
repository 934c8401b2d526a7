"""SIGTERM, SIGHUP and SIGINT in every face: the running command's whole process group ends, the transcript
records the interrupted turn and is closed, and agentcli exits with 128 + the signal's number. Real processes,
real signals; every wait is for a condition."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agentcli.config.paths import sessions_dir
from agentcli.session.load import load_transcript
from tests.session.conftest import text_turn
from tests.ui.tmux import agentcli_in_tmux
from tests.waiting import DEADLINE_S, wait_until


def _alive(pid: int) -> bool:
    """Running (not gone, not a zombie waiting to be reaped)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def _sleepers(token: str) -> list[int]:
    """Host pids of `sleep TOKEN` processes: found by command line, because inside the sandbox `$!` is a pid of
    the sandbox's own pid namespace, meaningless out here."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and (proc / "cmdline").read_bytes() == f"sleep\0{token}\0".encode():
                found.append(int(proc.name))
        except OSError:
            continue
    return [pid for pid in found if _alive(pid)]


class _LongCommand:
    """A command that starts a child and waits: both must be gone when agentcli ends. It marks its start with a
    file in the project, the one place a sandboxed command may write that the test can see."""

    def __init__(self, project: Path) -> None:
        self.token = f"600.{os.getpid()}{time.monotonic_ns() % 1_000_000}"
        self.started = project / "started.mark"

    def turns(self) -> list[dict]:
        return _long_command_turns(f"sleep {self.token} & touch {self.started.name}; wait")

    def wait_started(self) -> list[int]:
        wait_until(self.started.exists, "the command to start")
        return wait_until(lambda: _sleepers(self.token), "the command's child to appear")


def _long_command_turns(command: str) -> list[dict]:
    return [
        {
            "content": [
                {"type": "text", "text": "Running it."},
                {"type": "tool_use", "id": "toolu_long", "name": "Bash", "input": {"command": command}},
            ]
        },
        text_turn("never sent"),
    ]


def _check_recorded_and_ended(project: Path, command: _LongCommand) -> None:
    wait_until(lambda: not _sleepers(command.token), "the command's child to end")
    [path] = sessions_dir(project).glob("*.jsonl")
    transcript = load_transcript(path)
    assert transcript.warnings == [] and transcript.dangling == []  # nothing left open for a resume to repair
    results = [
        block
        for message in transcript.messages
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    assert results == [
        {"type": "tool_result", "tool_use_id": "toolu_long", "content": "Interrupted by user", "is_error": True}
    ]
    assert transcript.messages[-1] == {
        "role": "user",
        "content": [{"type": "text", "text": "[Request interrupted by user]"}],
    }


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_headless(signum: int, fake_api, project: Path, run_cli_env):
    command = _LongCommand(project)
    server = fake_api({"turns": command.turns()})
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentcli", "-p", "go", "--allowedTools", "Bash", "--output-format", "json"],
        cwd=project,
        env=run_cli_env(server),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    command.wait_started()
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=DEADLINE_S)
    assert proc.returncode == 128 + signum, err
    assert "Traceback" not in err
    if signum != signal.SIGHUP:  # after SIGHUP there is no terminal to print to
        assert '"errors":["Interrupted by user"]' in out
    _check_recorded_and_ended(project, command)
    assert len(server.requests) == 1


def _agentcli_pid(pane_pid: int) -> int:
    """The agentcli process the tmux pane's shell started."""
    children = Path(f"/proc/{pane_pid}/task/{pane_pid}/children").read_text().split()
    return int(children[0])


@pytest.mark.parametrize("ending", ["SIGTERM", "terminal closed"])
@pytest.mark.parametrize("face", ["--plain", "tui"])
def test_interactive_faces(face: str, ending: str, fake_api, project: Path):
    command = _LongCommand(project)
    server = fake_api({"turns": command.turns()})
    args = ("--plain", "--allowedTools", "Bash") if face == "--plain" else ("--allowedTools", "Bash")
    with agentcli_in_tmux(
        project, *args, height=30, ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=server.base_url
    ) as terminal:
        terminal.wait_for("Ask agentcli")
        terminal.type("go")
        terminal.keys("Enter")
        command.wait_started()
        pane = int(terminal.run("display-message", "-p", "-t", terminal.session, "#{pane_pid}").strip())
        agentcli = _agentcli_pid(pane)
        if ending == "SIGTERM":
            os.kill(agentcli, signal.SIGTERM)
            terminal.wait_for(f"AGENTCLI-EXITED-{128 + signal.SIGTERM}")
        else:
            terminal.run("kill-server")  # the terminal goes away: its processes get SIGHUP
            wait_until(lambda: not _alive(agentcli), "agentcli to end after SIGHUP")
    _check_recorded_and_ended(project, command)
