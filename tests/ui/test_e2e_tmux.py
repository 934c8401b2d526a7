"""End to end in a real terminal: ``agentcli --demo`` under tmux, driven with keys and read from the screen."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ui.tmux import Tmux, agentcli_in_tmux


@pytest.fixture
def tmux(project: Path) -> Iterator[Tmux]:
    with agentcli_in_tmux(project, "--demo", height=40, COLORTERM="truecolor") as terminal:
        yield terminal


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
    tmux.wait_for("ctrl+d again to exit")
    tmux.keys("C-d")
    screen = tmux.wait_for("AGENTCLI-EXITED-0")
    assert "Resume this session with" in screen and "agentcli --resume" in screen
