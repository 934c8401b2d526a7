"""Sandbox start-up overhead: the Bash tool's own process start (``run_shell``) for the command ``true``, once
unconfined and once inside the bubblewrap sandbox (no network, private /tmp, protected folders mounted read-only).

Runs alternate between the two so that a busy machine slows both alike; the figure is the difference of the
medians. Target: at most 15 ms per command.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

from _common import median, table

from agentcli.tools.process import run_shell
from agentcli.tools.sandbox import Sandbox, SandboxConfig, probe

TARGET_MS = 15.0


async def _once(project: Path, sandbox: Sandbox | None) -> float:
    started = time.perf_counter()
    result = await run_shell(
        "true", cwd=project, env={"PATH": "/usr/bin:/bin"}, timeout_s=30, limit=1000, sandbox=sandbox
    )
    elapsed = time.perf_counter() - started
    assert result.exit_code == 0, result.output
    return elapsed


async def _measure(runs: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory(prefix="agentcli-bench-project-") as folder:
        project = Path(folder)
        (project / ".git" / "hooks").mkdir(parents=True)
        (project / ".agentcli").mkdir()
        sandbox = Sandbox(SandboxConfig(), project)
        plain: list[float] = []
        boxed: list[float] = []
        await _once(project, sandbox)  # warm the page cache for bwrap
        for _ in range(runs):
            plain.append(await _once(project, None))
            boxed.append(await _once(project, sandbox))
    return median(plain), median(boxed)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    problem = probe()
    if problem is not None:
        print(f"cannot measure: {problem}", file=sys.stderr)
        return 1
    plain, boxed = asyncio.run(_measure(args.runs))
    overhead_ms = (boxed - plain) * 1000
    print(table([("unconfined", plain, "bash -c true"), ("sandboxed", boxed, "bwrap … bash -c true")], plain))
    verdict = "ok" if overhead_ms <= TARGET_MS else "over target"
    print(f"overhead per command: {overhead_ms:.1f} ms (target <= {TARGET_MS:g} ms): {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
