"""Shared bits for the benchmarks: medians, a results table, and the fake server on a scenario."""

from __future__ import annotations

import atexit
import os
import shutil
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

PYTHON = sys.executable


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def table(rows: list[tuple[str, float, str]], baseline: float) -> str:
    width = max(len(name) for name, _, _ in rows)
    lines = [f"{'':{width}}  median      ratio  note"]
    for name, value, note in rows:
        lines.append(f"{name:{width}}  {value * 1000:8.1f} ms  {value / baseline:5.2f}x  {note}")
    return "\n".join(lines)


_HOME = tempfile.mkdtemp(prefix="agentcli-bench-home-")
atexit.register(shutil.rmtree, _HOME, True)


def isolate_home() -> str:
    """Point config, data and HOME of this process (and so its children) at a throwaway folder.

    Benchmarks write transcripts like any run; they must not land in the user's own data directory.
    """
    for name, sub in (("HOME", ""), ("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data")):
        os.environ[name] = os.path.join(_HOME, sub) if sub else _HOME
    return _HOME


def child_env(**extra: str) -> dict[str, str]:
    isolate_home()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "AGENTCLI_"))}
    env.update(extra)
    return env
