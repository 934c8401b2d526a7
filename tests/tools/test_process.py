"""How a shell command is set apart from agentcli: its own process group always, its own session (so no terminal)
where agentcli has one."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

from agentcli.tools.process import run_shell

ROOT = Path(__file__).resolve().parents[2]
PROBE = """
import asyncio, os
from pathlib import Path
from agentcli.tools.process import run_shell
command = "if (exec 3<>/dev/tty) 2>/dev/null; then echo TERMINAL; else echo NO-TERMINAL; fi"
result = asyncio.run(run_shell(command, cwd=Path.cwd(), env=dict(os.environ), timeout_s=30, limit=1000))
print("RESULT", result.output.strip())
"""


async def test_without_a_terminal_a_command_leads_its_own_process_group(project: Path):
    command = "cut -d' ' -f5 /proc/$$/stat"
    result = await run_shell(command, cwd=project, env=dict(os.environ), timeout_s=30, limit=1000)
    assert result.exit_code == 0, result.output
    assert int(result.output) != os.getpgrp()


def test_with_a_terminal_a_command_cannot_reach_it(project: Path):
    """Under a pseudo-terminal (agentcli's controlling terminal), the command gets a session of its own."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    pid, master = pty.fork()
    if pid == 0:  # the child: a session leader whose controlling terminal is the pty
        os.chdir(project)
        os.execve(sys.executable, [sys.executable, "-c", PROBE], env)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    output = b"".join(chunks).decode(errors="replace")
    assert os.waitstatus_to_exitcode(status) == 0, output
    assert "RESULT NO-TERMINAL" in output
    plain = subprocess.run(
        [sys.executable, "-c", PROBE.replace("/dev/tty", "/dev/null")], cwd=project, env=env, capture_output=True
    )
    assert "RESULT TERMINAL" in plain.stdout.decode(), "the probe itself can tell the two apart"
