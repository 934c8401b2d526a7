"""Hooks inside the sandbox when the settings ask for it (``sandbox.hooks``): the same filesystem, Read-deny and
network rules as Bash commands; without the setting, hooks run as the user's own programs, unconfined."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from tests.conftest import collect
from tests.tools.sandbox_fixtures import gone


def _turns() -> dict:
    return {
        "turns": [
            {"content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "echo hi"}}]},
            {"content": [{"type": "text", "text": "done"}]},
        ]
    }


@pytest.fixture
def closed_port() -> int:
    """A loopback port with a listener: reachable from the host, not from inside a sandbox without network."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    yield server.getsockname()[1]
    server.close()


def _hook_settings(command: str, **sandbox: object) -> str:
    hook = {"type": "command", "command": command}
    return json.dumps({"sandbox": sandbox, "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}})


def _command(outside: Path, port: int) -> str:
    return (
        f"touch {outside} 2>/dev/null; touch hook-was-here; mkdir .agentcli 2>/dev/null; "
        "cat .env > hook-read.txt 2>/dev/null; "
        f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=3)\" "
        "2>/dev/null && touch hook-net; true"
    )


async def test_with_the_setting_hooks_run_inside_the_sandbox(
    fake_api, make_engine, project: Path, tmp_path: Path, closed_port: int
):
    (project / ".env").write_text("TOKEN=hook-secret\n")
    outside = tmp_path / "hook-outside"
    settings = _hook_settings(_command(outside, closed_port), hooks=True)
    engine = make_engine(
        fake_api(_turns()), settings_flag=settings, allowed_tools=["Bash"], disallowed_tools=["Read(./.env)"]
    )
    await collect(engine, "go")
    assert (project / "hook-was-here").exists(), "the hook ran, from the project folder"
    assert not outside.exists(), "nothing outside the project is writable"
    gone(project / ".agentcli")  # a protected folder the hook tried to create
    assert (project / "hook-read.txt").read_text() == "", "files Read deny rules name are hidden"
    assert not (project / "hook-net").exists(), "no network"


async def test_without_the_setting_hooks_run_unconfined(
    fake_api, make_engine, project: Path, tmp_path: Path, closed_port: int
):
    (project / ".env").write_text("TOKEN=hook-secret\n")
    outside = tmp_path / "hook-outside"
    engine = make_engine(
        fake_api(_turns()), settings_flag=_hook_settings(_command(outside, closed_port)), allowed_tools=["Bash"]
    )
    await collect(engine, "go")
    assert outside.exists() and (project / "hook-net").exists() and (project / ".agentcli").is_dir()
    assert (project / "hook-read.txt").read_text() == "TOKEN=hook-secret\n"


async def test_network_setting_covers_hooks_too(fake_api, make_engine, project: Path, closed_port: int):
    settings = _hook_settings(_command(project / "unused", closed_port), hooks=True, network=True)
    engine = make_engine(fake_api(_turns()), settings_flag=settings, allowed_tools=["Bash"])
    await collect(engine, "go")
    assert (project / "hook-net").exists()
