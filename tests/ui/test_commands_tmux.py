"""The same slash commands, typed the same way, in both interactive faces: the full-screen interface and --plain,
each as a real process under tmux against the fake API over HTTP."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from agentcli.testing import FakeAnthropicServer
from tests.ui.tmux import agentcli_in_tmux

COMMANDS = [
    ("/status", ("API key", "Base URL")),
    ("/cost", ("Session cost $0.0000",)),
    ("/model", ("Model: claude-",)),
    ("/model claude-haiku-5-5", ("Model set to claude-haiku-5-5",)),
    ("/model", ("Model: claude-haiku-5-5",)),
    ("/help", ("/export [FILE]", "/rewind")),
    ("/stauts", ("Did you mean /status?",)),
    ("!printf 'shell-%s' works", ("shell-works",)),
    ("/clear", ("Started a new session",)),
]
"""Each command (and a ``!`` shell command) and what a person should then see, whichever face they use."""


@pytest.mark.parametrize("face", [(), ("--plain",)], ids=["tui", "plain"])
def test_the_same_slash_commands_in_both_faces(
    face: tuple[str, ...], project: Path, fake_api: Callable[..., FakeAnthropicServer]
):
    """The first command is typed at once (the full-screen interface holds it until the session is up); each
    command's answer appears; /exit ends the process with status 0."""
    server = fake_api({"turns": [], "on_exhausted": "echo"})
    with agentcli_in_tmux(
        project,
        *face,
        height=60,
        scrollback=bool(face),
        ANTHROPIC_BASE_URL=server.base_url,
        ANTHROPIC_API_KEY="test-key",
    ) as tmux:
        tmux.wait_for("Ask agentcli")
        for command, expected in COMMANDS:
            tmux.type(command)
            tmux.keys("Enter")
            tmux.wait_for(*expected)
        tmux.type("/exit")
        tmux.keys("Enter")
        tmux.wait_for("AGENTCLI-EXITED-0")
    assert server.requests == []
