"""Bash: run a shell command in the project, keeping the working directory from one call to the next."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from pydantic import Field

from agentcli.config.child_env import child_environment
from agentcli.tools.base import Tool, ToolCall, ToolFailure, ToolInput, ToolOutput
from agentcli.tools.commands import changes_directory
from agentcli.tools.gitlinks import mark, planted
from agentcli.tools.output import spill_path
from agentcli.tools.process import run_shell
from agentcli.tools.read_only import is_read_only
from agentcli.tools.sandbox import Sandbox
from agentcli.tools.sandbox_blocks import blocked_note, planted_note
from agentcli.tools.shell import ParsedCommand, parse_command

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
MAX_OUTPUT_CHARS = 30_000


class BashInput(ToolInput):
    command: str = Field(description="The command to execute")
    timeout: int | None = Field(
        default=None,
        description=f"Optional timeout in milliseconds (max {MAX_TIMEOUT_MS}; default {DEFAULT_TIMEOUT_MS})",
    )
    description: str | None = Field(
        default=None, description="Clear, concise description of what this command does in 5-10 words"
    )
    run_in_background: bool | None = Field(
        default=None,
        description="Set to true to run this command in the background; read its output later with BashOutput",
    )
    dangerouslyDisableSandbox: bool | None = Field(
        default=None,
        description="Run outside the sandbox (network, writes outside the project). Needs the user's approval; use "
        "only after a command failed because of the sandbox.",
    )


@functools.lru_cache(maxsize=256)
def parsed(command: str) -> ParsedCommand:
    return parse_command(command)


class BashTool(Tool):
    name = "Bash"
    description = (
        "Executes a bash command and returns its output (stdout and stderr, interleaved).\n"
        "- Runs in the project folder; the working directory persists between calls (a `cd` carries over), but it "
        "is reset to the project folder if it ends up outside it.\n"
        f"- Times out after {DEFAULT_TIMEOUT_MS // 1000} s by default; set timeout (milliseconds, at most "
        f"{MAX_TIMEOUT_MS}) for longer work. The whole process tree is stopped on timeout or interrupt.\n"
        "- For servers, watchers and other long-running commands set run_in_background: the call returns at once "
        "with a shell id; read new output with BashOutput and stop it with KillShell (it is stopped when the "
        "session ends). Do not use '&' for this.\n"
        f"- Output longer than {MAX_OUTPUT_CHARS} characters has its middle cut out.\n"
        "- Commands get no input: avoid interactive programs (use flags such as --yes, -m, --no-edit).\n"
        "- A non-zero exit status is reported with the output.\n"
        "- Prefer the Read, Grep, Glob, Edit and Write tools to cat, grep, find, sed and echo redirection; quote "
        "paths that contain spaces; chain dependent commands with &&."
    )
    input_model = BashInput

    def is_read_only(self, tool_input: Any) -> bool:
        return is_read_only(parsed(tool_input.command))

    def is_concurrency_safe(self, tool_input: Any) -> bool:
        command = parsed(tool_input.command)
        return is_read_only(command) and not changes_directory(command) and not tool_input.run_in_background

    async def call(self, tool_input: Any, call: ToolCall) -> ToolOutput:
        if not tool_input.command.strip():
            raise ToolFailure("The command is empty.")
        env = call.env
        project = env.project_dir
        notes: list[str] = []
        cwd = env.state.shell_cwd or project
        if not cwd.is_dir():
            notes.append(f"The working directory {cwd} no longer exists; the command ran in {project}.")
            cwd = project
        if tool_input.run_in_background:
            return await _start_in_background(tool_input, call, cwd, notes)
        timeout_ms = min(max(tool_input.timeout or DEFAULT_TIMEOUT_MS, 1), MAX_TIMEOUT_MS)
        spill = spill_path(env.scratch_dir, call.tool_use_id, ".log") if env.scratch_dir is not None else None
        sandbox = _sandbox_for(env.sandbox, tool_input, notes)
        index = mark(str(sandbox.project_dir)) if sandbox is not None else None
        try:
            result = await run_shell(
                tool_input.command,
                cwd=cwd,
                env=_environment(env.env),
                timeout_s=timeout_ms / 1000,
                limit=MAX_OUTPUT_CHARS,
                spill_path=spill,
                report=call.report,
                sandbox=sandbox,
                network=sandbox is not None and call.tool_use_id in sandbox.network_approved,
            )
        except OSError as exc:
            raise ToolFailure(f"Could not start the shell: {exc.strerror or exc}") from None
        if sandbox is not None and (note := blocked_note(sandbox, result.output, cwd)) is not None:
            notes.append(note)
        if sandbox is not None and index is not None and (repositories := planted(str(sandbox.project_dir), index)):
            notes.append(planted_note(repositories))
        env.state.shell_cwd = _next_cwd(result.final_cwd, cwd, project, notes)
        text = result.output.rstrip()
        if result.full_output_path is not None:
            notes.append(f"The full output was saved to {result.full_output_path}.")
        if result.timed_out:
            notes.append(f"Command timed out after {timeout_ms / 1000:g} s and was stopped.")
        elif result.exit_code:
            notes.append(
                f"Exit code {result.exit_code}" if result.exit_code > 0 else f"Killed by signal {-result.exit_code}"
            )
        content = "\n".join([text, *notes]).strip() if notes else text
        structured = {
            "stdout": result.stdout.rstrip("\n"),  # as Claude Code gives it to hooks and SDK readers
            "stderr": result.stderr.rstrip("\n"),
            "exitCode": result.exit_code,
            "interrupted": result.timed_out,
            "timedOut": result.timed_out,
            "cwd": str(env.state.shell_cwd),
            "stdoutLines": result.stdout_lines,
        }
        return ToolOutput(content, is_error=result.timed_out or result.exit_code != 0, structured=structured)


async def _start_in_background(tool_input: Any, call: ToolCall, cwd: Path, notes: list[str]) -> ToolOutput:
    shells = call.env.state.shells
    if shells is None:
        raise ToolFailure(
            "Background commands are not available in this session; run the command without run_in_background."
        )
    sandbox = _sandbox_for(call.env.sandbox, tool_input, notes)
    network = sandbox is not None and call.tool_use_id in sandbox.network_approved
    try:
        shell = await shells.launch(
            tool_input.command,
            cwd=cwd,
            env=_environment(call.env.env),
            description=tool_input.description,
            sandbox=sandbox,
            network=network,
        )
    except OSError as exc:
        raise ToolFailure(f"Could not start the shell: {exc.strerror or exc}") from None
    text = "\n".join([f"Command running in background with ID: {shell.id}", *notes])
    return ToolOutput(text, structured={"backgroundTaskId": shell.id, "stdout": "", "stderr": "", "interrupted": False})


def _sandbox_for(sandbox: Sandbox | None, tool_input: Any, notes: list[str]) -> Sandbox | None:
    """The sandbox this command runs in: none when it is off, unavailable, or the call was approved without it."""
    if sandbox is None or not sandbox.config.enabled or tool_input.dangerouslyDisableSandbox:
        return None
    if not sandbox.active:
        if not sandbox.reported:
            sandbox.reported = True
            notes.append(f"Note: ran without the sandbox: {sandbox.problem}.")
        return None
    return sandbox


def _environment(extra: dict[str, str]) -> dict[str, str]:
    env = child_environment(extra)
    env.update({"AGENTCLI": "1", "PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"})
    return env


def _next_cwd(final: Path | None, cwd: Path, project: Path, notes: list[str]) -> Path:
    """Where the next command starts: where this one ended, if that is still inside the project."""
    if final is None:
        return cwd
    root = project.resolve()
    if final.resolve() == root or final.resolve().is_relative_to(root):
        return final if final.resolve() != root else project
    notes.append(f"Shell cwd was reset to {project}")
    return project
