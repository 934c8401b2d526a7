"""Sandbox start-up overhead: the Bash tool's own process start (``run_shell``) for the command ``true``, once
unconfined and once inside the bubblewrap sandbox (no network, the seccomp filter, private /tmp, a git project's
protected paths bound read-only, placeholders for the missing ones, a hidden file).

Runs alternate between the two so that a busy machine slows both alike; the figure is the difference of the
medians. Target: at most 10 ms per command. Measured in the same rounds, as baselines: a bare ``bash -c true``, a
bare ``bwrap`` around it, and bwrap with the session's own argument list (namespaces, mounts, filter) — so the
overhead splits into bwrap itself, the session's mounts, and agentcli's own part. The load average is printed
with the figure: the machine's other work slows the sandboxed runs more than the bare ones.
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

TARGET_MS = 10.0


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


def _bare_sandboxed(sandbox: Sandbox, project: Path) -> float:
    """``bash -c true`` with the session's own arguments, including the seccomp filter's descriptor."""
    started = time.perf_counter()
    launch = sandbox.launch(BASH, project)
    try:
        subprocess.run(launch.argv, check=True, stdin=subprocess.DEVNULL, pass_fds=launch.pass_fds)
    finally:
        launch.started()
        launch.ended()
    return time.perf_counter() - started


async def _measure(runs: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="agentcli-bench-project-") as folder:
        project = Path(folder)
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        (project / ".agentcli").mkdir()
        (project / ".env").write_text("TOKEN=1\n")
        sandbox = Sandbox(SandboxConfig(), project)
        sandbox.read_denials = (RuleRoots(project, project, Path.home()), lambda: ["./.env", "**/*.pem"])
        bwrap = shutil.which("bwrap") or "bwrap"
        kinds: dict[str, Callable[[], Awaitable[float] | float]] = {
            "bash": lambda: _bare(BASH),
            "bwrap": lambda: _bare([bwrap, "--ro-bind", "/", "/", "--dev", "/dev", *BASH]),
            "bwrap+flags": lambda: _bare_sandboxed(sandbox, project),
            "unconfined": lambda: _run_shell(project, None),
            "sandboxed": lambda: _run_shell(project, sandbox),
        }
        times: dict[str, list[float]] = {name: [] for name in kinds}
        await _run_shell(project, sandbox)  # warm the page cache for bwrap
        for _ in range(runs):
            for name, run in kinds.items():
                value = run()
                times[name].append(await value if inspect.isawaitable(value) else value)
    medians = {name: median(values) for name, values in times.items()}
    fastest = {f"{name} fastest": _fastest_tenth(values) for name, values in times.items()}
    return medians | fastest


def _fastest_tenth(values: list[float]) -> float:
    """The median of the fastest tenth of the runs: what the runs cost when the machine's other work let them be."""
    ordered = sorted(values)
    return median(ordered[: max(1, len(ordered) // 10)])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    problem = probe()
    if problem is not None:
        print(f"cannot measure: {problem}", file=sys.stderr)
        return 1
    load_before = os.getloadavg()[0]
    m = asyncio.run(_measure(args.runs))
    rows = [
        ("bare bash", m["bash"], "subprocess: bash -c true"),
        ("bare bwrap", m["bwrap"], "subprocess: bwrap --ro-bind / / --dev /dev bash -c true"),
        ("bwrap, session flags", m["bwrap+flags"], "subprocess: Sandbox.launch(bash -c true)"),
        ("unconfined", m["unconfined"], "run_shell: bash -c true"),
        ("sandboxed", m["sandboxed"], "run_shell: bwrap … bash -c true"),
    ]
    print(table(rows, m["bash"]))
    overhead_ms = (m["sandboxed"] - m["unconfined"]) * 1000
    bwrap_ms = (m["bwrap"] - m["bash"]) * 1000
    flags_ms = (m["bwrap+flags"] - m["bwrap"]) * 1000
    own_ms = overhead_ms - (m["bwrap+flags"] - m["bash"]) * 1000
    print(f"bwrap itself: {bwrap_ms:.1f} ms; the session's namespaces and mounts: {flags_ms:.1f} ms")
    load = f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after, on {os.cpu_count()} cores"
    print(f"agentcli's own part: {own_ms:.1f} ms ({load}; a negative figure is noise)")
    verdict = "ok" if overhead_ms <= TARGET_MS else "over target"
    print(f"overhead per command: {overhead_ms:.1f} ms (target <= {TARGET_MS:g} ms): {verdict}")
    fastest_ms = (m["sandboxed fastest"] - m["unconfined fastest"]) * 1000
    print(f"the same from each kind's fastest tenth of runs (least disturbed by the load): {fastest_ms:.1f} ms")
    record("sandbox overhead", overhead_ms, "ms", note="sandboxed minus unconfined run_shell, median")
    record("sandbox overhead, fastest tenth", fastest_ms, "ms", note="the same, from each kind's fastest tenth")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
