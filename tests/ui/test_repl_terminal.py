"""``agentcli --plain`` as a real process: in tmux end to end with ``--demo``, and on a pty without credentials."""

from __future__ import annotations

import os
import pty
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


class Tmux:
    """One tmux server on its own socket; ``screen`` includes the scrollback, where the REPL's output goes."""

    def __init__(self, socket: str) -> None:
        self.socket = socket
        self.session = "agentcli"

    def run(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=10).stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-J", "-S", "-500", "-t", self.session)

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
            time.sleep(0.05)


@pytest.fixture
def plain_demo(project: Path) -> Iterator[Tmux]:
    if shutil.which("tmux") is None:
        pytest.fail("tmux is required for the end-to-end test (.ci/run installs it)")
    terminal = Tmux(f"agentcli-plain-{os.getpid()}-{time.monotonic_ns()}")
    env = {key: os.environ[key] for key in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "PATH") if key in os.environ}
    env.update(TERM="xterm-256color", PYTHONPATH=str(REPO))
    exports = " ".join(f"{key}={shlex.quote(value)}" for key, value in env.items())
    command = (f"cd {shlex.quote(str(project))} && env {exports} {shlex.quote(sys.executable)} -m agentcli --demo "
               "--plain; echo AGENTCLI-EXITED-$?; sleep 60")
    terminal.run("new-session", "-d", "-s", terminal.session, "-x", "110", "-y", "30", command)
    try:
        yield terminal
    finally:
        terminal.run("kill-server")


def test_demo_plain_in_a_real_terminal(plain_demo: Tmux, project: Path):
    """Prompt, streamed answer, tool lines, live command output, an inline permission question, /export, ctrl+d."""
    tmux = plain_demo
    tmux.wait_for("Ask agentcli…", timeout=15)              # the prompt is open
    tmux.type("show me the project")
    tmux.keys("Enter")
    tmux.wait_for("print(text.splitlines()[0])")          # the streamed Markdown's code block
    tmux.wait_for("● Read(README.md)\n  ⎿  Read 3 lines")   # one line per call, one for its result
    tmux.wait_for("✓ lint")                                # the command's output, live while it runs
    screen = tmux.wait_for("Allow Write(agentcli-demo.md)?")
    assert "1. Yes, allow once" in screen
    tmux.type("1")
    screen = tmux.wait_for("4 turns · $")                 # the turn's cost line
    assert "⎿  Wrote 4 lines" in screen and "Done. In short:" in screen
    assert "Working…" not in screen                       # the live region is gone once the turn is over
    assert (project / "agentcli-demo.md").exists()
    tmux.wait_for("Ask agentcli…")
    tmux.type("/export chat.md")
    tmux.keys("Enter")
    tmux.wait_for("Exported")
    tmux.keys("C-d")
    screen = tmux.wait_for("AGENTCLI-EXITED-0")
    assert "Resume this session with:" in screen and "agentcli --resume " in screen
    assert "## You\n\nshow me the project" in (project / "chat.md").read_text()


def test_plain_without_credentials_says_what_to_do(project: Path, run_cli_env: Callable[..., dict[str, str]],
                                                   run_cli: Callable[..., subprocess.CompletedProcess[str]]):
    leader, follower = pty.openpty()
    try:
        done = subprocess.run([sys.executable, "-m", "agentcli", "--plain"], stdin=follower, capture_output=True,
                              text=True, cwd=project, env=run_cli_env(), timeout=30)
    finally:
        os.close(follower)
        os.close(leader)
    headless = run_cli("-p", "hello")
    assert done.returncode == headless.returncode == 2
    assert "No credentials" in done.stderr and done.stderr == headless.stderr
