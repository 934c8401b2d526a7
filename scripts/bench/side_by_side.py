"""agentcli side by side with another CLI (``--cmd``, by default the Claude Code binary that the Agent SDK bundles),
in the same run: interleaved, medians, the load average printed before and after.

Figures:
- ``first-request``: ``-p`` process launch → the fake Messages API has the first request (same clock).
- ``turns``: one ``-p`` run of ``--turns`` tool round trips (a ``Read`` of a small file each) against a server that
  answers at once; a turn's client time runs from the last byte of one answer to the arrival of the next request
  (tool run, history update, request build and send). Medians of the first and last hundred turns, and their ratio.

``--baseline DIR`` adds another agentcli source tree (e.g. the previous commit's checkout) to every round.

    python scripts/bench/side_by_side.py                          # both figures, the bundled Claude Code
    python scripts/bench/side_by_side.py first-request --runs 15 --baseline /path/to/previous/checkout
    python scripts/bench/side_by_side.py turns --turns 1000 --cmd "claude"
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _common import PYTHON, ROOT, answering_server, child_env, median, record, table
from _turn_server import TurnServer

QUIET_OTHER = {
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
}
"""For the other CLI: no traffic but the Messages API's (nothing else is reachable from a benchmark anyway)."""


def bundled_claude() -> str | None:
    try:
        import claude_agent_sdk
    except ImportError:
        return None
    binary = Path(claude_agent_sdk.__file__).with_name("_bundled") / "claude"
    return str(binary) if binary.exists() else None


Contender = tuple[str, list[str], dict[str, str]]
"""A name, the command that starts it (``-p`` and the rest are appended) and its extra environment."""


def contenders(other: str | None, baseline: Path | None) -> list[Contender]:
    found: list[Contender] = [("agentcli", [PYTHON, "-m", "agentcli"], {"PYTHONPATH": str(ROOT)})]
    if baseline is not None:
        found.append((f"agentcli @ {baseline.name}", [PYTHON, "-m", "agentcli"], {"PYTHONPATH": str(baseline)}))
    if other:
        found.append((Path(shlex.split(other)[0]).name, shlex.split(other), QUIET_OTHER))
    return found


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def first_request(runs: int, entrants: list[Contender]) -> None:
    server, env = answering_server()
    times: dict[str, list[float]] = {name: [] for name, _, _ in entrants}
    with tempfile.TemporaryDirectory() as cwd:
        for _ in range(runs):
            for name, command, extra in entrants:
                seen = len(server.requests)
                start = time.monotonic()
                subprocess.run(
                    [*command, "-p", "hi"],
                    env={**env, **extra},
                    cwd=cwd,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    check=True,
                )
                times[name].append(server.requests[seen].time - start)
    server.stop()
    report("-p launch → first request", times, entrants)


def turns(runs: int, count: int, entrants: list[Contender]) -> None:
    early: dict[str, list[float]] = {name: [] for name, _, _ in entrants}
    late: dict[str, list[float]] = {name: [] for name, _, _ in entrants}
    window = min(100, max(1, count // 10))
    for _ in range(runs):
        for name, command, extra in entrants:
            with tempfile.TemporaryDirectory() as cwd:
                notes = Path(cwd, "notes.txt")
                notes.write_text("one line of notes\n", encoding="utf-8")
                server = TurnServer(str(notes), count).start()
                env = child_env(ANTHROPIC_API_KEY="bench-key", ANTHROPIC_BASE_URL=server.base_url, **extra)
                subprocess.run(
                    [*command, "-p", "read notes.txt again and again", "--max-turns", str(count + 10)],
                    env=env,
                    cwd=cwd,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    check=False,
                )
                server.stop()
                client = server.client_times()
                if len(client) < 2 * window:
                    print(f"{name}: only {len(client)} turns came back; skipped", file=sys.stderr)
                    continue
                early[name].append(median(client[:window]))
                late[name].append(median(client[-window:]))
    report(f"client time per turn, first {window} turns", early, entrants)
    report(f"client time per turn, last {window} of {count} turns", late, entrants)
    for name, _, _ in entrants:
        if early[name] and late[name]:
            growth = median(late[name]) / median(early[name])
            print(f"{name}: last/first {growth:.2f}x")
            record(f"{name}: client time growth over {count} turns", growth, "x")


def report(figure: str, times: dict[str, list[float]], entrants: list[Contender]) -> None:
    """One table per figure; the ratio is against the last contender (the other CLI, when there is one)."""
    rows = [(f"{name}: {figure}", median(values), f"{len(values)} runs") for name, values in times.items() if values]
    if not rows:
        return
    print(table(rows, rows[-1][1]))
    print()


FIGURES: dict[str, Callable[[argparse.Namespace, list[Contender]], None]] = {
    "first-request": lambda args, entrants: first_request(args.runs, entrants),
    "turns": lambda args, entrants: turns(args.turn_runs, args.turns, entrants),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("figures", nargs="*", metavar="FIGURE", help=f"any of {', '.join(FIGURES)} (default: all)")
    parser.add_argument("--cmd", default=bundled_claude(), help="the other CLI (default: the bundled Claude Code)")
    parser.add_argument("--baseline", type=Path, help="another agentcli source tree to measure in the same rounds")
    parser.add_argument("--runs", type=int, default=11, help="rounds for first-request")
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--turn-runs", type=int, default=1, help="rounds for turns (each is one long run)")
    args = parser.parse_args()
    if unknown := [figure for figure in args.figures if figure not in FIGURES]:
        parser.error(f"unknown figure {unknown[0]!r}: choose from {', '.join(FIGURES)}")
    entrants = contenders(args.cmd, args.baseline.resolve() if args.baseline else None)
    print(f"load average at start: {load()}; contenders: {', '.join(name for name, _, _ in entrants)}")
    for figure in args.figures or list(FIGURES):
        FIGURES[figure](args, entrants)
    print(f"load average at end: {load()}")


if __name__ == "__main__":
    main()
