"""Sandbox start-up overhead: the Bash tool's own process start (``run_shell``) for the command ``true``, once
unconfined and once inside the bubblewrap sandbox (no network, private /tmp, protected folders mounted read-only).

Runs alternate between the two so that a busy machine slows both alike; the figure is the difference of the
medians. Target: at most 15 ms per command. Measured in the same rounds, as baselines: a bare ``bash -c true``, a
bare ``bwrap`` around it, and bwrap with the session's own argument list (namespaces, mounts, a hidden file) —
so the overhead splits into bwrap itself, the session's mounts, and agentcli's own part.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from _common import median, record, table

from agentcli.tools.process import run_shell
from agentcli.tools.rules import RuleRoots
from agentcli.tools.sandbox import Sandbox, SandboxConfig, probe

TARGET_MS = 15.0


BASH = ["bash", "-c", "true"]


async def _run_shell(project: Path, sandbox: Sandbox | None) -> float:
    started = time.perf_counter()
    result = await run_shell(
        "true", cwd=project, env={"PATH": "/usr/bin:/bin"}, timeout_s=30, limit=1000, sandbox=sandbox
    )
    elapsed = time.perf_counter() - started
    assert result.exit_code == 0, result.output
    return elapsed


def _bare(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdin=subprocess.DEVNULL)
    return time.perf_counter() - started


async def _measure(runs: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="agentcli-bench-project-") as folder:
        project = Path(folder)
        (project / ".git" / "hooks").mkdir(parents=True)
        (project / ".agentcli").mkdir()
        (project / ".env").write_text("TOKEN=1\n")
        sandbox = Sandbox(SandboxConfig(), project)
        sandbox.read_denials = (RuleRoots(project, project, Path.home()), lambda: ["./.env", "**/*.pem"])
        bwrap = shutil.which("bwrap") or "bwrap"
        kinds: dict[str, Callable[[], Awaitable[float] | float]] = {
            "bash": lambda: _bare(BASH),
            "bwrap": lambda: _bare([bwrap, "--ro-bind", "/", "/", "--dev", "/dev", *BASH]),
            "bwrap+flags": lambda: _bare(sandbox.wrap(BASH, project)),
            "unconfined": lambda: _run_shell(project, None),
            "sandboxed": lambda: _run_shell(project, sandbox),
        }
        times: dict[str, list[float]] = {name: [] for name in kinds}
        await _run_shell(project, sandbox)  # warm the page cache for bwrap
        for _ in range(runs):
            for name, run in kinds.items():
                value = run()
                times[name].append(await value if inspect.isawaitable(value) else value)
    return {name: median(values) for name, values in times.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    problem = probe()
    if problem is not None:
        print(f"cannot measure: {problem}", file=sys.stderr)
        return 1
    m = asyncio.run(_measure(args.runs))
    rows = [
        ("bare bash", m["bash"], "subprocess: bash -c true"),
        ("bare bwrap", m["bwrap"], "subprocess: bwrap --ro-bind / / --dev /dev bash -c true"),
        ("bwrap, session flags", m["bwrap+flags"], "subprocess: Sandbox.wrap(bash -c true)"),
        ("unconfined", m["unconfined"], "run_shell: bash -c true"),
        ("sandboxed", m["sandboxed"], "run_shell: bwrap … bash -c true"),
    ]
    print(table(rows, m["bash"]))
    overhead_ms = (m["sandboxed"] - m["unconfined"]) * 1000
    bwrap_ms = (m["bwrap"] - m["bash"]) * 1000
    flags_ms = (m["bwrap+flags"] - m["bwrap"]) * 1000
    own_ms = overhead_ms - (m["bwrap+flags"] - m["bash"]) * 1000
    print(f"bwrap itself: {bwrap_ms:.1f} ms; the session's namespaces and mounts: {flags_ms:.1f} ms")
    print(f"agentcli's own part: {own_ms:.1f} ms (load average {os.getloadavg()[0]:.1f}; a negative figure is noise)")
    verdict = "ok" if overhead_ms <= TARGET_MS else "over target"
    print(f"overhead per command: {overhead_ms:.1f} ms (target <= {TARGET_MS:g} ms): {verdict}")
    record("sandbox overhead", overhead_ms, "ms", note="sandboxed minus unconfined run_shell, median")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
