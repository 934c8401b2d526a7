"""Memory while a command prints a lot: the Bash tool's process start (``run_shell``, with a spill file as the
Bash tool gives it) for a command printing 800 MB without a newline, for 15 s of ``yes`` stopped by the timeout,
and for a background shell printing 800 MB that nobody reads.

Each case runs in a fresh Python process, which reports its resident memory just before the command and its peak
(``VmHWM``) just after; the figure is the growth. Target: at most 100 MB whatever the command prints.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time

from _common import PYTHON, ROOT, median, record

TARGET_MB = 100.0

_PROBE = """
import asyncio, os, sys
from pathlib import Path
from agentcli.tools.process import run_shell
from agentcli.tools.background import BackgroundShells

def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024

async def foreground(command, timeout_s, folder):
    result = await run_shell(command, cwd=Path(folder), env=dict(os.environ), timeout_s=timeout_s, limit=30_000,
                             spill_path=Path(folder) / "out" / "spill.log")
    return result.timed_out, (result.full_output_path.stat().st_size if result.full_output_path else 0)

async def background(command, folder):
    shells = BackgroundShells()
    shell = await shells.launch(command, cwd=Path(folder), env=dict(os.environ), description=None)
    await shell.closed.wait()
    kept = len(shell.take_new("stdout"))
    await shells.aclose()
    return False, kept

async def main(kind, command, timeout_s, folder):
    base = status("VmRSS")
    outcome = await (background(command, folder) if kind == "background" else foreground(command, timeout_s, folder))
    print(base, status("VmHWM"), *outcome)

asyncio.run(main(sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]))
"""


def _case(kind: str, command: str, timeout_s: float) -> tuple[float, float, str]:
    """Peak growth in MB, seconds taken, and what was kept (spill size or characters)."""
    with tempfile.TemporaryDirectory(prefix="agentcli-bench-output-") as folder:
        started = time.perf_counter()
        done = subprocess.run(
            [PYTHON, "-c", _PROBE, kind, command, str(timeout_s), folder],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        elapsed = time.perf_counter() - started
    base, peak, timed_out, kept = done.stdout.split()
    note = f"kept {int(kept) / 1e6:.2f} M" + (", timed out" if timed_out == "True" else "")
    return (int(peak) - int(base)) / 1e6, elapsed, note


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--megabytes", type=int, default=800)
    parser.add_argument("--yes-seconds", type=float, default=15.0)
    args = parser.parse_args()
    size = args.megabytes * 1_000_000
    cases = {
        f"{args.megabytes} MB, one line": ("foreground", f"head -c {size} /dev/zero | tr '\\0' a", 600.0),
        f"{args.megabytes} MB of lines": ("foreground", f"yes 'a line of output' | head -c {size}", 600.0),
        f"yes for {args.yes_seconds:g} s (timeout)": ("foreground", "yes", args.yes_seconds),
        f"{args.megabytes} MB in the background": ("background", f"head -c {size} /dev/zero | tr '\\0' a", 0.0),
    }
    width = max(len(name) for name in cases)
    print(f"{'':{width}}  peak growth     time  note")
    worst = 0.0
    for name, (kind, command, timeout_s) in cases.items():
        runs = [_case(kind, command, timeout_s) for _ in range(args.runs)]
        growth = median([run[0] for run in runs])
        seconds = median([run[1] for run in runs])
        worst = max(worst, max(run[0] for run in runs))
        print(f"{name:{width}}  {growth:8.1f} MB  {seconds:6.1f} s  {runs[-1][2]}")
        record(f"command output memory: {name}", growth, "MB", note=f"target <= {TARGET_MB:g} MB")
    print(f"worst peak growth {worst:.1f} MB (target <= {TARGET_MB:g} MB)")
    sys.exit(0 if worst <= TARGET_MB else 1)


if __name__ == "__main__":
    main()
