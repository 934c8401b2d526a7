"""Driving agentcli in a real terminal: a tmux server of the test's own, keys in, screen text out."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest

from tests.waiting import DEADLINE_S

REPO = Path(__file__).resolve().parents[2]


def demo_running(command: str) -> dict[str, Any]:
    """The demo's script with its Bash call running ``command`` instead (one the test controls the end of)."""
    scenario = json.loads((files("agentcli.testing") / "scenarios" / "demo.json").read_text(encoding="utf-8"))
    for turn in scenario["turns"]:
        for block in turn.get("content", []):
            if block.get("type") == "tool_use" and block["name"] == "Bash":
                block["input"]["command"] = command
    return scenario


class Tmux:
    """One tmux server on its own socket, so the test's environment is the one the app gets.

    ``scrollback`` makes :meth:`screen` include the lines above the window (where an inline REPL's output goes).
    """

    def __init__(self, socket: str, *, scrollback: bool = False) -> None:
        self.socket = socket
        self.session = "agentcli"
        self.scrollback = scrollback

    def run(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=DEADLINE_S)
        return done.stdout

    def screen(self) -> str:
        extra = ("-J", "-S", "-500") if self.scrollback else ()
        return self.run("capture-pane", "-p", *extra, "-t", self.session)

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", self.session, *keys)

    def type(self, text: str) -> None:
        self.run("send-keys", "-t", self.session, "-l", text)

    def wait_for(self, *needles: str, timeout: float = DEADLINE_S) -> str:
        """The screen once every one of ``needles`` is on it (a frame may be half painted: wait for all)."""
        return self.wait_until(lambda screen: all(needle in screen for needle in needles), repr(needles), timeout)

    def wait_gone(self, needle: str, timeout: float = DEADLINE_S) -> str:
        return self.wait_until(lambda screen: needle not in screen, f"{needle!r} gone", timeout)

    def wait_until(self, condition: Callable[[str], bool], what: str, timeout: float = DEADLINE_S) -> str:
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if condition(screen):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"{what} did not happen; the screen was:\n{screen}")
            time.sleep(0.05)


@contextmanager
def agentcli_in_tmux(
    project: Path, *args: str, height: int, scrollback: bool = False, **env_extra: str
) -> Iterator[Tmux]:
    """``agentcli ARGS`` running in ``project`` inside a fresh tmux server; the server is killed afterwards."""
    if shutil.which("tmux") is None:
        pytest.fail("tmux is required for the end-to-end test (.ci/run installs it)")
    terminal = Tmux(f"agentcli-test-{os.getpid()}-{time.monotonic_ns()}", scrollback=scrollback)
    env = {key: os.environ[key] for key in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "PATH") if key in os.environ}
    env.update({"TERM": "xterm-256color", "PYTHONPATH": str(REPO), **env_extra})  # a caller may add to the path
    exports = " ".join(f"{key}={shlex.quote(value)}" for key, value in env.items())
    arguments = " ".join(shlex.quote(arg) for arg in args)
    command = (
        f"cd {shlex.quote(str(project))} && env {exports} {shlex.quote(sys.executable)} -m agentcli "
        f"{arguments}; echo AGENTCLI-EXITED-$?; sleep 3600"
    )
    terminal.run("new-session", "-d", "-s", terminal.session, "-x", "110", "-y", str(height), command)
    try:
        yield terminal
    finally:
        terminal.run("kill-server")
