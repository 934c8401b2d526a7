"""``!cmd``, the part every face shares: real commands in the project folder, shown through a tool handle, told
to the model as a context block, and stopped with everything they started."""

from __future__ import annotations

import asyncio
import os
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from agentcli.tools.sandbox import Sandbox, SandboxConfig
from agentcli.ui.reader import MessageReader
from agentcli.ui.shell_command import MAX_CONTEXT_CHARS, context_block, run_shell_command, with_shell_input
from tests.waiting import until


class RecordedTool:
    """A face's tool block that remembers what it was told."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.shows_output = False
        self.input: dict[str, Any] | None = None
        self.outputs: list[str] = []
        self.result: dict[str, Any] | None = None
        self.structured: dict[str, Any] | None = None

    def append_input_json(self, fragment: str) -> None:
        raise AssertionError("a command the user typed has no streamed input")

    def input_complete(self, tool_input: dict[str, Any] | None = None) -> None:
        raise AssertionError("a command the user typed has no streamed input")

    def start(self, tool_input: dict[str, Any] | None = None) -> None:
        self.input = tool_input

    def progress(self, elapsed: float, output: str) -> None:
        self.outputs.append(output)

    def finished(self, is_error: bool, duration_ms: int | None = None) -> None:
        raise AssertionError("the result says how it ended")

    def set_result(self, block: dict[str, Any], structured: dict[str, Any] | None) -> None:
        self.result, self.structured = block, structured

    def show_output(self) -> None:
        self.shows_output = True


class RecordingFace(MessageReader):
    def __init__(self) -> None:
        super().__init__()
        self.made: list[RecordedTool] = []

    def new_tool(self, name: str, tool_use_id: str) -> RecordedTool:
        assert tool_use_id.startswith("shell_")
        self.made.append(RecordedTool(name))
        return self.made[-1]


async def test_output_and_exit_code_are_shown_and_kept_for_the_model(project: Path):
    face = RecordingFace()
    command = "pwd; echo out; echo err >&2; exit 3"
    context = await run_shell_command(command, project, face)
    [tool] = face.made
    assert tool.name == "Bash" and tool.input == {"command": command} and tool.shows_output
    output = f"{project}\nout\nerr\n"
    assert tool.outputs[-1] == output  # the live output, stderr beside stdout
    assert tool.result == {"type": "tool_result", "content": f"{output}Exit code 3", "is_error": True}
    assert tool.structured == {"stdout": output, "exitCode": 3}
    assert context == (
        f"<bash-input>{command}</bash-input>\n<bash-stdout>{output}</bash-stdout>\n<bash-exit-code>3</bash-exit-code>"
    )
    assert with_shell_input([context, "second"], "what failed?") == f"{context}\nsecond\nwhat failed?"


async def test_a_silent_command_says_so(project: Path):
    face = RecordingFace()
    context = await run_shell_command("true", project, face)
    assert face.made[0].result == {"type": "tool_result", "content": "(No output)", "is_error": False}
    assert context.endswith("<bash-stdout></bash-stdout>\n<bash-exit-code>0</bash-exit-code>")


async def test_the_model_is_told_the_end_of_a_long_output(project: Path):
    face = RecordingFace()
    command = f"{sys.executable} -c \"print('a' * {2 * MAX_CONTEXT_CHARS}); print('the end')\""
    context = await run_shell_command(command, project, face)
    stdout = context[context.index("<bash-stdout>") + len("<bash-stdout>") : context.index("</bash-stdout>")]
    assert stdout == "[…output truncated…]\n" + ("a" * MAX_CONTEXT_CHARS + "\nthe end\n")[-MAX_CONTEXT_CHARS:]
    assert len(face.made[0].result["content"]) > 2 * MAX_CONTEXT_CHARS  # the face gets it all
    assert context_block("ls", "short\n", 0) == (
        "<bash-input>ls</bash-input>\n<bash-stdout>short\n</bash-stdout>\n<bash-exit-code>0</bash-exit-code>"
    )


async def test_bytes_are_decoded_whole_across_reads_and_bad_ones_replaced(project: Path):
    face = RecordingFace()
    # 3-byte characters over many 4 KiB reads: some reads end inside a character.
    script = "import sys; sys.stdout.buffer.write('€'.encode() * 5000 + b'\\xffok')"
    await run_shell_command(f'{sys.executable} -c "{script}"', project, face)
    assert face.made[0].structured == {"stdout": "€" * 5000 + "\ufffdok", "exitCode": 0}


def waiting_script(project: Path) -> str:
    """A shell script in the project that says "started" and then waits until it is killed; its unique name is on
    its command line. (Shell, not this interpreter: inside the sandbox the private /tmp hides a checkout there.)"""
    script = f"bang-child-{uuid.uuid4().hex}.sh"
    (project / script).write_text("printf 'started\\n'\nwhile :; do sleep 1; done\n")
    return script


def processes_naming(marker: str) -> list[int]:
    """The processes whose command line names ``marker`` (seen from here, whatever namespace they run in)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in cmdline:
                found.append(int(entry))
    return found


@pytest.mark.parametrize("sandboxed", [False, True], ids=["direct", "sandbox"])
async def test_interrupting_kills_the_command_and_what_it_started(project: Path, sandboxed: bool):
    """The sandbox gives commands their own /tmp and pid numbers, so the processes are found from outside by the
    name of a script in the project folder that each has on its command line."""
    sandbox = Sandbox(SandboxConfig(), project) if sandboxed else None
    assert sandbox is None or sandbox.active
    script = waiting_script(project)
    command = f"sh ./{script} & sh ./{script}; wait"
    face = RecordingFace()
    task = asyncio.ensure_future(run_shell_command(command, project, face, sandbox))
    await until(lambda: face.made and face.made[0].outputs[-1:] == ["started\n" * 2], "both to run", task=task)
    assert len(processes_naming(script)) >= 3  # the shell and the two it started
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await until(lambda: not processes_naming(script), "every process of the command to end")
    assert face.made[0].result == {
        "type": "tool_result",
        "content": "started\nstarted\nInterrupted by user",
        "is_error": True,
    }
