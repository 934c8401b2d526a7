"""Fixtures for the tool tests: a session's tool environment in the temp project, and a way to call one tool."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentcli.tools.base import Tool, ToolCall, ToolEnv, ToolFailure, ToolOutput, parse_input
from agentcli.tools.registry import builtin_tools


@pytest.fixture
def env(project: Path, tmp_path: Path) -> ToolEnv:
    return ToolEnv(project_dir=project, scratch_dir=tmp_path / "scratch")


class Outcome:
    """What one call produced: the output, or the failure message, plus the progress it reported."""

    def __init__(self, output: ToolOutput | None, failure: str | None, progress: list[str]) -> None:
        self.output = output
        self.failure = failure
        self.progress = progress

    @property
    def text(self) -> str:
        if self.failure is not None:
            return self.failure
        assert self.output is not None
        assert isinstance(self.output.content, str)
        return self.output.content

    @property
    def ok(self) -> bool:
        return self.failure is None and self.output is not None and not self.output.is_error

    @property
    def structured(self) -> dict[str, Any]:
        assert self.output is not None and self.output.structured is not None
        return self.output.structured


def tool_named(name: str) -> Tool:
    return next(tool for tool in builtin_tools() if tool.name == name)


@pytest.fixture
def run_tool(env: ToolEnv) -> Callable[..., Any]:
    """``await run_tool("Edit", {...})``: validate the input as the executor does and call the tool."""

    async def run(
        name: str, tool_input: dict[str, Any], *, tool_env: ToolEnv | None = None, tool_use_id: str = "toolu_test"
    ) -> Outcome:
        tool = tool_named(name)
        parsed = parse_input(tool, tool_input)
        assert not isinstance(parsed, str), parsed
        progress: list[str] = []
        call = ToolCall(tool_env or env, tool_use_id, progress.append)
        try:
            output = await tool.call(parsed, call)
        except ToolFailure as exc:
            return Outcome(None, str(exc), progress)
        return Outcome(output, None, progress)

    return run


@pytest.fixture
def places(project: Path, tmp_path: Path) -> dict[str, Path]:
    """A project with secrets, a git folder, and symlinks leading out of it, into the secrets and into .git/hooks."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("s3cret")
    (project / "secrets").mkdir()
    (project / "secrets" / "key.pem").write_text("KEY")
    (project / ".git" / "hooks").mkdir(parents=True)
    (project / ".git" / "config").write_text("[core]\n")
    (project / "link_out").symlink_to(outside, target_is_directory=True)
    (project / "link_secrets").symlink_to(project / "secrets", target_is_directory=True)
    (project / "hooks_link").symlink_to(project / ".git" / "hooks", target_is_directory=True)
    return {"P": project, "OUT": outside}
