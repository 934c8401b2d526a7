"""TUI streaming benchmarks: how fast the full-screen interface renders a streamed answer, and how long it blocks.

Runs the real app headless (``App.run_test``) with a stand-in engine that yields the SDK-shaped messages the
real engine yields, so only the interface is measured (the network and SDK parsing are benchmarked elsewhere).
A 5 ms ticker measures how late the event loop wakes up: that is how long the UI was blocked.

    python scripts/bench/tui_stream.py                 # all scenarios, 3 runs each, medians
    python scripts/bench/tui_stream.py --only full --runs 5

Scenarios (targets from the TUI issue):
  full     20,000 deltas of mixed Markdown as fast as possible: >= 3,000 deltas/s, final frame <= 100 ms after
           the last delta
  paced    1,000 deltas/s including a 500-line code fence: keeps up, p99 UI block <= 50 ms
  history  8,000 deltas (--history-deltas) with 300 finished messages above vs an empty screen: within 20 %
  memory   RSS after 300 complete turns (prompt, streamed answer, tool call)
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import resource
import statistics
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agentcli.ui.tui.app import AgentApp
from agentcli.ui.tui.widgets.markdown_view import MarkdownView

DELTA_CHARS = 4


def mixed_markdown(sections: int) -> str:
    """Headings, paragraphs with inline styles, lists and short Python fences, like a long model answer."""
    parts = []
    for n in range(sections):
        parts.append(
            f"## Section {n}\n\nThis paragraph explains **step {n}** with `inline_code()` and *emphasis*; "
            "it is long enough to wrap on a normal terminal, as real answers do.\n"
        )
        parts.append("- first point about the change\n- second point, with `a_name`\n- third point\n")
        if n % 2 == 0:
            body = "\n".join(f"    value_{i} = compute({i}, scale={n})" for i in range(8))
            parts.append(f"```python\ndef step_{n}():\n{body}\n    return value_7\n```\n")
    return "\n".join(parts)


def long_fence(lines: int) -> str:
    body = "\n".join(f"    result_{i} = transform(data[{i}], factor={i % 7})  # line {i}" for i in range(lines))
    return f"Here is the whole module:\n\n```python\ndef main():\n{body}\n```\n\nThat is all.\n"


def deltas_of(text: str, count: int | None = None) -> list[str]:
    if count is not None:
        size = max(1, len(text) // count)
        pieces = [text[i : i + size] for i in range(0, len(text), size)]
        return pieces
    return [text[i : i + DELTA_CHARS] for i in range(0, len(text), DELTA_CHARS)]


def text_of(sections_chars: int) -> str:
    text = ""
    sections = 8
    while len(text) < sections_chars:
        sections *= 2
        text = mixed_markdown(sections)
    return text[:sections_chars]


def stream_messages(deltas: list[str], message_id: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(stream events before and after the text deltas) for one streamed text answer."""
    head = [
        {"type": "stream_event", "event": {"type": "message_start", "message": {"id": message_id, "usage": {}}}},
        {
            "type": "stream_event",
            "event": {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        },
    ]
    tail = [
        {"type": "stream_event", "event": {"type": "content_block_stop", "index": 0}},
        {"type": "stream_event", "event": {"type": "message_stop"}},
        {
            "type": "assistant",
            "message": {
                "id": message_id,
                "content": [{"type": "text", "text": "".join(deltas)}],
                "usage": {"input_tokens": 1000, "output_tokens": len(deltas)},
            },
        },
        {"type": "result", "subtype": "success", "is_error": False, "total_cost_usd": 0.01, "num_turns": 1},
    ]
    return head, tail


@dataclass
class StandInEngine:
    """Yields prepared messages at a given pace; records when the last delta left."""

    deltas: list[str]
    pace_per_s: float | None = None
    tool_turn: bool = False
    last_delta_at: float = 0.0
    first_delta_at: float = 0.0
    session_id: str = "bench"
    config: Any = field(default_factory=lambda: type("C", (), {"model": "bench", "permission_mode": "default"})())
    turn: int = 0

    def interrupt(self) -> None:
        pass

    async def aclose(self) -> None:
        pass

    async def submit_message(self, _prompt: str) -> AsyncIterator[dict[str, Any]]:
        self.turn += 1
        head, tail = stream_messages(self.deltas, f"msg_{self.turn}")
        for message in head:
            yield message
        start = time.perf_counter()
        self.first_delta_at = start
        for n, text in enumerate(self.deltas):
            if self.pace_per_s:
                wait = start + n / self.pace_per_s - time.perf_counter()
                if wait > 0:
                    await asyncio.sleep(wait)
            else:
                await asyncio.sleep(0)
            yield {
                "type": "stream_event",
                "event": {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
            }
        self.last_delta_at = time.perf_counter()
        if self.tool_turn:
            tool_id = f"toolu_{self.turn}"
            yield {
                "type": "system",
                "subtype": "tool_started",
                "tool_use_id": tool_id,
                "tool_name": "Read",
                "tool_input": {"file_path": "src/app.py"},
            }
            yield {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": "1\tdef add(a, b):"}],
                },
                "tool_use_result": {"type": "text", "file": {"numLines": 1}},
            }
        for message in tail:
            yield message


class Ticker:
    """Measures event-loop lateness every 5 ms."""

    def __init__(self) -> None:
        self.stalls: list[float] = []
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        interval = 0.005
        while True:
            before = time.perf_counter()
            await asyncio.sleep(interval)
            self.stalls.append(max(0.0, time.perf_counter() - before - interval))

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    def stop(self) -> dict[str, float]:
        if self._task is not None:
            self._task.cancel()
        ordered = sorted(self.stalls) or [0.0]
        return {"max_block_ms": ordered[-1] * 1000, "p99_block_ms": ordered[int(len(ordered) * 0.99) - 1] * 1000}


async def settle_history(pilot: Any, timeout: float = 60) -> None:
    """Wait until the earlier messages are rendered and frozen (that cost belongs to loading, not streaming)."""
    conversation = pilot.app.conversation
    deadline = time.perf_counter() + timeout
    while conversation.unfrozen_history or any(
        not view.rendered for view in conversation.query(MarkdownView) if view.display
    ):
        if time.perf_counter() > deadline:
            raise TimeoutError("the history did not settle")
        await pilot.pause(0.05)
    await pilot.pause(0.2)


async def run_stream(deltas: list[str], *, pace: float | None = None, prior_messages: int = 0) -> dict[str, float]:
    app = AgentApp(None, cwd=Path.cwd(), theme="textual-dark")
    engine = StandInEngine(deltas, pace)
    async with app.run_test(size=(120, 40)) as pilot:
        if prior_messages:
            message = mixed_markdown(3)[:1000]
            for _ in range(prior_messages):
                app.conversation.add_prompt("a question")
                app.conversation.add(MarkdownView(message, classes="assistant"))
            # Let every earlier message render before measuring (that cost belongs to loading, not streaming).
            await settle_history(pilot)
        app.engine = engine
        app._engine_ready.set()
        ticker = Ticker()
        ticker.start()
        app.send("go")
        # The turn, not the highlighting a long fence gets in the background after it is shown plain.
        await app.workers.wait_for_complete([worker for worker in app.workers if worker.group == "turn"])
        await pilot.pause()
        done = time.perf_counter()
        stalls = ticker.stop()
        view = app.conversation.query(MarkdownView).last()
        assert view.source == "".join(deltas), "the rendered source differs from what was streamed"
        elapsed = done - engine.first_delta_at
        return {
            "deltas": len(deltas),
            "deltas_per_s": len(deltas) / elapsed,
            "seconds": elapsed,
            "final_frame_after_last_delta_ms": (done - engine.last_delta_at) * 1000,
            "flushes": view.flushes,
            **stalls,
        }


async def run_memory(turns: int) -> dict[str, float]:
    app = AgentApp(None, cwd=Path.cwd(), theme="textual-dark")
    text = mixed_markdown(3)[:1500]
    engine = StandInEngine(deltas_of(text), None, tool_turn=True)
    async with app.run_test(size=(120, 40)) as pilot:
        app.engine = engine
        app._engine_ready.set()
        gc.collect()
        start_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        started = time.perf_counter()
        for _ in range(turns):
            app.send("next question")
            await app.workers.wait_for_complete()
        await pilot.pause()
        gc.collect()
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return {
            "turns": turns,
            "seconds": time.perf_counter() - started,
            "rss_mib_before": start_rss,
            "peak_rss_mib_after": rss,
            "widgets": len(app.conversation.children),
            "log_entries": len(app.log_messages),
        }


def median_of(runs: list[dict[str, float]]) -> dict[str, float]:
    return {key: round(statistics.median(run[key] for run in runs), 2) for key in runs[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=["full", "paced", "history", "memory"], action="append")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--deltas", type=int, default=20_000)
    parser.add_argument(
        "--history-deltas",
        type=int,
        default=8_000,
        help="deltas streamed in the history scenario (longer runs are steadier)",
    )
    args = parser.parse_args()
    wanted = args.only or ["full", "paced", "history", "memory"]
    report: dict[str, Any] = {}
    if "full" in wanted:
        deltas = deltas_of(text_of(args.deltas * DELTA_CHARS))[: args.deltas]
        report["full"] = median_of([asyncio.run(run_stream(deltas)) for _ in range(args.runs)])
    if "paced" in wanted:
        text = mixed_markdown(4) + "\n" + long_fence(500) + "\n" + mixed_markdown(2)
        deltas = deltas_of(text, count=max(1, len(text) // 8))
        report["paced"] = median_of([asyncio.run(run_stream(deltas, pace=1000)) for _ in range(args.runs)])
        report["paced"]["ideal_seconds"] = round(len(deltas) / 1000, 2)
    if "history" in wanted:
        deltas = deltas_of(text_of(args.history_deltas * DELTA_CHARS))
        # Alternate the two cases so a busy moment on the machine hits both alike.
        empty_runs, full_runs = [], []
        for _ in range(args.runs):
            empty_runs.append(asyncio.run(run_stream(deltas)))
            full_runs.append(asyncio.run(run_stream(deltas, prior_messages=300)))
        empty, full = median_of(empty_runs), median_of(full_runs)
        report["history"] = {
            "empty": empty,
            "with_300_messages": full,
            "ratio": round(full["deltas_per_s"] / empty["deltas_per_s"], 3),
        }
    if "memory" in wanted:
        report["memory"] = asyncio.run(run_memory(300))
    print(json.dumps(report, indent=2))
    record_headlines(report)


def record_headlines(report: dict[str, Any]) -> None:
    from _common import record

    if "full" in report:
        full = report["full"]
        record("TUI: 20,000 deltas rendered", full["deltas_per_s"], "deltas/s", note="target ≥ 3,000 deltas/s")
        record(
            "TUI: final frame after the last delta",
            full["final_frame_after_last_delta_ms"],
            "ms",
            note="target ≤ 100 ms",
        )
    if "paced" in report:
        record(
            "TUI: longest UI block at 1,000 deltas/s (p99)",
            report["paced"]["p99_block_ms"],
            "ms",
            note="target ≤ 50 ms",
        )
    if "history" in report:
        history = report["history"]
        record(
            "TUI: streaming below 300 messages",
            history["with_300_messages"]["deltas_per_s"],
            "deltas/s",
            ratio=history["ratio"],
            note="vs an empty screen; target within 20 %",
        )
    if "memory" in report:
        memory = report["memory"]
        record(
            "TUI: peak memory after 300 turns",
            memory["peak_rss_mib_after"],
            "MiB",
            ratio=memory["peak_rss_mib_after"] / memory["rss_mib_before"],
            note="vs before the turns",
        )


if __name__ == "__main__":
    main()
