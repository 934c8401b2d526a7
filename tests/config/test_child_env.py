"""CLAUDE_CODE_SUBPROCESS_ENV_SCRUB: the programs agentcli starts (Bash commands, `!` commands, command hooks) do
not see the credentials agentcli uses; without it they do, as in Claude Code."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcli.config.child_env import CREDENTIALS, SCRUB_SETTING, child_environment
from agentcli.hooks.config import ConfiguredHook
from agentcli.hooks.runner import HookRunner
from agentcli.tools.base import ToolCall, ToolEnv, parse_input
from agentcli.tools.bash import BashTool
from agentcli.ui.shell_command import run_shell_command
from tests.ui.test_shell_command import RecordingFace

PROBE = '[ -n "$ANTHROPIC_API_KEY" ] && echo key-present || echo key-absent; echo "token=${GITHUB_TOKEN:-}"'


@pytest.fixture(autouse=True)
def credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-credential")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-test-secret")
    monkeypatch.setenv("GITHUB_TOKEN", "gh-token")
    monkeypatch.delenv(SCRUB_SETTING, raising=False)


def test_the_scrub_removes_credentials_and_keeps_everything_else(monkeypatch: pytest.MonkeyPatch):
    assert child_environment()["ANTHROPIC_API_KEY"] == "sk-ant-test-credential"  # off by default, as in Claude Code
    scrubbed = child_environment({SCRUB_SETTING: "1", "FROM_SETTINGS": "x"})
    assert not set(CREDENTIALS) & set(scrubbed)
    assert scrubbed["GITHUB_TOKEN"] == "gh-token" and scrubbed["FROM_SETTINGS"] == "x" and "PATH" in scrubbed
    monkeypatch.setenv(SCRUB_SETTING, "true")
    assert "AWS_SECRET_ACCESS_KEY" not in child_environment()
    monkeypatch.setenv(SCRUB_SETTING, "0")
    assert "AWS_SECRET_ACCESS_KEY" in child_environment()


async def bash(project: Path, settings_env: dict[str, str]) -> str:
    tool = BashTool()
    env = ToolEnv(project_dir=project, env=settings_env)
    output = await tool.call(parse_input(tool, {"command": PROBE}), ToolCall(env, "toolu_env", lambda _text: None))
    assert isinstance(output.content, str)
    return output.content


async def test_a_bash_command_sees_the_key_only_without_the_scrub(project: Path):
    assert await bash(project, {}) == "key-present\ntoken=gh-token"
    assert await bash(project, {SCRUB_SETTING: "1"}) == "key-absent\ntoken=gh-token"


async def test_a_bang_command_is_scrubbed_too(project: Path):
    face = RecordingFace()
    context = await run_shell_command(PROBE, project, face, env={SCRUB_SETTING: "1"})
    assert "key-absent" in context and "token=gh-token" in context
    context = await run_shell_command(PROBE, project, RecordingFace())
    assert "key-present" in context


async def test_a_command_hook_is_scrubbed_too(project: Path):
    hook = ConfiguredHook("Stop", None, f"({PROBE}) > {project / 'seen.txt'}", 60.0, "test")
    for settings_env, expected in (({}, "key-present"), ({SCRUB_SETTING: "yes"}, "key-absent")):
        runner = HookRunner([hook], project_dir=project, session_id="s", transcript_path="/t", env=settings_env)
        await runner.run("Stop", {"stop_hook_active": False})
        assert (project / "seen.txt").read_text().splitlines() == [expected, "token=gh-token"]
