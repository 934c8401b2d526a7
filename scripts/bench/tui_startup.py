"""Start-up benchmark: process start → first frame → the prompt accepts a key, in a real terminal (tmux).

    python scripts/bench/tui_startup.py --runs 7
    python scripts/bench/tui_startup.py --no-bytecode-cache   # compile every module on every start

Target (TUI issue): start → input accepts keys <= 0.3 s, with the SDK import kept off the first frame.
Polls the screen every 5 ms, so figures carry that much resolution.

An installed agentcli has compiled bytecode, so by default the runs share a bytecode cache in a temporary folder
(``PYTHONPYCACHEPREFIX``, even where ``PYTHONDONTWRITEBYTECODE`` is set) and one unmeasured run fills it first.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def tmux(socket: str, *args: str) -> str:
    return subprocess.run(["tmux", "-L", socket, *args], capture_output=True, text=True, timeout=10).stdout


def wait(socket: str, needle: str, timeout: float = 10) -> float:
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        if needle in tmux(socket, "capture-pane", "-p", "-t", "bench"):
            return time.perf_counter()
        time.sleep(0.005)
    raise TimeoutError(needle)


def one_run(home: Path, bytecode_cache: bool) -> dict[str, float]:
    socket = f"agentcli-bench-{os.getpid()}-{time.monotonic_ns()}"
    env = (
        f"HOME={shlex.quote(str(home))} XDG_CONFIG_HOME={shlex.quote(str(home / 'config'))} "
        f"XDG_DATA_HOME={shlex.quote(str(home / 'data'))} TERM=xterm-256color PYTHONPATH={shlex.quote(str(REPO))}"
    )
    if bytecode_cache:
        env = f"-u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX={shlex.quote(str(home / 'pycache'))} {env}"
    else:
        env = f"PYTHONDONTWRITEBYTECODE=1 {env}"
    command = f"cd {shlex.quote(str(home))} && env {env} {shlex.quote(sys.executable)} -m agentcli --demo"
    tmux(socket, "new-session", "-d", "-s", "bench", "-x", "100", "-y", "30", "sleep 60")
    try:
        started = time.perf_counter()
        tmux(socket, "respawn-pane", "-k", "-t", "bench", command)
        painted = wait(socket, "Ask agentcli")
        tmux(socket, "send-keys", "-t", "bench", "-l", "zq")
        typed = wait(socket, "│ zq")
        return {"first_frame_s": painted - started, "accepts_keys_s": typed - started}
    finally:
        tmux(socket, "kill-server")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument(
        "--no-bytecode-cache",
        dest="bytecode_cache",
        action="store_false",
        help="compile agentcli's modules on every start, as with PYTHONDONTWRITEBYTECODE",
    )
    args = parser.parse_args()
    # The last agentcli may still be writing bytecode as tmux goes away: a leftover file must not fail the run.
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as folder:
        home = Path(folder)
        (home / "config").mkdir()
        (home / "data").mkdir()
        if args.bytecode_cache:
            one_run(home, True)
        runs = [one_run(home, args.bytecode_cache) for _ in range(args.runs)]
    report: dict[str, object] = {key: round(statistics.median(run[key] for run in runs), 3) for key in runs[0]}
    report["runs"] = args.runs
    report["bytecode_cache"] = args.bytecode_cache
    print(json.dumps(report, indent=2))
    sys.path.insert(0, str(Path(__file__).parent))
    from _common import record

    record("TUI: start → first frame", float(report["first_frame_s"]) * 1000, "ms", note="agentcli --demo in tmux")
    record("TUI: start → input takes keys", float(report["accepts_keys_s"]) * 1000, "ms", note="target ≤ 300 ms")


if __name__ == "__main__":
    main()
