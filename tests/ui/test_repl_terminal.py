"""``agentcli --plain`` as a real process: in tmux end to end on the demo's script, and on a pty without
credentials.

The script is the demo's, except that its checks wait after the first line until the test has seen it on screen:
a command's output shows only while it runs, and one that ended on its own first would make that a race.
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agentcli.testing import FakeAnthropicServer
from tests.ui.tmux import Tmux, agentcli_in_tmux, demo_running
from tests.waiting import DEADLINE_S

SEEN = "lint-seen"
CHECKS = (
    f"echo 'Running the checks…'; echo '✓ lint'; until [ -e {SEEN} ]; do sleep 0.05; done; "
    "echo '✓ types'; echo '✓ 42 tests passed'"
)


@pytest.fixture
def plain_demo(project: Path, fake_api: Callable[..., FakeAnthropicServer]) -> Iterator[Tmux]:
    server = fake_api(demo_running(CHECKS))
    with agentcli_in_tmux(
        project,
        "--plain",
        "--allowedTools",
        "Bash",  # the waiting loop is not a command that can be judged read-only
        height=30,
        scrollback=True,
        ANTHROPIC_BASE_URL=server.base_url,
        ANTHROPIC_API_KEY="test-key",
    ) as terminal:
        yield terminal


def test_demo_plain_in_a_real_terminal(plain_demo: Tmux, project: Path):
    """Prompt, streamed answer, tool lines, live command output, an inline permission question, /export, ctrl+d."""
    tmux = plain_demo
    tmux.wait_for("Ask agentcli…")  # the prompt is open
    tmux.type("show me the project")
    tmux.keys("Enter")
    tmux.wait_for("print(text.splitlines()[0])")  # the streamed Markdown's code block
    tmux.wait_for("● Read(README.md)\n  ⎿  Read 3 lines")  # one line per call, one for its result
    tmux.wait_for("✓ lint")  # the command's output, live while it runs
    (project / SEEN).touch()
    tmux.wait_for("Allow Write(agentcli-demo.md)?", "1. Yes, allow once")
    tmux.type("1")
    tmux.wait_for("4 requests · ↑", "⎿  Wrote 4 lines", "Done. In short:")  # the end-of-turn line, the last output
    tmux.wait_gone("Working…")  # the live region is gone once the turn is over
    assert (project / "agentcli-demo.md").exists()
    tmux.wait_for("Ask agentcli…")
    tmux.type("/export chat.md")
    tmux.keys("Enter")
    tmux.wait_for("Exported")
    tmux.keys("C-d")
    tmux.wait_for("AGENTCLI-EXITED-0", "Resume this session with:", "agentcli --resume ")
    assert "## You\n\nshow me the project" in (project / "chat.md").read_text()


def test_plain_without_credentials_says_what_to_do(
    project: Path, run_cli_env: Callable[..., dict[str, str]], run_cli: Callable[..., subprocess.CompletedProcess[str]]
):
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "agentcli", "--plain"],
            stdin=follower,
            capture_output=True,
            text=True,
            cwd=project,
            env=run_cli_env(),
            timeout=DEADLINE_S,
        )
    finally:
        os.close(follower)
        os.close(leader)
    headless = run_cli("-p", "hello")
    assert done.returncode == headless.returncode == 2
    assert "No credentials" in done.stderr and done.stderr == headless.stderr
