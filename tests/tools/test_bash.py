"""Bash: output, exit codes, the persistent working directory, timeouts, caps, progress, and no survivors."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from agentcli.tools import process
from agentcli.tools.base import ToolCall, parse_input
from agentcli.tools.bash import BashTool
from agentcli.tools.process import group_alive
from tests.processes import running_with, sleep_seconds
from tests.tools.conftest import tool_named
from tests.waiting import DEADLINE_S, until


async def test_runs_in_the_project_and_interleaves_stdout_and_stderr(env, project: Path, monkeypatch):
    # Two pipes: the order between them is the order of arrival. Each write waits until the one before it has been
    # read (every piece of output is reported at once here), so the order is the command's, however busy the machine.
    monkeypatch.setattr(process, "PROGRESS_INTERVAL_S", 0.0)
    gate = "while [ ! -e {0} ]; do sleep 0.01; done"
    command = f"pwd; echo out; {gate.format('read-out')}; echo err >&2; {gate.format('read-err')}; echo out2"

    def seen(output: str) -> None:
        for text, name in (("out\n", "read-out"), ("err\n", "read-err")):
            if text in output:
                (project / name).touch()

    tool = BashTool()
    parsed = parse_input(tool, {"command": command})
    output = await tool.call(parsed, ToolCall(env, "toolu_test", seen))
    assert not output.is_error and isinstance(output.content, str)
    assert output.content.splitlines() == [str(project.resolve()), "out", "err", "out2"]
    assert output.structured is not None
    assert output.structured["stdout"] == f"{project.resolve()}\nout\nout2"  # no trailing newline, as in Claude Code
    assert output.structured["stderr"] == "err"
    assert output.structured["exitCode"] == 0


async def test_non_zero_exit_is_a_result_with_the_code(run_tool):
    outcome = await run_tool("Bash", {"command": "echo partial; exit 3"})
    assert outcome.failure is None and outcome.output.is_error
    assert outcome.text == "partial\nExit code 3"
    assert outcome.structured["exitCode"] == 3


async def test_the_working_directory_persists_and_stays_in_the_project(run_tool, env, project: Path):
    (project / "src" / "pkg").mkdir()
    await run_tool("Bash", {"command": "cd src"})
    assert (await run_tool("Bash", {"command": "pwd"})).text == str((project / "src").resolve())
    await run_tool("Bash", {"command": "cd pkg && export X=1"})
    assert (await run_tool("Bash", {"command": "pwd"})).text == str((project / "src" / "pkg").resolve())
    left = await run_tool("Bash", {"command": "cd /"})
    assert f"Shell cwd was reset to {project}" in left.text
    assert (await run_tool("Bash", {"command": "pwd"})).text == str(project.resolve())


async def test_a_vanished_working_directory_falls_back_to_the_project(run_tool, env, project: Path):
    (project / "tmpdir").mkdir()
    await run_tool("Bash", {"command": "cd tmpdir"})
    (project / "tmpdir").rmdir()
    outcome = await run_tool("Bash", {"command": "pwd"})
    assert "no longer exists" in outcome.text and str(project.resolve()) in outcome.text


async def test_timeout_stops_the_whole_process_group(run_tool):
    marker = sleep_seconds(3600)  # far longer than any test: only the timeout ends these
    outcome = await run_tool("Bash", {"command": f"sleep {marker} & sleep {marker}; echo never", "timeout": 3000})
    assert outcome.output.is_error and outcome.structured["timedOut"] is True
    assert "Command timed out after 3 s" in outcome.text and "never" not in outcome.text
    assert running_with(marker) == []  # the background one too


async def test_background_children_do_not_outlive_the_command(run_tool, project: Path):
    command = "echo $$ > pgid; (sleep 3600 &); sleep 3600 > /dev/null 2>&1 & echo ok"
    outcome = await asyncio.wait_for(run_tool("Bash", {"command": command}), DEADLINE_S)  # did not wait for them
    assert outcome.text == "ok"
    assert not group_alive(int((project / "pgid").read_text()))


async def test_cancellation_kills_the_group_before_returning(env, project: Path):
    tool = BashTool()
    parsed = parse_input(tool, {"command": "echo $$ > pgid; sleep 30; sleep 30"})
    task = asyncio.create_task(tool.call(parsed, ToolCall(env, "toolu_cancel")))
    pgid_file = project / "pgid"
    await until(lambda: pgid_file.exists() and pgid_file.read_text().strip(), "the command to start", task=task)
    pgid = int(pgid_file.read_text())
    assert group_alive(pgid)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not group_alive(pgid)


async def test_long_output_loses_its_middle_and_says_so(run_tool, tmp_path: Path):
    outcome = await run_tool("Bash", {"command": "seq 1 100000"})
    text = outcome.text
    assert text.startswith("1\n2\n3\n") and "100000" in text
    assert "characters cut from the middle of the output" in text
    assert len(text) < 31_000
    saved = next(line for line in text.splitlines() if line.startswith("The full output was saved to "))
    path = Path(saved.removeprefix("The full output was saved to ").rstrip("."))
    assert path.is_relative_to(tmp_path / "scratch")
    assert path.read_text().splitlines() == [str(n) for n in range(1, 100001)]


async def test_output_is_reported_as_progress_while_it_runs(run_tool):
    outcome = await run_tool("Bash", {"command": "echo first; sleep 0.3; echo second"})
    assert outcome.progress and outcome.progress[0].startswith("first")
    assert outcome.progress[-1].endswith("second\n")


async def test_settings_env_reaches_the_command(run_tool, env):
    env.env["GREETING"] = "hello from settings"
    assert (await run_tool("Bash", {"command": "echo $GREETING; echo $AGENTCLI"})).text == "hello from settings\n1"


async def test_positional_parameters_and_syntax_errors_are_the_users_own(run_tool):
    assert (await run_tool("Bash", {"command": 'echo "[$1][$#]"'})).text == "[][0]"
    broken = await run_tool("Bash", {"command": "echo 'unterminated"})
    assert broken.output.is_error and "Exit code" in broken.text


async def test_empty_command_is_refused(run_tool):
    assert (await run_tool("Bash", {"command": "  "})).failure == "The command is empty."


def test_concurrency_safety_follows_the_read_only_list():
    tool = tool_named("Bash")

    def parsed(command: str):
        return parse_input(tool, {"command": command})

    assert tool.is_concurrency_safe(parsed("git status && ls -la | head"))
    assert tool.is_concurrency_safe(parsed("sleep 1"))
    assert not tool.is_concurrency_safe(parsed("cd src && ls"))  # changes the shared working directory
    assert tool.is_read_only(parsed("cd src && ls"))
    assert not tool.is_concurrency_safe(parsed("npm test"))
    assert not tool.is_concurrency_safe(parsed("ls > listing.txt"))


def test_no_test_leaves_a_sleep_behind(tmp_path_factory: pytest.TempPathFactory):
    """A guard for this module: everything above cleaned up after itself.

    Only this test process's own commands count (their HOME is in its temp folder): tests running beside it, in
    other workers or other checkouts, may have their own ``sleep 30`` going."""
    mine = os.getpid()
    home = f"HOME={tmp_path_factory.getbasetemp()}/".encode()
    leftovers = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes().split(b"\0")
            stat = Path(f"/proc/{name}/stat").read_text()
            environ = Path(f"/proc/{name}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        state = stat[stat.rfind(")") + 2 :].split()[0]
        ours = any(variable.startswith(home) for variable in environ)
        if cmdline[:2] == [b"sleep", b"30"] and state != "Z" and ours:
            leftovers.append(name)
    assert leftovers == [], f"processes left running by tests in {mine}: {leftovers}"


async def test_the_line_count_includes_the_lines_cut_from_the_middle(run_tool):
    """The one-line summary counts every line the command printed, not the lines left after the cut."""
    from agentcli.ui.summaries import result_line

    outcome = await run_tool("Bash", {"command": "seq 1 40000"})
    assert "characters cut from the middle" in outcome.structured["stdout"]
    assert outcome.structured["stdoutLines"] == 40000
    block = {"type": "tool_result", "content": outcome.text}
    assert result_line("Bash", block, outcome.structured) == "40000 lines of output"
