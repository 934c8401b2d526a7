"""``BashOutput`` and ``KillShell`` (Claude Code's names and fields): look at and stop background shells."""

from __future__ import annotations

import re
from typing import Any

from pydantic import Field

from agentcli.tools.base import Tool, ToolCall, ToolFailure, ToolInput, ToolOutput


def _shell(call: ToolCall, shell_id: str) -> Any:
    shells = call.env.state.shells
    shell = shells.shells.get(shell_id) if shells is not None else None
    if shell is None:
        known = ", ".join(shells.shells) if shells is not None and shells.shells else "none"
        raise ToolFailure(f"No shell found with ID: {shell_id} (background shells: {known})")
    return shell


class BashOutputInput(ToolInput):
    bash_id: str = Field(description="The ID of the background shell to read output from")
    filter: str | None = Field(default=None, description="Optional regular expression: show only matching lines")


class BashOutputTool(Tool):
    name = "BashOutput"
    description = (
        "Reads the output a background shell (started with Bash run_in_background) printed since the last read, "
        "with its status (running, completed, failed, killed) and exit code. Lines not matching `filter` are "
        "dropped for good."
    )
    input_model = BashOutputInput

    def is_read_only(self, tool_input: Any) -> bool:
        return True

    async def call(self, tool_input: Any, call: ToolCall) -> ToolOutput:
        shell = _shell(call, tool_input.bash_id)
        try:
            pattern = re.compile(tool_input.filter) if tool_input.filter else None
        except re.error as exc:
            raise ToolFailure(f"Invalid filter regular expression: {exc}") from None
        stdout, stderr = shell.take_new("stdout"), shell.take_new("stderr")
        if pattern is not None:
            stdout, stderr = (_matching(text, pattern) for text in (stdout, stderr))
        parts = [f"<status>{shell.status}</status>"]
        if shell.exit_code is not None:
            parts.append(f"<exit_code>{shell.exit_code}</exit_code>")
        parts.append(f"<stdout>\n{stdout.rstrip()}\n</stdout>" if stdout else "<stdout>(no new output)</stdout>")
        if stderr:
            parts.append(f"<stderr>\n{stderr.rstrip()}\n</stderr>")
        structured = {
            "shellId": shell.id,
            "command": shell.command,
            "status": shell.status,
            "exitCode": shell.exit_code,
            "stdout": stdout,
            "stderr": stderr,
        }
        return ToolOutput("\n".join(parts), structured=structured)


def _matching(text: str, pattern: re.Pattern[str]) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if pattern.search(line))


class KillShellInput(ToolInput):
    shell_id: str = Field(description="The ID of the background shell to kill")


class KillShellTool(Tool):
    name = "KillShell"
    description = "Stops a background shell started with Bash run_in_background, with every process it started."
    input_model = KillShellInput

    def is_read_only(self, tool_input: Any) -> bool:
        return True  # it only stops a command this session started (and was allowed to start)

    def is_concurrency_safe(self, tool_input: Any) -> bool:
        return False

    async def call(self, tool_input: Any, call: ToolCall) -> ToolOutput:
        shell = _shell(call, tool_input.shell_id)
        if shell.status != "running":
            raise ToolFailure(f"Shell {shell.id} is not running (status: {shell.status})")
        await call.env.state.shells.kill(shell.id)
        return ToolOutput(
            f"Successfully killed shell: {shell.id} ({shell.command})",
            structured={"shell_id": shell.id, "message": "killed"},
        )
