"""``!cmd`` in the prompt: run a shell command in the project and show its output like a Bash tool call.

The output is also kept for the next prompt, so the model sees what the user saw (as Claude Code does).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
import uuid
from pathlib import Path
from typing import Any

from agentcli.ui.tui.widgets.conversation import Conversation

MAX_CONTEXT_CHARS = 30_000
READ_CHUNK = 4096


def context_block(command: str, output: str, exit_code: int) -> str:
    """What the model is told about a command the user ran themselves."""
    if len(output) > MAX_CONTEXT_CHARS:
        output = "[…output truncated…]\n" + output[-MAX_CONTEXT_CHARS:]
    return (
        f"<bash-input>{command}</bash-input>\n<bash-stdout>{output}</bash-stdout>"
        f"\n<bash-exit-code>{exit_code}</bash-exit-code>"
    )


async def run_shell_command(command: str, cwd: Path, conversation: Conversation, sandbox: Any = None) -> str:
    """Run ``command`` with live output in ``conversation`` (inside the session's ``sandbox``, with the network:
    the user typed it); returns the context block for the model."""
    tool_id = f"shell_{uuid.uuid4().hex[:12]}"
    block = conversation.new_tool("Bash", tool_id)
    block.shows_output = True
    block.start({"command": command})
    started = time.monotonic()
    argv = ["/bin/sh", "-c", command]
    if sandbox is not None and sandbox.active:
        argv = sandbox.wrap(argv, cwd, network=True)
    process = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        stdin=asyncio.subprocess.DEVNULL,
        start_new_session=True,
    )
    chunks: list[str] = []
    try:
        assert process.stdout is not None
        while True:
            data = await process.stdout.read(READ_CHUNK)
            if not data:
                break
            chunks.append(data.decode("utf-8", errors="replace"))
            block.progress(time.monotonic() - started, "".join(chunks)[-4000:])
        code = await process.wait()
    except asyncio.CancelledError:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
        output = "".join(chunks)
        block.set_result({"type": "tool_result", "content": output + "\nInterrupted by user", "is_error": True}, None)
        raise
    output = "".join(chunks)
    block.set_result(
        {"type": "tool_result", "content": output or "(No output)", "is_error": code != 0},
        {"stdout": output, "exitCode": code},
    )
    return context_block(command, output, code)
