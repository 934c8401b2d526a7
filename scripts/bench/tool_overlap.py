"""Tools overlapping the model's stream: three 1 s tool calls complete early in a message that then streams text
for 2 s. The streaming executor starts each tool at its block's end and runs read-only ones side by side, so the
turn should take about max(stream, tools) = 2 s instead of the sequential stream + 3 × 1 s = 5 s.

The tools are Bash ``sleep 1``: ``sleep`` is on the read-only list, so the calls need no permission and may run
in parallel. For contrast, the same three sleeps followed by ``touch`` (a write, so one at a time, still
overlapping the stream) are timed too.

In process, the real SDK against the fake Messages API. The turn is measured where the model sees it: from the
first request reaching the server to the second one (which carries the tool results). Median of N runs.
Target: within 10 % of the ideal.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from _common import median, record

from agentcli.api.client import Credentials
from agentcli.bootstrap import SessionOptions, build_engine
from agentcli.testing import FakeAnthropicServer, load_scenario
from agentcli.testing.sse import stream_frames

TOOLS = 3
TOOL_S = 1.0
FRAME_DELAY_MS = 50
TEXT_CHUNKS = 23


def _scripted_stream_s(scenario: dict) -> float:
    """How long the fake server takes to send the first turn: one delay between each pair of SSE frames."""
    turn = load_scenario(scenario).turns[0]
    frames = stream_frames(turn, message_id="msg_bench", model="bench", usage={"input_tokens": 1, "output_tokens": 1})
    return (len(frames) - 1) * FRAME_DELAY_MS / 1000


def _scenario(command: str) -> dict:
    tools = [
        {"type": "tool_use", "id": f"toolu_bench{n}", "name": "Bash", "input": {"command": command.format(n=n)}}
        for n in range(TOOLS)
    ]
    text = {"type": "text", "text": "Meanwhile, here is what I am checking and why. " * 6, "chunks": TEXT_CHUNKS}
    return {
        "turns": [
            {"content": [*tools, text], "delay_ms": FRAME_DELAY_MS},
            {"content": [{"type": "text", "text": "done"}]},
        ]
    }


async def _turn(command: str, cwd: Path, mode: str) -> tuple[float, float]:
    """(the turn, the stream alone): seconds from the first request reaching the server to the second request,
    and to the stream's last event reaching agentcli."""
    server = FakeAnthropicServer(_scenario(command)).start()
    options = SessionOptions(cwd=cwd, permission_mode=mode, persist_session=False, include_partial_messages=True)
    engine = build_engine(options, Credentials(api_key="k", base_url=server.base_url))
    stream_end = 0.0
    try:
        async for message in engine.submit_message("go"):
            if message["type"] == "stream_event" and message["event"]["type"] == "message_stop" and not stream_end:
                stream_end = time.monotonic()
            if message["type"] == "result":
                assert not message["is_error"], message
                assert not message["permission_denials"], message["permission_denials"]
        first, second = server.requests[0].time, server.requests[1].time
        return second - first, stream_end - first
    finally:
        aclose = getattr(engine, "aclose", None)
        if aclose is not None:
            await aclose()
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    parallel: list[float] = []
    serial: list[float] = []
    streams: list[float] = []
    read_only, writes = f"sleep {TOOL_S:g}", f"sleep {TOOL_S:g} && touch f{{n}}"
    with tempfile.TemporaryDirectory() as cwd:
        for _ in range(args.runs):
            turn, stream = asyncio.run(_turn(read_only, Path(cwd), "default"))
            parallel.append(turn)
            streams.append(stream)
            serial.append(asyncio.run(_turn(writes, Path(cwd), "bypassPermissions"))[0])
    stream_s = _scripted_stream_s(_scenario(read_only))
    ideal = max(stream_s, TOOL_S)
    summed = stream_s + TOOLS * TOOL_S
    rows = [
        ("ideal: max(stream, tools)", ideal, "the scripted stream; the tools fit inside it"),
        ("sequential: stream + 3 × 1 s", summed, "computed"),
        ("stream alone, as received", median(streams), "measured: the fake server's own pace"),
        ("agentcli, 3 read-only sleeps", median(parallel), "measured; target ≤ 1.10x ideal"),
        ("agentcli, 3 sleeps + touch (writes)", median(serial), "measured; one at a time, still overlapping"),
    ]
    print(
        f"runs: {args.runs}; scripted stream {stream_s:.2f} s ({FRAME_DELAY_MS} ms between SSE frames); "
        f"{TOOLS} tools of {TOOL_S:g} s each; turn = first request to the one carrying the results"
    )
    width = max(len(name) for name, _, _ in rows)
    print(f"{'':{width}}  median       vs ideal  vs sequential  note")
    for name, value, note in rows:
        print(f"{name:{width}}  {value * 1000:8.1f} ms  {value / ideal:7.2f}x  {value / summed:12.2f}x  {note}")
        if note.startswith("measured"):
            record(
                f"turn with {name.removeprefix('agentcli, ')}",
                value * 1000,
                "ms",
                ratio=value / ideal,
                note=f"vs the ideal max(stream, tools); {value / summed:.2f}x the sequential sum",
            )
    print("all runs (read-only): " + ", ".join(f"{v * 1000:.0f}" for v in parallel) + " ms")


if __name__ == "__main__":
    main()
