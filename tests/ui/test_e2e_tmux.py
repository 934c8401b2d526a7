"""End to end in a real terminal: ``agentcli --demo`` under tmux, driven with keys and read from the screen."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


class Tmux:
    """One tmux server on its own socket, so the test's environment is the one the app gets."""

    def __init__(self, socket: str) -> None:
        self.socket = socket
        self.session = "agentcli"

    def run(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=10)
        return done.stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", self.session)

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", self.session, *keys)

    def type(self, text: str) -> None:
        self.run("send-keys", "-t", self.session, "-l", text)

    def wait_for(self, needle: str, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if needle in screen:
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"{needle!r} did not appear; the screen was:\n{screen}")
            time.sleep(0.1)


@pytest.fixture
def tmux(project: Path) -> Iterator[Tmux]:
    if shutil.which("tmux") is None:
        pytest.fail("tmux is required for the end-to-end test (.ci/run installs it)")
    terminal = Tmux(f"agentcli-test-{os.getpid()}-{time.monotonic_ns()}")
    env = {key: os.environ[key] for key in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "PATH") if key in os.environ}
    env.update(TERM="xterm-256color", PYTHONPATH=str(REPO), COLORTERM="truecolor")
    exports = " ".join(f"{key}={shlex.quote(value)}" for key, value in env.items())
    command = (f"cd {shlex.quote(str(project))} && env {exports} {shlex.quote(sys.executable)} -m agentcli --demo; "
               "echo AGENTCLI-EXITED-$?; sleep 60")
    terminal.run("new-session", "-d", "-s", terminal.session, "-x", "110", "-y", "40", command)
    try:
        yield terminal
    finally:
        terminal.run("kill-server")


def test_demo_in_a_real_terminal(tmux: Tmux):
    """Type a prompt, watch the streamed answer, interrupt the running command with Esc, use ctrl+o, exit."""
    tmux.wait_for("Ask agentcli", timeout=15)
    tmux.type("show me the project")
    tmux.keys("Enter")
    tmux.wait_for("print(text.splitlines()[0])")       # the streamed code block
    tmux.wait_for("⎿  Read 3 lines")                   # the Read tool's one-line result
    screen = tmux.wait_for("Running…")                 # the Bash command with its spinner
    assert "Bash(" in screen
    tmux.keys("Escape")
    tmux.wait_for("Interrupted")
    tmux.keys("C-o")
    screen = tmux.wait_for("Detailed transcript")
    tmux.wait_for('"description": "Run the project')  # full tool input, only in the transcript
    tmux.keys("C-o")
    tmux.wait_for("Ask agentcli")
    assert "Detailed transcript" not in tmux.screen()
    tmux.keys("C-d")
    screen = tmux.wait_for("AGENTCLI-EXITED-0")
    assert "Resume this session with" in screen and "agentcli --resume" in screen
