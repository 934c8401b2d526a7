"""agentcli's memory stays flat whatever a command prints: 300 MB in the foreground, `yes` until the timeout, and
300 MB from a background shell nobody reads. The real CLI runs the commands (in the sandbox, as by default); the
test reads its resident memory before them and its peak after them (``VmHWM``) while a command holds it at each
point. A memory assertion, not a timing one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agentcli.tools.spill import MAX_SAVED_CHARS
from tests.waiting import DEADLINE_S, wait_until

MAX_GROWTH_BYTES = 100_000_000
SIZE = 300_000_000


def _bash(tool_id: str, command: str, **extra: Any) -> dict[str, Any]:
    return {"content": [{"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": command, **extra}}]}


def _hold(mark: str) -> str:
    """A command that says it is running and waits until the test has looked."""
    return f"touch {mark}.mark; while [ ! -e {mark}.done ]; do sleep 0.01; done"


TURNS = [
    _bash("toolu_base", _hold("base")),
    _bash("toolu_big", f"head -c {SIZE} /dev/zero | tr '\\0' a; echo; echo END"),
    _bash("toolu_yes", "yes", timeout=2000),
    _bash("toolu_bg", f"head -c {SIZE} /dev/zero | tr '\\0' b; echo; touch bg.finished", run_in_background=True),
    _bash("toolu_wait", "while [ ! -e bg.finished ]; do sleep 0.01; done"),
    {"content": [{"type": "tool_use", "id": "toolu_read", "name": "BashOutput", "input": {"bash_id": "bash_1"}}]},
    _bash("toolu_peak", _hold("peak")),
    {"content": [{"type": "text", "text": "done"}]},
]


def _memory(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no {field} in /proc/{pid}/status")


def _measure_at(proc: subprocess.Popen[str], project: Path, mark: str, field: str) -> int:
    wait_until(lambda: (project / f"{mark}.mark").exists() or proc.poll() is not None, f"the {mark} command")
    assert proc.poll() is None, proc.communicate()
    value = _memory(proc.pid, field)
    (project / f"{mark}.done").touch()
    return value


def _result(server: Any, request: int) -> str:
    [block] = [b for b in server.requests[request].body["messages"][-1]["content"] if b.get("type") == "tool_result"]
    return str(block["content"])


@pytest.mark.slow
def test_memory_stays_flat_whatever_a_command_prints(fake_api, project: Path, run_cli_env):
    server = fake_api({"turns": TURNS})
    with subprocess.Popen(
        [sys.executable, "-m", "agentcli", "-p", "go", "--allowedTools", "Bash,BashOutput"],
        cwd=project,
        env=run_cli_env(server),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        try:
            baseline = _measure_at(proc, project, "base", "VmRSS")
            peak = _measure_at(proc, project, "peak", "VmHWM")
            _, err = proc.communicate(timeout=DEADLINE_S)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 0, err
    assert peak - baseline <= MAX_GROWTH_BYTES, f"peak grew by {(peak - baseline) / 1e6:.0f} MB"

    big = _result(server, 2)
    assert "characters cut from the middle of the output" in big and big.rstrip().count("\nEND\n") == 1
    spill = Path(big.rsplit("The full output was saved to ", 1)[1].split("\n")[0].rstrip("."))
    assert MAX_SAVED_CHARS < spill.stat().st_size < MAX_SAVED_CHARS + 100_000
    assert "Command timed out after 2 s" in _result(server, 3)
    read = _result(server, 6)
    assert "earlier characters not shown]" in read and "<status>" in read
