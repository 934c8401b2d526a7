"""Re-measure every benchmark in one run and print one table of the headline figures.

Every ``scripts/bench/*.py`` whose name does not start with ``_`` is a benchmark (see ``_common.py`` for the
convention); each runs as its own process with its defaults, one after the other, and hands its headline figures
back through ``_common.record``. ``scripts/crash_resume.py`` (200 SIGKILLs, each resumed) runs last.

    python scripts/bench/all.py                        # everything (several minutes)
    python scripts/bench/all.py --only headless_startup --only recovery
    python scripts/bench/all.py --skip crash_resume --runs 3
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parents[1]
CRASH_RESUME = ROOT / "scripts" / "crash_resume.py"
RESULTS_ENV = "AGENTCLI_BENCH_RESULTS"  # the same name as _common.RESULTS_ENV (importing it would start a home)


@dataclass
class Outcome:
    name: str
    command: list[str]
    seconds: float
    returncode: int
    figures: list[dict[str, object]] = field(default_factory=list)
    tail: str = ""


def benchmarks() -> dict[str, list[str]]:
    """Name → command line, in a stable order: the benchmarks of this folder, then the crash-resume check."""
    found = {
        path.stem: [sys.executable, str(path)]
        for path in sorted(BENCH.glob("*.py"))
        if not path.name.startswith("_") and path.name != Path(__file__).name
    }
    found["crash_resume"] = [sys.executable, str(CRASH_RESUME)]
    return found


def run(name: str, command: list[str]) -> Outcome:
    with tempfile.NamedTemporaryFile("r", suffix=".jsonl", encoding="utf-8") as results:
        env = {**os.environ, RESULTS_ENV: results.name}
        started = time.monotonic()
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
        outcome = Outcome(name, command, time.monotonic() - started, done.returncode)
        outcome.figures = [json.loads(line) for line in results.read().splitlines() if line.strip()]
    output = (done.stdout + done.stderr).strip().splitlines()
    outcome.tail = "\n".join(output[-8:])
    if name == "crash_resume":
        outcome.figures += crash_resume_figures(done.stdout)
    return outcome


def crash_resume_figures(stdout: str) -> list[dict[str, object]]:
    """``crash_resume.py`` reports ``N/M ok (S s)``: kill points whose resumed request the API accepted."""
    match = re.search(r"^(\d+)/(\d+) ok", stdout, re.MULTILINE)
    if match is None:
        return []
    passed, total = int(match.group(1)), int(match.group(2))
    return [
        {
            "figure": "kills (SIGKILL at random moments) resumed into a valid request",
            "value": passed,
            "unit": f"/ {total}",
            "ratio": passed / total,
            "note": "nothing already sent was lost",
        }
    ]


def format_value(value: object, unit: str) -> str:
    if isinstance(value, float) and unit in ("ms", "B", "MiB", "deltas/s"):
        value = round(value) if value >= 100 else round(value, 1)
    return f"{value:,} {unit}" if isinstance(value, int | float) else f"{value} {unit}"


def print_table(outcomes: list[Outcome]) -> None:
    rows = [("benchmark", "figure", "median", "ratio", "note")]
    for outcome in outcomes:
        if outcome.returncode != 0:
            rows.append(
                (
                    outcome.name,
                    f"FAILED (exit {outcome.returncode})",
                    "",
                    "",
                    outcome.tail.splitlines()[-1] if outcome.tail else "",
                )
            )
            continue
        if not outcome.figures:
            rows.append((outcome.name, "(no figures recorded: see its own output)", "", "", ""))
        for figure in outcome.figures:
            ratio = figure.get("ratio")
            rows.append(
                (
                    outcome.name,
                    str(figure["figure"]),
                    format_value(figure["value"], str(figure["unit"])),
                    f"{ratio:.2f}x" if isinstance(ratio, int | float) else "",
                    str(figure.get("note") or ""),
                )
            )
    widths = [max(len(row[column]) for row in rows) for column in range(4)]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False)) + "  " + row[4])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", action="append", default=[], metavar="NAME", help="run only these (repeatable)")
    parser.add_argument("--skip", action="append", default=[], metavar="NAME", help="leave these out (repeatable)")
    parser.add_argument("--runs", type=int, help="pass --runs N to every benchmark (fewer runs, rougher medians)")
    parser.add_argument("--list", action="store_true", help="list the benchmarks and their commands, then stop")
    args = parser.parse_args()
    chosen = {
        name: command
        for name, command in benchmarks().items()
        if (not args.only or name in args.only) and name not in args.skip
    }
    unknown = set(args.only + args.skip) - set(benchmarks())
    if unknown:
        parser.error(f"no such benchmark: {', '.join(sorted(unknown))} (try --list)")
    if args.list:
        for name, command in chosen.items():
            print(f"{name:20} python {Path(command[1]).relative_to(ROOT).as_posix()}")
        return 0
    outcomes = []
    for name, command in chosen.items():
        if args.runs is not None and name != "crash_resume":  # its --runs counts kill points, not repetitions
            command = [*command, "--runs", str(args.runs)]
        print(f"[{time.strftime('%H:%M:%S')}] {name} …", file=sys.stderr, flush=True)
        outcome = run(name, command)
        print(f"[{time.strftime('%H:%M:%S')}] {name} took {outcome.seconds:.0f} s", file=sys.stderr, flush=True)
        outcomes.append(outcome)
    print(
        f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end; "
        f"each figure is the median of the benchmark's runs, the ratio is against the baseline it names"
    )
    print_table(outcomes)
    return 1 if any(outcome.returncode != 0 for outcome in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
