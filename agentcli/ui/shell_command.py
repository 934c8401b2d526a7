"""``!cmd`` at the prompt: run a shell command in the project and show its output like a Bash tool call.

Every interactive face shares this: the command runs in the project folder (inside the session's sandbox when it
is on, with the network: the user typed it), its output is shown live through the face's tool block, and what it
printed is kept for the next prompt, so the model sees what the user saw (as Claude Code does). Cancelling the
call stops the command and everything it started.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import signal
import time
import uuid
from pathlib import Path
from typing import Any

from agentcli.config.child_env import child_environment
from agentcli.ui.reader import INTERRUPTED, MessageReader

MAX_CONTEXT_CHARS = 30_000
"""How much of a command's output the model is told (the end of it: that is where results and errors are)."""
READ_CHUNK = 4096
LIVE_TAIL_CHARS = 4000
"""How much of the output so far a running block is given to show."""
SHELL = "/bin/sh"


def context_block(command: str, output: str, exit_code: int) -> str:
    """What the model is told about a command the user ran themselves."""
    if len(output) > MAX_CONTEXT_CHARS:
        output = "[…output truncated…]\n" + output[-MAX_CONTEXT_CHARS:]
    return (
        f"<bash-input>{command}</bash-input>\n<bash-stdout>{output}</bash-stdout>"
        f"\n<bash-exit-code>{exit_code}</bash-exit-code>"
    )


def exit_note(code: int) -> str:
    """How a failed command ended, in the words the Bash tool uses."""
    return f"Exit code {code}" if code > 0 else f"Killed by signal {-code}"


def _noted(output: str, note: str) -> str:
    """The output with a last line that says how the command ended."""
    return "\n".join(part for part in (output.rstrip("\n"), note) if part)


class NoSession(Exception):
    """A ``!`` command before the session (and so its sandbox) exists: it must not run unconfined meanwhile."""


def session_shell(engine: Any) -> tuple[Any, dict[str, str]]:
    """The sandbox and the settings' environment a ``!`` command gets in ``engine``'s session (the model's Bash
    commands get the same). Raises :class:`NoSession` when there is no session yet."""
    if engine is None:
        raise NoSession("the session has not started yet; run the command again once it has")
    tool_env = engine.config.tool_env
    return tool_env.sandbox, tool_env.env


def with_shell_input(contexts: list[str], prompt: str) -> str:
    """The prompt to send: the commands the user ran since the last one come first, then what they typed."""
    return "\n".join([*contexts, prompt])


async def run_shell_command(
    command: str, cwd: Path, reader: MessageReader, sandbox: Any = None, env: dict[str, str] | None = None
) -> str:
    """Run ``command`` with live output in a Bash block of ``reader``'s face; returns the context block for the
    model. ``env``: the settings' environment, as Bash commands get it. Cancelled, it kills the command's process
    group, says so in the block and re-raises."""
    block = reader.new_tool("Bash", f"shell_{uuid.uuid4().hex[:12]}")
    block.show_output()
    block.start({"command": command})
    confining, notes = _confining(sandbox)
    argv = [SHELL, "-c", command]
    if confining is not None:  # with the network: the user typed the command
        argv = confining.wrap(argv, cwd, network=True)
    chunks: list[str] = []
    try:
        code = await _run(argv, cwd, env, block, chunks)
    except asyncio.CancelledError:
        block.set_result(
            {"type": "tool_result", "content": _noted("".join(chunks), INTERRUPTED), "is_error": True}, None
        )
        raise
    finally:
        if confining is not None:  # the protected paths' placeholders go once no sandboxed command runs
            await asyncio.shield(asyncio.to_thread(confining.tidy))
    output = "".join(chunks)
    ending = [exit_note(code)] if code else []
    shown = _noted(output, "\n".join(ending + notes)) if ending or notes else output
    block.set_result(
        {"type": "tool_result", "content": shown or "(No output)", "is_error": code != 0},
        {"stdout": output, "exitCode": code},
    )
    return context_block(command, output, code)


def _confining(sandbox: Any) -> tuple[Any, list[str]]:
    """The sandbox a ``!`` command runs in (None: the settings turn it off, or bwrap cannot start here) and what to
    tell the user about it: running unconfined for want of bwrap is said once per session, as for Bash."""
    if sandbox is None or not sandbox.config.enabled:
        return None, []
    if sandbox.active:
        return sandbox, []
    if sandbox.reported:
        return None, []
    sandbox.reported = True
    return None, [f"Note: ran without the sandbox: {sandbox.problem}."]


async def _run(argv: list[str], cwd: Path, env: dict[str, str] | None, block: Any, chunks: list[str]) -> int:
    """Run ``argv`` in a process group of its own, showing the output so far in ``block`` and collecting it in
    ``chunks``; its exit code. Cancelled, the whole group is killed."""
    started = time.monotonic()
    process = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env=child_environment(env),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        stdin=asyncio.subprocess.DEVNULL,
        start_new_session=True,
    )
    # Incremental: a character split between two reads is decoded whole, not as two replacement marks.
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    tail = ""
    try:
        assert process.stdout is not None
        while data := await process.stdout.read(READ_CHUNK):
            text = decoder.decode(data)
            chunks.append(text)
            tail = (tail + text)[-LIVE_TAIL_CHARS:]
            block.progress(time.monotonic() - started, tail)
        chunks.append(decoder.decode(b"", final=True))
        return await process.wait()
    except asyncio.CancelledError:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
        raise
