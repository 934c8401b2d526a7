"""Shared bits for the benchmarks: medians, a results table, the headline figures for ``all.py``, a private home.

The convention every ``scripts/bench/*.py`` follows (``all.py`` finds them by it):
- a file whose name does not start with ``_`` is a benchmark, run as ``python scripts/bench/NAME.py``, and its
  defaults are the measurement the README quotes;
- it prints what it measured for a person, and hands its headline figures to :func:`record` (``table`` does
  that for each of its rows), which ``all.py`` collects into one table;
- timings are medians of several runs, with a baseline measured in the same run for the ratio.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

PYTHON = sys.executable


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def table(rows: list[tuple[str, float, str]], baseline: float) -> str:
    """A table of timings (seconds) with their ratio to ``baseline``; each row is also a recorded figure."""
    width = max(len(name) for name, _, _ in rows)
    lines = [f"{'':{width}}  median      ratio  note"]
    for name, value, note in rows:
        lines.append(f"{name:{width}}  {value * 1000:8.1f} ms  {value / baseline:5.2f}x  {note}")
        record(name, value * 1000, "ms", ratio=value / baseline, note=note)
    return "\n".join(lines)


RESULTS_ENV = "AGENTCLI_BENCH_RESULTS"
"""``all.py`` sets this to a file; :func:`record` appends one JSON line per figure to it."""


def record(figure: str, value: float, unit: str, *, ratio: float | None = None, note: str = "") -> None:
    """Hand one headline figure to ``all.py`` (nothing happens when the benchmark runs on its own)."""
    path = os.environ.get(RESULTS_ENV)
    if not path:
        return
    line = {"figure": figure, "value": value, "unit": unit, "ratio": ratio, "note": note}
    with open(path, "a", encoding="utf-8") as results:
        results.write(json.dumps(line, ensure_ascii=False) + "\n")


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


def time_import_anthropic(env: dict[str, str]) -> float:
    """One run of the floor every start-up benchmark compares against: ``python -c "import anthropic"``."""
    import subprocess
    import time

    start = time.monotonic()
    subprocess.run([PYTHON, "-c", "import anthropic"], check=True, env=env)
    return time.monotonic() - start


def answering_server() -> tuple[Any, dict[str, str]]:
    """A fake Messages API that answers "ok" to every request, and the environment that points agentcli at it."""
    from agentcli.testing import FakeAnthropicServer

    server = FakeAnthropicServer(
        {"turns": [{"content": [{"type": "text", "text": "ok"}]}], "on_exhausted": "repeat_last"}
    ).start()
    return server, child_env(ANTHROPIC_API_KEY="bench-key", ANTHROPIC_BASE_URL=server.base_url)
