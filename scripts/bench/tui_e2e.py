"""End-to-end speed of the full-screen interface: the real ``agentcli`` in tmux, the fake Messages API over HTTP.

    python scripts/bench/tui_e2e.py --runs 5
    python scripts/bench/tui_e2e.py --plain        # the same for agentcli --plain
    python scripts/bench/tui_e2e.py --baseline DIR # also a baseline source tree, runs interleaved; with ratios

Each run starts a fresh process and measures:
- launch → input ready: the prompt box is painted and a typed key shows in it;
- Enter → first request: the key press until the fake API receives the request (the session is ready first);
- Enter → short answer visible: until the answer's text is on the screen;
- burst lag: a 200 KB answer in 20,000 deltas, sent as fast as the server can write; the time from the end of the
  stream (the server's last write) until its last line is on the screen.

Targets (faces issue): burst lag ≤ 0.3 s, Enter → first request ≤ 0.05 s. The screen is polled every few
milliseconds with ``tmux capture-pane``, so figures carry that resolution. Timing is wall-clock on this machine:
compare medians, not single runs.
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
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from agentcli.testing import FakeAnthropicServer  # noqa: E402

SHORT_ANSWER = "pong from the fake model"
BURST_END = "END-OF-BURST-MARKER"
BURST_BYTES = 200_000
BURST_DELTAS = 20_000


def burst_text() -> str:
    """About 200 KB of Markdown as models write it: headings, prose, lists and code fences; a marker line last."""
    section = (
        "## Section {n}\n\nThis paragraph explains step {n} of the change in a few plain sentences, with "
        "`inline code` and **bold** words, as an answer would.\n\n- first point of {n}\n- second point\n\n"
        "```python\ndef step_{n}(value):\n    total = value * {n}\n    for item in range(3):\n"
        "        total += item\n    return total\n```\n\n"
    )
    parts: list[str] = []
    size = 0
    n = 0
    while size < BURST_BYTES - 200:
        chunk = section.format(n=n)
        parts.append(chunk)
        size += len(chunk)
        n += 1
    return "".join(parts) + f"All done.\n\n{BURST_END}\n"


def tmux(socket: str, *args: str) -> str:
    return subprocess.run(["tmux", "-L", socket, *args], capture_output=True, text=True, timeout=20).stdout


def wait(socket: str, condition: Any, timeout: float = 60) -> float:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition(tmux(socket, "capture-pane", "-p", "-t", "bench")):
            return time.monotonic()
        time.sleep(0.003)
    raise TimeoutError(f"the screen never met the condition:\n{tmux(socket, 'capture-pane', '-p', '-t', 'bench')}")


def wait_requests(server: FakeAnthropicServer, count: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while len(server.requests) < count:
        if time.monotonic() > deadline:
            raise TimeoutError(f"the fake API saw {len(server.requests)} requests, expected {count}")
        time.sleep(0.002)


def one_run(home: Path, plain: bool, source: Path = REPO) -> dict[str, float]:
    turns = [
        {"content": [{"type": "text", "text": SHORT_ANSWER, "chunks": 4}]},
        {"content": [{"type": "text", "text": burst_text(), "chunks": BURST_DELTAS}]},
    ]
    server = FakeAnthropicServer({"turns": turns, "on_exhausted": "echo"}).start()
    ended: list[float] = []
    stream = server._stream  # the end of each stream, as the server writes its last byte

    def timed_stream(*args: Any) -> None:
        stream(*args)
        ended.append(time.monotonic())

    server._stream = timed_stream  # type: ignore[method-assign]
    socket = f"agentcli-e2e-{os.getpid()}-{time.monotonic_ns()}"
    env = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "TERM": "xterm-256color",
        "PYTHONPATH": str(source),
        "ANTHROPIC_API_KEY": "bench-key",
        "ANTHROPIC_BASE_URL": server.base_url,
        "PYTHONPYCACHEPREFIX": str(home / "pycache"),
    }
    exports = " ".join(f"{key}={shlex.quote(value)}" for key, value in env.items())
    flags = " --plain" if plain else ""
    command = (
        f"cd {shlex.quote(str(home))} && env -u PYTHONDONTWRITEBYTECODE {exports} "
        f"{shlex.quote(sys.executable)} -m agentcli{flags}"
    )
    tmux(socket, "new-session", "-d", "-s", "bench", "-x", "120", "-y", "40", "sleep 120")
    try:
        started = time.monotonic()
        tmux(socket, "respawn-pane", "-k", "-t", "bench", command)
        ready_text = "❯" if plain else "Ask agentcli"
        wait(socket, lambda screen: ready_text in screen)
        tmux(socket, "send-keys", "-t", "bench", "-l", "zq")
        ready = wait(socket, lambda screen: "zq" in screen)
        tmux(socket, "send-keys", "-t", "bench", "BSpace", "BSpace")
        if not plain:  # the session is built after the first frame; measure a request from a ready session
            wait(socket, lambda screen: "starting…" not in screen and "zq" not in screen)
        tmux(socket, "send-keys", "-t", "bench", "-l", "ping")
        wait(socket, lambda screen: "ping" in screen)
        enter = time.monotonic()
        tmux(socket, "send-keys", "-t", "bench", "Enter")
        wait_requests(server, 1)
        first_request = server.requests[0].time
        answered = wait(socket, lambda screen: SHORT_ANSWER in screen)
        wait(socket, lambda screen: "✻ " in screen)  # the turn is over
        tmux(socket, "send-keys", "-t", "bench", "-l", "burst")
        tmux(socket, "send-keys", "-t", "bench", "Enter")
        seen = wait(socket, lambda screen: BURST_END in screen, timeout=120)
        while not ended or len(ended) < 2:
            time.sleep(0.001)
        return {
            "launch_to_input_s": ready - started,
            "enter_to_request_s": first_request - enter,
            "enter_to_answer_s": answered - enter,
            "burst_lag_s": seen - ended[1],
        }
    finally:
        tmux(socket, "kill-server")
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--plain", action="store_true", help="measure agentcli --plain instead of the TUI")
    parser.add_argument(
        "--baseline", type=Path, help="a source tree to measure too (runs alternate), for medians' ratios"
    )
    args = parser.parse_args()
    trees = [REPO] + ([args.baseline.resolve()] if args.baseline else [])
    results: dict[Path, list[dict[str, float]]] = {tree: [] for tree in trees}
    with tempfile.TemporaryDirectory() as folder:
        for tree in trees:
            home = Path(folder) / str(trees.index(tree))
            for sub in ("config", "data"):
                (home / sub).mkdir(parents=True)
            one_run(home, args.plain, tree)  # fills the bytecode cache; not counted
        for _ in range(args.runs):
            for tree in trees:
                home = Path(folder) / str(trees.index(tree))
                results[tree].append(one_run(home, args.plain, tree))
    runs = results[REPO]
    report: dict[str, object] = {key: round(statistics.median(run[key] for run in runs), 3) for key in runs[0]}
    if args.baseline:
        base = results[trees[1]]
        report["baseline"] = {key: round(statistics.median(run[key] for run in base), 3) for key in base[0]}
        report["ratio_vs_baseline"] = {
            key: round(
                statistics.median(run[key] for run in runs) / max(1e-9, statistics.median(r[key] for r in base)), 3
            )
            for key in runs[0]
        }
        report["baseline_all"] = [{key: round(value, 3) for key, value in run.items()} for run in base]
    report["runs"] = args.runs
    report["face"] = "plain" if args.plain else "tui"
    report["all"] = [{key: round(value, 3) for key, value in run.items()} for run in runs]
    print(json.dumps(report, indent=2))
    sys.path.insert(0, str(Path(__file__).parent))
    from _common import record

    face = "plain" if args.plain else "TUI"
    record(f"{face} e2e: launch → input ready", float(report["launch_to_input_s"]) * 1000, "ms")
    record(
        f"{face} e2e: Enter → first request", float(report["enter_to_request_s"]) * 1000, "ms", note="target ≤ 50 ms"
    )
    record(f"{face} e2e: Enter → short answer visible", float(report["enter_to_answer_s"]) * 1000, "ms")
    record(
        f"{face} e2e: 200 KB burst, last line after stream end",
        float(report["burst_lag_s"]) * 1000,
        "ms",
        note="target ≤ 300 ms",
    )


if __name__ == "__main__":
    main()
