"""End to end in a real terminal: agentcli under tmux on the demo's script, driven with keys and read from the screen.

The script is the demo's, except that its command runs until interrupted: the test presses Esc once the command is
seen running, and a command that ended on its own first would make that a race.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agentcli.testing import FakeAnthropicServer
from tests.ui.tmux import Tmux, agentcli_in_tmux, demo_running

LONG_COMMAND = "echo 'Running the checks…'; sleep 300"


@pytest.fixture
def tmux(project: Path, fake_api: Callable[..., FakeAnthropicServer]) -> Iterator[Tmux]:
    server = fake_api(demo_running(LONG_COMMAND))
    with agentcli_in_tmux(
        project, height=40, COLORTERM="truecolor", ANTHROPIC_BASE_URL=server.base_url, ANTHROPIC_API_KEY="test-key"
    ) as terminal:
        yield terminal


def test_agent_in_a_real_terminal(tmux: Tmux):
    """Type a prompt, watch the streamed answer, interrupt the running command with Esc, use ctrl+o, exit."""
    tmux.wait_for("Ask agentcli")
    tmux.type("show me the project")
    tmux.keys("Enter")
    tmux.wait_for("print(text.splitlines()[0])")  # the streamed code block
    tmux.wait_for("⎿  Read 3 lines")  # the Read tool's one-line result
    tmux.wait_for("Running…", "Bash(")  # the Bash command with its spinner
    tmux.keys("Escape")
    tmux.wait_for("Interrupted")
    tmux.keys("C-o")
    tmux.wait_for("Detailed transcript")
    tmux.wait_for('"description": "Run the project')  # full tool input, only in the transcript
    tmux.keys("C-o")
    tmux.wait_for("Ask agentcli")
    tmux.wait_gone("Detailed transcript")
    tmux.keys("C-d")
    tmux.wait_for("ctrl+d again to exit")
    # Both in one go: if the machine took longer than the double-press window to show the hint, the first of
    # them is a new first press and the second still exits (a press left over goes to a shell that ignores it).
    tmux.keys("C-d", "C-d")
    tmux.wait_for("AGENTCLI-EXITED-0", "Resume this session with", "agentcli --resume")
